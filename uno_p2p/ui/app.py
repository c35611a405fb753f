"""The prompt-toolkit ``Application``: layout, keys, and the bots' pace.

A thin shell over the controller and the pure renderers. One asyncio task
moves the local game on: table work at once, each bot move after a visible
pause (``bot_delay``; a key press by the human restarts the pause, so bots
answer what the human just did), the human's time-out when ``turn_timer``
runs out, nothing while a score table or the quit question is open.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output.color_depth import ColorDepth

from uno_p2p.rules import State
from uno_p2p.ui import render
from uno_p2p.ui.controller import Controller, Outcome
from uno_p2p.ui.modes import Mode
from uno_p2p.ui.session import Next, PacedTable
from uno_p2p.ui.signals import sigterm_calls
from uno_p2p.ui.status import chat_input, chat_pane, presence_line, waits
from uno_p2p.ui.theme import STYLE

#: From this width on, the news gets a column of its own to the right.
WIDE = 110
NEWS_COLUMN = 44
#: Rows of chat shown under the news at a network table.
CHAT_ROWS = 5
#: How long to wait before asking again when the engine holds a bot's move back.
HELD_BACK_S = 0.05
#: News lines handed to the news window (it shows the last ones that fit).
NEWS_SHOWN = 60
#: The smallest terminal the table fits in (columns, rows); smaller says so.
MIN_SIZE = (60, 16)
_KEY_NAMES = {Keys.Left: "left", Keys.Right: "right", Keys.ControlM: "enter",
              Keys.ControlJ: "enter", Keys.Escape: "escape", Keys.ControlC: "c-c",
              Keys.Up: "up", Keys.Down: "down", Keys.PageUp: "pageup",
              Keys.PageDown: "pagedown", Keys.End: "end", Keys.ControlH: "backspace"}
#: Exit code after SIGTERM (128 + 15, as a shell reports it).
EXIT_TERMINATED = 143


class GameScreen:
    """One terminal game session: ``make_table(n)`` deals game ``n`` (from 1)."""

    def __init__(self, make_table: Callable[[int], tuple[PacedTable, str]],
                 bot_delay: float, plain: bool) -> None:
        self.make_table = make_table
        self.bot_delay = bot_delay
        self.plain = plain
        self.games = 0
        self.error: Exception | None = None
        self._wake = asyncio.Event()
        self._start = time.monotonic()
        self._new_game()
        self.app: Application[int] = Application(
            layout=Layout(self._container()), key_bindings=self._bindings(), style=STYLE,
            full_screen=True, mouse_support=False,
            color_depth=ColorDepth.DEPTH_1_BIT if plain else None)

    def _new_game(self) -> None:
        self.games += 1
        self.table, seed = self.make_table(self.games)
        self.controller = Controller(self.table, seed)
        self.table.add_listener(self._changed)

    def now_ms(self) -> int:
        return int((time.monotonic() - self._start) * 1000)

    def _changed(self) -> None:
        self.controller.sync()
        self._wake.set()
        if hasattr(self, "app"):
            self.app.invalidate()

    # -- the game's pace -------------------------------------------------------------------------
    async def run(self) -> int:
        """Run the full-screen game until the human quits; returns the exit code.

        SIGTERM ends the screen the same way as quitting, so the terminal is
        restored (no stray alternate screen or hidden cursor).
        """
        task = asyncio.get_running_loop().create_task(self._drive())
        try:
            with sigterm_calls(lambda: self.app.exit(result=EXIT_TERMINATED)):
                return await self.app.run_async()
        finally:
            task.cancel()

    async def _drive(self) -> None:
        try:
            while True:
                await self._step()
        except Exception as error:  # a bug: stop the screen and say it, never hang
            self.error = error
            self.app.exit(result=1)

    async def _wait(self, seconds: float | None) -> bool:
        """Sleep up to ``seconds`` (None: until woken); True if something woke us."""
        self._wake.clear()
        try:
            async with asyncio.timeout(seconds):
                await self._wake.wait()
        except TimeoutError:
            return False
        return True

    async def _step(self) -> None:
        table = self.table
        if self.controller.paused:
            await self._wait(None)
            return
        step = table.next()
        if step == Next.TABLE:
            table.advance(self.now_ms())
            await asyncio.sleep(0)
        elif step == Next.BOT:
            if not await self._wait(self.bot_delay) and not table.advance(self.now_ms()):
                await asyncio.sleep(HELD_BACK_S)  # a move held back by catch_grace_ms
            await asyncio.sleep(0)
        elif step == Next.HUMAN:
            deadline = table.deadline_ms()
            left = None if deadline is None else max(0.0, (deadline - self.now_ms()) / 1000)
            if left is None and self.controller.network is not None:
                left = 1.0  # a network table: its timers and waits count down on screen
            if not await self._wait(min(left, 1.0) if left is not None else None):
                table.tick(self.now_ms())
                self.app.invalidate()  # the timer shown counts down
        else:
            await self._wait(None if self.controller.network is None else 1.0)
            self.app.invalidate()

    # -- keys --------------------------------------------------------------------------------------
    def _bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        @bindings.add(Keys.Any)
        @bindings.add(Keys.Left)
        @bindings.add(Keys.Right)
        @bindings.add(Keys.ControlM)
        @bindings.add(Keys.Escape)
        @bindings.add(Keys.ControlC)
        @bindings.add(Keys.Up)
        @bindings.add(Keys.Down)
        @bindings.add(Keys.PageUp)
        @bindings.add(Keys.PageDown)
        @bindings.add(Keys.End)
        @bindings.add(Keys.ControlH)
        def _key(event: KeyPressEvent) -> None:
            press = event.key_sequence[0]
            name = _KEY_NAMES.get(press.key) if isinstance(press.key, Keys) else None
            if name is None:
                name = "space" if press.data == " " else press.data.lower()
            if self.too_small() and name not in ("q", "c-c", "y", "n"):
                return
            if self.controller.mode == Mode.CHAT and press.data.isprintable() \
                    and len(press.data) == 1 and press.data != " ":
                self.controller.type_text(press.data)  # case kept: it is a message
                self.app.invalidate()
                return
            self.press(name)

        return bindings

    def press(self, key: str) -> None:
        """One key from the terminal, through the controller."""
        outcome = self.controller.press(key, self.now_ms())
        if outcome == Outcome.QUIT:
            self.app.exit(result=0)
        elif outcome == Outcome.NEW_GAME:
            self._new_game()
        self._wake.set()
        self.app.invalidate()

    # -- layout ------------------------------------------------------------------------------------
    def _size(self) -> tuple[int, int]:
        size = self.app.output.get_size() if hasattr(self, "app") else None
        return (size.columns, size.rows) if size else (80, 24)

    def _main_width(self) -> int:
        width, _ = self._size()
        return width - NEWS_COLUMN - 1 if width >= WIDE else width

    def _text(self, build: Callable[[], render.Block]) -> Window:
        def get() -> StyleAndTextTuples:
            return render.to_text(build())
        return Window(FormattedTextControl(get), dont_extend_height=True)

    def _container(self) -> Container:
        def seats() -> render.Seats:  # read anew: a new game brings a new table
            return self.controller.seats

        def view() -> State:
            return self.table.view()

        top = self._text(lambda: render.header(view(), seats(), self._size()[0]))
        roomy = Condition(lambda: self._space()[0])
        networked = Condition(lambda: self.controller.network is not None)
        table_part = HSplit([
            ConditionalContainer(self._text(self._presence), filter=networked),
            self._text(lambda: render.opponents(view(), seats())),
            ConditionalContainer(Window(height=1), filter=roomy),
            self._text(lambda: render.centre(view(), seats(), self.plain, self._main_width(),
                                             self._seconds_left())),
            ConditionalContainer(self._text(self._waits), filter=networked),
            ConditionalContainer(Window(height=1), filter=roomy),
            self._text(lambda: [render.me_line(
                view(), seats(), self.plain,
                bool(render.playable_slots(self.table.legal_actions())))]),
            self._text(self._hand),
        ])
        news = Window(FormattedTextControl(self._news), wrap_lines=False,
                      height=Dimension(min=1, preferred=1, weight=1), always_hide_cursor=True)
        chat = ConditionalContainer(HSplit([
            Window(height=1, char="─", style="class:muted"),
            Window(FormattedTextControl(self._chat), height=self._chat_height, wrap_lines=False),
            ConditionalContainer(self._text(self._chat_input), filter=Condition(
                lambda: self.controller.mode == Mode.CHAT)),
        ]), filter=networked)
        narrow = HSplit([table_part, ConditionalContainer(Window(height=1), filter=roomy), news,
                         chat])
        wide = VSplit([table_part, Window(width=1, char="│", style="class:muted"),
                       HSplit([news, chat], width=NEWS_COLUMN)],
                      height=Dimension(min=1, weight=1))  # fill the screen, not the table's size
        body = DynamicContainer(lambda: wide if self._size()[0] >= WIDE else narrow)
        bottom = [self._text(lambda: [[("class:status", f" {self.controller.status}")]]),
                  self._text(lambda: render.key_help(self.controller.key_help(), self._size()[0]))]
        dialog = Window(FormattedTextControl(self._dialog), dont_extend_width=True,
                        dont_extend_height=True)
        shown = ConditionalContainer(dialog, filter=Condition(
            lambda: self.controller.dialog() is not None))
        game = FloatContainer(HSplit([top, body, *bottom]), floats=[Float(shown)])
        small = Window(FormattedTextControl(lambda: render.to_text(self._too_small_text())),
                       wrap_lines=True)
        return DynamicContainer(lambda: small if self.too_small() else game)

    def _news_width(self) -> int:
        width, _ = self._size()
        return NEWS_COLUMN - 1 if width >= WIDE else width - 1

    def _presence(self) -> render.Block:
        status = self.controller.network
        return [presence_line(status)] if status is not None else []

    def _waits(self) -> render.Block:
        status = self.controller.network
        return waits(status, self.now_ms()) if status is not None else []

    def _chat(self) -> StyleAndTextTuples:
        status = self.controller.network
        if status is None:
            return []
        rows = chat_pane(status.chat, CHAT_ROWS, self._news_width())
        return render.to_text(rows or [[("class:muted", "No chat yet: press t to say something.")]])

    def _chat_height(self) -> Dimension:
        """As many rows as there are messages, up to ``CHAT_ROWS``: the news keeps the rest."""
        status = self.controller.network
        rows = len(chat_pane(status.chat, CHAT_ROWS, self._news_width())) if status else 0
        return Dimension.exact(max(1, rows))

    def _chat_input(self) -> render.Block:
        return [chat_input(self.controller.typed, self._news_width())]

    def too_small(self) -> bool:
        """The terminal cannot hold the table (the screen then says so and waits)."""
        width, rows = self._size()
        return width < MIN_SIZE[0] or rows < MIN_SIZE[1]

    def _too_small_text(self) -> render.Block:
        width, rows = self._size()
        text = f"The terminal is {width}×{rows}; the table needs at least " \
            f"{MIN_SIZE[0]}×{MIN_SIZE[1]}. Make the window bigger to go on, or press q to quit."
        return [[("class:status", row)] for row in render.wrap(text, max(8, width), "")]

    def _space(self) -> tuple[bool, bool]:
        """(room for blank separator lines, room for three-line hand rows)."""
        width, rows = self._size()
        view = self.table.view()
        hand_rows = render.hand_rows(len(view.hands[self.table.seat]), self._main_width())
        # header, opponents, centre, own line, status and help; one news line when narrow
        base = 1 + (len(view.players) - 1) + render.BIG_H + 1 + 2 + (0 if width >= WIDE else 1)
        if self.controller.network is not None:  # players line, waits; chat under the news
            base += 1 + len(self._waits()) + (0 if width >= WIDE else CHAT_ROWS + 2)
        full = base + 3 * hand_rows
        return rows >= full + 3, rows >= full

    def _hand(self) -> render.Block:
        table = self.table
        return render.hand(table.view(), self.controller.seats, self.controller.cursor,
                           self.controller.marked, render.playable_slots(table.legal_actions()),
                           self._main_width(), self.plain, compact=not self._space()[1],
                           order=self.controller.hand_order())

    def _news(self) -> StyleAndTextTuples:
        """The news, wrapped; the window scrolls to the cursor placed on the last line
        (the newest, or the last one shown when the player scrolled back)."""
        _, rows = self._size()
        back = self.controller.news_back
        lines = render.news(self.table.news, max(NEWS_SHOWN, rows), self._news_width(), back)
        if back:
            lines.append([("class:muted", f"↓ {back} newer line{'s' if back != 1 else ''}: "
                                          "End shows the newest")])
        if lines:
            lines[-1].insert(0, ("[SetCursorPosition]", ""))
        return render.to_text(lines)

    def _dialog(self) -> StyleAndTextTuples:
        return render.to_text(self.controller.dialog() or [])

    def _seconds_left(self) -> int | None:
        deadline = self.table.deadline_ms()
        return None if deadline is None else max(0, (deadline - self.now_ms() + 999) // 1000)
