"""The omniscient driver: a whole game from a seed, with bots.

It answers the engine's events itself, in a few lines, the way a table
protocol would with real cryptography: a ``ShuffleRequested`` becomes a deck
order drawn from the seed (``learn``), a public ``RevealRequested`` becomes a
``Reveal`` action, a ``ReseatRequested`` a ``Reseat``. Bots see only
``view_for`` their seat. Used by the tests, the benchmark and ``uno-lan
simulate``. With ``mirror=True`` it also keeps every seat's own view, fed
exactly as a table would feed it (same actions, private faces through
``learn``), and checks after every action that all public digests agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from uno_p2p.errors import LocalProtocolError
from uno_p2p.rules.actions import Action, Reseat, Reveal
from uno_p2p.rules.bots import BOTS, Bot, HeuristicBot, RandomBot
from uno_p2p.rules.cards import CARD_COLOUR, CARD_COUNT, CARD_RANK, Rank
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.engine import apply, faces_of, learn, new_game, public_digest, view_for
from uno_p2p.rules.events import (
    EVERYONE,
    CardsDrawn,
    CardsPlayed,
    ChallengeResolved,
    ClaimViolated,
    Event,
    RevealRequested,
    ShuffleRequested,
)
from uno_p2p.rules.legal import legal_actions
from uno_p2p.rules.options import Options
from uno_p2p.rules.prng import Stream
from uno_p2p.rules.state import Phase, State

#: A game that has not ended after this many actions is a bug, not a long game.
MAX_ACTIONS = 200_000


@dataclass(slots=True)
class GameResult:
    """What a simulated game produced."""

    state: State
    rounds: int
    actions: int
    violations: list[ClaimViolated] = field(default_factory=list)
    history: list[tuple[str, object]] = field(default_factory=list)

    @property
    def winner(self) -> int | None:
        """The winning seat; None while the game is not over."""
        return self.state.winner


class Driver:
    """Plays one game omnisciently; ``step`` applies one action."""

    def __init__(self, options: Options, players: int, seed: bytes | int | str,
                 bots: Sequence[Bot] | str = "random", *, mirror: bool = False,
                 record: bool = False, max_rounds: int = 0,
                 names: Sequence[str] | None = None,
                 on_events: Callable[[list[Event]], None] | None = None) -> None:
        """``names`` default to P1..Pn; ``on_events`` sees every batch of engine
        events before the driver answers them (a UI narrates from it)."""
        self.rng = Stream(seed)
        self.deck_rng = self.rng.fork("deck")
        names = list(names) if names is not None else [f"P{i + 1}" for i in range(players)]
        self.on_events = on_events
        if isinstance(bots, str):
            make: type[RandomBot] | type[HeuristicBot] = BOTS[bots]
            bots = [make(self.rng.fork(f"bot{i}").seed) for i in range(players)]
        self.bots = list(bots)
        self.mirror = mirror
        self.record = record
        self.max_rounds = max_rounds
        self.history: list[tuple[str, object]] = []
        self.violations: list[ClaimViolated] = []
        self.actions = 0
        self.now_ms = 0
        self.state, events = new_game(options, names)
        self.views = [new_game(options, names, viewer=s)[0] for s in range(players)] \
            if mirror else []
        self._handle(events)

    # -- the event answers --------------------------------------------------------------------
    def _handle(self, events: list[Event]) -> None:
        if self.on_events is not None:
            self.on_events(events)
        for event in events:
            if isinstance(event, ShuffleRequested):
                self._shuffle(event)
            elif isinstance(event, ClaimViolated):
                self.violations.append(event)
            elif self.mirror and isinstance(event, CardsDrawn | RevealRequested):
                self._reveal_privately(event)

    def _shuffle(self, event: ShuffleRequested) -> None:
        if event.sources:
            order = [self.state.known[s] for s in event.sources]
        else:
            order = list(range(CARD_COUNT))
        self.deck_rng.shuffle(order)
        faces = [(Slot(event.shuffle, p), card) for p, card in enumerate(order)]
        self.state, _ = learn(self.state, faces)
        if self.record:
            self.history.append(("deck", (event.shuffle, tuple(order))))

    def _reveal_privately(self, event: CardsDrawn | RevealRequested) -> None:
        seat = event.seat if isinstance(event, CardsDrawn) else event.to
        if seat == EVERYONE:
            return
        faces = faces_of(self.state, event.slots)
        self.views[seat], found = learn(self.views[seat], faces)
        self.violations.extend(e for e in found if isinstance(e, ClaimViolated))

    # -- moves --------------------------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply ``action`` to the omniscient state (and every mirrored view)."""
        self.state, events = apply(self.state, action, self.now_ms)
        if self.mirror:
            for seat, view in enumerate(self.views):
                self.views[seat], _ = apply(view, action, self.now_ms)
        self.actions += 1
        self.now_ms += 1000
        if self.record:
            self.history.append(("action", action.to_wire()))
        self._handle(events)
        if self.mirror:
            self.check_agreement()

    def check_agreement(self) -> None:
        """Every view's public digest equals the omniscient one.

        Raises:
            LocalProtocolError: the views disagree (an engine bug).
        """
        digest = public_digest(self.state)
        for seat, view in enumerate(self.views):
            if public_digest(view) != digest:
                raise LocalProtocolError(
                    f"seat {seat}'s view disagrees after {self.actions} actions")

    def view(self, seat: int) -> State:
        return self.views[seat] if self.mirror else view_for(self.state, seat)

    def step(self) -> bool:
        """Let the table or one player act; False once the game is over."""
        state = self.state
        if state.phase == Phase.GAME_OVER:
            return False
        if self.max_rounds and state.round > self.max_rounds:
            return False
        if state.awaiting:
            self.apply(Reveal(tuple(faces_of(state, state.awaiting))))
            return True
        if state.phase == Phase.RESEAT:
            self.apply(Reseat(self._seating()))
            return True
        for seat in self.out_of_turn_seats():
            view = self.view(seat)
            choice = self.bots[seat].choose(view, seat, legal_actions(view, seat), False)
            if choice is not None:
                self.apply(choice)
                return True
        actor = self.actor()
        view = self.view(actor)
        actions = legal_actions(view, actor)
        choice = self.bots[actor].choose(view, actor, actions, True)
        if choice is None:
            raise LocalProtocolError(f"seat {actor} has no move in {state.phase.value}")
        self.apply(choice)
        return True

    def actor(self) -> int:
        """The seat that must act now, once no reveal or reseat is due (``State.decider``).

        Raises:
            LocalProtocolError: the game waits for no player's decision now (a caller's bug).
        """
        seat = self.state.decider()
        if seat is None:
            raise LocalProtocolError(f"no player decides in {self.state.phase.value}")
        return seat

    def out_of_turn_seats(self) -> list[int]:
        """Seats other than ``actor()`` that may act now: say or catch UNO, or jump in."""
        state = self.state
        if state.phase not in (Phase.PLAYING, Phase.CHALLENGE):
            return []
        jumps = state.last_player is not None and (
            state.options.jump_in or state.options.sum_jump_in)
        actor = self.actor()
        seats = []
        for seat in state.order:
            if seat == actor:
                continue
            one = len(state.hands[seat]) == 1 and not state.uno_said[seat]
            if jumps or one or (state.exposed is not None and state.exposed != seat):
                seats.append(seat)
        return seats

    def _seating(self) -> tuple[int, ...]:
        """A random seating; with teams, teams stay alternate (RULES.md teams)."""
        n, teams = len(self.state.players), self.state.options.teams
        if not teams:
            order = list(range(n))
            self.rng.shuffle(order)
            return tuple(order)
        members = [[s for s in range(n) if s % teams == t] for t in range(teams)]
        for group in members:
            self.rng.shuffle(group)
        return tuple(members[i % teams][i // teams] for i in range(n))

    def run(self, on_step: Callable[[Driver], None] | None = None) -> GameResult:
        """Play to the end (or ``max_rounds``).

        Raises:
            LocalProtocolError: the game did not end within ``MAX_ACTIONS``.
        """
        while self.step():
            if on_step is not None:
                on_step(self)
            if self.actions > MAX_ACTIONS:
                raise LocalProtocolError("the game did not end: the engine is stuck")
        return GameResult(self.state, self.state.round, self.actions, self.violations,
                          self.history)


@dataclass(slots=True)
class WildDrawFourStats:
    """Wild Draw Four bluffs and challenges over many omniscient games (RULES.md "may
    bluff"): whether a play was a bluff is read from the omniscient state, which no bot
    sees. ``play`` runs one game and counts; ``summary`` gives counts and rates."""

    played: int = 0
    challengeable: int = 0
    bluffs: int = 0
    challenged: int = 0
    bluffs_challenged: int = 0
    caught: int = 0
    #: Per challengeable Wild Draw Four awaiting its answer: (challenged seat, bluff?).
    open: list[tuple[int, bool]] = field(default_factory=list)

    def watch(self, driver: Driver, events: list[Event]) -> None:
        """Count the Wild Draw Fours and verdicts among one batch of engine events."""
        state = driver.state
        for event in events:
            if isinstance(event, CardsPlayed) and \
                    CARD_RANK[event.cards[-1]] == Rank.WILD_DRAW_FOUR:
                self.played += 1
                _, seat, colour = state.challenge or (None, -1, -1)
                if seat != event.seat or state.options.no_challenge:
                    continue  # went out with it, or nobody may challenge
                self.challengeable += 1
                bluff = any(CARD_COLOUR[state.known[s]] == colour for s in state.hands[seat])
                self.bluffs += bluff
                self.open = [(seat, bluff)]
            elif isinstance(event, ChallengeResolved):
                bluff = any(b for s, b in self.open if s == event.challenged)
                self.challenged += 1
                self.bluffs_challenged += bluff
                self.caught += event.guilty
                self.open = []

    def play(self, options: Options, players: int, seed: bytes | int | str,
             bots: Sequence[Bot] | str = "heuristic") -> GameResult:
        """Play one game (see ``Driver``), counting its Wild Draw Fours."""
        holder: list[Driver] = []

        def watch(events: list[Event]) -> None:
            if holder:
                self.watch(holder[0], events)

        driver = Driver(options, players, seed, bots, on_events=watch)
        holder.append(driver)
        return driver.run()

    def summary(self) -> dict[str, object]:
        """Counts and rates (bluffs per challengeable Wild Draw Four, and so on)."""
        def rate(a: int, b: int) -> float:
            return round(a / b, 3) if b else 0.0
        return {
            "wild_draw_fours": self.played, "challengeable": self.challengeable,
            "bluffs": self.bluffs, "challenged": self.challenged,
            "bluffs_challenged": self.bluffs_challenged, "caught": self.caught,
            "bluff_rate": rate(self.bluffs, self.challengeable),
            "challenge_rate": rate(self.challenged, self.challengeable),
            "bluffs_caught_rate": rate(self.caught, self.bluffs),
            "challenge_success_rate": rate(self.caught, self.challenged),
        }


def play_game(options: Options, players: int, seed: bytes | int | str,
              bots: Sequence[Bot] | str = "random", **kwargs: bool | int) -> GameResult:
    """Play a whole game (to ``target``) among bots from ``seed``; see ``Driver``."""
    return Driver(options, players, seed, bots, **kwargs).run()  # type: ignore[arg-type]


__all__ = ["Driver", "GameResult", "WildDrawFourStats", "play_game"]
