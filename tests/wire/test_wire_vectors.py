"""Golden vectors in protocol/vectors/wire.json: fixed seeds, expected bytes, hashes, signatures.

A second implementation checks itself against that file. This test rebuilds
every vector from the seeds and compares, and also re-derives hashes and
signatures by hand with ``hashlib`` and ``cryptography`` (not our code path),
so the file and the spec in docs/protocol/wire.md say the same thing.

The file is frozen: no test writes it, and ``--write`` refuses while the code
still speaks the protocol version the file was made for (the genesis hash,
which hashes the ``uno-lan/v1/`` label, is unchanged). Changing these bytes
is a new protocol version: change the labels in ``uno_p2p.wire.envelope``,
say what changed in docs/protocol/wire.md, then::

    python -m tests.wire.test_wire_vectors --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from uno_p2p.crypto.channel import open_sealed
from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.chain import verify_chain
from uno_p2p.wire.codec import pack, unpack
from uno_p2p.wire.envelope import Entry, genesis_hash
from uno_p2p.wire.private import Sealed, private_context
from uno_p2p.wire.samples import SamplePeer, SampleTable, sample_play, sample_seed

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "wire.json"

NON_CANONICAL = {
    "uint8 form of 1": "cc01",
    "int8 form of 5": "d005",
    "str8 form of a 1-byte string": "d90161",
    "bin16 form of 1 byte": "c5000100",
    "array16 form of 1 element": "dc000101",
    "float32 1.0": "ca3f800000",
    "float64 1.5": "cb3ff8000000000000",
    "map": "81a16101",
    "map with duplicate keys": "82a16101a16102",
    "ext type": "d40100",
    "invalid UTF-8 string": "a2fffe",
    "trailing byte": "0102",
    "truncated array": "9201",
}


def build() -> dict[str, Any]:
    """Every vector, from the public sample seeds."""
    table = SampleTable(3)
    entries = table.lobby()
    entries.append(table.append(1, sample_play(13)))
    entries.append(table.sealed_share(2, 0, position=4))
    entries.append(table.append(2, sample_play(100)))
    return {
        "comment": "uno-lan wire vectors; see docs/protocol/wire.md. All byte strings in hex.",
        "peers": [_peer(index) for index in range(3)],
        "table_id": table.table_id.hex(),
        "genesis_hash": genesis_hash(table.table_id).hex(),
        "entries": [_entry(entry) for entry in entries],
        "non_canonical": NON_CANONICAL,
    }


def _peer(index: int) -> dict[str, str]:
    peer = SamplePeer.make(index)
    return {
        "name": peer.name,
        "identity_seed": sample_seed(f"identity/{peer.name}").hex(),
        "identity_key": peer.identity.peer.key.hex(),
        "fingerprint": peer.identity.peer.fingerprint,
        "channel_seed": sample_seed(f"channel/{peer.name}").hex(),
        "channel_key": peer.channel.public.hex(),
    }


def _entry(entry: Entry) -> dict[str, Any]:
    message = entry.message
    unsigned = message.to_wire()[:-1]
    return {
        "seq": entry.seq,
        "kind": message.kind,
        "unsigned_message": pack(unsigned).hex(),
        "message_digest": message.digest.hex(),
        "signature": message.signature.hex(),
        "message_hash": message.hash.hex(),
        "entry_hash": entry.hash.hex(),
        "countersignature": entry.countersignature.hex(),
        "entry": entry.encode().hex(),
    }


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS.read_text(encoding="utf-8"))
    return data


def test_the_vectors_file_matches_what_the_code_produces() -> None:
    assert load() == build(), "protocol/vectors/wire.json is stale: see this module's docstring"


def _sha256(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def test_hashes_and_signatures_follow_the_spec_by_hand() -> None:
    data = load()
    table_id = bytes.fromhex(data["table_id"])
    keys = {peer["identity_key"] for peer in data["peers"]}
    host = Ed25519PublicKey.from_public_bytes(bytes.fromhex(data["peers"][0]["identity_key"]))
    assert bytes.fromhex(data["genesis_hash"]) == _sha256(b"uno-lan/v1/genesis\x00", table_id)
    prev = bytes.fromhex(data["genesis_hash"])
    for vector in data["entries"]:
        unsigned = bytes.fromhex(vector["unsigned_message"])
        digest = _sha256(b"uno-lan/v1/message\x00", unsigned)
        assert digest.hex() == vector["message_digest"]
        fields = unpack(unsigned)
        assert isinstance(fields, list)
        author = fields[2]
        assert isinstance(author, bytes)
        assert author.hex() in keys
        signature = bytes.fromhex(vector["signature"])
        Ed25519PublicKey.from_public_bytes(author).verify(signature, digest)
        # The signed message is the unsigned array with the signature appended.
        signed = bytes([unsigned[0] + 1]) + unsigned[1:] + b"\xc4\x40" + signature
        message_hash = _sha256(b"uno-lan/v1/message-hash\x00", signed)
        assert message_hash.hex() == vector["message_hash"]
        link = _sha256(b"uno-lan/v1/entry\x00", table_id, vector["seq"].to_bytes(8, "big"),
                       prev, message_hash)
        assert link.hex() == vector["entry_hash"]
        host.verify(bytes.fromhex(vector["countersignature"]), link)
        prev = link


def test_the_vector_entries_decode_and_form_a_valid_chain() -> None:
    entries = [Entry.decode(bytes.fromhex(vector["entry"])) for vector in load()["entries"]]
    verify_chain(entries)


def test_the_sealed_vector_opens_for_its_recipient() -> None:
    data = load()
    vector = next(v for v in data["entries"] if v["kind"] == 16)
    entry = Entry.decode(bytes.fromhex(vector["entry"]))
    sealed = entry.body
    assert isinstance(sealed, Sealed)
    sender, recipient = SamplePeer.make(2), SamplePeer.make(0)
    context = private_context(entry.message.table_id, entry.author, entry.message.counter)
    plaintext = open_sealed(recipient.channel, sender.party, recipient.party, context,
                            sealed.nonce, sealed.ciphertext)
    assert unpack(plaintext) == [33, [[0, 4], *_share_bytes(2, 4)]]


def _share_bytes(author: int, position: int) -> list[bytes]:
    digest = hashlib.sha512(f"share/{author}/{position}".encode()).digest()
    return [digest[:32], digest[:64]]


@pytest.mark.parametrize("label", sorted(NON_CANONICAL))
def test_the_non_canonical_vectors_are_refused(label: str) -> None:
    with pytest.raises(InvalidMessage):
        unpack(bytes.fromhex(load()["non_canonical"][label]))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.wire.test_wire_vectors --write")
    frozen = load()
    if genesis_hash(bytes.fromhex(frozen["table_id"])).hex() == frozen["genesis_hash"]:
        sys.exit(f"{VECTORS} is frozen for this protocol version: a change of these bytes is a "
                 "new protocol version (change the uno-lan/v1/ labels and the spec first)")
    VECTORS.write_text(json.dumps(build(), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {VECTORS}")
