"""Properties of the committed shuffle: cards conserved, permutations uniform, state guarded."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.crypto.harness import Table
from uno_p2p.crypto.audit import verify_game
from uno_p2p.crypto.cards import CARD_COUNT, card_of
from uno_p2p.crypto.context import PURPOSE_DEAL
from uno_p2p.crypto.group import Scalar
from uno_p2p.crypto.shuffle import draw_below, permutation
from uno_p2p.errors import LocalProtocolError


@settings(max_examples=8, deadline=None)
@given(
    st.lists(st.integers(0, CARD_COUNT - 1), min_size=1, max_size=12, unique=True),
    st.integers(2, 4),
    st.binary(min_size=1, max_size=8),
)
def test_any_deck_is_conserved_and_the_audit_agrees_with_decryption(
    card_ids: list[int], n: int, tag: bytes
) -> None:
    table = Table(n, seeds=[hashlib.sha256(tag + bytes([seat])).digest() for seat in range(n)])
    table.setup_keys()
    table.new_deck(3, 2, card_ids)
    table.shuffle()
    joint = Scalar(0)
    for peer in table.peers:
        joint = joint + peer.secrets.key_share
    decrypted = [c.c2 - c.c1 * joint for c in table.peers[0].deck.ciphertexts]
    order = [card_of(point) for point in decrypted]
    assert sorted(order) == sorted(card_ids)
    reveals = dict(enumerate(table.reveal_all()))
    assert list(verify_game(table.records, keys=table.peers[0].keys, reveals=reveals)[0]) == order


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(1, 108))
def test_permutations_are_permutations(seed: bytes, size: int) -> None:
    assert sorted(permutation(seed, size)) == list(range(size))


def test_permutations_look_uniform() -> None:
    """Over 4000 fixed seeds each card lands in each of 4 places about 1000 times."""
    counts = Counter(
        (permutation(hashlib.sha256(b"%d" % i).digest(), 4).index(0)) for i in range(4000)
    )
    assert set(counts) == {0, 1, 2, 3}
    assert all(850 < count < 1150 for count in counts.values()), counts


def test_a_deck_refuses_values_verified_for_another_deck() -> None:
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, range(CARD_COUNT))
    table.shuffle()
    first = table.peers[0].deck
    share = table.peers[1].deck.make_share(table.peers[1].secrets, 0, purpose=PURPOSE_DEAL)
    verified = first.verify_share(share, seat=1, position=0, purpose=PURPOSE_DEAL)
    table.new_deck(1, 1, range(10))
    with pytest.raises(LocalProtocolError):
        table.peers[0].deck.accept_share(verified)
    shuffle, proof = table.peers[0].deck.make_shuffle(table.peers[0].secrets)
    verified_shuffle = table.peers[1].deck.verify_shuffle(shuffle, 0, proof)
    table.peers[1].deck.accept_shuffle(verified_shuffle)
    with pytest.raises(LocalProtocolError):  # seat 1 is next now, not seat 0 again
        table.peers[1].deck.accept_shuffle(verified_shuffle)
    with pytest.raises(LocalProtocolError):
        table.peers[1].deck.verify_shuffle(shuffle, 0, proof)


def test_decks_need_cards_and_distinct_ids() -> None:
    table = Table(2)
    table.setup_keys()
    with pytest.raises(LocalProtocolError):
        table.new_deck(1, 0, [])
    with pytest.raises(LocalProtocolError):
        table.new_deck(1, 0, [5, 5])


def _scripted(values: list[int]) -> Callable[[], int]:
    """Draws that are given (the spec's rule is about the values, not SHA-512); one too
    many raises ``StopIteration``."""
    return iter(values).__next__


@pytest.mark.parametrize("bound", [3, 7, 108])
def test_a_draw_in_the_biased_top_of_the_range_is_drawn_again(bound: int) -> None:
    limit = 2**64 - (2**64 % bound)
    assert draw_below(_scripted([limit - 1]), bound) == (limit - 1) % bound
    assert draw_below(_scripted([limit, 5]), bound) == 5 % bound
    assert draw_below(_scripted([2**64 - 1, limit, 10]), bound) == 10 % bound


@pytest.mark.parametrize("bound", [1, 2, 64])
def test_a_bound_that_divides_2_to_the_64_takes_every_draw(bound: int) -> None:
    assert draw_below(_scripted([2**64 - 1]), bound) == (2**64 - 1) % bound
