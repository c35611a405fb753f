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
    Play,
    SayUno,
    Slot,
    apply,
    is_black,
    long_name,
    points,
    short_name,
)
from uno_p2p.rules.cards import COLOUR_NAMES, Rank, colour_of, rank_of
from uno_p2p.ui.dialogs import boxed, choices, game_over, round_table
from uno_p2p.ui.render import Block, Seats, play_order
from uno_p2p.ui.session import Table

COLOUR_KEYS = {"r": 0, "y": 1, "g": 2, "b": 3, "1": 0, "2": 1, "3": 2, "4": 3}
POWER_KEYS = {"c": "", "p": "peek", "s": "swap"}
DIGITS = "1234567890"
T = TypeVar("T")


class Mode(Enum):
    TABLE = "table"
    COLOUR = "colour"      # name a colour (a black card, or the Wild starter)
    POWER = "power"        # wild_powers: colour only, peek or swap
    TARGET = "target"      # which player (seven_zero 7, peek, swap)
    VERDICT = "verdict"    # the challenged hand is shown: give the verdict
    ROUND = "round"        # the round's score table
    OVER = "over"          # the end of the game
    QUIT = "quit"          # "quit this game?"


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
        self.seats = Seats(table.names, table.seat)
        self.cursor = 0
        self.marked: set[Slot] = set()
        self.mode = Mode.TABLE
        self.status = "Welcome! ←/→ choose a card, Enter plays it, d draws."
        self.uno_armed = False
        self.candidates: list[Action] = []
        self.shown_rounds = 0
        self._before_quit = Mode.TABLE

    # -- state the shell reads ------------------------------------------------------------------
    @property
    def paused(self) -> bool:
        """Bots wait while a score table or the quit question is open."""
        return self.mode in (Mode.ROUND, Mode.OVER, Mode.QUIT)

    def sync(self) -> None:
        """Follow the game after any change: keep the cursor valid, open dialogs."""
        view = self.table.view()
        hand = view.hands[self.seats.me]
        self.marked &= set(hand)
        self.cursor = max(0, min(self.cursor, len(hand) - 1))
        summaries = self.table.summaries
        if self.mode == Mode.TABLE and len(summaries) > self.shown_rounds:
            self.mode = Mode.ROUND  # the last round's table first, then the end of the game
            self.shown_rounds = len(summaries)
            return
        legal = self.table.legal_actions()
        if self.mode in (Mode.COLOUR, Mode.POWER, Mode.TARGET):
            if not any(c in legal for c in self.candidates):
                self._reset("Too late: that play is no longer possible.")
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
            self.status = "The starter is a Wild: name the colour to match."

    # -- keys -----------------------------------------------------------------------------------
    def press(self, key: str, now_ms: int) -> Outcome:
        """Handle one key (see ``keys``); returns what the shell must do."""
        handler = {
            Mode.TABLE: self._table_key, Mode.COLOUR: self._colour_key,
            Mode.POWER: self._power_key, Mode.TARGET: self._target_key,
            Mode.VERDICT: self._verdict_key, Mode.ROUND: self._round_key,
            Mode.OVER: self._over_key, Mode.QUIT: self._quit_key,
        }[self.mode]
        if key in ("q", "c-c") and self.mode not in (Mode.QUIT, Mode.OVER):
            self._before_quit = self.mode
            self.mode = Mode.QUIT
            return Outcome.NONE
        outcome = handler(key, now_ms)
        self.sync()
        return outcome

    def _table_key(self, key: str, now_ms: int) -> Outcome:
        hand = self.table.view().hands[self.seats.me]
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
        elif key in ("enter", "j"):
            self._play(key == "j", now_ms)
        else:
            simple: dict[str, Callable[[int], None]] = {
                "d": self._draw, "p": self._pass, "k": self._pass, "u": self._uno,
                "c": self._catch, "h": self._challenge,
            }
            if key in simple:
                simple[key](now_ms)
            elif len(key) == 1 and key.isprintable():
                self.status = f"The key {key} does nothing here: the bottom line lists the keys."
        return Outcome.NONE

    # -- single actions -------------------------------------------------------------------------
    def _submit(self, action: Action, now_ms: int) -> bool:
        try:
            self.table.submit(action, now_ms)
        except IllegalAction as error:
            self.status = _sentence(str(error))
            return False
        self.status = ""
        return True

    def _first(self, kind: type[T]) -> T | None:
        found = _of(self.table.legal_actions(), kind)
        return found[0] if found else None

    def _draw(self, now_ms: int) -> None:
        action = self._first(Draw)
        if action is None:
            view = self.table.view()
            self.status = ("It is not your turn." if view.current != self.seats.me else
                           "You have drawn already: play that card (Enter) or keep it (k).")
            return
        if self._submit(action, now_ms):
            view = self.table.view()
            hand = view.hands[self.seats.me]
            if view.drawn in hand:
                self.cursor = hand.index(view.drawn)

    def _pass(self, now_ms: int) -> None:
        action = self._first(Pass)
        if action is not None:
            self._submit(action, now_ms)
            return
        view = self.table.view()
        if view.current != self.seats.me or view.drawn is None:
            self.status = "You can keep a card only right after drawing it."
            return
        try:  # the engine says which rule makes the drawn card playable or drawing go on
            apply(view, Pass(self.seats.me))
        except IllegalAction as error:
            self.status = _sentence(str(error))

    def _uno(self, now_ms: int) -> None:
        action = self._first(SayUno)
        if action is not None:
            self._submit(action, now_ms)
            return
        view = self.table.view()
        if len(view.hands[self.seats.me]) == 2:
            self.uno_armed = not self.uno_armed
            self.status = ("You will say UNO with your next play." if self.uno_armed
                           else "You will not say UNO with your next play.")
        else:
            self.status = "Say UNO when you are down to one card (or with the play before)."

    def _catch(self, now_ms: int) -> None:
        action = self._first(CatchUno)
        if action is None:
            self.status = "Nobody can be caught now: catch a player left with one card " \
                "who has not said UNO."
        else:
            self._submit(action, now_ms)

    def _challenge(self, now_ms: int) -> None:
        action = self._first(Challenge)
        if action is None:
            self.status = "There is no Wild Draw Four played on you to challenge."
        else:
            self._submit(action, now_ms)

    # -- plays ------------------------------------------------------------------------------------
    def selection(self) -> tuple[Slot, ...]:
        """The marked cards, or the card under the cursor."""
        hand = self.table.view().hands[self.seats.me]
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
                return f"You can jump in with {names}: select it, then press j."
            return "It is not your turn." if view.current != me else \
                "Jumping in is for when it is not your turn: press Enter to play."
        faces = tuple(view.known[s] for s in chosen)
        probe = Play(me, chosen, faces, colour=0 if is_black(faces[-1]) else -1)
        try:
            apply(view, probe)
        except IllegalAction as error:
            return _sentence(str(error))
        return f"You cannot play {_cards(view, chosen)} now."

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
        if rank_of(play.cards[-1]) != Rank.WILD_DRAW_FOUR or view.colour < 0:
            return ""
        rest = [view.known.get(s) for s in view.hands[self.seats.me] if s not in play.slots]
        if not any(f is not None and colour_of(f) == view.colour for f in rest):
            return ""
        return (f"A bluff: you hold {COLOUR_NAMES[view.colour]}. If challenged you draw 4 "
                "instead. Name a colour to play it, Esc to think again.")

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
            over = self.table.summaries[-1].game_winner >= 0
            self.mode = Mode.OVER if over else Mode.TABLE
        return Outcome.NONE

    def _over_key(self, key: str, now_ms: int) -> Outcome:
        if key in ("q", "c-c", "escape"):
            return Outcome.QUIT
        return Outcome.NEW_GAME if key == "n" else Outcome.NONE

    def _quit_key(self, key: str, now_ms: int) -> Outcome:
        if key == "y":
            return Outcome.QUIT
        if key in ("n", "escape", "q"):
            self.mode = self._before_quit
        return Outcome.NONE

    # -- what the screen shows ------------------------------------------------------------------
    def key_help(self) -> list[tuple[str, str]]:
        """The key help line: only what works now."""
        if self.mode != Mode.TABLE:
            return {
                Mode.COLOUR: [("r/y/g/b", "colour"), ("Esc", "back")],
                Mode.POWER: [("c", "colour only"), ("p", "peek"), ("s", "swap"), ("Esc", "back")],
                Mode.TARGET: [("1-9", "player"), ("Esc", "back")],
                Mode.VERDICT: [("Enter", "give the verdict")],
                Mode.ROUND: [("Enter", "go on"), ("q", "quit")],
                Mode.OVER: [("n", "new game"), ("q", "quit")],
                Mode.QUIT: [("y", "quit"), ("n", "keep playing")],
            }[self.mode]
        legal = self.table.legal_actions()
        view = self.table.view()
        mine = view.current == self.seats.me
        keys = [("←→", "select")]
        plays = _of(legal, Play)
        if plays and mine:
            keys.append(("Enter", "play"))
        if plays and not mine:
            keys.append(("j", "jump in"))
        if any(len(getattr(a, "slots", ())) > 1 for a in plays):
            keys.append(("Space", "mark"))
        for kind, key, what in ((Draw, "d", "draw"), (Pass, "k", "keep"), (SayUno, "u", "UNO!"),
                                (CatchUno, "c", "catch"), (Challenge, "h", "challenge")):
            if _of(legal, kind):
                keys.append((key, what))
        if mine and len(view.hands[self.seats.me]) == 2 and not _of(legal, SayUno):
            keys.append(("u", "UNO with play" + (" ✓" if self.uno_armed else "")))
        keys.append(("q", "quit"))
        return keys

    def dialog(self) -> Block | None:
        """The box drawn over the table, if any."""
        view = self.table.view()
        summaries = self.table.summaries
        if self.mode == Mode.QUIT:
            return boxed("Quit?", [[("", "Leave this game?")]], "y: quit    n: keep playing")
        if self.mode == Mode.ROUND and summaries:
            last = "Enter: the final scores" if summaries[-1].game_winner >= 0 else \
                "Enter: next round"
            return boxed("Round over", round_table(summaries[-1], self.seats, view.options),
                         last)
        if self.mode == Mode.OVER and summaries:
            return boxed("Game over", game_over(summaries[-1], self.seats, view.options,
                                                self.seed), "n: new game    q: quit")
        if self.mode == Mode.COLOUR:
            rows = choices([(k, COLOUR_NAMES[c]) for k, c in COLOUR_KEYS.items() if k.isalpha()])
            return boxed("Name a colour", rows, "Esc: back")
        if self.mode == Mode.POWER:
            rows = choices([("c", "just name the colour"), ("p", "look at a player's hand"),
                            ("s", "swap 3 cards with a player")])
            return boxed("Wild power", rows, "Esc: back")
        if self.mode == Mode.TARGET:
            rows = choices([(str(i), f"{self.seats.names[s]} ({len(view.hands[s])} cards)")
                            for i, s in enumerate(self.target_choices(), 1)])
            return boxed("Choose a player", rows, "Esc: back")
        if self.mode == Mode.VERDICT:
            return boxed("Challenge", self._verdict_rows(), "Enter: give the verdict")
        return None

    def _verdict_rows(self) -> Block:
        view = self.table.view()
        _, challenged, colour = view.challenge
        hand = view.hands[challenged] if challenged >= 0 else ()
        shown = " ".join(short_name(view.known[s]) if s in view.known else "?" for s in hand)
        verdict = self._first(ChallengeVerdict)
        guilty = isinstance(verdict, ChallengeVerdict) and verdict.guilty
        word = COLOUR_NAMES[colour] if colour >= 0 else "?"
        return [[("", f"{self.seats.names[challenged]}'s hand: {shown}")],
                [("class:uno" if guilty else "",
                  f"It held {word}: guilty, they draw instead." if guilty
                  else f"It held no {word}: not guilty, you draw the penalty and 2 more.")]]


def _of(actions: Sequence[Action], kind: type[T]) -> list[T]:
    return [a for a in actions if isinstance(a, kind)]


def _cards(view: object, slots: Sequence[Slot]) -> str:
    known = getattr(view, "known", {})
    return " + ".join(long_name(known[s]) if s in known else "?" for s in slots)


#: The engine speaks of players in the third person; "You" reads better in the second.
_SECOND_PERSON = {"You holds ": "You hold ", "You does ": "You do ", "You has ": "You have ",
                  "You's ": "your ", "You is ": "You are ", "You was ": "You were "}


def _sentence(text: str) -> str:
    """One tidy sentence from an engine message about the human."""
    text = text.strip()
    for third, second in _SECOND_PERSON.items():
        text = text.replace(third, second)
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
