"""Known-answer tests of the proof of shuffle: the stored bytes match the code, and a
verifier written again from the spec alone (docs/protocol/deck.md §6.4) accepts them."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from nacl import bindings as na

from tests.crypto.deck_vectors import PATH as DECK_PATH
from tests.crypto.shuffle_vectors import PATH, build_vectors
from tests.crypto.test_vectors import spec_frame, spec_scalar
from uno_p2p.crypto.group import L, Point
from uno_p2p.crypto.shuffle import Ciphertext, ShuffleMessage, shuffle_context
from uno_p2p.crypto.shuffle_proof import VERIFIED, verify_proven_shuffle
from uno_p2p.errors import CryptoError

G = na.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))
IDENTITY = b"\x01" + bytes(31)


@pytest.fixture(scope="module")
def stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PATH.read_text(encoding="utf-8"))
    return data


def test_the_stored_vectors_are_what_the_code_derives(stored: dict[str, Any]) -> None:
    assert build_vectors() == stored


def test_the_small_deck_is_the_second_turn_of_deck_json(stored: dict[str, Any]) -> None:
    deck = json.loads(DECK_PATH.read_text(encoding="utf-8"))
    assert stored["small"]["input"] == deck["shuffle"]["outputs"][0]
    assert stored["joint_key"] == deck["joint_key"]
    assert stored["small"]["output"] == deck["shuffle"]["outputs"][1]


def test_generators_follow_the_spec(stored: dict[str, Any]) -> None:
    for index, expected in [*enumerate(stored["generators_0_to_5"]),
                            (108, stored["generator_108"])]:
        digest = hashlib.sha256(spec_frame("shuffle-proof/generator", index)).digest()
        assert na.crypto_core_ed25519_from_uniform(digest).hex() == expected


# -- a verifier from the spec alone ---------------------------------------------------------

def mul(scalar: int, point: bytes) -> bytes:
    scalar %= L
    if scalar == 0 or point == IDENTITY:
        return IDENTITY
    return na.crypto_scalarmult_ed25519_noclamp(scalar.to_bytes(32, "little"), point)


def add(*points: bytes) -> bytes:
    total = IDENTITY
    for point in points:
        total = na.crypto_core_ed25519_add(total, point)
    return total


def spec_verify(small: dict[str, Any], joint: bytes, table: bytes, gens: list[bytes],
                proof: bytes) -> bool:
    """§6.4.5 step by step, with libsodium and hashlib only."""
    n = len(small["input"])
    ins = [bytes.fromhex(c) for c in small["input"]]
    outs = [bytes.fromhex(c) for c in small["output"]]
    ctx = [table, small["round"], small["deck"], b"shuffle", bytes.fromhex(small["shuffler"]),
           small["turn"], b""]
    points = [proof[32 * k:32 * k + 32] for k in range(2 * n)]
    assert all(na.crypto_core_ed25519_is_valid_point(p) for p in points)
    c, chain = points[:n], points[n:]
    scalars = [int.from_bytes(proof[64 * n + 32 * k:64 * n + 32 * k + 32], "little")
               for k in range(5 + 2 * n)]
    assert all(s < L for s in scalars)
    e, s1, s2, s3, s4 = scalars[:5]
    s_hat, s_out = scalars[5:5 + n], scalars[5 + n:]
    d0 = hashlib.sha256(spec_frame("shuffle-proof/statement", *ctx,
                                   b"shuffle-proof/generator", G, joint, n,
                                   b"".join(ins), b"".join(outs))).digest()
    assert d0.hex() == small["statement_digest"]
    d1 = hashlib.sha256(spec_frame("shuffle-proof/commitments", d0, b"".join(c))).digest()
    u = [spec_scalar("shuffle-proof/u", d1, j) for j in range(n)]
    u_all = 1
    for u_j in u:
        u_all = u_all * u_j % L
    neg_e = L - e
    t1 = add(mul(s1, G), mul(neg_e, add(*c)), mul(neg_e, mul(L - 1, add(*gens[1:]))))
    t2 = add(mul(s2, G), mul(neg_e, chain[-1]), mul(e * u_all, gens[0]))
    t3 = add(mul(s3, G), *(mul(s_out[i], gens[i + 1]) for i in range(n)),
             *(mul(neg_e * u[j], c[j]) for j in range(n)))
    t4a = add(*(mul(s_out[i], outs[i][:32]) for i in range(n)), mul(L - s4, G),
              *(mul(neg_e * u[j], ins[j][:32]) for j in range(n)))
    t4b = add(*(mul(s_out[i], outs[i][32:]) for i in range(n)), mul(L - s4, joint),
              *(mul(neg_e * u[j], ins[j][32:]) for j in range(n)))
    before = [gens[0], *chain[:-1]]
    t_hat = [add(mul(s_hat[i], G), mul(s_out[i], before[i]), mul(neg_e, chain[i]))
             for i in range(n)]
    again = spec_scalar("shuffle-proof/challenge", d1, b"".join(chain), t1, t2, t3, t4a, t4b,
                        b"".join(t_hat))
    return again == e


def test_a_verifier_from_the_spec_accepts_the_stored_proof(stored: dict[str, Any]) -> None:
    small = stored["small"]
    gens = [bytes.fromhex(h) for h in stored["generators_0_to_5"]]
    args = (small, bytes.fromhex(stored["joint_key"]), bytes.fromhex(stored["table"]), gens)
    proof = bytes.fromhex(small["proof"])
    assert len(proof) == 128 * 5 + 160
    assert spec_verify(*args, proof)
    forged = proof[:-1] + bytes([proof[-1] ^ 1])
    assert not spec_verify(*args, forged)


def test_the_package_accepts_the_stored_proof_and_refuses_a_changed_byte(
        stored: dict[str, Any]) -> None:
    small = stored["small"]
    previous = tuple(Ciphertext.from_wire(bytes.fromhex(c), peer=None, item="in")
                     for c in small["input"])
    message = ShuffleMessage.from_wire([bytes.fromhex(c) for c in small["output"]], peer=None)
    joint = Point.from_wire(bytes.fromhex(stored["joint_key"]), peer=None, item="H")
    context = shuffle_context(bytes.fromhex(stored["table"]), small["round"], small["deck"],
                              bytes.fromhex(small["shuffler"]), turn=small["turn"])
    proof = bytes.fromhex(small["proof"])
    VERIFIED.enabled = False
    try:
        verify_proven_shuffle(message, proof, previous, joint_key=joint, context=context)
        for position in (0, 32 * 7, 64 * 5 + 40, len(proof) - 1):
            forged = bytearray(proof)
            forged[position] ^= 0x04
            with pytest.raises(CryptoError):
                verify_proven_shuffle(message, bytes(forged), previous, joint_key=joint,
                                      context=context)
    finally:
        VERIFIED.enabled = True
