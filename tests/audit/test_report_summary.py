"""The audit's summary, field by field, against the log's own entries (verdicts.md §3).

Every expected value is read from the log as docs/protocol/verdicts.md §3
words it (``moves``: the ``move`` entries; ``duration_ms``: the last minus the
first ``clock``, null with fewer than two; ``players``: the seats in seat
order; ``options``: as logged; ``table_id``: entry 0's), never from the audit.
"""

from __future__ import annotations

import re

import pytest

from tests.audit.test_fault_codes import CY, FIRST_MOVE, LOG, START_CLOCK, forge, reveal_of
from tests.audit.test_report_prose import check_players, check_report, sentences
from uno_p2p.audit import Status, audit_entries
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Abort, Clock, Move, RevealSecrets
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import Join, OpenTable, Start

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("test_report_summary")]


@pytest.fixture(scope="module")
def clocked() -> tuple[Entry, ...]:
    """A finished 3-player game with a turn timer and a seat nobody plays (its turns time
    out): the log holds clock entries."""
    options = preset("official", ["target=30", "turn_timer=5"])
    net = seat_table(TableSetup(3, options, b"absent", preset="official",
                                bots=("heuristic", "random", None)))  # type: ignore[arg-type]
    net.run(until=game_over, max_steps=300_000)
    return net.entries()


def test_the_summary_says_what_the_log_holds(clocked: tuple[Entry, ...]) -> None:
    report = audit_entries(clocked)
    assert report.status == Status.OK, report.lines()
    opening = clocked[0].body
    assert isinstance(opening, OpenTable)
    assert report.table_id == clocked[0].message.table_id
    assert report.entries == len(clocked)
    assert report.preset == "official"
    assert report.options == opening.options
    assert report.moves == sum(isinstance(e.body, Move) for e in clocked)
    times = [e.body.now_ms for e in clocked if isinstance(e.body, Clock)]
    assert len(times) >= 2, "the seed no longer leads to a wait: pick another"
    assert report.duration_ms == times[-1] - times[0]
    assert report.duration_ms > 0
    # The seats in seat order: the host, then the joiners as they joined (the start).
    start = next(e.body for e in clocked if isinstance(e.body, Start))
    names = {e.author: e.body.name for e in clocked if isinstance(e.body, Join | OpenTable)}
    assert [(p.seat, p.name, p.key, p.host) for p in report.players] == [
        (seat, names[peer], peer.key, seat == 0) for seat, peer in enumerate(start.seats)]
    assert len(report.digests) == len(clocked)
    assert report.handovers == ()
    assert report.removed == ()
    assert report.unverified == ()
    assert report.torn_bytes == 0


def test_a_log_cut_during_the_reveals_says_whose_reveal_is_missing(
        clocked: tuple[Entry, ...]) -> None:
    reveals = [i for i, e in enumerate(clocked) if isinstance(e.body, RevealSecrets)]
    assert len(reveals) == 3
    cut = clocked[:reveals[1]]  # the first seat to reveal did; the other two did not
    report = audit_entries(cut)
    assert report.status == Status.UNFINISHED
    assert report.winner is None, "a winner is named only for ok"
    first = clocked[reveals[0]].author
    start = next(e.body for e in clocked if isinstance(e.body, Start))
    names = {e.author: e.body.name for e in clocked if isinstance(e.body, Join | OpenTable)}
    missing = [names[p] for p in start.seats if p != first]
    said = " ".join(report.unverified)
    assert all(name in said for name in missing), report.unverified
    assert names[first] not in said
    assert report.duration_ms is None or report.duration_ms >= 0


def test_a_log_with_at_most_one_clock_has_no_duration(clocked: tuple[Entry, ...]) -> None:
    first_clock = next(i for i, e in enumerate(clocked) if isinstance(e.body, Clock))
    report = audit_entries(clocked[:first_clock + 1])
    assert report.duration_ms is None
    assert report.moves == sum(isinstance(e.body, Move) for e in clocked[:first_clock + 1])


def _closed_after_an_unproven_accusation() -> list[Entry]:
    """Ann, the host, stops the game accusing Cy without evidence; Ann and Bob reveal;
    Cy never does, and Ann's closing entry names her (table.md §7.3, §8)."""
    log = forge(LOG, FIRST_MOVE, 0, Abort(CY, "unresponsive", "no answer", b""))
    for seat in (0, 1):
        log = forge(log, len(log), seat, reveal_of(seat)[1])
    return forge(log, len(log), 0, Abort(CY, "missing_reveal", "never revealed", b""))


def test_an_aborted_game_still_reports_what_the_replay_established() -> None:
    log = _closed_after_an_unproven_accusation()
    report = audit_entries(log)
    assert report.status == Status.ABORTED
    assert len(report.digests) == len(log), "a public digest after every entry (§5)"
    assert len(set(report.digests)) > 1
    opening = log[0].body
    assert isinstance(opening, OpenTable)
    assert report.preset == opening.preset
    assert report.options, "the options as logged (§4)"
    assert [p.name for p in report.players] == ["Ann", "Bob", "Cy"]
    assert report.scores == (0, 0, 0), "the game stopped in its first round"
    check_players(report, log)
    check_report(report, log)


def test_an_aborted_game_says_why_then_where_in_sentences() -> None:
    log = _closed_after_an_unproven_accusation()
    report = audit_entries(log)
    assert report.status == Status.ABORTED
    sentences(report.stopped)
    why, _, where = report.stopped.partition(". ")
    assert why.startswith("Ann stopped the game"), report.stopped
    assert "Cy" in why
    assert "unresponsive" in why
    assert re.search(rf"\bentry {FIRST_MOVE}\b", where), report.stopped


def test_the_duration_is_the_last_clock_minus_the_first_even_when_the_first_is_not_zero(
        ) -> None:
    """verdicts.md §3: ``duration_ms`` is the last minus the first ``clock``; every log
    in tests/data starts its clock at 0, which hid a sum (seed 20's _duration_4)."""
    log = forge(LOG, START_CLOCK, 0, Clock(1000))
    log = forge(log, len(log), 0, Clock(3500))
    report = audit_entries(log)
    assert report.violation is None
    assert report.duration_ms == 2500
    assert "duration: 2.5 s." in report.lines()[2]
