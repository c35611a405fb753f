"""What a seat owes the table (``uno_p2p.table.duties``), read off a recorded state.

table.md §4.3: a private ``RevealRequested(slots, to=k)`` obliges every seat whose
share of a slot is not public, except ``k``, to send ``k`` its shares. Several
reveals may be owed at once (a peek, then a hand passed on); each is judged on
its own, so one a seat does not owe never hides one it does.
"""

from __future__ import annotations

from dataclasses import replace

from tests.audit.test_fault_codes import FIRST_MOVE, LOG
from uno_p2p.crypto.context import PURPOSE_PRIVATE
from uno_p2p.rules.codec import Slot
from uno_p2p.table.duties import Owed, private_shares_owed
from uno_p2p.table.ledger import Ledger
from uno_p2p.table.state import PrivateDue, TablePhase, TableState


def playing_state() -> TableState:
    """The honest 3-seat log's table at its first move: deck 0 shuffled, cards in the
    draw pile whose shares nobody has sent."""
    ledger = Ledger(LOG[0].message.table_id, LOG[0].author)
    for entry in LOG[:FIRST_MOVE]:
        ledger.accept(entry)
    state = ledger.state
    assert state.phase == TablePhase.PLAYING
    return state


def test_each_private_reveal_owed_is_judged_on_its_own() -> None:
    state = playing_state()
    deck = state.decks[-1].number
    pile = [Slot(deck, p) for p in range(108) if Slot(deck, p) not in state.shares][:3]
    assert len(pile) == 3
    assert all(state.slot_ready(s) for s in pile)
    not_mine = PrivateDue(0, (pile[0],), frozenset({2}), "peek")
    mine = PrivateDue(0, (pile[1], pile[2]), frozenset({1, 2}), "seven_zero")
    for privates in ((not_mine, mine), (mine, not_mine)):
        ts = replace(state, privates=privates)
        assert private_shares_owed(ts, 1) == {0: [_to_seat_0(pile[1]), _to_seat_0(pile[2])]}
        # Seat 2 owes both, slot by slot in the order the reveals were asked.
        asked = [s for due in privates for s in due.slots]
        assert private_shares_owed(ts, 2) == {0: [_to_seat_0(s) for s in asked]}


def _to_seat_0(slot: Slot) -> Owed:
    return Owed(slot, PURPOSE_PRIVATE, 0)


def test_a_slot_of_a_deck_not_yet_begun_is_not_ready() -> None:
    """A share may name any shuffle number (bounded only on decoding): a slot of a
    deck the log has not begun is simply not ready, never an error."""
    state = playing_state()
    assert state.slot_ready(Slot(len(state.decks) - 1, 0))
    for shuffle in (len(state.decks), len(state.decks) + 1, -1):
        assert not state.slot_ready(Slot(shuffle, 0))
