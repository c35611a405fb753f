"""The audit at its edges: an empty log, the report ``replay`` asks for, and a rule named
in a reason that also holds a player's words.

docs/protocol/verdicts.md §2: ``unfinished`` is also a log that "holds no
entry"; §3: ``torn_bytes`` counts the bytes of a torn tail, none for a log
given whole; ``rule`` is the RULES.md rule an engine refusal names. Player
names are free text (wire.md: printable characters), so a name may itself
read "(rule ...)": the rule is the one the table wrote last, never a
player's.
"""

from __future__ import annotations

import pytest

from tests.table.adversaries import PlaysOutOfTurn
from uno_p2p.audit import Status, audit_entries, audit_with_knowledge
from uno_p2p.rules.options import preset
from uno_p2p.table import memnet
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.wire.envelope import Entry

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("audit_small_game")]


def test_a_log_with_no_entry_is_unfinished_with_nothing_in_it() -> None:
    for report in (audit_entries([]), audit_with_knowledge([])[0]):
        assert report.status == Status.UNFINISHED
        assert report.exit_code == 1
        assert report.entries == 0
        assert report.violation is None
        assert report.torn_bytes == 0
        assert report.stopped, "it says why there is no verdict"
        assert report.lines()[0].startswith("UNFINISHED:"), "the first line names the status"
    assert audit_with_knowledge([])[1] is None, "nothing revealed"


def test_the_report_with_the_knowledge_is_the_audits_report(small_game: Network,
                                                            small_log: tuple[Entry, ...]) -> None:
    # ``replay`` asks for the report and the faces together: a log given whole has no torn
    # tail, and the report is the audit's own, cut log or whole.
    for log in (small_log, small_log[:20]):
        report, _ = audit_with_knowledge(log)
        alone = audit_entries(log)
        assert report.torn_bytes == 0
        assert (report.status, report.stopped, report.entries) == (alone.status, alone.stopped,
                                                                   len(log))
    _, knowledge = audit_with_knowledge(small_log)
    assert knowledge is not None
    assert knowledge.decks, "an honest finished game: every deck's faces known"


def _out_of_turn_rule(monkeypatch: pytest.MonkeyPatch, bob: str) -> str | None:
    monkeypatch.setattr(memnet, "NAMES", ("Ann", bob, "Cy"))
    net = seat_table(TableSetup(3, preset("official", ["target=60"]), b"adv"),
                     custom={1: PlaysOutOfTurn})
    net.run(until=game_over)
    report = audit_entries(net.entries())
    assert report.violation is not None
    assert report.violation.code == "illegal_move"
    assert report.players[1].name == bob
    return report.violation.rule


def test_a_name_that_reads_like_a_rule_does_not_change_the_rule(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _out_of_turn_rule(monkeypatch, "Bob")
    assert plain
    tricky = _out_of_turn_rule(monkeypatch, "Bo (rule wild) b")
    assert tricky == plain
