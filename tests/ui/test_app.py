"""The prompt-toolkit application on a pipe instead of a terminal: keys in, game on.

Faster than the tmux test and independent of tmux: the same ``GameScreen``
with prompt-toolkit's pipe input and a dummy output. Checks the bots' pace
(never faster than ``bot_delay``), that keys reach the game, and quitting.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Callable

import pytest
from prompt_toolkit.input import PipeInput
from prompt_toolkit.output import DummyOutput

from tests.ui.helpers import table
from tests.ui.screen import WAIT_S, piped, until
from uno_p2p.rules import preset
from uno_p2p.ui import render
from uno_p2p.ui.app import GameScreen
from uno_p2p.ui.modes import Mode
from uno_p2p.ui.session import LocalTable, Next


@pytest.fixture
async def pipe() -> AsyncIterator[PipeInput]:
    with piped(DummyOutput()) as pipe_input:
        yield pipe_input


def tables(seed: str) -> Callable[[int], tuple[LocalTable, str]]:
    def make(game: int) -> tuple[LocalTable, str]:
        return table(f"{seed}-{game}"), f"{seed}-{game}"
    return make


async def test_keys_reach_the_game_and_q_y_quits(pipe: PipeInput) -> None:
    screen = GameScreen(tables("app"), bot_delay=0.0, plain=True)
    running = asyncio.ensure_future(screen.run())
    await until(lambda: screen.table.next() == Next.HUMAN, "the human's turn")
    cards = len(screen.table.view().hands[screen.table.seat])
    pipe.send_text("d")
    await until(lambda: any(line.startswith("You drew ") for line in screen.table.news),
                "the draw")
    assert len(screen.table.view().hands[screen.table.seat]) == cards + 1
    pipe.send_text("q")
    await until(lambda: screen.controller.paused, "the quit question")
    pipe.send_text("y")
    assert await asyncio.wait_for(running, WAIT_S) == 0
    assert screen.error is None


class TimedTable(LocalTable):
    """A local table that notes when each bot move happens."""

    def __init__(self, seed: str) -> None:
        super().__init__(preset("official"), 4, seed.encode())
        self.bot_moves: list[float] = []

    def advance(self, now_ms: int) -> bool:
        kind = self.next()
        moved = super().advance(now_ms)
        if moved and kind == Next.BOT:
            self.bot_moves.append(time.monotonic())
        return moved


async def play_along(screen: GameScreen, pipe: PipeInput, enough: Callable[[], bool]) -> None:
    """Press what a lazy player presses (draw, pass, red, verdict) until ``enough`` holds."""
    deadline = time.monotonic() + WAIT_S
    while not enough():
        assert time.monotonic() < deadline, "the game did not go on"
        keys = dict(screen.controller.key_help())
        if screen.controller.mode == Mode.COLOUR:
            pipe.send_text("r")
        elif screen.controller.mode == Mode.VERDICT:
            pipe.send_text("\r")
        elif "p" in keys:
            pipe.send_text("p")
        elif "d" in keys:
            pipe.send_text("d")
        await asyncio.sleep(0.05)


async def test_bots_keep_their_pace(pipe: PipeInput) -> None:
    delay = 0.15
    timed = TimedTable("pace")
    screen = GameScreen(lambda game: (timed, "pace"), bot_delay=delay, plain=False)
    running = asyncio.ensure_future(screen.run())
    await play_along(screen, pipe, lambda: len(timed.bot_moves) >= 5)
    gaps = [b - a for a, b in itertools.pairwise(timed.bot_moves)]
    assert min(gaps) >= delay * 0.9, gaps
    pipe.send_text("qy")
    assert await asyncio.wait_for(running, WAIT_S) == 0


async def test_new_game_after_the_end(pipe: PipeInput) -> None:
    def quick(game: int) -> tuple[LocalTable, str]:
        return table(f"end-{game}", 2, preset("official", ["target=1"])), f"end-{game}"

    screen = GameScreen(quick, bot_delay=0.0, plain=True)
    running = asyncio.ensure_future(screen.run())
    first = screen.table
    await play_along(screen, pipe, lambda: bool(first.summaries))
    await until(lambda: screen.controller.paused, "the round's table")
    pipe.send_text("\r")
    await until(lambda: "Game over" in render.plain_text(screen.controller.dialog() or []),
                "the final scores")
    pipe.send_text("n")
    await until(lambda: screen.table is not first, "a new game")
    assert screen.games == 2
    assert not screen.controller.paused
    pipe.send_text("qy")
    assert await asyncio.wait_for(running, WAIT_S) == 0
