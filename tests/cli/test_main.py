"""The ``uno-lan`` entry point: errors are sentences, never tracebacks."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from uno_p2p import cli
from uno_p2p.cli import names, voice
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
    said = "argument --players: invalid int value: 'many'"  # argparse's own words
    assert done.stderr.splitlines() == [
        voice.error_line("simulate", said, voice.USAGE_HINT.format(command="uno-lan simulate"))]


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


@pytest.mark.parametrize(("argv", "typed", "meant"), [
    (["join", "--adress", "127.0.0.1:7777"], "--adress", "--address"),
    (["join", "--adress=127.0.0.1:7777"], "--adress", "--address"),
    (["host", "--bost", "2"], "--bost", "--bots"),
    (["play", "--sed", "4"], "--sed", "--seed"),
    (["--verison"], "--verison", "--version"),
    (["join", "--name", "Ann"], "--name", "--player"),  # your name is --player everywhere
    (["bot", "--name", "Bot 5"], "--name", "--player"),
])
def test_a_misspelt_option_gets_a_did_you_mean(argv: list[str], typed: str, meant: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == cli.EXIT_USAGE
    (line,) = capsys.readouterr().err.splitlines()
    said = voice.NO_SUCH_OPTION.format(option=typed) + voice.DID_YOU_MEAN.format(option=meant)
    command = " ".join(["uno-lan", *argv[:1]]) if len(argv) > 1 else "uno-lan"
    assert line == voice.error_line(argv[0], said, voice.USAGE_HINT.format(command=command))


def test_an_option_like_no_other_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["join", "--zzzzzz"])
    assert capsys.readouterr().err.startswith(
        f"uno-lan: {voice.NO_SUCH_OPTION.format(option='--zzzzzz')}; run uno-lan join")


@pytest.mark.parametrize(("argv", "said"), [
    (["host", "--bots", "-1"], voice.OUT_OF_RANGE.format(flag="--bots", low=0, high=9,
                                                         value=-1)),
    (["host", "--bots", "10"], voice.OUT_OF_RANGE.format(flag="--bots", low=0, high=9,
                                                         value=10)),
    (["host", "--players", "11"], voice.OUT_OF_RANGE.format(flag="--players", low=2, high=10,
                                                            value=11)),
    (["host", "--player", "x" * 33], voice.TOO_LONG.format(flag="--player", high=32,
                                                           value=33)),
    (["host", "--name", "x" * 64], voice.TOO_LONG.format(flag="--name (the table's)",
                                                         high=63, value=64)),
    (["host", "--port", "70000"], voice.OUT_OF_RANGE.format(flag="--port", low=0,
                                                            high=65535, value=70000)),
    (["host", "--preset", "hous"], "there is no preset 'hous' (did you mean 'house'?)"),
    (["join", "--player", "", "--address", "127.0.0.1:9"],
     voice.TOO_LONG.format(flag="--player", high=32, value=0)),
])
def test_host_and_join_say_the_real_limits(argv: list[str], said: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == cli.EXIT_USAGE
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"uno-lan: {said}"), line


@pytest.mark.parametrize("command", ["host", "join", "bot", "play", "audit"])
def test_every_help_ends_with_the_exit_codes(command: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    assert capsys.readouterr().out.rstrip().endswith(voice.EXIT_CODES)


def test_host_help_states_its_limits_and_cites_the_rules(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["host", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "RULES.md" not in text
    assert "docs/rules.md" in text
    for limit in ("2 to 10 players", "at most 9 are bots", "1 to 32 characters",
                  "the table's 1 to 63", "0 to 10 seconds"):
        assert limit in text, limit


@pytest.mark.parametrize("command", ["play", "host", "join", "bot"])
def test_your_name_is_player_in_every_command(command: str) -> None:
    args = cli.build_parser().parse_args([command, "--player", "Ann"])
    assert args.player == "Ann"


def test_the_default_name_is_the_login(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGNAME", "ann")
    assert names.login_name() == "ann"
    monkeypatch.setenv("LOGNAME", "a" * 40)
    assert names.login_name() == "a" * 32, "cut to the lobby's limit"
    for variable in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(variable, raising=False)
    assert names.login_name() not in ("", "Host")  # the account's name, else NO_LOGIN


def test_an_ambiguous_abbreviation_names_only_the_options_help_shows(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["host", "--bot", "2"])
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("uno-lan: --bot could be --bots or --bot-think; run uno-lan host")
    assert "--bot-output" not in line, "a hidden option stays hidden"
