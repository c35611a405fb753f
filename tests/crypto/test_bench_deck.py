"""The deck benchmark runs and prints the JSON shape issue 3 asks for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_deck_json_shape() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_deck.py"), "--json", "--players", "2",
         "--budget", "0.05"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    result = json.loads(out)
    row = result["2"]
    for key in ("shuffle_s", "deal_s", "reveal_verify_s"):
        assert 0 < row[key] < 5, key
    assert row["ops"]["shuffle_mul"] == row["ops"]["shuffle_mul_min"]
    assert 0 < result["verify_share_ms"] < 50
