"""Refusals and edges a second random sample of mutants found untested (docs/testing.md).

wire.md §6: two channel keys agree on one X25519 secret, and a peer's
channel key of another length is refused saying so. identity: a signature
that does not verify is ``bad_signature`` (verdicts.md §7). deck.md §7: a
share is made only for a context naming its own peer and a position; a
context moved to another position keeps its table, round and deck.
net.md §4: a join code has 1 to 64 bytes, and a SPAKE2 message that is no
group element is refused naming SPAKE2. A scalar out of range is refused
saying why.
"""

from __future__ import annotations

import pytest

from tests.crypto.harness import Table, peer_id
from uno_p2p.crypto.channel import ChannelKey
from uno_p2p.crypto.group import L, Scalar
from uno_p2p.crypto.identity import Identity
from uno_p2p.crypto.shares import make_share
from uno_p2p.crypto.spake2 import MAX_CODE_BYTES, Spake2, code_scalar
from uno_p2p.errors import CryptoError, LocalProtocolError


def test_two_channel_keys_agree_and_a_short_key_is_refused_by_its_length() -> None:
    a, b = ChannelKey(b"\x01" * 32), ChannelKey(b"\x02" * 32)
    assert a.shared_secret(b.public) == b.shared_secret(a.public)
    assert a.shared_secret(b.public) != a.shared_secret(ChannelKey(b"\x03" * 32).public)
    with pytest.raises(CryptoError) as caught:
        a.shared_secret(b.public[:31], peer="p")
    assert "32 bytes" in str(caught.value)


def test_a_signature_that_does_not_verify_is_bad_signature() -> None:
    me = Identity(b"\x05" * 32)
    signature = me.sign(b"hello")
    me.peer.verify(b"hello", signature)
    for bad in (signature[:-1] + bytes([signature[-1] ^ 1]), signature[:63]):
        with pytest.raises(CryptoError) as caught:
            me.peer.verify(b"hello", bad)
        assert caught.value.code == "bad_signature"


def test_a_share_is_made_only_for_its_own_peer_and_a_position() -> None:
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, range(6))
    table.shuffle()
    deck = table.peers[0].deck
    secrets = table.peers[0].secrets
    mine = deck.share_context(2, 0, purpose="open")
    make_share(secrets, deck.ciphertext(2), mine)
    for context in (deck.share_context(2, 1, purpose="open"), mine.at(None, purpose="open",
                                                                       peer=peer_id(0))):
        with pytest.raises(LocalProtocolError):
            make_share(secrets, deck.ciphertext(2), context)
    moved = mine.at(4, purpose="deal", peer=peer_id(1), recipient=peer_id(0))
    assert (moved.table, moved.round, moved.deck) == (mine.table, mine.round, mine.deck)
    assert (moved.position, moved.purpose, moved.peer) == (4, "deal", peer_id(1))


def test_a_join_code_has_one_to_sixty_four_bytes() -> None:
    code_scalar("x" * MAX_CODE_BYTES)
    assert MAX_CODE_BYTES == 64  # net.md §4
    for bad in ("", "   ", "x" * (MAX_CODE_BYTES + 1)):
        with pytest.raises(LocalProtocolError):
            code_scalar(bad)
    with pytest.raises(CryptoError) as caught:
        Spake2("A", "code", b"\x01" * 32).finish(b"\x00" * 31)
    assert "SPAKE2" in str(caught.value)


def test_a_scalar_out_of_range_is_refused_saying_why() -> None:
    with pytest.raises(LocalProtocolError) as caught:
        Scalar(L)
    assert "modulo L" in str(caught.value)
