"""The hand-over vote's bytes match docs/protocol/table.md §13.2 (the vector there)."""

from __future__ import annotations

import hashlib

from uno_p2p.crypto.identity import Identity
from uno_p2p.table.handover import Vote, decode_vote, vote_digest
from uno_p2p.wire.envelope import Head

TABLE = bytes(range(16))
OLD = Identity(b"\x01" * 32)
NEW = Identity(b"\x02" * 32)
HEAD = Head(5, b"\x03" * 32)
DIGEST = "a875d751ac012c17852d881a11c422ee06b18da87c1349ac52425dcdf91e7101"
SIGNATURE = ("a0a92c24e65526b74e2b59f08967fa11240337aa1247bfa08c3c615af52b4b7d"
             "e98a536a6414d9da97982f1ccd711fcc61cca61ef53a8d1ba5fab72e0f7dde0f")


def test_the_vote_digest_is_the_specified_hash() -> None:
    spelled = hashlib.sha256(b"uno-lan/v1/handover-vote\x00" + TABLE + (1).to_bytes(4, "big")
                             + OLD.peer.key + NEW.peer.key + (5).to_bytes(8, "big")
                             + b"\x03" * 32).hexdigest()
    assert spelled == DIGEST
    assert vote_digest(TABLE, 1, OLD.peer, NEW.peer, HEAD).hex() == DIGEST


def test_the_vote_frame_is_the_specified_array() -> None:
    vote = Vote.sign(NEW, TABLE, 1, OLD.peer, NEW.peer, HEAD)
    assert vote.signature.hex() == SIGNATURE
    expected = (b"\x97\x01\xc4\x20" + OLD.peer.key + b"\xc4\x20" + NEW.peer.key + b"\x05"
                + b"\xc4\x20" + b"\x03" * 32 + b"\xc4\x20" + NEW.peer.key + b"\xc4\x40"
                + bytes.fromhex(SIGNATURE))
    assert vote.encode() == expected
    assert decode_vote(expected, TABLE) == vote
