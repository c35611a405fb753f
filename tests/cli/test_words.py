"""The sentences a player reads from the command line, pinned in one place.

Other tests assert through these constants; this one says what they read,
so that a change of wording is a change of this file (STYLE.md: a player's
sentences are pinned in one words test per words module).
"""

from __future__ import annotations

from uno_p2p.cli import host, lan, names, voice
from uno_p2p.net import link


def test_the_command_line_words() -> None:
    assert voice.NO_SUCH_OPTION.format(option="--adress") == "there is no option --adress"
    assert voice.DID_YOU_MEAN.format(option="--address") == " (did you mean --address?)"
    assert voice.WRONG_ADDRESS_HINT == ("check the address: the host's screen shows the one "
                                        "to join, like --address 192.168.1.20:7777")
    assert names.NO_LOGIN == "Player"
    assert host.CANNOT_LISTEN.format(address="10.9.9.9:0", why="Cannot assign") == (
        "the table cannot listen on 10.9.9.9:0: Cannot assign")
    assert host.CANNOT_LISTEN_HINT == (
        "give --bind an address of this machine (or leave it out: every one) and --port a "
        "free port (or leave it out: any free one)")
    assert voice.OUT_OF_RANGE.format(flag="--bots", low=0, high=9, value=-1) == (
        "--bots must be from 0 to 9, not -1")
    assert voice.TOO_LONG.format(flag="--player", high=32, value=33) == (
        "--player must be 1 to 32 characters, not 33")
    assert lan.LEFT_LOBBY == ("You left the table before its game started: no game was "
                              "played, no log was kept")
    assert lan.LOBBY_CLOSED == ("The table closed before its game started: no game was "
                                "played, no log was kept")


def test_the_words_for_an_address_with_no_table() -> None:
    assert link.UNKNOWN_HOST.format(host="annslaptop") == (
        "no machine called annslaptop was found on the network")
    assert link.NOT_A_TABLE.format(address="127.0.0.1:80") == (
        "something at 127.0.0.1:80 answered, but it is not an uno-lan table")
    assert link.SILENT.format(address="127.0.0.1:80", seconds=5.0) == (
        "something at 127.0.0.1:80 took the connection but said nothing in 5 s")


def test_the_exit_codes_every_help_ends_with() -> None:
    assert voice.EXIT_CODES.splitlines() == [
        "Exit codes (the same in the full screen and in plain text):",
        "  0    done: the game was played, the log holds, the audit found no fault;",
        "       or you left a table's lobby before its game started",
        "  1    a check failed or a game stopped before its end: a rule or proof",
        "       violated, a broken log chain, a player gone, no table at the address",
        "  2    the command could not run: a bad option or value, an unreadable or",
        "       misplaced file, no terminal for the game",
        "  130  interrupted by Ctrl-C (143: stopped by SIGTERM)",
    ]
