"""Arbitrary peer input either decodes or raises InvalidMessage / CryptoError: nothing else."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.crypto.harness import fixed_seed, peer_id
from uno_p2p.crypto.group import Point, Scalar, base_mul
from uno_p2p.crypto.keys import (
    KeyAnnouncement,
    PeerSecrets,
    SecretsReveal,
    peer_label,
    verify_key_announcement,
)
from uno_p2p.crypto.proofs import Proof
from uno_p2p.crypto.shares import DecryptionShare
from uno_p2p.crypto.shuffle import Ciphertext, ShuffleMessage
from uno_p2p.errors import CryptoError, InvalidMessage

LEAVES = st.one_of(
    st.binary(max_size=70), st.binary(min_size=32, max_size=32), st.integers(-(2**70), 2**70),
    st.booleans(), st.none(), st.text(max_size=5),
)
WIRE = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=4), max_leaves=12)

DECODERS: dict[str, Callable[[object], object]] = {
    "proof": lambda raw: Proof.from_wire(raw, peer="fuzz", item="p"),
    "key": lambda raw: KeyAnnouncement.from_wire(raw, peer="fuzz"),
    "reveal": lambda raw: SecretsReveal.from_wire(raw, peer="fuzz"),
    "share": lambda raw: DecryptionShare.from_wire(raw, peer="fuzz"),
    "shuffle": lambda raw: ShuffleMessage.from_wire(raw, peer="fuzz"),
    "ciphertext": lambda raw: Ciphertext.from_wire(raw, peer="fuzz", item="c"),
}


@pytest.mark.parametrize("name", sorted(DECODERS))
@settings(max_examples=150, deadline=None)
@given(raw=WIRE)
def test_decoders_raise_only_our_errors(name: str, raw: object) -> None:
    with contextlib.suppress(InvalidMessage, CryptoError):
        DECODERS[name](raw)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_flipped_bit_of_an_announcement_is_refused(data: st.DataObject) -> None:
    wire = PeerSecrets.from_seed(fixed_seed(0), table=b"t", peer=peer_id(0)).announce().to_wire()
    field = data.draw(st.sampled_from([0, 1]))
    original = wire[field]
    assert isinstance(original, bytes)
    raw = bytearray(original)
    raw[data.draw(st.integers(0, len(raw) - 1))] ^= 1 << data.draw(st.integers(0, 7))
    wire[field] = bytes(raw)
    with pytest.raises(CryptoError) as caught:
        decode_and_verify(wire)
    assert caught.value.peer == peer_label(peer_id(0))


def decode_and_verify(wire: list[object]) -> None:
    announcement = KeyAnnouncement.from_wire(wire, peer=peer_label(peer_id(0)))
    verify_key_announcement(announcement, table=b"t", peer=peer_id(0))


def test_round_trips() -> None:
    secrets = PeerSecrets.from_seed(fixed_seed(0), table=b"t", peer=peer_id(0))
    announcement = secrets.announce()
    assert KeyAnnouncement.from_wire(announcement.to_wire(), peer=None) == announcement
    reveal = secrets.reveal()
    assert SecretsReveal.from_wire(reveal.to_wire(), peer=None) == reveal


SCALARS = st.integers(1, 2**252).map(Scalar)
POINTS = SCALARS.map(base_mul)
PROOFS = st.builds(Proof, SCALARS, SCALARS)
CIPHERTEXTS = st.builds(Ciphertext, POINTS, POINTS)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), POINTS, PROOFS)
def test_shares_round_trip(position: int, share: Point, proof: Proof) -> None:
    value = DecryptionShare(position, share, proof)
    assert DecryptionShare.from_wire(value.to_wire(), peer=None) == value


@settings(max_examples=10, deadline=None)
@given(st.lists(CIPHERTEXTS, min_size=1, max_size=6))
def test_shuffles_round_trip(ciphertexts: list[Ciphertext]) -> None:
    value = ShuffleMessage(tuple(ciphertexts))
    assert ShuffleMessage.from_wire(value.to_wire(), peer=None) == value


@settings(max_examples=30, deadline=None)
@given(POINTS, st.binary(min_size=32, max_size=32), PROOFS)
def test_announcements_round_trip(public: Point, commitment: bytes, proof: Proof) -> None:
    value = KeyAnnouncement(public, commitment, proof)
    assert KeyAnnouncement.from_wire(value.to_wire(), peer=None) == value
