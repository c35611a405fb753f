"""A table as the UI sees it, and the local game of one human against bots.

The UI needs from a table only what a player at a real table has: their own
seat's **view** (never the omniscient state), the actions the engine allows
that seat now, a way to ``submit`` one, the news in plain words, and a call
when anything changes. ``Table`` is that contract; the network table of
docs/protocol.md implements the same one, so the terminal UI drops onto it.

``LocalTable`` is the local game: it reuses the rules package's omniscient
``Driver`` (deck orders from the seed, public reveals, reseating) and adds
what a table of people has and a simulation does not: the human's seat, bots
that act one move at a time when the shell says so (so a human can follow,
catch a missed UNO, or jump in), round summaries, and the turn timer on the
shell's clock. Time comes in as ``now_ms``; randomness as the seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Protocol

from uno_p2p.errors import ConfigError, IllegalAction, LocalProtocolError
from uno_p2p.rules import (
    Action,
    CatchUno,
    Driver,
    Event,
    GameOver,
    HeuristicBot,
    Options,
    Phase,
    Play,
    Reseat,
    Reveal,
    RoundOver,
    SayUno,
    State,
    Stream,
    TimeOut,
    faces_of,
    legal_actions,
    points,
)
from uno_p2p.rules.codec import MAX_TEXT
from uno_p2p.ui.words import YOU, Narrator

#: How many news lines a table keeps (the log pane shows the last few).
NEWS_KEPT = 500
#: A bot forgets to say UNO with this chance (numerator, denominator), so that
#: the human has missed UNOs to catch, as at a real table.
FORGET_UNO = (1, 4)
#: A bot notices a missed UNO (and catches it) with this chance per move.
NOTICE_MISSED_UNO = (2, 3)


class Next(Enum):
    """What the table waits for."""

    TABLE = "table"    # table work (reveals, reseating): do it at once
    BOT = "bot"        # a bot's move: after a visible pause
    HUMAN = "human"    # the human's move
    OVER = "over"      # the game is over


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """One finished round as every player saw it at the round-end reveal.

    ``hands`` are the revealed faces by seat, ``changes`` the score changes and
    ``scores`` the totals after the round (RULES.md ``scoring``).
    """

    round: int
    winner: int
    hands: tuple[tuple[int, ...], ...]
    changes: tuple[int, ...]
    scores: tuple[int, ...]
    game_winner: int = -1

    @property
    def hand_points(self) -> tuple[int, ...]:
        return tuple(sum(points(c) for c in hand) for hand in self.hands)


class Table(Protocol):
    """What the UI asks of a table (local or networked)."""

    @property
    def seat(self) -> int:
        """The human's seat number."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every player's name, by seat number."""

    @property
    def news(self) -> Sequence[str]:
        """What happened, in plain words, oldest first."""

    @property
    def summaries(self) -> Sequence[RoundSummary]:
        """Every finished round."""

    def view(self) -> State:
        """The human's view of the game (own hand and public facts only)."""

    def legal_actions(self) -> list[Action]:
        """What the human may do now, from the engine."""

    def submit(self, action: Action, now_ms: int) -> None:
        """Play ``action`` for the human.

        Raises:
            IllegalAction: the rules refuse it now (nothing changes).
        """

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after every change of the game."""

    def deadline_ms(self) -> int | None:
        """When the human's turn times out (RULES.md ``turn_timer``), if it can."""


class PacedTable(Table, Protocol):
    """A table whose moves the screen paces: the local game. A network table
    paces itself; it answers ``next`` with ``HUMAN`` or ``OVER`` and its
    ``advance`` and ``tick`` do nothing, so the same screen shows it."""

    def next(self) -> Next:
        """What the game waits for now."""

    def advance(self, now_ms: int) -> bool:
        """Do one table step or bot move; False if there was none."""

    def tick(self, now_ms: int) -> bool:
        """Apply a time-out that is due; False if none."""


class SelfPaced:
    """The pacing half of ``PacedTable`` for a table that paces itself (a network
    session): the screen only waits for the human, or for the end. Mix it into a
    class that has ``view()``."""

    def view(self) -> State:
        raise NotImplementedError

    def next(self) -> Next:
        """``OVER`` once the game is over, else ``HUMAN``: the peers move on their own."""
        return Next.OVER if self.view().phase == Phase.GAME_OVER else Next.HUMAN

    def advance(self, now_ms: int) -> bool:
        """Nothing to do: moves arrive from the network."""
        return False

    def tick(self, now_ms: int) -> bool:
        """Nothing to do: the session applies its own time-outs."""
        return False


