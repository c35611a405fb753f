"""The audit of an honest simulated game: OK, a summary a player can check."""

from __future__ import annotations

import pytest

from uno_p2p.audit import Status, audit_entries
from uno_p2p.audit.core import LOG_ENDS, LOG_ENDS_WAITING
from uno_p2p.table.memnet import Network
from uno_p2p.wire.envelope import Entry

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("audit_small_game")]


def test_honest_game_is_ok_with_its_summary(small_game: Network,
                                            small_log: tuple[Entry, ...]) -> None:
    report = audit_entries(small_log)
    host_state = small_game.host.state
    assert report.status == Status.OK, report.lines()
    assert report.exit_code == 0
    assert report.violation is None
    assert report.entries == len(small_log)
    assert [p.name for p in report.players] == list(host_state.player_names)
    assert report.players[0].host
    assert not any(p.host for p in report.players[1:])
    assert host_state.engine is not None
    assert report.scores == host_state.engine.scores
    assert report.rounds
    assert report.rounds[-1].scores == report.scores
    assert host_state.engine.winner is not None
    assert report.winner == host_state.player_names[host_state.engine.winner]
    assert max(report.scores) >= 60
    assert any("re-executed" in line for line in report.verified)
    assert report.lines()[0].startswith("OK")


def test_truncated_log_is_unfinished_and_names_who_the_table_waits_for(
        small_log: tuple[Entry, ...]) -> None:
    report = audit_entries(small_log[:20])
    assert report.status == Status.UNFINISHED
    assert report.exit_code == 1
    waiting = ", ".join(report.waiting or ())
    assert report.stopped == (LOG_ENDS_WAITING.format(names=waiting) if waiting else LOG_ENDS)
