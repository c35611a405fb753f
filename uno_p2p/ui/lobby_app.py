"""The lobby screens: pick a table on the network, then wait at it until the game starts.

Both are prompt-toolkit full-screen asyncio applications driven by an async
source of updates (the network layer's browse results or lobby views) and,
for the lobby, callbacks (``LobbyActions``). They hold no network code: a
test feeds them from a queue and records the calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.output.color_depth import ColorDepth

from uno_p2p.errors import ConfigError, UnoError
from uno_p2p.net.adverts import TableAdvert
from uno_p2p.net.lookup import is_compatible
from uno_p2p.rules import PRESETS, preset
from uno_p2p.ui import render, words
from uno_p2p.ui.dialogs import boxed, choices
from uno_p2p.ui.lobby import (
    LobbyActions,
    LobbyView,
    joinable,
    lobby_block,
    lobby_keys,
    table_list,
)
from uno_p2p.ui.signals import sigterm_calls
from uno_p2p.ui.theme import STYLE

_KEY_NAMES = {Keys.Up: "up", Keys.Down: "down", Keys.ControlM: "enter", Keys.ControlJ: "enter",
              Keys.Escape: "escape", Keys.ControlC: "c-c", Keys.ControlH: "backspace"}
U = TypeVar("U")
#: The longest text typed into a lobby input (a join code, a rules line).
INPUT_MAX = 120


@dataclass(frozen=True, slots=True)
class Pick:
    """The table chosen, and the join code typed for it ("" when it needs none)."""

    advert: TableAdvert
    code: str = ""


class LobbyOutcome(Enum):
    """How the lobby screen ended."""

    STARTED = "started"   # the game begins: show the table
    LEFT = "left"         # this player left
    CLOSED = "closed"     # the table went away (``LobbyScreen.closed`` says why)


class _Screen:
    """What both screens share: a body, a status line, the key help, a box, typed input."""

    def __init__(self, plain: bool) -> None:
        self.status = ""
        self.typing: str | None = None   # the prompt while a line is being typed
        self.typed = ""
        self.box: render.Block | None = None
        self._ticks = 0
        self._tasks: set[asyncio.Task[None]] = set()
        bindings = KeyBindings()
        for key in (Keys.Any, *_KEY_NAMES):
            bindings.add(key)(self._key)
        float_box = ConditionalContainer(
            Window(FormattedTextControl(lambda: render.to_text(self.box or [])),
                   dont_extend_width=True, dont_extend_height=True),
            filter=Condition(lambda: self.box is not None))
        body = HSplit([Window(FormattedTextControl(self._body), wrap_lines=False),
                       self._line(self._status_line), self._line(self._help_line)])
        self.app: Application[object] = Application(
            layout=Layout(FloatContainer(body, floats=[Float(float_box)])),
            key_bindings=bindings, style=STYLE, full_screen=True,
            color_depth=ColorDepth.DEPTH_1_BIT if plain else None)

    def _terminated(self) -> None:
        """SIGTERM: close the screen as if the player left (the terminal is restored)."""
        if self.app.is_running and not self.app.is_done:
            self.app.exit(result=None)

    @staticmethod
    def _line(get: Callable[[], StyleAndTextTuples]) -> Window:
        return Window(FormattedTextControl(get), height=1)

    def width(self) -> int:
        return self.app.output.get_size().columns

    # -- what subclasses fill in -----------------------------------------------------------
    def body(self) -> render.Block:
        raise NotImplementedError

    def key_help(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def press(self, key: str) -> None:
        raise NotImplementedError

    def typed_line(self, text: str) -> None:
        """The line typed after ``typing``'s prompt, on Enter."""

    # -- drawing ---------------------------------------------------------------------------
    def _body(self) -> StyleAndTextTuples:
        return render.to_text(self.body())

    def _status_line(self) -> StyleAndTextTuples:
        if self.typing is not None:
            return [("class:marker", f" {self.typing} "), ("", self.typed),
                    ("class:cursor", " ")]
        return [("class:status", f" {self.status}")]

    def _help_line(self) -> StyleAndTextTuples:
        keys = [("Enter", "done"), ("Esc", "cancel")] if self.typing is not None \
            else self.key_help()
        return render.to_text(render.key_help(keys, self.width()))

    # -- keys ------------------------------------------------------------------------------
    def _key(self, event: KeyPressEvent) -> None:
        press = event.key_sequence[0]
        name = _KEY_NAMES.get(press.key) if isinstance(press.key, Keys) else None
        if self.typing is not None:
            self._type(name, press.data)
        elif self.box is not None:
            self.box = None  # any key closes a box
        else:
            self.press(name or ("space" if press.data == " " else press.data.lower()))
        self.app.invalidate()

    def _type(self, name: str | None, data: str) -> None:
        if name in ("escape", "c-c"):
            self.typing, self.typed = None, ""
        elif name == "backspace":
            self.typed = self.typed[:-1]
        elif name == "enter":
            text, self.typing, self.typed = self.typed.strip(), None, ""
            self.typed_line(text)
        elif name is None and data.isprintable():
            self.typed = (self.typed + data)[:INPUT_MAX]

    def ask(self, prompt: str) -> None:
        """Start typing a line after ``prompt``; ``typed_line`` gets it."""
        self.typing, self.typed = prompt, ""

    def call(self, action: Callable[[], Awaitable[None]], done: str = "") -> None:
        """Run a network call; its refusal (``UnoError``) becomes the status line."""
        async def run() -> None:
            try:
                await action()
            except UnoError as error:
                self.status = words.one_sentence(str(error))
            else:
                if done:
                    self.status = done
            self.app.invalidate()
        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def follow(self, source: AsyncIterator[U], take: Callable[[U], None]) -> None:
        """Feed every update from ``source`` to ``take``, redrawing after each."""
        async for update in source:
            take(update)
            self.app.invalidate()

    async def tick(self) -> None:
        """Redraw once a second (the "Looking for tables..." dots)."""
        while True:
            await asyncio.sleep(1.0)
            self._ticks += 1
            self.app.invalidate()


