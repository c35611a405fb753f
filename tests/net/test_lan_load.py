"""A busy machine (issue 23): whole games over real processes on 127.0.0.1 while
bounded busy loops keep both cores saturated, and a player at ``nice 19``.

Nothing here is a fault: a slow peer, a loop late by seconds, proofs queued in a
worker are ordinary on a laptop. Each game must finish, every log must audit
``ok`` (every peer's log is the same chain), and nobody may be named: no
violation, no abort, no ``misbehaved`` on any screen. ``scripts/bench-lan
--load N --games G`` measures the same over more games (docs/performance.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.net.processes import Uno, audit, busy_loops, entry_bytes, host_port, logs

#: Two busy loops on two cores: every game process waits for a core at every hop.
LOAD = 2
#: Short whole games: a target reached in one or two rounds keeps the test bounded.
TARGET = 100
#: What the busy loops may last, at most (they are killed when the test ends).
LOAD_S = 900


def all_ok_and_nobody_named(xdg: Path, outputs: list[Path]) -> None:
    games = logs(xdg)
    first = entry_bytes(games[0])
    for path in games:
        assert entry_bytes(path) == first, f"{path.name} differs"
    verdict = json.loads(audit(games[0], xdg).stdout)
    assert verdict["status"] == "ok", verdict
    assert verdict["violation"] is None, verdict
    for out in outputs:
        text = out.read_text(errors="replace")
        assert "misbehaved" not in text, f"{out.name}:\n{text[-3000:]}"
        assert "Audit: OK" in text, f"{out.name}:\n{text[-3000:]}"


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_whole_bot_games_beside_busy_loops_finish_and_audit_ok(tmp_path: Path) -> None:
    with busy_loops(LOAD, LOAD_S):
        for game in range(2):
            xdg, bots = tmp_path / f"data{game}", tmp_path / f"bots{game}"
            host = Uno(["host", "--bots", "3", "--autoplay", "--bind", "127.0.0.1",
                        "--player", "Host", "--option", f"target={TARGET}",
                        "--bot-output", str(bots)], xdg, tmp_path / f"host{game}.out")
            try:
                assert host.wait(600) == 0, host.text()[-3000:]
            finally:
                host.stop()
            assert len(logs(xdg)) == 4
            all_ok_and_nobody_named(xdg, [host.out, *sorted(bots.glob("*.out"))])


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_player_at_nice_19_beside_busy_loops_finishes(tmp_path: Path) -> None:
    xdg = tmp_path / "data"
    with busy_loops(LOAD, LOAD_S):
        host = Uno(["host", "--autoplay", "--player", "Ann", "--players", "3", "--bind",
                    "127.0.0.1", "--option", f"target={TARGET}"], xdg, tmp_path / "Ann.out")
        port = host_port(host)
        slow = Uno(["bot", "--think", "0", "--address", f"127.0.0.1:{port}", "--player",
                    "Yan"], xdg, tmp_path / "Yan.out", nice=19)
        other = Uno(["bot", "--think", "0", "--address", f"127.0.0.1:{port}", "--player",
                     "Zed"], xdg, tmp_path / "Zed.out")
        try:
            for process in (host, slow, other):
                assert process.wait(600) == 0, process.text()[-3000:]
        finally:
            for process in (host, slow, other):
                process.stop()
    assert len(logs(xdg)) == 3
    all_ok_and_nobody_named(xdg, [host.out, slow.out, other.out])
