"""Rules functions that only other packages' tests reached (mutmut's trace, docs/testing.md).

A mutant runs only its own package's tests, so these had none: the faces
of a requested shuffle (``Slot(shuffle, 0..size-1)`` in the new deck's
order, events.ShuffleRequested) and the two card classes (docs/rules.md
"The cards": the numbers 0-9 of each colour; Wild and Wild Draw Four are
the black cards, ids 100-107 as wire.md §5.3 numbers them).
"""

from __future__ import annotations

from uno_p2p.rules.cards import CARD_COUNT, is_black, is_number
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.engine import deck_faces
from uno_p2p.rules.events import ShuffleRequested

from .harness import card


def test_a_shuffle_deals_its_faces_into_slots_in_order() -> None:
    order = [card("B7"), card("W"), card("R0"), card("G+2")]
    event = ShuffleRequested(3, len(order), (), ())
    assert deck_faces(event, order) == [
        (Slot(3, 0), card("B7")), (Slot(3, 1), card("W")), (Slot(3, 2), card("R0")),
        (Slot(3, 3), card("G+2"))]


def test_black_cards_and_number_cards() -> None:
    assert CARD_COUNT == 108
    black = {c for c in range(CARD_COUNT) if is_black(c)}
    assert black == set(range(100, 108))
    numbers = {c for c in range(CARD_COUNT) if is_number(c)}
    # wire.md §5.3: 25*c + k, k 0 the 0 and 1-18 the numbers 1-9 twice: 19 per colour.
    assert numbers == {25 * c + k for c in range(4) for k in range(19)}