class LocalBot:
    """The engine's heuristic bot, with human-like slips: it sometimes forgets to
    say UNO, and does not always notice a missed UNO at once."""

    def __init__(self, seed: bytes) -> None:
        self.brain = HeuristicBot(seed)
        self.rng = Stream(seed + b"/slips")
        self.forgot = False

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        """A move for ``seat`` from its own view, or None to let a chance go by."""
        if self.forgot:
            # It forgot UNO with its play: it stays silent for this one moment.
            self.forgot = False
            actions = [a for a in actions if not isinstance(a, SayUno)]
        if not must_act and any(isinstance(a, CatchUno) for a in actions) \
                and not self.rng.chance(*NOTICE_MISSED_UNO):
            actions = [a for a in actions if not isinstance(a, CatchUno)]
        choice = self.brain.choose(view, seat, actions, must_act)
        if isinstance(choice, Play) and choice.say_uno and self.rng.chance(*FORGET_UNO):
            quiet = replace(choice, say_uno=False)
            if quiet in actions:
                self.forgot = True
                return quiet
        return choice


def player_names(players: int, human: int, name: str) -> tuple[str, ...]:
    """The human's name at ``human``, "Bot 1".. clockwise after them.

    Raises:
        ConfigError: an empty, too long or bot-like name.
    """
    bots = {(human + i) % players: f"Bot {i}" for i in range(1, players)}
    name = name.strip()
    if not name or len(name) > MAX_TEXT or name in bots.values():
        raise ConfigError(f"the name must be 1 to {MAX_TEXT} characters and not a bot's name")
    return tuple(name if seat == human else bots[seat] for seat in range(players))


