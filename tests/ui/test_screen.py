"""The whole screen as a player sees it, drawn headlessly (pipe input, sized output).

Each test starts the real ``GameScreen``, presses keys through prompt-toolkit's
pipe input, and reads the characters of the last frame drawn.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput

from tests.ui.fakes import FakeNetworkTable
from tests.ui.helpers import table
from tests.ui.screen import WAIT_S, SizedOutput, piped, screen_text, until
from uno_p2p.rules import short_name
from uno_p2p.ui import words
from uno_p2p.ui.app import EXIT_TERMINATED, GameScreen
from uno_p2p.ui.modes import Mode
from uno_p2p.ui.session import LocalTable, Next, PacedTable
from uno_p2p.ui.status import ChatLine, Presence, Progress, Stopped, status_of


@pytest.fixture
def output() -> SizedOutput:
    return SizedOutput(100, 30)


@pytest.fixture
async def pipe(output: SizedOutput) -> AsyncIterator[PipeInput]:
    with piped(output) as pipe_input:
        yield pipe_input


async def shows(screen: GameScreen, text: str) -> str:
    """Wait until the frame holds ``text``; returns the frame."""
    screen.app.invalidate()
    await until(lambda: text in screen_text(screen.app), repr(text))
    return screen_text(screen.app)


def start(made: PacedTable) -> tuple[GameScreen, asyncio.Future[int]]:
    screen = GameScreen(lambda game: (made, "seed"), bot_delay=0.0, plain=False)
    return screen, asyncio.ensure_future(screen.run())


async def quit_screen(screen: GameScreen, pipe: PipeInput,
                      running: asyncio.Future[int]) -> None:
    pipe.send_text("q")
    await until(lambda: screen.controller.mode == Mode.QUIT, "the quit question")
    pipe.send_text("y")
    assert await asyncio.wait_for(running, WAIT_S) == 0


async def test_question_mark_shows_the_help_over_the_table(pipe: PipeInput) -> None:
    game = table("help")
    screen, running = start(game)
    await until(lambda: game.next() == Next.HUMAN, "the human's turn")
    await shows(screen, "? help")
    pipe.send_text("?")
    frame = await shows(screen, "Keys")
    assert "challenge a Wild Draw Four" in frame
    assert "Rules official rules" in frame
    assert "The game ends when someone reaches 500." in frame
    assert screen.controller.paused, "the bots wait while the help is open"
    pipe.send_text("\x1b")
    await until(lambda: screen.controller.mode == Mode.TABLE, "the help to close")
    await quit_screen(screen, pipe, running)


async def test_s_sorts_the_hand_on_screen(pipe: PipeInput) -> None:
    game = table("sort")
    screen, running = start(game)
    await until(lambda: game.next() == Next.HUMAN, "the human's turn")
    view = game.view()

    def hand_row(frame: str) -> list[str]:
        me = next(i for i, line in enumerate(frame.splitlines()) if "▶ You" in line
                  or line.startswith("  You ·"))
        rows = frame.splitlines()[me + 1:me + 4]
        return max((row.split() for row in rows), key=lambda words: sum(
            w[:1] in "RYGBW" for w in words))

    held = [short_name(c) for c in view.hand_faces(game.seat) if c is not None]
    frame = await shows(screen, held[0])
    assert hand_row(frame) == [short_name(view.known[s]) for s in
                               screen.controller.hand_order()]
    pipe.send_text("s")
    await until(lambda: not screen.controller.sorted_hand, "the toggle")
    await shows(screen, "order you got the cards")
    assert hand_row(screen_text(screen.app)) == held
    await quit_screen(screen, pipe, running)


async def test_a_terminal_too_small_says_so(pipe: PipeInput, output: SizedOutput) -> None:
    game = table("small")
    screen, running = start(game)
    await until(lambda: game.next() == Next.HUMAN, "the human's turn")
    output.size = Size(rows=12, columns=50)
    frame = await shows(screen, "needs at least")
    assert "The terminal is 50×12" in frame
    pipe.send_text("d")  # game keys do nothing while the table cannot be seen
    await asyncio.sleep(0.1)
    assert not any(line.startswith("You drew") for line in game.news)
    output.size = Size(rows=30, columns=100)
    await shows(screen, "? help")
    await quit_screen(screen, pipe, running)


async def test_sigterm_ends_the_screen_cleanly(pipe: PipeInput) -> None:
    game = table("term")
    screen, running = start(game)
    await until(lambda: game.next() == Next.HUMAN, "the human's turn")
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(running, WAIT_S) == EXIT_TERMINATED
    assert not screen.app.is_running


async def test_a_network_table_shows_players_waits_and_chat(pipe: PipeInput) -> None:
    game = FakeNetworkTable("net")
    game.run_until_human()
    names = game.names
    game.set_status(
        players=tuple(Presence(n, connected=n != names[1]) for n in names),
        progress=Progress("Shuffling and proving the deck", 2, 4),
        waiting_for=f"waiting for {names[2]} to deal",
        chat=(ChatLine(names[2], "good luck everyone"),))
    screen, running = start(game)
    frame = await shows(screen, words.PLAYERS.strip())
    assert words.MISSING.format(name=names[1]) in frame
    assert words.PRESENT.format(name=names[2]) in frame
    assert "Shuffling and proving the deck ▓▓▓▓▓▓░░░░░░ 2/4" in frame
    assert f"Waiting for {names[2]} to deal…" in frame
    assert f"{names[2]}: good luck everyone" in frame
    assert ("t", "chat") in screen.controller.key_help()
    pipe.send_text("t")
    await until(lambda: screen.controller.mode == Mode.CHAT, "the chat input")
    pipe.send_text("Hi Bob, q?")  # q and ? are text here, not keys
    await shows(screen, "say: Hi Bob, q?")
    pipe.send_text("\x7f")  # backspace
    typed = "Hi Bob, q"  # the player's own text, sent as typed
    await until(lambda: screen.controller.typed == typed, "the backspace")
    assert "say: Hi Bob, q?" not in await shows(screen, "say: Hi Bob, q")
    pipe.send_text("\r")
    await until(lambda: game.sent == [typed], "the message sent")
    assert screen.controller.mode == Mode.TABLE
    await shows(screen, "you: Hi Bob, q")
    await quit_screen(screen, pipe, running)


async def test_a_stopped_network_game_says_who_why_and_what_the_log_proves(
        pipe: PipeInput) -> None:
    game = FakeNetworkTable("stop")
    game.run_until_human()
    screen, running = start(game)
    await shows(screen, "? help")
    why, provable = ("left the table and did not come back in 60 s",
                     "every move up to entry 41 and the first 2 rounds")
    game.set_status(stopped=Stopped("Bob", why, provable, "games/net.unolog"))
    frame = await shows(screen, "Game stopped")
    assert words.GAME_STOPPED.format(said=f"Bob: {why}") in frame
    assert words.STILL_PROVABLE.format(what=provable) in frame
    assert words.AUDIT_COMMAND.format(log="games/net.unolog") in frame
    assert screen.controller.key_help() == [("q", "quit")]
    pipe.send_text("q")
    assert await asyncio.wait_for(running, WAIT_S) == 0


def test_a_local_table_has_no_network_parts() -> None:
    assert status_of(table("local")) is None
    assert isinstance(FakeNetworkTable(), LocalTable)
