"""The ``uno-lan`` entry point: errors are sentences, never tracebacks."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from uno_p2p import cli
from uno_p2p.store.unolog import GameLog
from uno_p2p.wire.samples import sample_log


def test_a_reader_closing_the_pipe_early_is_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "game.unolog"
    with GameLog.create(path) as log:
        for entry in sample_log(players=3, turns=100):
            log.append(entry)
    # ``uno-lan log show FILE | head -1``: the reader leaves after one line.
    shower = subprocess.Popen(
        [sys.executable, "-m", "uno_p2p", "log", "show", str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert shower.stdout is not None
    assert shower.stderr is not None
    first = shower.stdout.readline()
    shower.stdout.close()
    errors = shower.stderr.read().decode()
    assert shower.wait(timeout=60) == 0
    assert first.startswith(str(path).encode())
    assert "Traceback" not in errors


def test_no_command_prints_help_and_exits_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "uno_p2p"], capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 2
    assert "usage: uno-lan" in done.stdout


def test_help_lists_the_exit_codes_and_the_error_format_in_plain_text() -> None:
    done = subprocess.run([sys.executable, "-m", "uno_p2p", "--help"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0
    assert '"uno-lan: what went wrong; what to do next."' in done.stdout
    for code in ("0 ", "1 ", "2 ", "130 "):
        assert f"\n  {code}" in done.stdout
    for command in ("log", "log show", "play", "simulate", "audit", "replay", "list"):
        sub = subprocess.run([sys.executable, "-m", "uno_p2p", *command.split(), "--help"],
                             capture_output=True, text=True, timeout=60, check=False)
        assert sub.returncode == 0
        assert "``" not in sub.stdout, f"{command} --help shows markup"


def test_a_usage_error_speaks_like_every_other_error() -> None:
    done = subprocess.run([sys.executable, "-m", "uno_p2p", "simulate", "--players", "many"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "uno-lan: argument --players: invalid int value: 'many'; "
        "run uno-lan simulate --help for the usage."]


def test_a_bug_is_one_sentence_and_a_crash_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise ValueError("a bug in a sub-command")

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv("UNO_LAN_DEBUG", raising=False)
    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    monkeypatch.setattr(parser, "parse_args",
                        lambda argv: argparse.Namespace(command="list", func=broken))
    assert cli.main(["list"]) == cli.EXIT_FAILURE
    said = capsys.readouterr().err
    assert "Traceback" not in said
    assert said.count("\n") == 1, said
    assert "an internal error stopped it (ValueError: a bug in a sub-command)" in said
    reports = list((tmp_path / "uno-lan" / "crashes").glob("*.txt"))
    assert len(reports) == 1
    assert str(reports[0]) in said
    assert "Traceback" in reports[0].read_text()
    assert 'raise ValueError("a bug in a sub-command")' in reports[0].read_text()
    monkeypatch.setenv("UNO_LAN_DEBUG", "1")
    with pytest.raises(ValueError, match="a bug"):
        cli.main(["list"])
