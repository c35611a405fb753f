"""``uno-lan replay --text`` line by line (``uno_p2p.audit.text``), against the log.

The module's promise: one line per entry (``entry 41, seat 2 (Cy): ...``),
then what the entry made happen (a round over and who won it, with the
changes and the scores; the game over and its winner; a violation naming
its culprit and code); every hand after each change, face up once the
reveal proves every shuffle, else hidden cards as ``??``, and an empty hand
as ``(none)``; the audit's verdict under the entry it names; and a ``STOP``
line at an entry the table refuses. The expected values come from the log
(its entries, the audit's per-round results and finding), not from the text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from uno_p2p.audit import AuditReport, Knowledge, audit_entries
from uno_p2p.audit.report import Finding
from uno_p2p.audit.text import replay_lines
from uno_p2p.store.unolog import read_log
from uno_p2p.wire.envelope import Entry

pytestmark = pytest.mark.xdist_group("audit_small_game")

DATA = Path(__file__).resolve().parent.parent / "data"


def _lines(log: tuple[Entry, ...], knowledge: Knowledge | None,
           finding: Finding | None = None) -> list[str]:
    return list(replay_lines(log, None if knowledge is None else knowledge.faces, finding))


@pytest.mark.game
def test_one_line_per_entry_in_order(small_log: tuple[Entry, ...],
                                     small_audit: tuple[AuditReport, Knowledge]) -> None:
    lines = _lines(small_log, small_audit[1])
    numbers = [int(m.group(1)) for line in lines if (m := re.match(r"entry (\d+), ", line))]
    assert numbers == list(range(len(small_log)))
    assert not any(line.startswith("STOP") for line in lines)


def test_every_round_and_the_game_end_are_told(small_log: tuple[Entry, ...],
                                               small_audit: tuple[AuditReport, Knowledge]) -> None:
    report, knowledge = small_audit
    assert report.rounds
    lines = _lines(small_log, knowledge)
    for result in report.rounds:
        told = [line for line in lines if f"round {result.number} over" in line]
        assert len(told) == 1, result
        assert f"won by {result.winner}" in told[0]
        assert str(list(result.changes)) in told[0]
        assert str(list(result.scores)) in told[0]
    assert report.winner is not None
    assert sum(f"game over, won by {report.winner}" in line for line in lines) == 1
    assert sum("every shuffle proven" in line for line in lines) == 1


@pytest.mark.game
def test_hands_face_up_with_the_reveal_hidden_without(
        small_log: tuple[Entry, ...], small_audit: tuple[AuditReport, Knowledge]) -> None:
    report, knowledge = small_audit
    players = report.players
    shown = [line for line in _lines(small_log, knowledge) if line.startswith("    | ")]
    hidden = [line for line in _lines(small_log, None) if line.startswith("    | ")]
    assert shown
    assert hidden
    assert all(line.split(": ", 1)[0][6:] in {p.name for p in players} for line in shown)
    assert not any("??" in line for line in shown), "every card known once revealed"
    assert any("??" in line for line in hidden), "the other seat's cards stay hidden"
    # RULES.md: a round is won by the player who plays its last card: an empty hand.
    assert any(line.endswith(": (none)") for line in shown)


def test_the_verdict_is_printed_under_its_entry(small_log: tuple[Entry, ...]) -> None:
    at = 12
    finding = Finding("rules", "illegal_move", at, None, "a test finding")
    lines = _lines(small_log, None, finding)
    marks = [i for i, line in enumerate(lines) if "!! AUDIT" in line]
    assert len(marks) == 1
    assert "a test finding" in lines[marks[0]].lower()
    above = [line for line in lines[:marks[0]] if line.startswith("entry ")]
    assert above[-1].startswith(f"entry {at}, ")


def test_a_violation_the_table_recorded_names_its_culprit() -> None:
    log = tuple(read_log(DATA / "cheat-bad-shuffle.unolog").entries)
    finding = audit_entries(log).violation
    assert finding is not None
    assert finding.peer is not None
    told = [line for line in replay_lines(log) if "VIOLATION" in line]
    assert told
    assert f"by {finding.peer.name} ({finding.code})" in told[0]


def test_a_refused_entry_stops_the_replay_with_its_code() -> None:
    # The sequencer logged an entry it had to refuse (verdicts.md §1, stage 2).
    log = tuple(read_log(DATA / "cheat-card-not-held.unolog").entries)
    finding = audit_entries(log).violation
    assert finding is not None
    assert finding.entry is not None
    lines = list(replay_lines(log))
    assert lines[-1].startswith("STOP: ")
    assert f"(code {finding.code})" in lines[-1]
    entries = [line for line in lines if line.startswith("entry ")]
    assert entries[-1].startswith(f"entry {finding.entry - 1}, "), "it stops before it"
