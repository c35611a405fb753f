"""End to end in real terminals: the networked game in detached tmux sessions.

``uno-lan host`` listens on 127.0.0.1 only (``--bind``), mDNS is off (the suite
sets ``UNO_LAN_MDNS=off``, passed on below), the bots are real peer processes
on loopback links, and every peer keeps its log under a temporary
``XDG_DATA_HOME``. The tests press keys as a player would (``s`` starts, ``d``
draws, ``p`` passes a drawn card) and read the screen with ``capture-pane``.
A turn is seen as done when the news says the player drew (``You drew Red 7.``
on their own screen, ``Ann drew a card.`` on the others': the offline words,
``ui.words``, for RULES.md ``draw``).
Every wait polls until the screen holds still (``Pane.wait_for``: a capture may catch a
frame mid-draw) and gives up after a bound; each game is quit with ``q``, ``y``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socketserver
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.ui.test_terminal import TMUX, Pane
from uno_p2p.cli.lan import LEFT_LOBBY
from uno_p2p.cli.voice import DID_YOU_MEAN, NO_SUCH_OPTION, OUT_OF_RANGE, WRONG_ADDRESS_HINT
from uno_p2p.net.link import NOT_A_TABLE
from uno_p2p.rules.options import NETWORK_TURN_TIMER

ROOT = Path(__file__).resolve().parents[2]
#: Starting peers, keys and the jointly proven shuffle takes a while on a loaded machine.
TABLE_S = 90.0
#: A turn comes back after the bots (turn timer 30 s each at worst, they are quicker).
TURN_S = 75.0
EXIT_S = 60.0
TURNS = 3

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (scripts/test installs it)"),
]


class Sessions:
    """The tmux sessions a test starts; all are killed at the end."""

    def __init__(self, data: Path, status_dir: Path) -> None:
        self.data = data
        self.status_dir = status_dir
        self.panes: list[Pane] = []

    def run(self, command: str, width: int = 120, height: int = 50) -> tuple[Pane, Path]:
        pane = Pane(f"uno-net-{uuid.uuid4().hex[:8]}")
        status = self.status_dir / f"{pane.name}.rc"
        env = f"XDG_DATA_HOME={shlex.quote(str(self.data))} UNO_LAN_MDNS=off"
        line = f"env {env} {command}; echo $? > {shlex.quote(str(status))}; sleep 60"
        pane.tmux("new-session", "-d", "-s", pane.name, "-x", str(width), "-y", str(height),
                  "-c", str(ROOT), line)
        self.panes.append(pane)
        return pane, status


@pytest.fixture
def sessions(tmp_path: Path) -> Iterator[Sessions]:
    made = Sessions(tmp_path / "data", tmp_path)
    yield made
    for pane in made.panes:
        pane.tmux("kill-session", "-t", pane.name)


def uno_lan(args: str) -> str:
    return f"{shlex.quote(sys.executable)} -m uno_p2p {args}"


def lobby_port(pane: Pane) -> int:
    """The port the host's lobby tells others to join at (the host picks a free one
    itself: a port probed free beforehand may be taken by another test meanwhile)."""
    screen = pane.wait_for(lambda s: re.search(r"--address 127\.0\.0\.1:\d+", s) is not None,
                           "the host's join line", TABLE_S)
    found = re.search(r"--address 127\.0\.0\.1:(\d+)", screen)
    assert found is not None
    return int(found.group(1))


def kill_program(pane: Pane, sig: signal.Signals) -> None:
    """Signal the program in a pane (the child of the pane's shell), not the pane."""
    shell = pane.tmux("list-panes", "-t", pane.name, "-F", "#{pane_pid}").strip()
    children = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True,
                              check=False).stdout.split()
    assert children, "the program in the pane is running"
    for pid in children:
        os.kill(int(pid), sig)


def wait_exit(status: Path, timeout: float = EXIT_S) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if status.exists() and status.read_text().strip():
            return int(status.read_text())
        time.sleep(0.2)
    raise AssertionError("the program did not exit")


