"""Golden vectors in protocol/vectors/net.json: one handshake with a join code, byte for byte.

Every value comes from public seeds ``SHA-256("uno-lan/sample/" || label)``.
This test rebuilds the file from the seeds and compares, then re-derives the
SPAKE2 key and the session keys by hand (``hashlib``, ``cryptography`` and
PyNaCl directly, not our code path), so the file and docs/protocol/net.md
say the same thing. Regenerate (only after a deliberate protocol change)::

    python -m tests.net.test_net_vectors --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from nacl import bindings

from uno_p2p.crypto.identity import Identity
from uno_p2p.crypto.spake2 import M, N, Spake2, code_scalar
from uno_p2p.net.doors import SOURCE_LOCKED
from uno_p2p.net.handshake import (
    HandshakeFailed,
    HostHandshake,
    JoinerHandshake,
    RecordCipher,
    refusal,
)
from uno_p2p.net.link import LOCKED_OUT, framed

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "net.json"
CODE = "tulip-42"
#: What an address past its wrong join codes reads (net.md §4): 192.0.2.7 is TEST-NET-1.
LOCKED_REASON = SOURCE_LOCKED.format(source="192.0.2.7", seconds=60)
L = 2**252 + 27742317777372353535851937790883648493


def seed(label: str) -> bytes:
    return hashlib.sha256(b"uno-lan/sample/" + label.encode()).digest()


def build() -> dict[str, Any]:
    """The vectors, from the public seeds."""
    host, joiner = Identity(seed("net host identity")), Identity(seed("net joiner identity"))
    table_id = seed("net table id")[:16]
    shake_j = JoinerHandshake(joiner, seed("net joiner ephemeral"), seed("net joiner spake2"), CODE)
    shake_h = HostHandshake(host, table_id, seed("net host ephemeral"), seed("net host spake2"),
                            CODE)
    msg2 = shake_h.answer(shake_j.hello)
    msg3, est_j = shake_j.finish(msg2)
    est_h = shake_h.finish(msg3)
    assert est_h.peer == joiner.peer
    assert est_j.peer == host.peer
    return {
        "comment": "uno-lan link handshake vectors; see docs/protocol/net.md. Hex bytes.",
        "seeds": {k: seed(f"net {k}").hex() for k in (
            "host identity", "joiner identity", "table id", "joiner ephemeral",
            "host ephemeral", "joiner spake2", "host spake2")},
        "join_code": CODE,
        "spake2": {
            "M": M.to_wire().hex(), "N": N.to_wire().hex(),
            "w": code_scalar(CODE).to_wire().hex(),
            "key": Spake2("A", CODE, seed("net joiner spake2")).finish(
                Spake2("B", CODE, seed("net host spake2")).message).hex(),
        },
        "host_key": host.peer.key.hex(), "joiner_key": joiner.peer.key.hex(),
        "table_id": table_id.hex(),
        "message1": shake_j.hello.hex(), "message2": msg2.hex(), "message3": msg3.hex(),
        "transcript": est_j.transcript.hex(),
        "key_joiner_to_host": est_j.send_key.hex(), "key_host_to_joiner": est_j.receive_key.hex(),
        "first_record_joiner_to_host": RecordCipher(est_j.send_key).seal(b"h").hex(),
        "refusal_locked_out": framed(refusal(LOCKED_OUT, LOCKED_REASON)).hex(),
        "refusals": _refusals(shake_j.hello, table_id),
    }


def _refusals(hello: bytes, table_id: bytes) -> list[dict[str, Any]]:
    """What a host answers in clear to a message 1 it refuses (net.md §3): one vector per
    code, each with the host's join code (or none) and the message 1 it read."""
    host = Identity(seed("net host identity"))
    plain = JoinerHandshake(Identity(seed("net joiner identity")), seed("net joiner ephemeral"),
                            seed("net joiner spake2"), None).hello
    assert hello[:2] == b"\x93\x01", "message 1 starts with the array and its version"
    cases = [(CODE, plain), (None, hello), (CODE, b"\x93\x02" + hello[2:]),
             (CODE, hello[:2] + b"\xc4\x1f" + hello[4:35] + hello[36:])]
    vectors = []
    for code, message1 in cases:
        shake = HostHandshake(host, table_id, seed("net host ephemeral"), seed("net host spake2"),
                              code)
        with pytest.raises(HandshakeFailed) as refused:
            shake.answer(message1)
        vectors.append({"host_join_code": code, "message1": message1.hex(),
                        "code": refused.value.code,
                        "refusal": framed(refusal(refused.value.code, str(refused.value))).hex()})
    return vectors


