"""The proof of shuffle (docs/protocol/deck.md §6.4): honest proofs verify, every
tampering the issue lists is refused and names the shuffler."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.crypto.cards import CARD_COUNT, card_point
from uno_p2p.crypto.context import ProofContext
from uno_p2p.crypto.group import InvalidPoint, InvalidScalar, L, Point, Scalar, base_mul
from uno_p2p.crypto.shuffle import (
    WRONG_SIZE,
    Ciphertext,
    ShuffleMessage,
    ShuffleRejected,
    apply_shuffle,
    initial_deck,
    shuffle_context,
)
from uno_p2p.crypto.shuffle_proof import (
    DOES_NOT_VERIFY,
    VERIFIED,
    ShuffleProof,
    generators,
    make_proven_shuffle,
    proof_bytes,
    verify_proven_shuffle,
    verify_shuffle_proof,
)
from uno_p2p.errors import CryptoError, InvalidMessage, ProofRejected

TABLE = b"proof-table"
SHUFFLER = hashlib.sha256(b"the shuffler").digest()
MASTER = hashlib.sha256(b"master seed").digest()
KEY = base_mul(Scalar.of(0xC0FFEE))  # the joint key; its secret is irrelevant here
OTHER_KEY = base_mul(Scalar.of(0xBAD))


@pytest.fixture(autouse=True)
def no_memo() -> Iterator[None]:
    """Every check really runs (the memo would remember the honest statements)."""
    VERIFIED.enabled = False
    yield
    VERIFIED.enabled = True


def context(*, round_number: int = 1, deck: int = 0, peer: bytes = SHUFFLER,
            table: bytes = TABLE, turn: int = 1) -> ProofContext:
    return shuffle_context(table, round_number, deck, peer, turn=turn)


def start(size: int) -> tuple[Ciphertext, ...]:
    """A deck as a second shuffler receives it: ``size`` cards, already masked once."""
    return apply_shuffle(initial_deck(range(size)), hashlib.sha256(b"first").digest(), KEY)


def proven(size: int) -> tuple[tuple[Ciphertext, ...], ShuffleMessage, bytes]:
    previous = start(size)
    message, proof = make_proven_shuffle(previous, shuffle_master=MASTER, round_number=1,
                                         deck=0, joint_key=KEY, context=context())
    return previous, message, proof.to_wire()


def check(previous: tuple[Ciphertext, ...], message: ShuffleMessage, proof: bytes, *,
          at: ProofContext | None = None, key: Point = KEY) -> None:
    verify_proven_shuffle(message, proof, previous, joint_key=key, context=at or context())


def refused(previous: tuple[Ciphertext, ...], message: ShuffleMessage, proof: bytes,
            **kwargs: object) -> CryptoError:
    with pytest.raises(CryptoError) as caught:
        check(previous, message, proof, **kwargs)  # type: ignore[arg-type]
    assert caught.value.peer == SHUFFLER.hex(), "the shuffler is named"
    return caught.value


# -- honest proofs ------------------------------------------------------------------------

@pytest.mark.parametrize("size", [1, 2, 3, 5, 52, CARD_COUNT])
def test_an_honest_proof_verifies(size: int) -> None:
    previous, message, proof = proven(size)
    assert len(proof) == proof_bytes(size) == 128 * size + 160
    check(previous, message, proof)


@settings(max_examples=5, deadline=None)
@given(size=st.integers(min_value=2, max_value=CARD_COUNT), round_number=st.integers(0, 99),
       deck=st.integers(0, 9))
def test_honest_proofs_verify_for_any_deck_size(size: int, round_number: int,
                                                deck: int) -> None:
    previous = initial_deck(range(size))  # a fresh deck: every c1 is the identity
    at = context(round_number=round_number, deck=deck, turn=0)
    message, proof = make_proven_shuffle(previous, shuffle_master=MASTER,
                                         round_number=round_number, deck=deck, joint_key=KEY,
                                         context=at)
    check(previous, message, proof.to_wire(), at=at)


def test_the_108_card_proof_is_under_20_kb() -> None:
    assert proof_bytes(CARD_COUNT) <= 20_000


def test_generators_are_distinct_valid_points_apart_from_g_and_the_cards() -> None:
    points = generators(CARD_COUNT)
    assert len(points) == CARD_COUNT + 1
    encodings = {p.data for p in points} | {card_point(c).data for c in range(CARD_COUNT)}
    encodings.add(base_mul(Scalar(1)).data)
    assert len(encodings) == 2 * CARD_COUNT + 2
    for point in points:
        assert Point.from_wire(point.data, peer=None, item="generator") == point


# -- every tampering is refused, naming the shuffler --------------------------------------

def replace_card(cards: list[Ciphertext], previous: tuple[Ciphertext, ...]) -> None:
    r = Scalar.of(99)
    cards[3] = Ciphertext(base_mul(r), card_point(100) + KEY * r)  # a Wild of one's own


def duplicate_card(cards: list[Ciphertext], previous: tuple[Ciphertext, ...]) -> None:
    r = Scalar.of(7)
    cards[4] = Ciphertext(cards[0].c1 + base_mul(r), cards[0].c2 + KEY * r)  # card 0 again


def swap_two(cards: list[Ciphertext], previous: tuple[Ciphertext, ...]) -> None:
    cards[1], cards[2] = cards[2], cards[1]  # still a permutation, but not the proven one


def substitute_deck(cards: list[Ciphertext], previous: tuple[Ciphertext, ...]) -> None:
    for k in range(len(cards)):  # the attack: a fresh encryption in an order one chose
        r = Scalar.of(500 + k)
        cards[k] = Ciphertext(base_mul(r), card_point(k) + KEY * r)


def wrong_key(cards: list[Ciphertext], previous: tuple[Ciphertext, ...]) -> None:
    cards[:] = apply_shuffle(previous, hashlib.sha256(b"other").digest(), OTHER_KEY)


TAMPERINGS: list[Callable[[list[Ciphertext], tuple[Ciphertext, ...]], None]] = [
    replace_card, duplicate_card, swap_two, substitute_deck, wrong_key]


@pytest.mark.parametrize("tamper", TAMPERINGS)
def test_a_tampered_deck_is_refused(
        tamper: Callable[[list[Ciphertext], tuple[Ciphertext, ...]], None]) -> None:
    previous, message, proof = proven(12)
    cards = list(message.ciphertexts)
    tamper(cards, previous)
    error = refused(previous, ShuffleMessage(tuple(cards)), proof)
    assert isinstance(error, ProofRejected)
    assert error.item == "shuffle proof"


def test_a_deck_re_encrypted_under_a_wrong_key_is_refused_even_with_its_own_proof() -> None:
    previous = start(12)
    message, proof = make_proven_shuffle(previous, shuffle_master=MASTER, round_number=1,
                                         deck=0, joint_key=OTHER_KEY, context=context())
    with pytest.raises(ProofRejected):
        check(previous, message, proof.to_wire(), key=KEY)


def test_a_dropped_card_is_refused() -> None:
    previous, message, proof = proven(12)
    short = ShuffleMessage(message.ciphertexts[:-1])
    assert isinstance(refused(previous, short, proof), ShuffleRejected)
    with pytest.raises(ProofRejected):  # and the proof alone does not cover a short deck
        verify_shuffle_proof(ShuffleProof.from_wire(proof, size=12, peer=None), previous,
                             short.ciphertexts, joint_key=KEY, context=context())


@pytest.mark.parametrize("elsewhere", [
    {"deck": 1}, {"round_number": 2}, {"table": b"another table"},
    {"peer": hashlib.sha256(b"someone else").digest()}, {"turn": 2},
])
def test_a_proof_is_refused_anywhere_but_where_it_was_made(elsewhere: dict[str, object]) -> None:
    previous, message, proof = proven(12)
    at = context(**elsewhere)  # type: ignore[arg-type]
    with pytest.raises(ProofRejected) as caught:
        check(previous, message, proof, at=at)
    assert caught.value.peer == at.peer.hex()


def test_a_proof_for_another_input_deck_is_refused() -> None:
    _, message, proof = proven(12)
    other = apply_shuffle(initial_deck(range(12)), hashlib.sha256(b"x").digest(), KEY)
    refused(other, message, proof)


def scalar_offsets(size: int) -> list[int]:
    """Offsets of every scalar of a proof: e, s_1..s_4, ŝ_i, s'_i."""
    first = 64 * size
    return [first + 32 * k for k in range(5 + 2 * size)]