def draws(screen: str, name: str, me: str = "") -> int:
    """How many times ``name`` drew cards (a draw or a penalty), as the news of ``me``'s
    screen says (``You drew`` there for ``me``'s own draws)."""
    who = "You" if name == me else re.escape(name)
    return len(re.findall(rf"\b{who} drew ", screen))


def first_deal(screen: str) -> bool:
    """The news tells who deals round 1 (``Round 1: Bot 1 deals.``, ``Round 1: You deal.``)."""
    return re.search(r"\bRound 1: .+ deals?\.", screen) is not None


def my_turn(screen: str) -> bool:
    """It is this player's turn and the keys offer a draw (the hand's faces are known)."""
    return re.search(r"\bYour turn\b", screen) is not None and " d draw" in screen


def cards(screen: str, name: str) -> int:
    """The card count on this player's own line (``▶ Ann · 7 cards``)."""
    found = re.search(rf"{re.escape(name)} · (\d+) cards?", screen)
    assert found, f"no hand line for {name}:\n{screen}"
    return int(found.group(1))


def play_a_turn(pane: Pane, name: str) -> str:
    """Wait for this player's turn, draw (``d``: a card, or the penalty owed), then pass
    the drawn card (``p``) once the keys offer it; returns the screen after the draw."""
    screen = pane.wait_for(my_turn, f"{name}'s turn", TURN_S)
    before, drawn = cards(screen, name), draws(screen, name, name)
    pane.keys("d")
    screen = pane.wait_for(lambda s: draws(s, name, name) > drawn, f"{name}'s draw in the news")
    assert cards(screen, name) > before, "the drawn cards are in the hand"
    try:  # RULES.md draw: after drawing a card the player may pass; a penalty ends the turn
        pane.wait_for(lambda s: " p pass" in s, "the pass key", 5.0)
    except AssertionError:
        return screen
    pane.keys("p")
    pane.wait_for(lambda s: " p pass" not in s, f"{name}'s pass")
    return screen


def take_turns(players: dict[str, Pane], turns: int) -> None:
    """Each human plays ``turns`` turns, in whatever order the game gives them (a Skip or a
    Reverse may bring one player's turn twice before the other's)."""
    played = dict.fromkeys(players, 0)
    deadline = time.monotonic() + TURN_S * turns * len(players)
    while min(played.values()) < turns:
        assert time.monotonic() < deadline, f"the turns did not come round: {played}"
        for name, pane in players.items():
            if my_turn(pane.screen()):
                play_a_turn(pane, name)
                played[name] += 1
        time.sleep(0.2)


def quit_game(pane: Pane, status: Path) -> str:
    """``q``, and ``y`` when asked (a stopped game's box quits without asking); returns
    the screen with the question."""
    pane.keys("q")
    screen = pane.wait_for(lambda s: "y quit" in s or "Audit:" in s, "the quit question")
    if "y quit" in screen:
        pane.keys("y")
    return screen


def test_host_with_two_bots_lobby_turns_and_log(sessions: Sessions) -> None:
    pane, status = sessions.run(uno_lan("host --bots 2 --bot-think 0.2 --bind 127.0.0.1 "
                                        "--player Ann"))
    lobby = pane.wait_for(lambda s: "Bot 1" in s and "Bot 2" in s and "press s to start" in s,
                          "both bots in the lobby, ready", TABLE_S)
    assert "host, you" in lobby
    assert f"turn_timer={NETWORK_TURN_TIMER}" in lobby, "network play has a turn timer"
    pane.keys("s")
    table = pane.wait_for(first_deal, "the first deal", TABLE_S)
    assert "Players: ● Ann  ● Bot" in table, "who is connected is shown"
    for _turn in range(TURNS):
        screen = play_a_turn(pane, "Ann")
    assert draws(screen, "Ann", "Ann") >= TURNS - 1  # the news may have scrolled one away
    assert "Bot 1 played" in screen or "Bot 2 played" in screen or "drew" in screen
    quit_game(pane, status)
    assert wait_exit(status) == 1, "a game left early has no winner"
    end = pane.joined()
    assert "Log: " in end
    assert ".unolog" in end, end
    assert "Audit: OK" in end, end
    logs = list((sessions.data / "uno-lan" / "games").glob("*.unolog"))
    assert len(logs) == 3, "the host and both bots each keep their own log"


