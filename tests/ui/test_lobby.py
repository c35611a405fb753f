"""The lobby screens headlessly: a queue stands in for the network, a recorder for the host.

The table picker shows the tables as they are announced (docs/protocol/net.md
adverts) and returns the one chosen, with the join code typed; the lobby shows
the seats, who is ready, the rules and the join code, and calls back with what
the player pressed. Frames are read as the player would see them.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import TypeVar

import pytest
from prompt_toolkit.input import PipeInput

from tests.ui.screen import WAIT_S, SizedOutput, piped, screen_text, until
from uno_p2p.errors import ConfigError
from uno_p2p.net.adverts import TableAdvert
from uno_p2p.net.txt import OUR_PROTOCOL_VERSION
from uno_p2p.rules import PRESETS, preset
from uno_p2p.ui import words
from uno_p2p.ui.lobby import LobbySeat, LobbyView, advert_row, waiting_line
from uno_p2p.ui.lobby_app import LobbyOutcome, LobbyScreen, Pick, TablePicker

T = TypeVar("T")


@pytest.fixture
async def pipe() -> AsyncIterator[PipeInput]:
    with piped(SizedOutput(90, 28)) as pipe_input:
        yield pipe_input


async def feed(queue: asyncio.Queue[T]) -> AsyncIterator[T]:
    while True:
        yield await queue.get()


def advert(name: str, host: str, taken: int = 1, free: int = 3, code: bool = False,
           phase: str = "lobby", version: int = OUR_PROTOCOL_VERSION) -> TableAdvert:
    return TableAdvert(f"{name}._uno-lan._tcp.local.", name, host, ("127.0.0.1",), 7000,
                       version, taken, free, "house", phase, code,  # type: ignore[arg-type]
                       "ab12")


def test_an_advert_row_has_name_host_seats_rules_and_code() -> None:
    row = advert_row(advert("Friday", "Ann", taken=2, free=2, code=True))
    assert row.split() == ["Friday", "Ann", "2/4", "house", "join", "code"]
    assert advert_row(advert("Full", "Bob", taken=4, free=0)).endswith("full")
    assert advert_row(advert("Busy", "Cy", phase="playing")).endswith("playing")
    assert advert_row(advert("Old", "Di", version=OUR_PROTOCOL_VERSION + 1)).endswith(
        "other version")


async def test_the_picker_lists_tables_live_and_picks_one(pipe: PipeInput) -> None:
    queue: asyncio.Queue[Sequence[TableAdvert]] = asyncio.Queue()
    picker = TablePicker(feed(queue))
    running = asyncio.ensure_future(picker.run())
    await until(lambda: "uno-lan host" in screen_text(picker.app),
                "the empty list, saying what to do when none is found")
    assert picker.status == words.LOOKING
    queue.put_nowait([advert("Friday", "Ann")])
    await until(lambda: "Friday" in screen_text(picker.app), "the first table")
    queue.put_nowait([advert("Friday", "Ann"), advert("Attic", "Bob", code=True),
                      advert("Busy", "Cy", phase="playing")])
    await until(lambda: "Attic" in screen_text(picker.app), "the second table")
    frame = screen_text(picker.app)
    assert frame.index("Attic") < frame.index("Friday") < frame.index("Busy")
    assert picker.adverts[picker.cursor].table_name == "Friday", "the cursor stays on its table"
    pipe.send_text("\x1b[B")  # down: onto the table already playing
    await until(lambda: picker.cursor == 2, "the cursor")
    pipe.send_text("\r")
    await until(lambda: picker.status == words.ALREADY_PLAYING.format(table="Busy"),
                "the refusal")
    pipe.send_text("\x1b[B")  # down: round to Attic, which asks for a code
    pipe.send_text("\r")
    await until(lambda: picker.typing is not None, "the code prompt")
    pipe.send_text("tulip-42\r")
    pick = await asyncio.wait_for(running, WAIT_S)
    assert pick == Pick(advert("Attic", "Bob", code=True), "tulip-42")


async def test_the_picker_quits_with_q(pipe: PipeInput) -> None:
    queue: asyncio.Queue[Sequence[TableAdvert]] = asyncio.Queue()
    picker = TablePicker(feed(queue))
    running = asyncio.ensure_future(picker.run())
    await until(lambda: picker.app.is_running, "the screen")
    pipe.send_text("q")
    assert await asyncio.wait_for(running, WAIT_S) is None


class Recorder:
    """``LobbyActions`` that note each call; ``refuse`` makes the next one fail."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.refuse = ""

    async def _note(self, *call: object) -> None:
        if self.refuse:
            reason, self.refuse = self.refuse, ""
            raise ConfigError(reason)
        self.calls.append(call)

    async def set_ready(self, ready: bool) -> None:
        await self._note("ready", ready)

    async def start(self) -> None:
        await self._note("start")

    async def kick(self, seat: int) -> None:
        await self._note("kick", seat)

    async def set_options(self, preset: str, overrides: Sequence[str]) -> None:
        await self._note("options", preset, tuple(overrides))

    async def add_bot(self) -> None:
        await self._note("bot")

    async def leave(self) -> None:
        await self._note("leave")


