"""The proof-of-shuffle benchmark runs, prints the JSON shape issue 9 asks for, and
counts exactly the group operations of the scheme's formula (deck.md §6.4.5)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_shuffle_json_shape_and_operation_counts() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_shuffle.py"), "--json", "--repeat", "1"],
        capture_output=True, text=True, check=True, timeout=300,
    ).stdout
    result = json.loads(out)
    assert set(result) == {"52", "108"}
    for size, row in result.items():
        n = int(size)
        assert row["proof_bytes"] == 128 * n + 160
        assert 0 < row["prove_s"] < 5
        assert 0 < row["verify_s"] < 5
        ops = row["ops"]
        for name in ("prove_mul", "prove_base_mul", "verify_mul", "verify_base_mul",
                     "verify_validate"):
            assert ops[name] == ops[f"{name}_formula"], name
    assert result["108"]["proof_bytes"] <= 20_000
