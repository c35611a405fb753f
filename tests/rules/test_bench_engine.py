"""scripts/bench-engine prints one JSON object with the agreed keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_engine_json_shape() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_engine.py"), "--json", "--games", "1",
         "--budget", "0.5", "--target", "50"],
        capture_output=True, text=True, check=True, cwd=ROOT, timeout=120,
    )
    data = json.loads(out.stdout)
    assert data["games_per_s"] > 0
    assert data["actions_per_s"] > 0
    assert set(data["cells"]) == {"heuristic/official", "heuristic/house", "random/official",
                                  "random/house"}


def test_simulate_engine_runs_every_preset() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "simulate_engine.py"), "--json", "--games", "2",
         "--target", "50"],
        capture_output=True, text=True, check=True, cwd=ROOT, timeout=120,
    )
    data = json.loads(out.stdout)
    assert set(data["presets"]) == {"official", "house", "party", "seeds"}
    assert all(row["games"] == 2 for row in data["presets"].values())