class TablePicker(_Screen):
    """The tables found on the network, live; Enter picks one (asking for a join code)."""

    def __init__(self, adverts: AsyncIterator[Sequence[TableAdvert]], plain: bool = False) -> None:
        self.source = adverts
        self.adverts: list[TableAdvert] = []
        self.cursor = 0
        self._chosen: TableAdvert | None = None
        super().__init__(plain)
        self.status = words.LOOKING

    async def run(self) -> Pick | None:
        """Until the player picks a table (the result) or quits (None)."""
        follow = asyncio.ensure_future(self.follow(self.source, self._update))
        tick = asyncio.ensure_future(self.tick())
        try:
            with sigterm_calls(self._terminated):
                result = await self.app.run_async()
        finally:
            for task in (follow, tick):
                task.cancel()
        return result if isinstance(result, Pick) else None

    def _update(self, adverts: Sequence[TableAdvert]) -> None:
        chosen = self.adverts[self.cursor].instance if self.adverts else None
        self.adverts = sorted(adverts, key=lambda a: (not joinable(a), a.table_name.lower()))
        names = [a.instance for a in self.adverts]
        self.cursor = names.index(chosen) if chosen in names else \
            min(self.cursor, max(0, len(names) - 1))
        count = len(self.adverts)
        self.status = words.tables_found(count)

    def body(self) -> render.Block:
        return table_list(self.adverts, self.cursor, self.width(), self._ticks)

    def key_help(self) -> list[tuple[str, str]]:
        keys = [("↑↓", "choose"), ("Enter", "join")] if self.adverts else []
        return [*keys, ("q", "quit")]

    def press(self, key: str) -> None:
        if key in ("q", "c-c", "escape"):
            self.app.exit(result=None)
        elif key in ("up", "down") and self.adverts:
            self.cursor = (self.cursor + (1 if key == "down" else -1)) % len(self.adverts)
        elif key == "enter" and self.adverts:
            self._join(self.adverts[self.cursor])

    def _join(self, advert: TableAdvert) -> None:
        if not is_compatible(advert):
            self.status = words.OTHER_VERSION.format(table=advert.table_name,
                                                     version=advert.protocol_version)
        elif advert.phase != "lobby":
            self.status = words.ALREADY_PLAYING.format(table=advert.table_name)
        elif advert.seats_free <= 0:
            self.status = words.TABLE_IS_FULL.format(table=advert.table_name)
        elif advert.join_code:
            self._chosen = advert
            self.ask(words.CODE_PROMPT.format(table=advert.table_name))
        else:
            self.app.exit(result=Pick(advert))

    def typed_line(self, text: str) -> None:
        if self._chosen is None:
            return
        if not text:
            self.status = words.TYPE_THE_CODE
            return
        self.app.exit(result=Pick(self._chosen, text))


