"""Small pieces of the crypto layer that only another package's tests reached.

mutmut's trace showed each with one crypto test or none (docs/testing.md):
the scalar field's subtraction and negation (deck.md §1: arithmetic modulo
L), a proof context moved to another position or prover (§1.3: same table,
round and deck), a holder's own share in its deck (§7: the card opens from
every seat's share, the holder's own included), and the group-operation
counters the benchmarks print.
"""

from __future__ import annotations

import pytest

from tests.crypto.harness import TABLE, Table, peer_id
from uno_p2p.crypto.cards import NOT_A_CARD_ID, check_card_id
from uno_p2p.crypto.context import ProofContext
from uno_p2p.crypto.group import OPS, L, Point, Scalar, base_mul
from uno_p2p.errors import LocalProtocolError


def test_subtraction_and_negation_are_the_field_modulo_l() -> None:
    a, b = Scalar.of(5), Scalar.of(L - 3)
    assert (a - b).value == 8
    assert (b - a).value == L - 8
    assert ((a - b) + b) == a
    assert (a - a) == Scalar(0)
    assert (-a).value == L - 5
    assert (-Scalar(0)) == Scalar(0)
    assert a + (-a) == Scalar(0)
    assert a - b == a + (-b)
    # The group agrees: (a - b)·G = a·G - b·G.
    assert base_mul(a - b) == base_mul(a) - base_mul(b)


def test_a_context_moved_keeps_table_round_and_deck_and_takes_the_rest() -> None:
    mine = ProofContext(TABLE, 3, 7, "open", peer_id(0), 4, b"")
    moved = mine.at(9, purpose="private", peer=peer_id(1), recipient=peer_id(2))
    assert (moved.table, moved.round, moved.deck) == (TABLE, 3, 7)
    assert (moved.purpose, moved.peer, moved.position, moved.recipient) == (
        "private", peer_id(1), 9, peer_id(2))
    assert mine.at(None, purpose="open", peer=peer_id(0)).recipient == b""
    assert mine.at(None, purpose="open", peer=peer_id(0)).position is None


def test_a_holder_opens_a_card_with_its_own_share_added_to_the_deck() -> None:
    table = Table(3)
    table.setup_keys()
    table.new_deck(1, 0, range(9))
    table.shuffle()
    position, holder = 4, 0
    card = table.deal(position, holder)
    deck = table.peers[holder].deck
    assert deck.missing_shares(position) == [holder]
    deck.add_own_share(table.peers[holder].secrets, position)
    assert deck.has_share(position, holder)
    assert deck.missing_shares(position) == []
    assert deck.open_public(position) == card
    other = table.peers[1].deck
    assert other.missing_shares(position) == [holder], "only the holder's deck learned it"


def test_the_counters_count_each_kind_of_operation() -> None:
    OPS.reset()
    assert OPS.snapshot() == {"mul": 0, "base_mul": 0, "add": 0, "validate": 0}
    s = Scalar.of(7)
    g7 = base_mul(s)
    g14 = g7 * Scalar.of(2)
    g21 = g14 + g7
    Point.from_wire(g21.to_wire(), peer=None, item="point")
    assert OPS.snapshot() == {"mul": 1, "base_mul": 1, "add": 1, "validate": 1}
    OPS.reset()
    assert OPS.snapshot() == {"mul": 0, "base_mul": 0, "add": 0, "validate": 0}


@pytest.mark.parametrize("bad", [-1, 108, True, "7"])
def test_a_card_id_outside_0_to_107_is_refused_saying_so(bad: object) -> None:
    assert check_card_id(107) == 107
    with pytest.raises(LocalProtocolError) as caught:
        check_card_id(bad)  # type: ignore[arg-type]
    assert str(caught.value) == NOT_A_CARD_ID.format(card=bad)
