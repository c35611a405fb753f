"""A whole game over real sockets between real processes (issue 11).

``uno-lan host --bots 3 --autoplay``: the host and three bot peers, each its
own process with its own keys and encrypted link, play to 200 on loopback
(usually several rounds, so round ends and new decks cross the links too).
Every peer's log holds the same entries, and ``uno-lan audit`` passes each.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.net.processes import Uno, audit, entry_bytes, logs


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_host_and_three_bot_processes_play_a_whole_game(tmp_path: Path) -> None:
    xdg, stats = tmp_path / "data", tmp_path / "stats"
    host = Uno(["host", "--bots", "3", "--autoplay", "--bind", "127.0.0.1", "--player", "Ann",
                "--option", "target=100", "--bot-output", str(tmp_path / "bots")], xdg,
               tmp_path / "host.out", env={"UNO_LAN_STATS": str(stats)})
    try:
        assert host.wait(1100) == 0, host.text()[-3000:]
    finally:
        host.stop()
    out = host.text()
    assert "Game over:" in out
    assert "Audit: OK" in out
    games = logs(xdg)
    assert len(games) == 4
    for bot in sorted((tmp_path / "bots").glob("*.out")):
        assert "Audit: OK" in bot.read_text(), bot.read_text()[-2000:]
    first = entry_bytes(games[0])
    for other in games[1:]:
        assert entry_bytes(other) == first, f"{other.name} differs from {games[0].name}"
    for path in games:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        report = audit(path, xdg)
        assert report.returncode == 0, report.stdout
        verdict = json.loads(report.stdout)
        assert verdict["status"] == "ok"
        assert max(verdict["scores"]) >= 100
        assert len(verdict["players"]) == 4
    # What each node measured (``net/stats.py``, read by ``scripts/bench-lan``): every
    # entry of the log accepted, and the objects its imports made frozen before the game
    # (``net/heap.py``), so that no collection during play walks them.
    measured = [json.loads(path.read_text()) for path in sorted(stats.glob("*.json"))]
    assert len(measured) == 4
    for node in measured:
        assert len(node["accepted"]) == len(first), node["name"]
        assert node["gc_frozen"] > 10_000, node["name"]