def lobby(am_host: bool, ready: tuple[bool, ...] = (False, False)) -> LobbyView:
    seats = (LobbySeat("Ann", ready[0], host=True, me=am_host),
             LobbySeat("Bob", ready[1], me=not am_host))
    return LobbyView("Friday", seats, 4, "house", preset("house", ["target=200"]),
                     am_host=am_host, join_code="tulip-42" if am_host else "",
                     code_needed=not am_host)


def test_the_waiting_line_says_who_is_not_ready() -> None:
    ready = words.WAITING_FOR_READY.format
    assert waiting_line(lobby(True)) == ready(names=words.names_and(["you", "Bob"]))
    assert waiting_line(lobby(False, (True, False))) == ready(names="you")
    assert waiting_line(lobby(True, (True, True))) == words.ALL_READY_PRESS_S
    assert waiting_line(lobby(False, (True, True))) == words.ALL_READY_WAITING.format(host="Ann")
    alone = replace(lobby(True), seats=lobby(True).seats[:1])
    assert waiting_line(alone) == words.NEED_PLAYERS.format(count=2)
    lost = replace(lobby(False, (True, True)), reconnecting=True)
    assert waiting_line(lost) == words.LINK_TO_HOST_LOST.format(host="Ann")


async def test_the_host_sees_seats_rules_code_and_can_kick_add_and_start(
        pipe: PipeInput) -> None:
    queue: asyncio.Queue[LobbyView] = asyncio.Queue()
    actions = Recorder()
    screen = LobbyScreen(lobby(True), feed(queue), actions)
    running = asyncio.ensure_future(screen.run())
    await until(lambda: "Join code: tulip-42" in screen_text(screen.app), "the lobby")
    frame = screen_text(screen.app)
    assert "Friday · 2/4 players" in frame
    assert "1. Ann" in frame
    assert "host, you" in frame
    assert "2. Bob" in frame
    assert "· not ready" in frame
    assert "Rules: house rules + target=200" in frame
    pipe.send_text("r")
    await until(lambda: actions.calls == [("ready", True)], "the ready call")
    pipe.send_text("s")  # Bob is not ready: the host cannot start yet
    await until(lambda: screen.status == words.NOT_ALL_READY, "the refusal")
    pipe.send_text("\x1b[Bk")  # down to Bob, kick
    await until(lambda: ("kick", 1) in actions.calls, "the kick")
    pipe.send_text("b")
    await until(lambda: ("bot",) in actions.calls, "a bot")
    pipe.send_text("o")
    pipe.send_text("jump_in=false\r")
    await until(lambda: any(c[0] == "options" for c in actions.calls), "the rules")
    (options,) = [c for c in actions.calls if c[0] == "options"]
    assert options[1] == "house"
    assert isinstance(options[2], tuple)
    assert preset("house", list(options[2])) == preset("house", ["target=200", "jump_in=false"])
    pipe.send_text("o")
    pipe.send_text("hose\r")  # a typo: said, with the valid names
    presets = words.PRESETS_ARE.format(presets=", ".join(PRESETS))
    await until(lambda: screen.status.endswith(presets), "the typo")
    actions.refuse = "the table is full"
    pipe.send_text("b")
    await until(lambda: screen.status == words.one_sentence("the table is full"),
                "the host's refusal")
    queue.put_nowait(lobby(True, (True, True)))
    await until(lambda: words.ALL_READY_PRESS_S in screen_text(screen.app), "everyone ready")
    pipe.send_text("s")
    await until(lambda: ("start",) in actions.calls, "the start")
    queue.put_nowait(replace(lobby(True, (True, True)), started=True))
    assert await asyncio.wait_for(running, WAIT_S) == LobbyOutcome.STARTED