def test_host_and_joiner_each_play_a_turn(sessions: Sessions) -> None:
    host, host_rc = sessions.run(uno_lan("host --bots 1 --bot-think 0.2 --bind 127.0.0.1 "
                                         "--player Ann"))
    port = lobby_port(host)
    host.wait_for(lambda s: "Bot 1" in s, "the bot in the lobby", TABLE_S)
    guest, guest_rc = sessions.run(uno_lan(f"join --address 127.0.0.1:{port} --player Bob"))
    guest.wait_for(lambda s: "Bob" in s and "you" in s and "Ann" in s, "Bob in the lobby",
                   TABLE_S)
    host.wait_for(lambda s: "Bob" in s and "press s to start" in s, "Bob ready at the host",
                  TABLE_S)
    host.keys("s")
    for pane in (host, guest):
        pane.wait_for(first_deal, "the first deal", TABLE_S)
    take_turns({"Ann": host, "Bob": guest}, 2)
    for pane, me in ((host, "Ann"), (guest, "Bob")):  # each narrates both humans' draws
        seen = pane.wait_for(lambda s, me=me: draws(s, "Ann", me) >= 1  # type: ignore[misc]
                             and draws(s, "Bob", me) >= 1, "both draws in the news")
        assert "Players: ● Ann  ● Bot 1 (bot)  ● Bob" in seen
    # table.md §8: a joiner who leaves is removed, and the others play on; the host's
    # leave stops the game for everyone. Each quit box says which.
    asked = quit_game(guest, guest_rc)
    assert "The others play on without you." in asked
    assert wait_exit(guest_rc) in (0, 1)
    assert "Traceback" not in guest.screen()
    # The void round's scores may cover the news for a moment (table.md §14.2).
    seen = host.wait_for(lambda s: "Bob left the table" in s or "is void" in s,
                         "the host told that Bob left")
    if "Bob left the table" not in seen:
        host.keys("Enter")
        host.wait_for(lambda s: "Bob left the table" in s, "the host's news: Bob left")
    assert "The game stopped" not in host.screen()
    asked = quit_game(host, host_rc)
    assert "This ends the game for everyone." in asked
    assert wait_exit(host_rc) == 1
    assert "Audit: OK" in host.screen()


def test_scripts_play_reaches_the_first_turn(sessions: Sessions) -> None:
    """``scripts/play`` as a newcomer runs it (the worktree's venv is reused)."""
    if not os.access(ROOT / ".venv" / "bin" / "python", os.X_OK):
        pytest.skip("scripts/play needs the project's .venv (scripts/bootstrap.sh)")
    pane, status = sessions.run(
        f"{shlex.quote(str(ROOT / 'scripts' / 'play'))} --bind 127.0.0.1 --player Ann")
    pane.wait_for(lambda s: all(f"Bot {n}" in s for n in (1, 2, 3)) and "press s to start" in s,
                  "three bots in the lobby", TABLE_S)
    pane.keys("s")
    pane.wait_for(first_deal, "the first deal", TABLE_S)
    screen = play_a_turn(pane, "Ann")
    assert re.search(r"Bot [123] ", screen)
    quit_game(pane, status)
    assert wait_exit(status) == 1
    assert "Audit: OK" in pane.screen()


