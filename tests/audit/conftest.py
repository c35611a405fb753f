"""Shared fixtures: one small simulated game, played once per test session."""

from __future__ import annotations

import pytest

from uno_p2p.audit import AuditReport, Knowledge, audit_with_knowledge
from uno_p2p.rules.options import preset
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.wire.envelope import Entry


@pytest.fixture(scope="session")
def small_game() -> Network:
    """A finished 2-player game to 60 points, every peer honest."""
    net = seat_table(TableSetup(2, preset("official", ["target=60"]), b"audit-fixture"))
    net.run(until=game_over)
    return net


@pytest.fixture(scope="session")
def small_log(small_game: Network) -> tuple[Entry, ...]:
    return small_game.entries()


@pytest.fixture(scope="session")
def small_audit(small_log: tuple[Entry, ...]) -> tuple[AuditReport, Knowledge]:
    """The small game's report and revealed faces, computed once (an audit takes seconds)."""
    report, knowledge = audit_with_knowledge(small_log)
    assert knowledge is not None
    return report, knowledge
