"""``uno-lan log show``: a transcript a player can read, JSON for machines, plain errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uno_p2p.cli import main
from uno_p2p.store.unolog import GameLog
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.samples import sample_log

LOG = sample_log(players=3, turns=2)


def write(path: Path, entries: list[Entry]) -> Path:
    with GameLog.create(path) as log:
        for entry in entries:
            log.append(entry)
    return path


def test_show_prints_a_readable_transcript(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "game.unolog", LOG)
    assert main(["log", "show", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: {len(LOG)} entries"
    assert "entry 1, bob: joined as bob" in out
    assert "entry 5, seat 0 (alice): started the game with 3 players: alice, bob, carol" in out
    assert "entry 8, seat 0 (alice): played Red 0" in out
    assert "entry 7, seat 2 (carol): sent a private message to alice (122 bytes)" in out
    assert out[-1].startswith("Chain and signatures hold: 12 entries")


def test_show_json_prints_one_object_per_entry(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "game.unolog", LOG)
    assert main(["log", "show", str(path), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(LOG)
    records = [json.loads(line) for line in lines]
    play = records[8]
    assert play["seq"] == 8
    assert play["kind_name"] == "play"
    assert play["name"] == "alice"
    assert play["seat"] == 0
    assert play["body"] == [[0, 0], 0, None]
    assert play["description"] == "played Red 0"
    assert play["hash"] == LOG[8].hash.hex()
    assert play["author"] == LOG[8].author.key.hex()
    assert records[9]["prev_hash"] == play["hash"]


@pytest.mark.parametrize(
    "content", [None, b"", b"not a log at all\n", b"UNOLOG\r\n\x00\x09\x00\x00"]
)
def test_an_unreadable_file_is_one_sentence_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None
) -> None:
    path = tmp_path / "x.unolog"
    if content is not None:
        path.write_bytes(content)
    assert main(["log", "show", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("uno-lan: ")
    assert "; check the file's name" in captured.err
    assert "Traceback" not in captured.err
    assert main(["log", "show", str(path), "--json"]) == 2
    answer = json.loads(capsys.readouterr().out)
    assert answer["status"] == "unreadable"
    assert answer["exit_code"] == 2


def test_a_broken_chain_is_shown_then_reported(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "game.unolog", [*LOG[:6], *LOG[7:]])
    assert main(["log", "show", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("The chain is broken: entry 7: expected entry number 6")
    assert "code bad_sequence" in out[-1]
    assert main(["log", "show", str(path), "--json"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(LOG)  # the entries read, then what is wrong, all JSON
    last = json.loads(lines[-1])
    assert last["status"] == "broken_chain"
    assert last["error"].startswith("the chain is broken: entry 7")


def test_a_torn_last_entry_is_mentioned(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "game.unolog", LOG)
    path.write_bytes(path.read_bytes()[:-10])
    assert main(["log", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{len(LOG) - 1} entries" in out
    assert "bytes of an unfinished last entry are ignored" in out