def test_a_locked_out_refusal_by_hand() -> None:
    """net.md §3, §4: an address past its wrong join codes gets, in clear, before any
    handshake, ``u32be(n) || msgpack(["refused", "locked_out", reason])`` (§3.2's length
    in front); the joiner reads its code and reason and stops."""
    v = json.loads(VECTORS.read_text())

    def text(value: str) -> bytes:  # msgpack str: fixstr under 32 bytes, else str 8
        raw = value.encode()
        return (bytes([0xA0 | len(raw)]) if len(raw) < 32 else bytes([0xD9, len(raw)])) + raw

    body = bytes([0x93]) + text("refused") + text("locked_out") + text(LOCKED_REASON)
    assert v["refusal_locked_out"] == (len(body).to_bytes(4, "big") + body).hex()
    with pytest.raises(HandshakeFailed) as refused:
        JoinerHandshake(Identity(seed("net joiner identity")), seed("net joiner ephemeral"),
                        seed("net joiner spake2"), CODE).finish(body)
    assert (refused.value.code, str(refused.value)) == (
        "locked_out", f"the host refused: {LOCKED_REASON}")


def test_each_refusal_of_a_message_1_by_hand() -> None:
    """net.md §3: a message 1 the host cannot take gets ``pack(["refused", code, reason])``
    in clear, with §3.2's length in front: one vector per code, read back by a joiner."""
    v = json.loads(VECTORS.read_text())
    assert [r["code"] for r in v["refusals"]] == [
        "join_code_needed", "join_code_unexpected", "version", "bad_handshake"]
    for vector in v["refusals"]:
        framed_bytes = bytes.fromhex(vector["refusal"])
        body = framed_bytes[4:]
        assert int.from_bytes(framed_bytes[:4], "big") == len(body)
        assert body[0] == 0x93
        assert body[1:9] == b"\xa7refused"
        code = vector["code"].encode()
        assert body[9:10 + len(code)] == bytes([0xA0 | len(code)]) + code
        with pytest.raises(HandshakeFailed) as refused:
            JoinerHandshake(Identity(seed("net joiner identity")), seed("net joiner ephemeral"),
                            seed("net joiner spake2"), CODE).finish(body)
        assert refused.value.code == vector["code"]


def test_vectors_match_the_file() -> None:
    assert json.loads(VECTORS.read_text()) == build()


def _frame(label: str, *parts: bytes) -> bytes:
    chunks = [("uno-lan/net/v1/" + label).encode(), *parts]
    return b"".join(len(c).to_bytes(4, "big") + c for c in chunks)


def test_spake2_key_by_hand() -> None:
    """K = x·(Y - w·N) with libsodium calls straight from the spec (net.md §4)."""
    v = json.loads(VECTORS.read_text())
    m_point = bindings.crypto_core_ed25519_from_uniform(
        hashlib.sha256(b"uno-lan/net/v1/spake2/M").digest())
    assert m_point.hex() == v["spake2"]["M"]
    w = int.from_bytes(hashlib.sha512(_frame("spake2/w", CODE.encode())).digest(), "little") % L
    assert w.to_bytes(32, "little").hex() == v["spake2"]["w"]
    def scalar(label: str) -> bytes:
        digest = hashlib.sha512(_frame("spake2/x", bytes.fromhex(v["seeds"][label]))).digest()
        return (int.from_bytes(digest, "little") % L).to_bytes(32, "little")
    x, y = scalar("joiner spake2"), scalar("host spake2")
    n_point = bytes.fromhex(v["spake2"]["N"])
    wb = w.to_bytes(32, "little")
    big_x = bindings.crypto_core_ed25519_add(
        bindings.crypto_scalarmult_ed25519_base_noclamp(x),
        bindings.crypto_scalarmult_ed25519_noclamp(wb, m_point))
    big_y = bindings.crypto_core_ed25519_add(
        bindings.crypto_scalarmult_ed25519_base_noclamp(y),
        bindings.crypto_scalarmult_ed25519_noclamp(wb, n_point))
    shared = bindings.crypto_scalarmult_ed25519_noclamp(
        x, bindings.crypto_core_ed25519_sub(big_y, bindings.crypto_scalarmult_ed25519_noclamp(
            wb, n_point)))
    key = hashlib.sha256(_frame("spake2/key", big_x, big_y, shared, wb)).digest()
    assert key.hex() == v["spake2"]["key"]


def test_session_keys_by_hand() -> None:
    """HKDF over X25519 || SPAKE2 key, salted with the transcript (net.md §3)."""
    v = json.loads(VECTORS.read_text())
    e_j = X25519PrivateKey.from_private_bytes(bytes.fromhex(v["seeds"]["joiner ephemeral"]))
    e_h = X25519PrivateKey.from_private_bytes(bytes.fromhex(v["seeds"]["host ephemeral"]))
    dh = e_j.exchange(X25519PublicKey.from_public_bytes(e_h.public_key().public_bytes_raw()))
    secret = dh + bytes.fromhex(v["spake2"]["key"])
    okm = HKDF(hashes.SHA256(), 64, bytes.fromhex(v["transcript"]),
               b"uno-lan/net/v1/session").derive(secret)
    assert okm[:32].hex() == v["key_joiner_to_host"]
    assert okm[32:].hex() == v["key_host_to_joiner"]
    record = ChaCha20Poly1305(okm[:32]).encrypt(bytes(12), b"h", None)
    assert record.hex() == v["first_record_joiner_to_host"]


if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        VECTORS.write_text(json.dumps(build(), indent=2, sort_keys=True) + "\n")
