"""``uno-lan log show --json`` checks the chain too: a forged log never exits 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uno_p2p.cli import main
from uno_p2p.store.unolog import GameLog
from uno_p2p.wire.samples import sample_log

LOG = sample_log(players=3, turns=2)


def test_json_of_a_broken_chain_lists_entries_then_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.unolog"
    with GameLog.create(path) as log:
        for entry in [*LOG[:6], *LOG[7:]]:
            log.append(entry)
    assert main(["log", "show", str(path), "--json"]) == 1
    captured = capsys.readouterr()
    *records, verdict = [json.loads(line) for line in captured.out.splitlines()]
    assert [r["seq"] for r in records] == [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11]
    # JSON even on failure: the last object says what is wrong (uno-lan log show --help)
    assert verdict["status"] == "broken_chain"
    assert verdict["exit_code"] == 1
    assert verdict["error"].startswith("the chain is broken: entry 7")
    assert "code bad_sequence" in verdict["error"]
    assert captured.err == "", "nothing but JSON with --json"
