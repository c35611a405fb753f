"""What a fourth random sample of mutants (seed 19) found untested (docs/testing.md).

deck.md §12: a refusal names the peer and the item; the proof of shuffle's
refusal (§6.4: ``ProofRejected`` naming the shuffler, item ``shuffle
proof``) and a shuffle of the wrong size (``ShuffleRejected``, item
``shuffle``) read as sentences a player can follow. Local misuse is refused
saying what was wrong: a reveal handed in for another seat, a carried card
(§8 step 4) from no earlier deck position, a card id outside 0..107, a
channel seed of another size (verdicts.md §7: ``bad_seed``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from tests.crypto.harness import Table
from tests.crypto.test_shuffle_proof import check, proven, swap_two
from uno_p2p.crypto.audit import verify_deck, verify_game
from uno_p2p.crypto.cards import check_card_id
from uno_p2p.crypto.channel import ChannelKey
from uno_p2p.crypto.identity import Identity
from uno_p2p.crypto.shuffle import ShuffleMessage, ShuffleRejected
from uno_p2p.crypto.shuffle_proof import VERIFIED
from uno_p2p.errors import CryptoError, LocalProtocolError, ProofRejected


@pytest.fixture(autouse=True)
def no_memo() -> Iterator[None]:
    """Every shuffle proof is really checked (the memo remembers honest statements)."""
    VERIFIED.enabled = False
    yield
    VERIFIED.enabled = True


def _shuffled_table() -> Table:
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, range(6))
    table.shuffle()
    return table


def test_a_false_proof_of_shuffle_is_refused_in_a_sentence() -> None:
    previous, message, proof = proven(8)
    cards = list(message.ciphertexts)
    swap_two(cards, previous)
    with pytest.raises(ProofRejected) as caught:
        check(previous, ShuffleMessage(tuple(cards)), proof)
    assert caught.value.item == "shuffle proof"
    assert str(caught.value) == (
        "the shuffle proof does not verify: the deck is not a permutation and re-encryption "
        "of the previous one under the joint key")


def test_a_shuffle_of_the_wrong_size_is_refused_naming_the_shuffle() -> None:
    previous, message, proof = proven(8)
    with pytest.raises(ShuffleRejected) as caught:
        check(previous, ShuffleMessage(message.ciphertexts[:-1]), proof)
    assert caught.value.item == "shuffle"
    assert str(caught.value) == "the shuffle holds 7 cards, the deck 8"


def test_a_reveal_handed_in_for_another_seat_is_refused() -> None:
    table = _shuffled_table()
    reveals = table.reveal_all()
    keys = table.peers[0].keys
    assert verify_game(table.records, keys=keys, reveals=dict(enumerate(reveals)))
    with pytest.raises(LocalProtocolError) as caught:
        verify_deck(table.records[0], keys=keys, reveals={0: reveals[1], 1: reveals[0]})
    assert str(caught.value) == "the reveal given for seat 0 is another peer's"


def test_a_carried_card_from_no_earlier_deck_position_is_refused() -> None:
    table = _shuffled_table()
    reveals = dict(enumerate(table.reveal_all()))
    record = dataclasses.replace(table.records[0], carried=((0, 2),))
    with pytest.raises(LocalProtocolError) as caught:
        verify_deck(record, keys=table.peers[0].keys, reveals=reveals)
    assert str(caught.value) == "no earlier deck position (0, 2)"


@pytest.mark.parametrize("bad", [-1, 108, True, "7"])
def test_a_card_id_outside_0_to_107_is_refused_saying_so(bad: object) -> None:
    assert check_card_id(107) == 107
    with pytest.raises(LocalProtocolError) as caught:
        check_card_id(bad)  # type: ignore[arg-type]
    assert str(caught.value) == f"{bad!r} is not a card id (0..107)"


def test_a_seed_of_another_size_is_refused_in_words() -> None:
    with pytest.raises(CryptoError) as channel:
        ChannelKey(b"\x01" * 31)
    assert str(channel.value) == "a channel key seed must be 32 bytes"
    with pytest.raises(CryptoError) as identity:
        Identity(b"\x01" * 33)
    assert str(identity.value) == "an identity seed must be 32 bytes"
