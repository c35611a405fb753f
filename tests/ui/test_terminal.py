"""End to end in a real terminal: ``uno-lan play`` in a detached tmux session.

The game is started at a fixed size with ``--seed 1 --bot-delay 0``; the test
reads the screen with ``capture-pane`` until the table shows, draws a card,
sees the screen change, quits with ``q`` and ``y``, and checks the exit code.
Every wait polls every 0.1 s until two captures in a row are the same and pass (a
settled frame, never one caught mid-draw), and gives up after 20 s (30 s for the first
screen).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
POLL_S = 0.1
WAIT_S = 20.0
#: The first screen may take longer on a loaded machine (Python starts, imports, deals).
START_S = 30.0

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (scripts/test installs it)"),
]


class Pane:
    """One detached tmux session running one command."""

    def __init__(self, name: str) -> None:
        self.name = name

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run([TMUX, *args], capture_output=True, text=True, check=False,
                              timeout=WAIT_S)
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def joined(self) -> str:
        """The screen with lines the terminal wrapped joined again (a long path in
        print, say, whose break falls wherever the temporary directory's length puts it)."""
        return self.tmux("capture-pane", "-p", "-J", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, check: Callable[[str], bool], what: str,
                 timeout: float = WAIT_S) -> str:
        """The first settled screen that passes ``check``: two captures in a row, the
        same and both passing. One capture may catch the program mid-frame (a box's top
        edge half drawn, which a test then read as cut); a frame still being written
        differs from the next capture, a finished one does not."""
        deadline = time.monotonic() + timeout
        screen = last = ""
        passed: str | None = None
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                if screen == passed:
                    return screen
                passed = screen
            else:
                passed = None
            last = screen if screen.strip() else last
            time.sleep(POLL_S)
        # An empty capture means the session is gone: show what it last showed.
        unsettled = "" if passed is None else "; it passed, but never held still"
        raise AssertionError(f"timed out waiting for {what}{unsettled}; the screen was:\n"
                             f"{screen}"
                             + ("" if screen.strip() else f"\nand before that:\n{last}"))


Starter = Callable[..., tuple[Pane, Path]]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Starter]:
    panes: list[Pane] = []

    def run(width: int, height: int, args: str, env: str = "") -> tuple[Pane, Path]:
        pane = Pane(f"uno-test-{uuid.uuid4().hex[:8]}")
        status = tmp_path / f"{pane.name}.rc"
        # --player You: the tests read the human's line as "You" (the default is the
        # login name); a test's own --player comes later and wins.
        command = (f"env {env} {shlex.quote(sys.executable)} -m uno_p2p play --player You "
                   f"{args}; "
                   f"echo $? > {shlex.quote(str(status))}; sleep 30")
        pane.tmux("new-session", "-d", "-s", pane.name, "-x", str(width), "-y", str(height),
                  "-c", str(Path(__file__).resolve().parents[2]), command)
        panes.append(pane)
        return pane, status

    yield run
    for pane in panes:
        pane.tmux("kill-session", "-t", pane.name)


def wait_exit(status: Path) -> int:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if status.exists() and status.read_text().strip():
            return int(status.read_text())
        time.sleep(POLL_S)
    raise AssertionError("the game did not exit")


def your_turn(screen: str) -> bool:
    return "Your turn" in screen and "d draw" in screen


def test_play_draw_and_quit_at_80x24(start: Starter
                                     ) -> None:
    pane, status = start(80, 24, "--seed 1 --bot-delay 0")
    screen = pane.wait_for(your_turn, "the table on the human's turn", START_S)
    assert "uno-lan · round 1" in screen
    assert "Bot 1" in screen
    assert "Bot 3" in screen
    assert "Colour to match:" in screen
    hand_line = next(line for line in screen.splitlines() if line.startswith("▶ You · "))
    cards = int(hand_line.split(" · ")[1].split()[0])
    pane.keys("d")
    after = pane.wait_for(lambda s: "You drew " in s, "the drawn card in the news")
    assert "p pass" in after or "Enter play" in after
    assert after != screen
    assert any(line.startswith(("▶ You · ", "  You · ")) and f" · {cards + 1} cards" in line
               for line in after.splitlines())
    pane.keys("p")  # pass (or, if it was playable and must be played, refused in plain words)
    pane.keys("q")
    pane.wait_for(lambda s: "Leave this game?" in s, "the quit question")
    pane.keys("y")
    assert wait_exit(status) == 0


def test_play_a_card_with_enter(start: Starter) -> None:
    pane, status = start(80, 24, "--seed 4 --bot-delay 0")
    screen = pane.wait_for(lambda s: your_turn(s) and "Enter play" in s,
                           "the human's turn with a playable card", START_S)
    for number in range(1, 10):
        pane.keys(str(number), "Enter")
        try:
            after = pane.wait_for(lambda s: "You played " in s, "a play", timeout=1.0)
        except AssertionError:
            continue
        break
    else:
        raise AssertionError(f"no card could be played:\n{screen}")
    played = next(line for line in after.splitlines() if line.startswith("You played "))
    assert re.fullmatch(r"You played (Red|Yellow|Green|Blue|Wild)[^.]*\.", played.strip()) or \
        "Name a colour" in after, after
    pane.keys("Escape", "q", "y")
    assert wait_exit(status) == 0