class LocalTable:
    """One human against bots, all in this process (see the module docstring)."""

    def __init__(self, options: Options, players: int, seed: bytes, name: str = YOU) -> None:
        options.check_players(players)
        rng = Stream(seed).fork("ui")
        self._seat = rng.fork("seat").below(players)
        self._names = player_names(players, self._seat, name)
        self.bots = [LocalBot(rng.fork(f"bot{s}").seed) for s in range(players)]
        self.seed = seed
        #: The engine's events since the last narration, in order.
        self._recorded: list[Event] = []
        self.driver = Driver(options, players, seed, self.bots, names=self._names,
                             on_events=self._recorded.extend)
        self.narrator = Narrator(self._names, self._seat)
        self._news: list[str] = []
        self._summaries: list[RoundSummary] = []
        self._listeners: list[Callable[[], None]] = []
        self._asked: set[int] = set()  # bots that had their out-of-turn chance this moment
        self._recorded.clear()

    # -- the Table contract -------------------------------------------------------------------
    @property
    def seat(self) -> int:
        return self._seat

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def news(self) -> Sequence[str]:
        return self._news

    @property
    def summaries(self) -> Sequence[RoundSummary]:
        return self._summaries

    @property
    def state(self) -> State:
        """The omniscient state (for tests and the end-of-game screen only)."""
        return self.driver.state

    def view(self) -> State:
        return self.driver.view(self._seat)

    def legal_actions(self) -> list[Action]:
        return legal_actions(self.view(), self._seat)

    def submit(self, action: Action, now_ms: int) -> None:
        """Play the human's ``action``, checked by the engine.

        Raises:
            IllegalAction: the rules refuse it, or it is not the human's own action.
        """
        if getattr(action, "seat", -1) != self._seat:
            raise IllegalAction("you can only act for your own seat", rule="turn")
        self._apply(action, now_ms)

    def add_listener(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    # -- pacing: the shell calls these ----------------------------------------------------------
    def next(self) -> Next:
        """What the game waits for now (the shell pauses before ``Next.BOT``)."""
        state = self.driver.state
        if state.phase == Phase.GAME_OVER:
            return Next.OVER
        if state.awaiting or state.phase == Phase.RESEAT:
            return Next.TABLE
        if self._bots_with_a_chance():
            return Next.BOT
        return Next.BOT if self.driver.actor() != self._seat else Next.HUMAN

    def advance(self, now_ms: int) -> bool:
        """Do the next table step or bot move; False if it is the human's move.

        Raises:
            LocalProtocolError: a bot has no move where it must move (an engine bug).
            IllegalAction: the engine refused a bot's legal move (an engine bug); a
                move held back by ``catch_grace_ms`` is not an error: it waits.
        """
        state = self.driver.state
        if state.phase == Phase.GAME_OVER:
            return False
        if state.awaiting or state.phase == Phase.RESEAT:
            self._table_step(now_ms)
            return True
        for seat in self._bots_with_a_chance():
            self._asked.add(seat)
            view = self.driver.view(seat)
            choice = self.bots[seat].choose(view, seat, legal_actions(view, seat), False)
            if choice is not None:
                self._apply(choice, now_ms)
                return True
        actor = self.driver.actor()
        if actor == self._seat:
            return False
        view = self.driver.view(actor)
        choice = self.bots[actor].choose(view, actor, legal_actions(view, actor), True)
        if choice is None:
            raise LocalProtocolError(f"{self._names[actor]} has no move")
        try:
            self._apply(choice, now_ms)
        except IllegalAction as error:
            if error.rule != "catch_grace_ms":
                raise
            return False  # RULES.md: the next player waits while a missed UNO is catchable
        return True

    def deadline_ms(self) -> int | None:
        """When the human's turn times out (RULES.md ``turn_timer``), if it can."""
        state = self.driver.state
        return state.decision_deadline_ms() if state.current == self._seat else None

    def tick(self, now_ms: int) -> bool:
        """Apply the human's time-out once the turn timer has run out."""
        deadline = self.deadline_ms()
        if deadline is None or now_ms < deadline:
            return False
        self._apply(TimeOut(self._seat), now_ms)
        return True

    def run_until_human(self, now_ms: int = 0, limit: int = 100_000) -> Next:
        """Let the table and the bots play until the human must act (tests, no pauses)."""
        for _ in range(limit):
            if not self.advance(now_ms):
                break
        return self.next()

    # -- internals ------------------------------------------------------------------------------
    def _bots_with_a_chance(self) -> list[int]:
        """Bots with an out-of-turn action (UNO, catch, jump-in) not yet offered this moment."""
        return [seat for seat in self.driver.out_of_turn_seats()
                if seat != self._seat and seat not in self._asked]

    def _table_step(self, now_ms: int) -> None:
        """Answer a public reveal (as ``Driver.step`` does) or let the driver reseat."""
        before = self.driver.state
        if not before.awaiting:
            self.driver.now_ms = now_ms
            self.driver.step()  # RESEAT: the driver draws the seating from the seed
            self._after(before, Reseat(self.driver.state.order), None)
            return
        hands = None
        if before.phase == Phase.ROUND_OVER:
            # The round-end reveal makes every hand public: keep them for the summary.
            hands = tuple(tuple(before.known[s] for s in hand) for hand in before.hands)
        self._apply(Reveal(tuple(faces_of(before, before.awaiting))), now_ms, hands)

    def _apply(self, action: Action, now_ms: int,
               hands: tuple[tuple[int, ...], ...] | None = None) -> None:
        before = self.driver.state
        self.driver.now_ms = now_ms
        self.driver.apply(action)
        self._after(before, action, hands)

    def _after(self, before: State, action: Action,
               hands: tuple[tuple[int, ...], ...] | None) -> None:
        events = list(self._recorded)
        self._recorded.clear()
        self._asked.clear()  # a new moment: every bot gets its chance again
        self._add_news(self.narrator.describe(before, action, events, self.view()))
        if hands is not None:
            self._summarise(events, hands)
        for listener in self._listeners:
            listener()

    def _summarise(self, events: Sequence[Event], hands: tuple[tuple[int, ...], ...]) -> None:
        over = next((e for e in events if isinstance(e, RoundOver)), None)
        if over is None:
            return
        game = next((e for e in events if isinstance(e, GameOver)), None)
        self._summaries.append(RoundSummary(
            over.round, over.winner, hands, over.changes, self.driver.state.scores,
            game.winner if game else -1))

    def _add_news(self, lines: Sequence[str]) -> None:
        self._news.extend(lines)
        del self._news[:-NEWS_KEPT]
