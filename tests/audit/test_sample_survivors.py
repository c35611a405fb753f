"""What the audit's seed-19 and seed-20 samples of mutants found untested (docs/testing.md).

- verdicts.md §1 stage 1 and §7.1: an author signature or a sequencer
  countersignature that does not verify is a *chain* finding at that entry,
  naming the author (``bad_signature``) or the sequencer
  (``bad_countersignature``), whatever stage the rest of the log reaches.
- verdicts.md §1-§3: an ``aborted`` game (an accusation left unsettled)
  still reports everything the replay established: the public digest after
  every entry (§5), the preset and options as logged (§4), the players in
  seat order; and ``stopped`` says why in sentences: the stop's own words
  (table.md §7.3: who stopped the game, accusing whom), then where.
- verdicts.md §3: the duration is the last clock minus the first (seed 20).
"""

from __future__ import annotations

import re
from dataclasses import replace

from tests.audit.test_fault_codes import CY, FIRST_MOVE, HOST, LOG, START_CLOCK, forge, reveal_of
from tests.audit.test_report_prose import check_players, check_report, sentences
from uno_p2p.audit import Status, audit_entries
from uno_p2p.table.bodies import Abort, Clock
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import OpenTable

AT = 5  # an entry of the lobby, by the host


def _flip(data: bytes) -> bytes:
    return bytes([data[0] ^ 1]) + data[1:]


def _with(entry: Entry) -> list[Entry]:
    return [*LOG[:entry.seq], entry, *LOG[entry.seq + 1:]]


def test_an_author_signature_that_does_not_verify_is_a_chain_finding_naming_the_author(
        ) -> None:
    entry = LOG[AT]
    bad = replace(entry, message=replace(entry.message, signature=_flip(entry.message.signature)))
    log = _with(bad)
    report = audit_entries(log)
    assert report.status == Status.VIOLATION
    finding = report.violation
    assert finding is not None
    assert (finding.stage, finding.code, finding.entry) == ("chain", "bad_signature", AT)
    assert finding.peer is not None
    assert finding.peer.key == entry.author.key
    shown = report.to_json()["violation"]
    assert isinstance(shown, dict)
    assert shown["stage"] == "chain"
    check_report(report, log)


def test_a_countersignature_that_does_not_verify_names_the_sequencer() -> None:
    entry = LOG[AT + 1]
    log = _with(replace(entry, countersignature=_flip(entry.countersignature)))
    report = audit_entries(log)
    finding = report.violation
    assert finding is not None
    assert (finding.stage, finding.code, finding.entry) == ("chain", "bad_countersignature",
                                                            AT + 1)
    assert finding.peer is not None
    assert finding.peer.key == HOST.key
    check_report(report, log)


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