def test_text_flag_keeps_the_plain_console(tmp_path: Path) -> None:
    """``--text`` (and no terminal) is the plain console: it prints the join line."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "UNO_LAN_MDNS": "off"}
    done = subprocess.run([sys.executable, "-m", "uno_p2p", "host", "--text", "--bind",
                           "127.0.0.1", "--player", "Ann"], input="quit\n", text=True,
                          capture_output=True, env=env, timeout=60, check=False, cwd=ROOT)
    assert "is open on port" in done.stdout
    assert f"{LEFT_LOBBY}." in done.stdout, "the same end as in the full screen"
    assert done.returncode == 0
    assert list((tmp_path / "uno-lan" / "games").iterdir()) == [], "no file for a lobby"


#: A whole one-round game (``target=1``): the human plays or draws on every turn.
GAME_S = 300.0
#: How long a pressed key is given to show on the screen before the next look at it
#: (0.25 s made a loaded run read stale screens and press keys that lengthened the game
#: past its 300 s).
STEP_S = 0.5
#: How long the game loop waits between two looks at the screen.
LOOK_S = 0.3


def take_a_step(pane: Pane, screen: str) -> None:
    """One press as a plain player would: close the round's table, name red for a
    Wild, play the card under the cursor (the first playable one), else draw, and
    pass a drawn card that cannot be played."""
    if "Enter: next round" in screen or "Enter: the final scores" in screen:
        pane.keys("Enter")
    elif "Name a colour" in screen:
        pane.keys("r")
    elif my_turn(screen) or " p pass" in screen:
        pane.keys("Enter")
        time.sleep(STEP_S)  # the UI redraws within a frame or two
        after = pane.screen()
        if "Name a colour" in after:
            pane.keys("r")
        elif " p pass" in after:
            pane.keys("p")
        elif my_turn(after):
            pane.keys("d")


def play_until(pane: Pane, done: Callable[[str], bool], what: str) -> str:
    """Play as ``take_a_step`` does until the screen shows ``done``; returns that screen
    once it holds still (``Pane.wait_for``: a capture may catch a frame mid-draw)."""
    deadline = time.monotonic() + GAME_S
    screen = ""
    while time.monotonic() < deadline:
        screen = pane.screen()
        if done(screen):
            return pane.wait_for(done, what)
        take_a_step(pane, screen)
        time.sleep(LOOK_S)
    raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")


def test_a_whole_game_ends_with_the_audit_verdict(sessions: Sessions) -> None:
    pane, status = sessions.run(uno_lan("host --bots 2 --bot-think 0 --bind 127.0.0.1 "
                                        "--player Ann --option target=1"))
    # Both bots, in whatever order they sit down: with one seated and ready the lobby
    # already says "press s to start", and a start pressed as the other joins is refused
    # (it has not said it is ready), which once left this game unstarted.
    pane.wait_for(lambda s: "Bot 1" in s and "Bot 2" in s and "press s to start" in s,
                  "the lobby", TABLE_S)
    pane.keys("s")
    screen = play_until(pane, lambda s: "Game over" in s and "Audit:" in s, "the game's end")
    assert "wins the game" in screen
    assert "Final scores:" in screen
    assert "Audit: OK: the game is valid from the first entry to the final scores." in screen
    assert "uno-lan audit " in screen
    pane.keys("q")
    assert wait_exit(status) == 0, "a finished game with a clean log exits 0"


def test_a_joiner_who_quits_while_reconnecting_leaves_cleanly(sessions: Sessions) -> None:
    # The host vanishes; the joiner keeps reconnecting (give_up_s); its player quits in the
    # meantime. The node is cancelled mid-retry: one clean ending, never a traceback.
    host, _ = sessions.run(uno_lan("host --bind 127.0.0.1 --player Ann"))
    host.wait_for(lambda s: "Ann" in s and "host, you" in s, "the host's lobby", TABLE_S)
    port = lobby_port(host)
    guest, guest_rc = sessions.run(uno_lan(f"join --address 127.0.0.1:{port} --player Bob"))
    guest.wait_for(lambda s: "Bob" in s and "Ann" in s, "Bob in the lobby", TABLE_S)
    kill_program(host, signal.SIGKILL)  # no goodbye: the link just breaks
    guest.wait_for(lambda s: "reconnecting" in s, "the joiner reconnecting", 20.0)
    guest.keys("q")
    guest.wait_for(lambda s: "Leave this table?" in s, "the leave question")
    guest.keys("y")
    assert wait_exit(guest_rc) in (0, 1)
    end = guest.screen()
    assert "Traceback" not in end, end
    assert "Error" not in end, end


def test_leaving_a_lobby_says_so_exits_0_and_keeps_no_file(sessions: Sessions) -> None:
    """Issue 25: a lobby visit read as a finished game ("Audit: OK ... to the final
    scores"), exited 1 in the full screen (0 in text), and left a log behind."""
    host, host_rc = sessions.run(uno_lan("host --bind 127.0.0.1 --player Ann"), 80, 24)
    port = lobby_port(host)
    guest, guest_rc = sessions.run(uno_lan(f"join --address 127.0.0.1:{port} --player Bob"),
                                   80, 24)
    guest.wait_for(lambda s: "Bob" in s and "Ann" in s and "q leave" in s, "Bob in the lobby",
                   TABLE_S)
    games = sessions.data / "uno-lan" / "games"
    assert any("-Bob-" in path.name for path in games.iterdir()), "Bob's seat while seated"
    guest.keys("q")
    guest.wait_for(lambda s: "y: leave" in s, "the leave question")
    guest.keys("y")
    assert wait_exit(guest_rc) == 0
    assert f"{LEFT_LOBBY}." in guest.joined()
    assert "Audit" not in guest.joined()
    host.wait_for(lambda s: "Bob" not in s.split("Rules:")[0], "Bob gone from the seats")
    host.keys("q")
    host.wait_for(lambda s: "y: leave" in s, "the leave question")
    host.keys("y")
    assert wait_exit(host_rc) == 0
    assert f"{LEFT_LOBBY}." in host.joined()
    assert list(games.iterdir()) == [], "no seat and no log for a game that never started"


def test_a_resumed_joiner_comes_back_to_the_full_screen_table(sessions: Sessions) -> None:
    """Issue 25: ``join --resume`` came back in plain text, not the screen it left."""
    host, host_rc = sessions.run(uno_lan("host --bots 1 --bot-think 0.2 --bind 127.0.0.1 "
                                         "--player Ann"), 80, 24)
    port = lobby_port(host)
    host.wait_for(lambda s: "Bot 1" in s, "the bot in the lobby", TABLE_S)
    guest, _ = sessions.run(uno_lan(f"join --address 127.0.0.1:{port} --player Bob"), 80, 24)
    host.wait_for(lambda s: "Bob" in s and "press s to start" in s, "Bob ready", TABLE_S)
    host.keys("s")
    guest.wait_for(first_deal, "the first deal", TABLE_S)
    kill_program(guest, signal.SIGKILL)
    back, back_rc = sessions.run(uno_lan("join --resume --player Bob"), 80, 24)
    table = back.wait_for(lambda s: "Players: " in s and re.search(r"Bob · \d+ cards?", s)
                          is not None, "Bob's table again, full screen", TABLE_S)
    assert "Resuming Bob from" not in table, "not the plain-text console"
    assert "q quit" in table, "the table's key bar"
    quit_game(back, back_rc)
    assert wait_exit(back_rc) in (0, 1)
    quit_game(host, host_rc)
    wait_exit(host_rc)


def box_rows(screen: str, title: str) -> list[str]:
    """The rows of the box called ``title`` on ``screen``, top to bottom edge."""
    lines = screen.splitlines()
    top = next(i for i, line in enumerate(lines) if f"╭─ {title} " in line)
    bottom = next(i for i in range(top, len(lines)) if "╰" in lines[i])
    return lines[top:bottom + 1]


def assert_whole_box(screen: str, title: str) -> None:
    """Every row of the box has both borders, in the same two columns (a cut box has no
    right border, an overdrawn one loses some of either)."""
    rows = box_rows(screen, title)
    box = "\n".join(rows)
    assert "╮" in rows[0], f"the top edge is cut:\n{box}"
    left, right = rows[0].index("╭"), rows[0].index("╮")
    for row in rows[1:-1]:
        assert row[left] == "│", box
        assert row[right:right + 1] == "│", box
    assert rows[-1][left] == "╰", box
    assert rows[-1][right] == "╯", box


def test_the_end_box_is_whole_at_120_by_36_and_80_by_24(sessions: Sessions) -> None:
    """Issue 25: "Game stopped" lost its right border and its reason at 80 and 120
    columns (the log's path is long: the test's temporary data directory)."""
    host, host_rc = sessions.run(uno_lan("host --bind 127.0.0.1 --player Ann"), 120, 36)
    port = lobby_port(host)
    guest, guest_rc = sessions.run(uno_lan(f"join --address 127.0.0.1:{port} --player Bob"),
                                   80, 24)
    host.wait_for(lambda s: "Bob" in s and "press s to start" in s, "Bob ready", TABLE_S)
    host.keys("s")
    for pane in (host, guest):
        pane.wait_for(first_deal, "the first deal", TABLE_S)
    quit_game(guest, guest_rc)
    wait_exit(guest_rc)
    screen = host.wait_for(lambda s: re.search(r"╭─ Game (stopped|over) .*\n(.*\n)*.*╰", s)
                           is not None, "the end box", TABLE_S)
    title = "Game stopped" if "╭─ Game stopped" in screen else "Game over"
    assert len(str(sessions.data)) + 60 > 80, "a log path too long for one row"
    assert_whole_box(screen, title)
    host.tmux("resize-window", "-t", host.name, "-x", "80", "-y", "24")
    small = host.wait_for(lambda s: max(map(len, s.splitlines())) <= 80 and "╰" in s,
                          "the screen redrawn at 80 by 24")
    assert_whole_box(small, title)
    host.keys("q")
    wait_exit(host_rc)


class NotATable:
    """Something else listening on 127.0.0.1 (a web server): it answers a request line
    with ``HTTP/1.0 400``, as the server the issue met on port 80 did."""

    def __init__(self) -> None:
        self.server = socketserver.TCPServer(("127.0.0.1", 0), self.Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            self.request.recv(1024)
            self.request.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_each_error_is_one_sentence_in_a_player_s_words(sessions: Sessions) -> None:
    """Issue 25: "a frame of 1213486160 bytes is over the 1024-byte limit", no "did you
    mean" for --adress, "at most 9 bots" for --bots -1. One pane runs the three in turn."""
    other = NotATable()
    try:
        commands = [f"join --address 127.0.0.1:{other.port} --player Ann",
                    "join --adress 127.0.0.1:7777", "host --bots -1 --bind 127.0.0.1"]
        pane, status = sessions.run("; ".join(uno_lan(c) for c in commands), 120, 36)
        wait_exit(status)
        screen = " ".join(pane.joined().split())
    finally:
        other.close()
    said = [NOT_A_TABLE.format(address=f"127.0.0.1:{other.port}") + f"; {WRONG_ADDRESS_HINT}.",
            NO_SUCH_OPTION.format(option="--adress") + DID_YOU_MEAN.format(option="--address"),
            OUT_OF_RANGE.format(flag="--bots", low=0, high=9, value=-1)]
    for sentence in said:
        assert f"uno-lan: {sentence}" in screen, screen
    assert "Traceback" not in screen
    assert "bytes is over" not in screen


def _log_lines(data: Path, copies: Path) -> list[str]:
    """The longest log kept under ``data`` now (every live peer holds the same entries),
    as ``uno-lan log show`` tells it: the files are copied at once, and read after."""
    copies.mkdir()
    kept = [Path(shutil.copy(log, copies))
            for log in (data / "uno-lan" / "games").glob("*.unolog")]
    shown = [subprocess.run([sys.executable, "-m", "uno_p2p", "log", "show", str(log)],
                            capture_output=True, text=True, timeout=60, check=False,
                            cwd=ROOT).stdout.splitlines() for log in kept]
    return max(shown, key=len)


def _round_rows(screen: str, names: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """Each player's hand points and score change, as the round-over box shows them."""
    rows = {}
    for name in names:
        found = re.search(rf"{re.escape(name)}\s+(\d+)\s+([+-]\d+)\s+-?\d+\s", screen)
        assert found, f"no row for {name}:\n{screen}"
        rows[name] = (int(found.group(1)), int(found.group(2)))
    return rows


#: What every card of the official deck scores together (RULES.md "Scoring": per colour
#: two of each number 1-9 and one 0, 90; six action cards at 20; eight Wilds at 50).
DECK_POINTS = 4 * (2 * sum(range(1, 10)) + 6 * 20) + 8 * 50

#: How long the test looks at a round's scores before closing them: under the pause
#: (ROUND_PAUSE_MS), with room for a loaded machine.
READ_S = 5.0


def test_a_leaver_at_four_and_the_other_three_finish_the_round(sessions: Sessions) -> None:
    """Issue 25, items 1, 3, 4: Bob leaves a four-player table; Ann and two bots play on
    (table.md §8), finish a round whose scores show every hand (RULES.md "Scoring":
    the winner's points are the other hands'), and the next round waits while Ann
    reads them (table.md §6)."""
    # A target no round can reach, so that a next round follows: the whole deck is worth
    # 1,240 points (RULES.md "Scoring"), and a round that left Ann holding most of it
    # once ended the game at 500.
    host, host_rc = sessions.run(uno_lan("host --bots 2 --bot-think 0.2 --bind 127.0.0.1 "
                                         f"--player Ann --option target={DECK_POINTS + 1}"))
    port = lobby_port(host)
    host.wait_for(lambda s: "Bot 2" in s, "both bots in the lobby", TABLE_S)
    guest, guest_rc = sessions.run(uno_lan(f"join --address 127.0.0.1:{port} --player Bob"))
    host.wait_for(lambda s: "Bob" in s and "press s to start" in s, "Bob ready", TABLE_S)
    host.keys("s")
    for pane in (host, guest):
        pane.wait_for(first_deal, "the first deal", TABLE_S)
    asked = quit_game(guest, guest_rc)
    assert "The others play on without you." in asked
    assert wait_exit(guest_rc) in (0, 1)
    screen = play_until(host, lambda s: ("won round" in s and "Enter: next round" in s)
                        or "The game stopped" in s, "the three finishing a round")
    assert "The game stopped" not in screen, screen
    rows = _round_rows(screen, ("Ann", "Bot 1", "Bot 2"))
    winner = next(name for name, (_, change) in rows.items() if change > 0)
    assert rows[winner][0] == 0
    assert rows[winner][1] == sum(hand for name, (hand, _) in rows.items() if name != winner)
    assert "Bob" not in screen.split("Round over")[1].split("Scores are")[0]
    # The next round waits for Ann: nobody shuffles for it while the scores are shown.
    time.sleep(READ_S)
    lines = _log_lines(sessions.data, sessions.status_dir / "copies")
    last_play = max(i for i, line in enumerate(lines) if " played " in line)
    assert not [line for line in lines[last_play:] if "shuffled deck" in line], lines[-5:]
    host.keys("Enter")
    host.wait_for(lambda s: re.search(r"Round \d+: .+ deals?\.", s.split("won round")[-1])
                  is not None or "Your turn" in s, "the next round, once Ann went on")
    asked = quit_game(host, host_rc)
    assert "This ends the game for everyone." in asked
    assert wait_exit(host_rc) == 1
    assert "Traceback" not in host.screen()
