"""Keys to actions: the table's cursor, marks, pickers and dialogs, without a terminal.

The ``Controller`` turns key names (``"left"``, ``"enter"``, ``"d"``...) into
the human's actions, offering only what the engine's ``legal_actions`` allows
for the seat; a key that does nothing now sets one short sentence in the
status line (the engine's own reason when it has one). A play that needs a
choice opens a picker: the colour for a black card, the Wild power and its
victim (``wild_powers``), the player to swap hands with (``seven_zero``).
Tests drive it with key names, exactly as the terminal does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from enum import Enum
from typing import TypeVar

from uno_p2p.errors import IllegalAction
from uno_p2p.rules import (
    Action,
    CatchUno,
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Draw,
    Pass,
    Phase,
    Play,
    SayUno,
    Slot,
    State,
    apply,
    is_black,
    long_name,
    points,
)
from uno_p2p.rules.cards import COLOUR_NAMES, Rank, colour_of, rank_of
from uno_p2p.ui import overlays, words
from uno_p2p.ui.modes import COLOUR_KEYS, Mode
from uno_p2p.ui.render import Block, Seats, card_order, play_order
from uno_p2p.ui.session import Table
from uno_p2p.ui.status import (
    CHAT_MAX,
    NetworkTable,
    PausingTable,
    TableStatus,
    check_chat,
    status_of,
)

POWER_KEYS = {"c": "", "p": "peek", "s": "swap"}
DIGITS = "1234567890"
#: News scrolling: lines moved back per key (0: back to the newest).
#: News that ends the human's turn without their doing (RULES.md jump_in, turn_timer).
TURN_TAKERS = (" jumped in with ", " ran out of time")
NEWS_KEYS = {"up": 1, "down": -1, "pageup": 8, "pagedown": -8, "end": 0}
T = TypeVar("T")


class Outcome(Enum):
    """What a key asks of the shell."""

    NONE = "none"
    QUIT = "quit"
    NEW_GAME = "new_game"


class Controller:
    """The human's side of the table (see the module docstring)."""

    def __init__(self, table: Table, seed: str = "") -> None:
        self.table = table
        self.seed = seed
        self.cursor = 0
        self.marked: set[Slot] = set()
        self.mode = Mode.TABLE
        self.status = words.WELCOME
        self.uno_armed = False
        self.candidates: list[Action] = []
        self.shown_rounds = 0
        self._over_shown = False
        self._before_quit = Mode.TABLE
        self._before_help = Mode.TABLE
        #: The hand is shown sorted by colour and number (``s`` toggles dealt order).
        self.sorted_hand = True
        #: News lines scrolled back from the newest (0: the newest line is shown).
        self.news_back = 0
        #: Why the turn left the human without their doing (a jump-in, a time-out).
        self.turn_lost = ""
        #: The decision the human owes now (its phase and start), or None.
        self._decision: tuple[Phase, int] | None = None
        self._acted = False
        #: The chat message being typed (Mode.CHAT).
        self.typed = ""

    # -- state the shell reads ------------------------------------------------------------------
    @property
    def seats(self) -> Seats:
        """Who is who now, read from the table each time: at a network table a vanished
        player's seat is removed and the seats after it close up (table.md §14.2), so
        the names, and the reader's own seat number, change during the game."""
        return Seats(self.table.names, self.table.seat)

    @property
    def paused(self) -> bool:
        """Bots wait while a score table, the help or the quit question is open."""
        return self.mode in (Mode.ROUND, Mode.OVER, Mode.QUIT, Mode.HELP)

    def hand_order(self) -> list[Slot]:
        """The human's cards as shown: by colour then number, or in the order received."""
        view = self.table.view()
        slots = list(view.hands[self.seats.me])
        if self.sorted_hand:
            slots.sort(key=lambda s: card_order(view.known.get(s)))
        return slots

    @property
    def network(self) -> TableStatus | None:
        """The network table's status (players, waits, chat), None in a local game."""
        return status_of(self.table)

    def sync(self) -> None:
        """Follow the game after any change: keep the cursor valid, open dialogs."""
        status = self.network
        if status is not None and status.stopped is not None:
            self.mode = Mode.STOPPED  # nothing else can happen at this table
            return
        view = self.table.view()
        hand = view.hands[self.seats.me]
        self.marked &= set(hand)
        self.cursor = max(0, min(self.cursor, len(hand) - 1))
        self._follow_turn(view)
        summaries = self.table.summaries
        if self.mode == Mode.TABLE and len(summaries) > self.shown_rounds:
            self.mode = Mode.ROUND  # the last round's table first, then the end of the game
            self.shown_rounds = len(summaries)
            return
        if self.mode == Mode.TABLE and summaries and summaries[-1].game_winner >= 0 \
                and view.phase == Phase.GAME_OVER and not self._over_shown:
            # A network game learns who won after its last round (the final reveal):
            # the player already closed that round's table, so the end shows now.
            self.mode = Mode.OVER
        if self.mode == Mode.ROUND and self.network is not None and \
                view.decider() == self.seats.me:
            # The pause between rounds is over (table.md §6) and this player's first
            # decision has begun: its timer runs, so the scores give way to the table.
            self._close_round()
            self.status = words.NEXT_ROUND_YOUR_TURN
        if self.mode == Mode.OVER:
            self._over_shown = True
            return
        legal = self.table.legal_actions()
        if self.mode in (Mode.COLOUR, Mode.POWER, Mode.TARGET):
            if not any(c in legal for c in self.candidates):
                self._reset(words.NO_LONGER_POSSIBLE)
            return
        if self.mode == Mode.VERDICT and not _of(legal, ChallengeVerdict):
            self.mode = Mode.TABLE
        if self.mode != Mode.TABLE:
            return
        if _of(legal, ChallengeVerdict):
            self.mode = Mode.VERDICT
        elif starters := _of(legal, ChooseColour):
            self.candidates = list(starters)
            self.mode = Mode.COLOUR
            self.status = words.NAME_THE_STARTER

    def _follow_turn(self, view: State) -> None:
        """Notice a decision taken from the human by someone else (a jump-in, a time-out).

        Every decision the human owes counts: a turn, a challenge verdict, a starter
        Wild's colour (``State.decider``, each with its own ``turn_timer``). A decision is
        its phase and the moment it began, so a new one (the verdict after the human's
        challenge, a second turn after a Skip) is told apart from the one answered.
        """
        owed = view.decider() == self.seats.me
        decision = (view.phase, view.turn_started_ms) if owed else None
        if self._decision is not None and decision != self._decision and not self._acted:
            recent = list(self.table.news)[-8:]
            causes = [line for line in recent if any(w in line for w in TURN_TAKERS)]
            self.turn_lost = causes[-1] if causes else words.TURN_MOVED_ON
            self.status = words.turn_over(self.turn_lost)
        elif owed:
            self.turn_lost = ""
        if decision != self._decision:
            # Not before: a move sent over the network is not logged yet, so what we did
            # is remembered until the decision it answered is over.
            self._acted = False
        self._decision = decision

    # -- keys -----------------------------------------------------------------------------------
    def press(self, key: str, now_ms: int) -> Outcome:
        """Handle one key (see ``keys``); returns what the shell must do."""
        if self.mode == Mode.CHAT:
            return self._chat_key(key)
        handler = {
            Mode.TABLE: self._table_key, Mode.COLOUR: self._colour_key,
            Mode.POWER: self._power_key, Mode.TARGET: self._target_key,
            Mode.VERDICT: self._verdict_key, Mode.ROUND: self._round_key,
            Mode.OVER: self._over_key, Mode.QUIT: self._quit_key,
            Mode.HELP: self._help_key, Mode.STOPPED: self._stopped_key,
        }[self.mode]
        if key in ("q", "c-c") and self.mode not in (Mode.QUIT, Mode.OVER, Mode.HELP,
                                                      Mode.STOPPED):
            self._before_quit = self.mode
            self.mode = Mode.QUIT
            return Outcome.NONE
        if key in ("?", "h") and self.mode not in (Mode.QUIT, Mode.HELP):
            self._before_help = self.mode
            self.mode = Mode.HELP
            return Outcome.NONE
        if key in NEWS_KEYS:
            self.scroll_news(key)
            return Outcome.NONE
        outcome = handler(key, now_ms)
        self.sync()
        return outcome

    def scroll_news(self, key: str) -> None:
        """Up/Page Up go back through the news, Down/Page Down forward, End to the newest."""
        step = NEWS_KEYS[key]
        limit = max(0, len(self.table.news) - 1)
        self.news_back = 0 if step == 0 else max(0, min(limit, self.news_back + step))

    def _table_key(self, key: str, now_ms: int) -> Outcome:
        hand = self.hand_order()
        if key in ("left", "right") and hand:
            self.cursor = (self.cursor + (1 if key == "right" else -1)) % len(hand)
        elif key in DIGITS and hand:
            index = DIGITS.index(key)
            if index < len(hand):
                self.cursor = index
        elif key == "space" and hand:
            self.marked ^= {hand[self.cursor]}
        elif key == "escape":
            self.marked.clear()
            self.uno_armed = False
        elif key == "s":
            self._toggle_sort(hand)
        elif key == "t" and self.network is not None:
            self.mode, self.typed = Mode.CHAT, ""
            self.status = words.TYPE_A_MESSAGE
        elif key in ("enter", "j"):
            self._play(key == "j", now_ms)
        else:
            simple: dict[str, Callable[[int], None]] = {
                "d": self._draw, "p": self._pass, "u": self._uno,
                "c": self._catch, "x": self._challenge,
            }
            if key in simple:
                simple[key](now_ms)
            elif len(key) == 1 and key.isprintable():
                self.status = words.KEY_DOES_NOTHING.format(key=key)
        return Outcome.NONE

    def _toggle_sort(self, hand: Sequence[Slot]) -> None:
        """Sort by colour and number, or show the order received; the cursor stays on its card."""
        under = hand[self.cursor] if hand else None
        self.sorted_hand = not self.sorted_hand
        order = self.hand_order()
        if under is not None:
            self.cursor = order.index(under)
        self.status = words.HAND_SORTED if self.sorted_hand else words.HAND_AS_DEALT

    # -- single actions -------------------------------------------------------------------------
    def _submit(self, action: Action, now_ms: int) -> bool:
        try:
            self._acted = True
            self.table.submit(action, now_ms)
        except IllegalAction as error:
            self._acted = False
            self.status = self._too_late() or words.engine_sentence(str(error))
            return False
        self.status = ""
        return True

    def _too_late(self) -> str:
        """Why a key did nothing when the turn was taken by someone else just before."""
        if self.turn_lost and self.table.view().current != self.seats.me:
            return words.too_late(self.turn_lost)
        return ""

    def _not_your_turn(self) -> str:
        return self._too_late() or words.NOT_YOUR_TURN

    def _first(self, kind: type[T]) -> T | None:
        found = _of(self.table.legal_actions(), kind)
        return found[0] if found else None

    def _draw(self, now_ms: int) -> None:
        action = self._first(Draw)
        if action is None:
            view = self.table.view()
            self.status = (self._not_your_turn() if view.current != self.seats.me else
                           words.DRAWN_ALREADY)
            return
        if self._submit(action, now_ms):
            view = self.table.view()
            hand = self.hand_order()
            if view.drawn in hand:
                self.cursor = hand.index(view.drawn)

    def _pass(self, now_ms: int) -> None:
        action = self._first(Pass)
        if action is not None:
            self._submit(action, now_ms)
            return
        view = self.table.view()
        if view.current != self.seats.me:
            self.status = self._not_your_turn()
            return
        if view.drawn is None:
            self.status = words.ONLY_AFTER_DRAWING
            return
        try:  # the engine says which rule makes the drawn card playable or drawing go on
            apply(view, Pass(self.seats.me))
        except IllegalAction as error:
            self.status = words.engine_sentence(str(error))

    def _uno(self, now_ms: int) -> None:
        action = self._first(SayUno)
        if action is not None:
            self._submit(action, now_ms)
            return
        view = self.table.view()
        if len(view.hands[self.seats.me]) == 2:
            self.uno_armed = not self.uno_armed
            self.status = words.UNO_ARMED if self.uno_armed else words.UNO_DISARMED
        else:
            self.status = words.UNO_WHEN

    def _catch(self, now_ms: int) -> None:
        action = self._first(CatchUno)
        if action is None:
            self.status = words.NOBODY_TO_CATCH
        else:
            self._submit(action, now_ms)

    def _challenge(self, now_ms: int) -> None:
        action = self._first(Challenge)
        if action is None:
            self.status = words.NOTHING_TO_CHALLENGE
        else:
            self._submit(action, now_ms)

    # -- plays ------------------------------------------------------------------------------------
    def selection(self) -> tuple[Slot, ...]:
        """The marked cards, or the card under the cursor."""
        hand = self.hand_order()
        if self.marked:
            return tuple(s for s in hand if s in self.marked)
        return (hand[self.cursor],) if hand else ()

    def _play(self, jump: bool, now_ms: int) -> None:
        chosen = self.selection()
        if not chosen:
            return
        legal = self.table.legal_actions()
        plays = [a for a in _of(legal, Play) if set(a.slots) == set(chosen)]
        if not plays:
            self.status = self._why_not(chosen, jump, legal)
            return
        said = [p for p in plays if p.say_uno == self.uno_armed]
        self.candidates = list(said or plays)
        self._narrow(now_ms)

    def _why_not(self, chosen: tuple[Slot, ...], jump: bool, legal: Sequence[Action]) -> str:
        view = self.table.view()
        me = self.seats.me
        if view.current != me or jump:
            jumps = [a for a in _of(legal, Play) if view.current != me]
            if jumps:
                names = ", ".join(sorted({_cards(view, a.slots) for a in jumps}))
                return words.JUMP_IN_WITH.format(cards=names)
            return self._not_your_turn() if view.current != me else \
                words.JUMP_NOT_ON_YOUR_TURN
        faces = tuple(view.known[s] for s in chosen)
        probe = Play(me, chosen, faces, colour=0 if is_black(faces[-1]) else -1)
        try:
            apply(view, probe)
        except IllegalAction as error:
            return words.engine_sentence(str(error))
        return words.CANNOT_PLAY.format(cards=_cards(view, chosen))

    def _narrow(self, now_ms: int) -> None:
        """Ask for what still differs between the candidate plays, then submit."""
        plays = [p for p in self.candidates if isinstance(p, Play)]
        if len({p.colour for p in plays}) > 1:
            self.mode = Mode.COLOUR
            self.status = self._bluff_warning(plays[0])
            return
        if len({p.power for p in plays}) > 1:
            self.mode = Mode.POWER
        elif len({p.target for p in plays}) > 1:
            self.mode = Mode.TARGET
        else:
            play = plays[0]
            if play.power == "swap":
                play = self._swap_give(play)
            self._reset("")
            if self._submit(play, now_ms):
                self.uno_armed = False
                self.marked.clear()
            return
        self.status = ""

    def _bluff_warning(self, play: Play) -> str:
        """RULES.md: the bluff is allowed ("a warning is fine"): say what it risks."""
        view = self.table.view()
        if rank_of(play.cards[-1]) != Rank.WILD_DRAW_FOUR or view.colour is None:
            return ""
        rest = [view.known.get(s) for s in view.hands[self.seats.me] if s not in play.slots]
        if not any(f is not None and colour_of(f) == view.colour for f in rest):
            return ""
        return words.BLUFF.format(colour=COLOUR_NAMES[view.colour])

    def _swap_give(self, play: Play) -> Play:
        """Give the costliest cards in a Wild swap, keeping black cards (wild_powers)."""
        view = self.table.view()
        remaining = [s for s in view.hands[self.seats.me] if s not in play.slots]
        remaining.sort(key=lambda s: (is_black(view.known[s]), -points(view.known[s])))
        return replace(play, give=tuple(remaining[:len(play.give)]))

    def _reset(self, status: str) -> None:
        self.mode = Mode.TABLE
        self.candidates = []
        self.status = status

    # -- pickers and dialogs --------------------------------------------------------------------
    def _colour_key(self, key: str, now_ms: int) -> Outcome:
        if key == "escape":
            self._reset("")
            self.sync()  # a Wild starter's colour is not optional: it reopens
        elif key in COLOUR_KEYS:
            colour = COLOUR_KEYS[key]
            picked = [a for a in self.candidates if getattr(a, "colour", -1) == colour]
            if picked and isinstance(picked[0], ChooseColour):
                self._reset("")
                self._submit(picked[0], now_ms)
            elif picked:
                self.candidates = list(picked)
                self._narrow(now_ms)
        return Outcome.NONE

    def _power_key(self, key: str, now_ms: int) -> Outcome:
        if key == "escape":
            self._reset("")
        elif key in POWER_KEYS:
            self.candidates = [a for a in self.candidates
                               if getattr(a, "power", "") == POWER_KEYS[key]]
            self._narrow(now_ms)
        return Outcome.NONE

    def target_choices(self) -> list[int]:
        """Seats a target picker offers, in play order (numbered from 1)."""
        targets = {getattr(a, "target", -1) for a in self.candidates}
        return [s for s in play_order(self.table.view(), self.seats.me) if s in targets]

    def _target_key(self, key: str, now_ms: int) -> Outcome:
        targets = self.target_choices()
        if key == "escape":
            self._reset("")
        elif key in DIGITS and DIGITS.index(key) < len(targets):
            target = targets[DIGITS.index(key)]
            self.candidates = [a for a in self.candidates if getattr(a, "target", -1) == target]
            self._narrow(now_ms)
        return Outcome.NONE

    def _verdict_key(self, key: str, now_ms: int) -> Outcome:
        if key == "enter" and (verdict := self._first(ChallengeVerdict)) is not None:
            self.mode = Mode.TABLE
            self._submit(verdict, now_ms)
        return Outcome.NONE

    def _round_key(self, key: str, now_ms: int) -> Outcome:
        if key in ("enter", "space", "escape"):
            self._close_round()
        return Outcome.NONE

    def _close_round(self) -> None:
        """Leave the round's scores; a network table's next round waits for this."""
        over = self.table.summaries[-1].game_winner >= 0
        self.mode = Mode.OVER if over else Mode.TABLE
        if isinstance(self.table, PausingTable):
            self.table.go_on()

    def _over_key(self, key: str, now_ms: int) -> Outcome:
        if key in ("q", "c-c", "escape"):
            return Outcome.QUIT
        if key == "n" and self.network is None:  # a network table deals no new game here
            return Outcome.NEW_GAME
        return Outcome.NONE

    def type_text(self, text: str) -> None:
        """Characters typed into the chat message (case and spaces kept)."""
        if self.mode == Mode.CHAT:
            self.typed = (self.typed + text)[:CHAT_MAX]

    def _chat_key(self, key: str) -> Outcome:
        if key in ("escape", "c-c"):
            self.mode, self.typed, self.status = Mode.TABLE, "", ""
        elif key == "backspace":
            self.typed = self.typed[:-1]
        elif key == "space":
            self.type_text(" ")
        elif key == "enter":
            self._send_chat()
        elif len(key) == 1 and key.isprintable():
            self.type_text(key)
        return Outcome.NONE

    def _send_chat(self) -> None:
        table = self.table
        if not isinstance(table, NetworkTable):
            self.status = words.NO_CHAT
            return
        try:
            table.send_chat(check_chat(self.typed))
        except ValueError as error:
            self.status = words.engine_sentence(str(error))
            return
        self.mode, self.typed, self.status = Mode.TABLE, "", ""

    def _stopped_key(self, key: str, now_ms: int) -> Outcome:
        return Outcome.QUIT if key in ("q", "c-c", "escape", "enter") else Outcome.NONE

    def _help_key(self, key: str, now_ms: int) -> Outcome:
        if key in ("?", "h", "escape", "enter", "q", "space", "c-c"):
            self.mode = self._before_help
        return Outcome.NONE

    def _quit_key(self, key: str, now_ms: int) -> Outcome:
        if key in ("y", "c-c"):  # a second Ctrl-C quits
            return Outcome.QUIT
        if key in ("n", "escape", "q"):
            self.mode = self._before_quit
        return Outcome.NONE

    # -- what the screen shows ------------------------------------------------------------------
    def key_help(self) -> list[tuple[str, str]]:
        """The key help line: only what works now."""
        return overlays.key_help(self)

    def dialog(self) -> Block | None:
        """The box drawn over the table, if any."""
        return overlays.dialog(self)

    def first(self, kind: type[T]) -> T | None:
        """The first legal action of ``kind`` for the human, if any."""
        return self._first(kind)


def _of(actions: Sequence[Action], kind: type[T]) -> list[T]:
    return [a for a in actions if isinstance(a, kind)]


def _cards(view: object, slots: Sequence[Slot]) -> str:
    known = getattr(view, "known", {})
    return " + ".join(long_name(known[s]) if s in known else "?" for s in slots)