async def test_a_joiner_toggles_ready_and_cannot_use_host_keys(pipe: PipeInput) -> None:
    queue: asyncio.Queue[LobbyView] = asyncio.Queue()
    actions = Recorder()
    screen = LobbyScreen(lobby(False), feed(queue), actions)
    running = asyncio.ensure_future(screen.run())
    await until(lambda: "Friday" in screen_text(screen.app), "the lobby")
    frame = screen_text(screen.app)
    assert "tulip-42" not in frame, "only the host sees the join code"
    assert words.ASKS_FOR_A_CODE in frame
    assert [k for k, _ in screen.key_help()] == ["r", "?", "q"]
    pipe.send_text("k")
    await until(lambda: screen.status == words.ONLY_THE_HOST, "the refusal")
    pipe.send_text(" ")
    await until(lambda: actions.calls == [("ready", True)], "ready")
    queue.put_nowait(lobby(False, (False, True)))
    await until(lambda: ("r", "not ready") in screen.key_help(), "the toggle's new meaning")
    pipe.send_text("q")
    await until(lambda: screen.status == words.LEAVE_THE_TABLE, "the question")
    pipe.send_text("y")
    assert await asyncio.wait_for(running, WAIT_S) == LobbyOutcome.LEFT
    await until(lambda: ("leave",) in actions.calls, "the leave call")


async def test_a_closed_table_ends_the_lobby_with_its_reason(pipe: PipeInput) -> None:
    queue: asyncio.Queue[LobbyView] = asyncio.Queue()
    screen = LobbyScreen(lobby(False), feed(queue), Recorder())
    running = asyncio.ensure_future(screen.run())
    await until(lambda: screen.app.is_running, "the lobby")
    reason = "the host closed the table"  # the view's field, passed on as it is
    queue.put_nowait(replace(lobby(False), closed=reason))
    assert await asyncio.wait_for(running, WAIT_S) == LobbyOutcome.CLOSED
    assert screen.closed == reason


async def test_sigterm_closes_the_lobby_and_the_picker_cleanly(pipe: PipeInput) -> None:
    queue: asyncio.Queue[LobbyView] = asyncio.Queue()
    screen = LobbyScreen(lobby(False), feed(queue), Recorder())
    running = asyncio.ensure_future(screen.run())
    await until(lambda: "Press r" in screen.status and screen.app.is_running, "the lobby")
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(running, WAIT_S) == LobbyOutcome.LEFT
    assert not screen.app.is_running
    adverts: asyncio.Queue[Sequence[TableAdvert]] = asyncio.Queue()
    picker = TablePicker(feed(adverts))
    picking = asyncio.ensure_future(picker.run())
    await until(lambda: picker.app.is_running, "the table picker")
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(picking, WAIT_S) is None
