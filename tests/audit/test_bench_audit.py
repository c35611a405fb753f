"""The audit benchmark runs and prints the JSON shape issue 6 asks for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_audit_json_shape() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_audit.py"), "--json", "--players", "2",
         "--target", "20", "--repeat", "1"],
        capture_output=True, text=True, check=True, timeout=300,
    ).stdout
    result = json.loads(out)
    assert set(result) == {"entries_per_s", "full_game_s"}
    assert 0 < result["full_game_s"] < 60
    assert result["entries_per_s"] > 0
