"""``uno-lan play``: bad values and a missing terminal are one plain sentence."""

from __future__ import annotations

import pytest

from uno_p2p.cli import EXIT_USAGE, build_parser, main
from uno_p2p.cli.play import settings_from


@pytest.mark.parametrize(("args", "said"), [
    (["--players", "1"], "--players must be from 2 to 10, not 1"),
    (["--players", "11"], "--players must be from 2 to 10, not 11"),
    (["--players", "four"], "--players must be a whole number, not 'four'"),
    (["--preset", "wild"], "there is no preset 'wild'; choose one of official, house, party, "
                           "seeds."),
    (["--option", "no_such=1"], "the options are catch_grace_ms, dealer_rule,"),
    (["--option", "stack_draw_to=true"], "did you mean 'stack_draw_two'?"),
    (["--option", "target=lots"], "option 'target' takes a whole number, not 'lots'"),
    (["--option", "jump_in"], "must look like name=value"),
    (["--option", "teams=2", "--players", "5"], "5 players cannot form 2 equal teams"),
    (["--bot-delay", "-1"], "--bot-delay must be from 0 to 10 seconds, not -1"),
    (["--bot-delay", "soon"], "--bot-delay must be a number of seconds, not 'soon'"),
    (["--bot-delay", "nan"], "--bot-delay must be a number of seconds"),
    (["--player", "Bot 2"], "not a bot's name"),
    (["--player", ""], "--player must be 1 to 32 characters, not 0"),
    (["--player", "x" * 33], "--player must be 1 to 32 characters, not 33"),
    (["--name", "Bot 2"], "not a bot's name"),  # the old spelling, unambiguous in play
    (["--seed", "x" * 65], "--seed must be 1 to 64 characters"),
])
def test_bad_values_are_one_sentence_and_exit_2(args: list[str], said: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", *args]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("uno-lan: ")
    assert said in lines[0]
    assert "Traceback" not in captured.err


def test_no_terminal_is_a_plain_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    # Under pytest stdin is not a terminal.
    assert main(["play", "--seed", "1"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("uno-lan: the game needs a terminal")
    assert len(err.splitlines()) == 1


def test_good_values_make_the_settings() -> None:
    args = build_parser().parse_args(
        ["play", "--players", "6", "--preset", "party", "--option", "target=200",
         "--player", "Ann", "--seed", "abc", "--bot-delay", "0.5"])
    settings = settings_from(args)
    assert settings.players == 6
    assert settings.options.seven_zero
    assert settings.options.target == 200
    assert settings.bot_delay == 0.5
    table, seed = settings.table(1)
    assert seed == "abc"
    assert table.names[table.seat] == "Ann"
    assert len(table.names) == 6
    _, seed2 = settings.table(2)
    assert seed2 == "abc-2"


def test_without_a_seed_one_is_drawn() -> None:
    one = settings_from(build_parser().parse_args(["play"]))
    two = settings_from(build_parser().parse_args(["play"]))
    assert one.seed != two.seed
    assert one.players == 4
    assert one.options.describe() == []


def test_play_is_listed_in_help_as_offline_practice(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "play      offline practice: you against bots" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = capsys.readouterr().out
    assert "This is the practice mode" in out
    assert "x challenges a" in out
