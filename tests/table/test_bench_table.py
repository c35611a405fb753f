"""``scripts/bench-table --json`` prints one object keyed by player count.

Its ``--budget`` is wall time: generous here, so that a game to 20 finishes at any
load (the test checks the figures are there, not how fast a busy machine is)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.game

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_table.py"


def test_bench_table_json_has_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_table", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--json", "--players", "2", "--target", "20", "--budget", "900"]) == 0
    result = json.loads(capsys.readouterr().out)
    row = result["2"]
    assert row["game_done"] is True
    # Wall time: positive, never bounded (the suite passes on a busy machine).
    assert row["ready_s"] > 0
    assert 0 < row["cpu_per_move_ms"] < 100
    assert row["bytes_per_move"] > 200
    assert row["game_s"] > 0
