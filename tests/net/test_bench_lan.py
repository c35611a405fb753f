"""``scripts/bench-lan --load``: how a game's end is judged (issue 23's benchmark).

The judge reads the logs the players wrote: a game finished only when the host
exited 0, four logs were written and every one audits ``ok``; whoever an audit
names is listed. The reference logs under ``tests/data`` say what each audit finds
(``expected.json``).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.game

DATA = Path(__file__).resolve().parents[1] / "data"
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_lan_load", SCRIPTS / "bench_lan_load.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_lan_load", module)
    spec.loader.exec_module(module)
    return module


def copies(tmp_path: Path, name: str, count: int = 4) -> list[Path]:
    paths = [tmp_path / f"{number}-{name}" for number in range(count)]
    for path in paths:
        shutil.copy(DATA / name, path)
    return paths


def test_four_logs_of_a_valid_game_after_a_clean_exit_are_a_finished_game(
        tmp_path: Path) -> None:
    logs = copies(tmp_path, "honest-2p-official.unolog")
    for said in (["Audit: OK"] * 4, ["(no verdict printed)"] * 4):
        game = load_bench().judge(1, 0, 12.0, logs, said)
        assert game.finished, said
        assert game.named == []


def test_a_log_that_names_a_peer_stops_the_game_and_names_it(tmp_path: Path) -> None:
    expected = json.loads((DATA / "expected.json").read_text())["cheat-equivocation.unolog"]
    paths = [*copies(tmp_path, "honest-2p-official.unolog", 3),
             *copies(tmp_path, "cheat-equivocation.unolog", 1)]
    game = load_bench().judge(3, 0, 12.0, paths, ["Audit: OK"] * 3 + ["Audit: VIOLATION"])
    assert not game.finished
    assert game.why == f"audit: {expected['status']}"
    assert game.named == [{"game": 3, "name": expected["peer"], "code": expected["code"],
                           "status": expected["status"]}]


def test_a_game_past_its_time_or_with_a_log_missing_stopped(tmp_path: Path) -> None:
    bench = load_bench()
    logs, ok = copies(tmp_path, "honest-2p-official.unolog"), ["Audit: OK"] * 4
    assert bench.judge(1, None, 600.0, logs, ok).why == "timed out"
    assert bench.judge(1, 1, 60.0, logs, ok).why == "host exited 1"
    assert bench.judge(1, 0, 60.0, logs[:3], ok[:3]).why == "only 3 logs of 4"
    summary = bench.summary(2, 2, [bench.judge(1, 0, 60.0, logs, ok),
                                   bench.judge(2, None, 600.0, logs, ok)])
    assert (summary["load"], summary["games"], summary["finished"], summary["stopped"]) == \
        (2, 2, 1, 1)
    assert summary["named"] == []


def test_four_ok_verdicts_over_different_logs_are_checked_again(tmp_path: Path) -> None:
    expected = json.loads((DATA / "expected.json").read_text())["stopped-leave.unolog"]
    paths = [*copies(tmp_path, "honest-2p-official.unolog", 3),
             *copies(tmp_path, "stopped-leave.unolog", 1)]
    game = load_bench().judge(4, 0, 12.0, paths, ["Audit: OK"] * 4)
    assert not game.finished
    assert game.why == f"audit: {expected['status']}"