def test_wide_terminal_puts_news_in_a_column(
        start: Starter) -> None:
    pane, status = start(140, 40, "--seed 2 --bot-delay 0 --players 6 --preset party")
    screen = pane.wait_for(your_turn, "the table on the human's turn", START_S)
    news = [line for line in screen.splitlines() if "│" in line and " played " in line]
    assert news, screen
    assert all(line.index(" played ") > 80 for line in news), "news in a right-hand column"
    for bot in range(1, 6):
        assert f"Bot {bot}" in screen, screen
    pane.keys("q", "y")
    assert wait_exit(status) == 0


def test_no_color_spells_the_colours(start: Starter) -> None:
    pane, status = start(80, 24, "--seed 1 --bot-delay 0", "NO_COLOR=1")
    screen = pane.wait_for(your_turn, "the table on the human's turn", START_S)
    lines = screen.splitlines()
    labels = lines[next(i for i, line in enumerate(lines) if line.startswith("▶ You")) + 2]
    cards = labels.split()
    assert len(cards) == 7
    for card in cards:
        assert re.fullmatch(r"[RYGB](\d|\+2|-skip|-rev)|W|W\+4", card), card
    assert "+-----------+" in screen  # the top card drawn as a box
    pane.keys("q", "y")
    assert wait_exit(status) == 0


def hand_labels(screen: str) -> list[str]:
    """The card labels of the human's hand (the row of tiles under the edge row)."""
    lines = screen.splitlines()
    me = next(i for i, line in enumerate(lines) if line.startswith(("▶ You", "  You · ")))
    rows = lines[me + 1:me + 4]
    return max((row.split() for row in rows),
               key=lambda words: sum(bool(re.fullmatch(r"[RYGBW][-+\w]*", w)) for w in words))


def test_question_mark_shows_the_help_and_s_sorts_the_hand(start: Starter) -> None:
    pane, status = start(80, 24, "--seed 1 --bot-delay 0", "NO_COLOR=1")
    screen = pane.wait_for(your_turn, "the table on the human's turn", START_S)
    assert "? help" in screen
    sorted_hand = hand_labels(screen)
    colours = [label[0] for label in sorted_hand]
    assert colours == sorted(colours, key="RYGBW".index), "sorted by colour"
    pane.keys("?")
    # tmux may be read while the box is still being drawn: wait for its bottom edge too
    # (a help that did not fit in 80 by 24 would never show it, and the wait fails).
    shown = pane.wait_for(lambda s: "Rules official rules" in s and "╰" in s,
                          "the whole help, fitting in 80 by 24")
    assert "x  challenge a Wild Draw Four" in shown
    assert "The game ends when someone reaches 500." in shown
    assert "╰" in shown, "the whole help fits in 80 by 24"
    pane.keys("Escape")
    pane.wait_for(lambda s: "Rules official rules" not in s, "the help to close")
    pane.keys("s")
    after = pane.wait_for(lambda s: "order you got the cards" in s, "the hand as received")
    received = hand_labels(after)
    assert sorted(received) == sorted(sorted_hand)
    pane.keys("s")
    again = pane.wait_for(lambda s: "sorted by colour and number" in s, "the hand sorted again")
    assert hand_labels(again) == sorted_hand
    pane.keys("C-c")
    pane.wait_for(lambda s: "Leave this game?" in s, "the quit question")
    pane.keys("C-c")  # a second Ctrl-C quits
    assert wait_exit(status) == 0


def test_your_name_is_player_in_play_as_at_a_network_table(start: Starter) -> None:
    # Issue 25: play took --player for --players ("--players must be a whole number").
    pane, status = start(80, 24, "--seed 1 --bot-delay 0 --player Ann")
    screen = pane.wait_for(your_turn, "the table on Ann's turn", START_S)
    assert any(line.startswith("▶ Ann · ") for line in screen.splitlines()), screen
    pane.keys("q", "y")
    assert wait_exit(status) == 0


class ScriptedPane(Pane):
    """A pane whose captures are given in advance (the last one repeats): how a real
    capture can catch the program mid-frame, without tmux's timing."""

    def __init__(self, captures: list[str]) -> None:
        super().__init__("scripted")
        self.captures = captures

    def screen(self) -> str:
        return self.captures.pop(0) if len(self.captures) > 1 else self.captures[0]


#: The end box while it is drawn (its top edge not yet finished), then drawn whole.
MID_DRAW = "╭─ Game stopped ─────\n│ Log: x.unolog    │\n╰──────────────────╯\n"
WHOLE = "╭─ Game stopped ────╮\n│ Log: x.unolog    │\n╰──────────────────╯\n"


def test_a_wait_returns_a_settled_frame_never_one_caught_mid_draw() -> None:
    """A capture that passes the check but differs from the next one was caught while
    the program drew it: the wait takes the next capture that holds still."""
    pane = ScriptedPane([MID_DRAW, WHOLE, WHOLE])
    assert pane.wait_for(lambda s: "╭─ Game stopped" in s and "╰" in s, "the box") == WHOLE


def test_a_wait_on_a_screen_that_never_holds_still_says_so() -> None:
    flicker = [MID_DRAW, WHOLE] * 100
    pane = ScriptedPane(flicker)
    with pytest.raises(AssertionError, match="never held still"):
        pane.wait_for(lambda s: "Game stopped" in s, "the box", timeout=1.0)