@pytest.mark.parametrize("which", [0, 1, 4, 5, 5 + 12, 5 + 23])
def test_a_modified_response_is_refused(which: int) -> None:
    previous, message, proof = proven(12)
    offset = scalar_offsets(12)[which]
    value = Scalar.from_wire(proof[offset:offset + 32], peer=None, item="s") + Scalar(1)
    forged = proof[:offset] + value.to_wire() + proof[offset + 32:]
    assert isinstance(refused(previous, message, forged), ProofRejected)


@pytest.mark.parametrize("offset", [0, 32 * 11, 32 * 12, 32 * 23])
def test_a_modified_commitment_is_refused(offset: int) -> None:
    previous, message, proof = proven(12)
    point = Point.from_wire(proof[offset:offset + 32], peer=None, item="c") + base_mul(Scalar(1))
    forged = proof[:offset] + point.data + proof[offset + 32:]
    assert isinstance(refused(previous, message, forged), ProofRejected)


def test_a_missing_proof_is_refused() -> None:
    previous, message, _ = proven(12)
    error = refused(previous, message, b"")
    assert isinstance(error, ShuffleRejected)
    assert "without its proof" in str(error)


@pytest.mark.parametrize("cut", [1, 32, 128])
def test_a_proof_of_the_wrong_length_is_an_invalid_message(cut: int) -> None:
    previous, message, proof = proven(12)
    for wrong in (proof[:-cut], proof + bytes(cut)):
        with pytest.raises(InvalidMessage):
            check(previous, message, wrong)


