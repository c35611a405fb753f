"""The sentences a player reads from the command line, pinned in one place.

Other tests assert through these constants; this one says what they read,
so that a change of wording is a change of this file (STYLE.md: a player's
sentences are pinned in one words test per words module).
"""

from __future__ import annotations

from uno_p2p.cli import host, lan, names, voice
from uno_p2p.cli import list as listing
from uno_p2p.net import link, lookup, node


def test_the_command_line_words() -> None:
    assert voice.NO_SUCH_OPTION.format(option="--adress") == "there is no option --adress"
    assert voice.error_line("simulate", "--players must be from 2 to 10, not 11.",
                            voice.USAGE_HINT.format(command="uno-lan simulate")) == (
        "uno-lan: --players must be from 2 to 10, not 11; run uno-lan simulate --help for the "
        "usage.")
    assert voice.error_line("audit", "the file is gone") == "uno-lan: the file is gone."
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


def test_the_text_console_lines() -> None:
    # uno-lan host/join --text and bot (cli/lan.py); tests/cli/test_lan_console asserts
    # through these names.
    assert lan.GAME_STARTS.format(players="Ann, Bob") == "The game starts: Ann, Bob."
    assert lan.ROUND_OVER.format(round=2, scores="Ann 0, Bob 31") == (
        "Round 2 over. Scores: Ann 0, Bob 31.")
    assert lan.ROUND_VOID.format(round=3, scores="Ann 0, Bob 31") == (
        "Round 3 is void. Scores: Ann 0, Bob 31.")
    assert lan.MISBEHAVED.format(name="Cy", code="bad_proof", reason="the proof fails") == (
        "! Cy misbehaved (bad_proof): the proof fails")
    assert lan.JOINED.format(name="Cy") == "Cy joined the table."
    assert lan.LEFT_TABLE.format(name="Cy") == "Cy left the table."
    assert lan.SAYS.format(name="Bob", text="thanks!") == "Bob says: thanks!"
    assert lan.REMOVED_LEFT.format(name="Bob", players="Ann, Cy") == (
        "Bob left the table; the game goes on among Ann, Cy.")
    assert lan.REMOVED_VANISHED.format(name="Bob", reason="did not answer in time",
                                       players="Ann, Cy") == (
        "Bob vanished and was removed (did not answer in time); the game goes on among "
        "Ann, Cy.")
    assert lan.NO_REASON == "no reason given"
    assert lan.YOUR_HAND.format(cards="R7 W") == "Your hand: R7 W"
    assert lan.YOUR_TURN.format(choices="[1] draw") == "Your turn. [1] draw"
    assert lan.HOW_TO_TYPE == (
        "Type a move's number, 'hand', 'say' and words to chat, 'start' (host) or 'quit'.")
    assert lan.NOT_NOW.format(error="it is not your turn") == "Not now: it is not your turn"
    assert lan.GAME_STOPPED.format(why="Bob left") == "The game stopped: Bob left."
    assert lan.GAME_OVER.format(winner="Cy", points=512) == "Game over: Cy wins with 512 points."
    assert lan.NO_WINNER.format(why=lan.STOPPED_EARLY) == "Game over, no winner: stopped early."
    assert lan.CLOSED_BEFORE_THE_END == "The table closed before the game ended."
    assert lan.LOG_AT.format(log="games/a.unolog") == "Log: games/a.unolog"
    assert lan.LOG_UNREADABLE.format(error="bad magic") == (
        "Audit: the log cannot be read: bad magic")
    assert lan.AUDIT_SAYS.format(verdict="OK: every shuffle proven") == (
        "Audit: OK: every shuffle proven")


def test_the_words_a_node_stops_with() -> None:
    # net/node.py: a stop names whom the table was waiting for (table.md §14.1), as a fact;
    # tests/net/test_driver asserts through these names.
    waited = node.WAITING_FOR.format(names="Bob")
    assert waited == ", where the table was waiting for Bob"
    assert node.NOBODY_IN_REACH.format(seq=12, waited=waited) == (
        "nobody at the table is in reach any more: the game stopped here after entry 12, "
        "where the table was waiting for Bob")
    assert node.SEQUENCER_GONE.format(seq=12, waited="") == (
        "the sequencer is gone: the game stopped after entry 12")
    assert node.HOST_GONE.format(seq=12, waited=node.WAITING_FOR.format(names=node.YOU)) == (
        "the host is gone: the game stopped after entry 12, where the table was waiting for "
        "you")


def test_the_words_for_a_table_looked_up_by_name() -> None:
    # net/lookup.py; tests/net/test_lookup asserts through these names.
    assert lookup.NOT_FOUND.format(name="Nowhere", whose="", seconds=0.3) == (
        "No table named Nowhere found on the network within 0.3 s: check you're on the same "
        "network, or use --address HOST:PORT.")
    assert lookup.NOT_FOUND.format(
        name="Friday", whose=lookup.WHOSE_HOST.format(fingerprint="0b0b"), seconds=5.0) == (
        "No table named Friday whose host is 0b0b found on the network within 5 s: check "
        "you're on the same network, or use --address HOST:PORT.")
    one = lookup.ONE_OF_THEM.format(table="Friday night", host="alice",
                                    where="127.0.0.1:45123", fingerprint="625f")
    assert one == "'Friday night' by alice at 127.0.0.1:45123, host 625f"
    assert lookup.AMBIGUOUS.format(count=2, name="Friday night", which=f"{one}; {one}") == (
        "2 tables are named Friday night or look like it ('Friday night' by alice at "
        "127.0.0.1:45123, host 625f; 'Friday night' by alice at 127.0.0.1:45123, host 625f): "
        "join one with --fingerprint and its host's fingerprint, or with --address HOST:PORT.")
    assert lookup.OTHER_PROTOCOL.format(table="Attic", theirs=3, ours=2) == (
        "Table Attic speaks table protocol 3 and this uno-lan speaks 2: use the same uno-lan "
        "version as its host.")


def test_the_words_of_uno_lan_list() -> None:
    # cli/list.py; tests/cli/test_list_cli asserts through these names.
    assert listing.TABLES_SEEN.format(count=2, s="s") == "2 tables on the network:"
    assert listing.TABLES_SEEN.format(count=1, s="") == "1 table on the network:"
    notes = f"lobby, official, {listing.CODE_NEEDED}, {listing.CANNOT_JOIN.format(version=3)}"
    assert listing.TABLE_LINE.format(label="Friday night", host="bob", taken=1, seats=4,
                                     notes=notes, where="127.0.0.1:45123",
                                     fingerprint="625f") == (
        "  Friday night: hosted by bob, 1/4 seats taken, lobby, official, join code needed, "
        "protocol 3: cannot join; at 127.0.0.1:45123; host key 625f")
    assert listing.NO_TABLES.format(seconds=0.2) == "No tables found on the network within 0.2 s."