class LobbyScreen(_Screen):
    """One table's lobby until the game starts, the player leaves, or the table closes."""

    def __init__(self, first: LobbyView, updates: AsyncIterator[LobbyView],
                 actions: LobbyActions, plain: bool = False) -> None:
        self.view = first
        self.source = updates
        self.actions = actions
        self.cursor = 0
        self.closed = ""
        self._leaving = False
        super().__init__(plain)
        self.status = words.PRESS_R

    async def run(self) -> LobbyOutcome:
        """Until the game starts (``STARTED``), the player leaves, or the table closes."""
        follow = asyncio.ensure_future(self.follow(self.source, self._update))
        try:
            with sigterm_calls(self._terminated):
                result = await self.app.run_async()
        finally:
            follow.cancel()
        return result if isinstance(result, LobbyOutcome) else LobbyOutcome.LEFT

    def _update(self, view: LobbyView) -> None:
        self.view = view
        self.cursor = min(self.cursor, max(0, len(view.seats) - 1))
        if not self.app.is_running or self.app.is_done:
            return  # the screen is closing: a late update changes nothing
        if view.started:
            self.app.exit(result=LobbyOutcome.STARTED)
        elif view.closed:
            self.closed = view.closed
            self.app.exit(result=LobbyOutcome.CLOSED)

    def body(self) -> render.Block:
        return lobby_block(self.view, self.cursor, self.width())

    def key_help(self) -> list[tuple[str, str]]:
        if self._leaving:
            return [("y", "leave"), ("n", "stay")]
        return lobby_keys(self.view)

    def press(self, key: str) -> None:
        if self._leaving:
            self._leave_key(key)
            return
        view = self.view
        host_keys: dict[str, Callable[[], None]] = {
            "s": self._start, "k": self._kick, "b": self._add_bot,
            "o": lambda: self.ask(words.RULES_PROMPT),
        }
        if key in ("r", "space"):
            mine = view.my_seat
            ready = not (mine is not None and mine.ready)
            self.call(lambda: self.actions.set_ready(ready),
                      words.READY if ready else words.NOT_READY)
        elif key in ("up", "down") and view.seats:
            self.cursor = (self.cursor + (1 if key == "down" else -1)) % len(view.seats)
        elif key in host_keys:
            if view.am_host:
                host_keys[key]()
            else:
                self.status = words.ONLY_THE_HOST
        elif key == "?":
            self.box = boxed("Lobby keys", choices(_LOBBY_HELP), "any key: back")
        elif key in ("q", "c-c", "escape"):
            self._leaving = True
            self.status = words.LEAVE_THE_TABLE

    def _leave_key(self, key: str) -> None:
        if key in ("y", "c-c"):
            self.call(self.actions.leave)
            self.app.exit(result=LobbyOutcome.LEFT)
        elif key in ("n", "escape", "q"):
            self._leaving = False
            self.status = ""

    def _start(self) -> None:
        view = self.view
        if len(view.seats) < view.min_players:
            self.status = words.NOT_ENOUGH_TO_START.format(count=view.min_players)
        elif not view.everyone_ready:
            self.status = words.NOT_ALL_READY
        else:
            self.call(self.actions.start, words.STARTING)

    def _kick(self) -> None:
        seats = self.view.seats
        if not seats:
            return
        seat = seats[self.cursor]
        if seat.me:
            self.status = words.CANNOT_KICK_YOURSELF
            return
        index = self.cursor
        self.call(lambda: self.actions.kick(index), words.ASKED_TO_LEAVE.format(name=seat.name))

    def _add_bot(self) -> None:
        if len(self.view.seats) >= self.view.max_seats:
            self.status = words.TABLE_FULL
            return
        self.call(self.actions.add_bot, words.A_BOT_SITS_DOWN)

    def typed_line(self, text: str) -> None:
        """``house``, ``target=200``, or ``party turn_timer=30``: checked, then sent."""
        given = text.split()
        if not given:
            return
        name = given[0] if given[0] in PRESETS else self.view.preset
        overrides = given[1:] if given[0] in PRESETS else given
        if given[0] not in PRESETS:
            overrides = [*_changes(self.view), *overrides]
        try:
            preset(name, overrides)
        except ConfigError as error:
            self.status = words.one_sentence(str(error)) + words.PRESETS_ARE.format(
                presets=", ".join(PRESETS))
            return
        self.call(lambda: self.actions.set_options(name, overrides), words.RULES_CHANGED)


_LOBBY_HELP = (
    ("r", "ready / not ready (Space too)"), ("s", "host: start when everyone is ready"),
    ("↑↓", "host: choose a player"), ("k", "host: kick the chosen player"),
    ("b", "host: add a bot"), ("o", "host: rules, e.g. house or target=200"),
    ("q", "leave the table"),
)


def _changes(view: LobbyView) -> list[str]:
    """The view's options as overrides of its preset (kept when one more is set)."""
    base = preset(view.preset)
    return [f"{n}={str(getattr(view.options, n)).lower()}" for n in view.options.NAMES
            if getattr(view.options, n) != getattr(base, n)]