def test_a_non_canonical_scalar_is_refused_on_decoding() -> None:
    previous, message, proof = proven(12)
    offset = scalar_offsets(12)[3]
    value = Scalar.from_wire(proof[offset:offset + 32], peer=None, item="s").value + L
    forged = proof[:offset] + value.to_bytes(32, "little") + proof[offset + 32:]
    assert isinstance(refused(previous, message, forged), InvalidScalar)


@pytest.mark.parametrize("bad", [bytes(32), b"\x01" + bytes(31),
                                 bytes.fromhex("ec" + "ff" * 30 + "7f")])
def test_an_invalid_or_small_order_point_is_refused_on_decoding(bad: bytes) -> None:
    previous, message, proof = proven(12)
    forged = proof[:32 * 5] + bad + proof[32 * 6:]
    assert isinstance(refused(previous, message, forged), InvalidPoint)


@settings(max_examples=30, deadline=None)
@given(data=st.binary(max_size=2000))
def test_arbitrary_bytes_never_verify_and_never_crash(data: bytes) -> None:
    previous, message, _ = proven(3)
    with pytest.raises((CryptoError, InvalidMessage)):
        check(previous, message, data)


def test_the_memo_keeps_only_successes() -> None:
    previous, message, proof = proven(5)
    VERIFIED.enabled = True
    check(previous, message, proof)
    forged = proof[:-1] + bytes([proof[-1] ^ 1])
    with pytest.raises(CryptoError):
        check(previous, message, forged)
    with pytest.raises(ProofRejected):
        check(previous, message, proof, key=OTHER_KEY)
    assert dataclasses.is_dataclass(ShuffleProof)


def test_a_false_proof_of_shuffle_is_refused_in_a_sentence() -> None:
    previous, message, proof = proven(8)
    cards = list(message.ciphertexts)
    swap_two(cards, previous)
    with pytest.raises(ProofRejected) as caught:
        check(previous, ShuffleMessage(tuple(cards)), proof)
    assert (caught.value.code, caught.value.item) == ("proof_rejected", "shuffle proof")
    assert str(caught.value) == DOES_NOT_VERIFY


def test_a_shuffle_of_the_wrong_size_is_refused_naming_the_shuffle() -> None:
    previous, message, proof = proven(8)
    with pytest.raises(ShuffleRejected) as caught:
        check(previous, ShuffleMessage(message.ciphertexts[:-1]), proof)
    assert caught.value.item == "shuffle"
    assert str(caught.value) == WRONG_SIZE.format(cards=7, deck=8)


def test_a_proof_for_another_deck_size_names_the_shuffler() -> None:
    previous, message, _ = proven(4)
    _, _, small = proven(3)
    with pytest.raises(ProofRejected) as caught:
        verify_shuffle_proof(ShuffleProof.from_wire(small, size=3, peer=None), previous,
                             message.ciphertexts, joint_key=KEY, context=context())
    assert caught.value.peer == SHUFFLER.hex()
    assert caught.value.item == "shuffle proof"
