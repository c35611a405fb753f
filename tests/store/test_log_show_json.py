"""``uno-lan log show --json`` checks the chain too: a forged log never exits 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.audit.test_fault_codes import BOB, CY, HOST
from tests.audit.test_fault_codes import LOG as GAME
from uno_p2p.cli import main
from uno_p2p.store.unolog import GameLog
from uno_p2p.wire.samples import sample_log
from uno_p2p.wire.transcript import Roster, entries_as_json

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


def test_log_show_json_uses_the_wire_field_names() -> None:
    shown = list(entries_as_json(GAME[:12]))
    for entry, row in zip(GAME[:12], shown, strict=True):
        assert row["seq"] == entry.seq
        assert row["prev_hash"] == entry.prev_hash.hex()
        assert row["author"] == entry.author.key.hex()
        assert row["counter"] == entry.message.counter
        assert row["seen"] == entry.message.head.seen
        assert row["seen_hash"] == entry.message.head.hash.hex()
    roster = Roster()
    for entry in GAME[:12]:
        roster.learn(entry)
    assert roster.seats == {HOST.key: 0, BOB.key: 1, CY.key: 2}
    assert shown[-1]["seat"] == roster.seats[GAME[11].author.key]
