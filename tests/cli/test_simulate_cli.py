"""``uno-lan simulate``: a whole bot game through the protocol, summary and log."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from uno_p2p.cli import main
from uno_p2p.store.unolog import read_log
from uno_p2p.table.replay import replay

pytestmark = pytest.mark.game


def test_simulate_writes_a_log_an_observer_replays_to_the_same_result(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "game.unolog"
    code = main(["simulate", "--players", "3", "--seed", "cli", "--option", "target=60",
                 "--log", str(log), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    assert summary["ok"]
    assert summary["agreed"]
    assert summary["winner"] in summary["players"]
    assert max(summary["scores"]) >= 60
    entries = read_log(log).entries
    assert len(entries) == summary["entries"]
    result = replay(entries)
    assert result.violation is None
    assert result.ended
    assert result.audit == ""
    assert list(result.scores) == summary["scores"]


def test_simulate_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for _ in range(2):
        assert main(["simulate", "--players", "2", "--seed", "same", "--option", "target=40",
                     "--json"]) == 0
        runs.append(json.loads(capsys.readouterr().out)["log_id"])
    assert runs[0] == runs[1]


def test_simulate_refuses_a_bad_option_in_one_sentence(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--players", "3", "--option", "no_such_rule=1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-lan: there is no option 'no_such_rule'; the options are ")
    assert "stack_draw_two" in err
    assert len(err.splitlines()) == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(("where", "said"), [
    ("folder", "is a folder; give a file name in it, such as "),
    ("taken.unolog", "already exists; choose a new file name"),
    ("no/such/folder/game.unolog", "for --log does not exist; create it first (mkdir -p "),
])
def test_simulate_checks_the_log_path_before_it_plays(
        tmp_path: Path, where: str, said: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "taken.unolog").write_bytes(b"")
    played: list[object] = []
    monkeypatch.setattr("uno_p2p.cli.simulate.seat_table", played.append)
    assert main(["simulate", "--players", "2", "--log", str(tmp_path / where)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-lan: ")
    assert said in err
    assert not played, "no game is played for a log that cannot be written"


def test_simulate_prints_a_readable_summary(capsys: pytest.CaptureFixture[str]) -> None:
    # A game of one round: the summary says the same of it.
    assert main(["simulate", "--players", "2", "--seed", "txt", "--option", "target=1"]) == 0
    out = capsys.readouterr().out
    assert "Winner:" in out
    assert "every shuffle re-executed" in out


class TerminalErr(io.StringIO):
    """stderr as a terminal would be (progress is drawn only there)."""

    def isatty(self) -> bool:
        return True


def test_simulate_shows_progress_on_a_terminal_only(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    err = TerminalErr()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["simulate", "--players", "2", "--seed", "bar", "--option", "target=30"]) == 0
    drawn = err.getvalue()
    assert "\rplaying: keys and the first shuffle, " in drawn
    assert re.search(r"\rplaying: round 1, \d+ log entries…", drawn)
    assert drawn.endswith("\r"), "the progress line is cleared before the summary"
    assert "Winner:" in capsys.readouterr().out
    monkeypatch.undo()
    assert main(["simulate", "--players", "2", "--seed", "bar", "--option", "target=30"]) == 0
    assert "playing:" not in capsys.readouterr().err, "no progress when stderr is not a terminal"
