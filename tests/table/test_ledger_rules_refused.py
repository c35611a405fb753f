"""The ledger's rules on the sequencer's clock and on who moves, refused from the
outside (docs/protocol/table.md §3.3 ``clock``: "author is the sequencer; not
earlier than the last"; §5: a move is its author's own seat's, and reveals and
seatings come from the log; verdicts.md §7.2). Each forged entry is signed,
countersigned and chained correctly; every peer and the audit refuse it with
the rule's code, naming its author."""

from __future__ import annotations

import pytest

from tests.table.refusing import Table, accepted_everywhere, forge, refused_everywhere, table_at
from tests.table.test_removal_rules_refused import OPTIONS, a_guests_decision
from uno_p2p.rules.actions import Draw, Reveal, TimeOut
from uno_p2p.table.bodies import Clock, Move

pytestmark = pytest.mark.xdist_group("test_ledger_rules_refused")


@pytest.fixture(scope="module")
def table() -> Table:
    return table_at(3, OPTIONS, b"ledger refused", a_guests_decision, start_ms=60_000)


def test_the_sequencer_keeps_the_clock(table: Table) -> None:
    """The control: Ann's clock at the table clock is taken; Bob's is not his to keep."""
    ann, bob, _ = table.ids
    now = table.host.state.clock_ms
    accepted_everywhere(table, forge(table, ann, Clock(now)))
    assert refused_everywhere(table, forge(table, bob, Clock(now))) == "not_sequencer"


def test_the_clock_never_goes_back(table: Table) -> None:
    ann = table.ids[0]
    now = table.host.state.clock_ms
    assert now > 0
    assert refused_everywhere(table, forge(table, ann, Clock(now - 1))) == "clock_backwards"


def test_only_the_sequencer_times_a_player_out(table: Table) -> None:
    game = table.host.state.engine
    assert game is not None
    waited = game.decider()
    assert waited is not None
    other = table.ids[3 - waited]  # the guest who is not waited for
    entry = forge(table, other, Move(TimeOut(waited)))
    assert refused_everywhere(table, entry) == "not_sequencer"


def test_a_move_is_made_in_its_authors_own_name(table: Table) -> None:
    game = table.host.state.engine
    assert game is not None
    waited = game.decider()
    assert waited is not None
    other = table.ids[3 - waited]
    assert refused_everywhere(table, forge(table, other, Move(Draw(waited)))) == "wrong_seat"


def test_reveals_come_from_the_log_not_from_a_move(table: Table) -> None:
    game = table.host.state.engine
    assert game is not None
    decider = game.decider()
    assert decider is not None
    mover = table.ids[decider]
    assert refused_everywhere(table, forge(table, mover, Move(Reveal(())))) == "not_a_move"
