"""A scripted table for rule tests: decks are chosen by the test, every view is kept.

``Table`` is the real omniscient ``Driver`` (which keeps each seat's own view
fed exactly as the table protocol would) taking its deck orders from the
test (``round_deck`` lays out hands, starter and draw pile); it answers
public reveals automatically, checks refusals in every view, and lets a test
apply an action to chosen views only (to play a card some viewers cannot
check, e.g. a bluffed Wild Draw Four).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from uno_p2p.errors import IllegalAction
from uno_p2p.rules import (
    OMNISCIENT,
    Action,
    ClaimViolated,
    Draw,
    Event,
    Options,
    Phase,
    Play,
    Reveal,
    ShuffleRequested,
    Slot,
    State,
    apply,
    faces_of,
    learn,
)
from uno_p2p.rules.cards import CARD_COUNT, card_ids, parse_card_name
from uno_p2p.rules.simulate import Driver

DeckOrder = list[int] | Callable[[list[int]], list[int]]


def card(name: str, copy: int = 0) -> int:
    """The id of copy ``copy`` of the card named like ``R7``, ``Y+2``, ``B-skip``, ``W+4``."""
    colour, rank = parse_card_name(name)
    return card_ids(colour, rank)[copy]


def cards(*names: str) -> list[int]:
    """Ids for names, taking the next copy when a name repeats."""
    seen: Counter[str] = Counter()
    out = []
    for name in names:
        out.append(card(name, seen[name]))
        seen[name] += 1
    return out


def selection_deck(players: int, dealer: int) -> list[int]:
    """Shuffle 0 such that ``dealer`` draws a 9 and everyone else a 0 or a 1."""
    low = cards("R0", "Y0", "G0", "B0", "R1", "R1", "Y1", "Y1", "G1", "G1")
    order = [card("R9") if seat == dealer else low[seat] for seat in range(players)]
    return order + [c for c in range(CARD_COUNT) if c not in order]


def round_deck(players: int, dealer: int, hands: Sequence[Sequence[int]], starter: int,
               pile: Sequence[int] = (), filler: Sequence[int] = ()) -> list[int]:
    """A round's deck: ``hands[seat]`` (filled to 7 from ``filler``), the starter, then ``pile``.

    Dealing goes round-robin from the dealer's left, as the engine deals.
    """
    used = [*(c for h in hands for c in h), starter, *pile]
    assert len(set(used)) == len(used), "a card is used twice"
    spare = [c for c in (*filler, *_default_filler()) if c not in used]
    full = [list(h) for h in hands] + [[] for _ in range(players - len(hands))]
    for hand in full:
        while len(hand) < 7:
            hand.append(spare.pop(0))
    order: list[int] = []
    for k in range(7 * players):
        seat = (dealer + 1 + k) % players
        order.append(full[seat][k // players])
    order += [starter, *pile]
    return order + [c for c in range(CARD_COUNT) if c not in order]


def _default_filler() -> list[int]:
    # Green and blue 2-9 first: tests use red and yellow for the cards that matter.
    nums = [c for c in range(50, 100) if 3 <= c % 25 <= 18]
    return nums + [c for c in range(CARD_COUNT) if c not in nums]


def top(*names: str) -> Callable[[list[int]], list[int]]:
    """A reshuffle order putting these cards on top (drawn first), the rest after."""
    def order(faces: list[int]) -> list[int]:
        rest = list(faces)
        first = []
        for name in names:
            wanted = next(c for c in rest if c in card_ids(*parse_card_name(name)))
            rest.remove(wanted)
            first.append(wanted)
        return first + rest
    return order


class _ScriptedDriver(Driver):
    """The real omniscient ``Driver`` (it feeds every seat's view as a table would), with
    the deck orders taken from the test instead of from a seed."""

    def __init__(self, table: Table, options: Options, names: list[str]) -> None:
        self.table = table
        super().__init__(options, len(names), b"scripted", "random", mirror=True, names=names,
                         on_events=table.events.extend)

    def _shuffle(self, event: ShuffleRequested) -> None:
        faces = [self.state.known[s] for s in event.sources] if event.sources \
            else list(range(CARD_COUNT))
        decks = self.table.decks
        spec = decks.pop(0) if decks else list(faces)
        order = spec(faces) if callable(spec) else list(spec)
        assert sorted(order) == sorted(faces), "a deck must hold the cards it shuffles"
        faces_now = [(Slot(event.shuffle, p), c) for p, c in enumerate(order)]
        self.table.all_faces.update(faces_now)
        self.state, _ = learn(self.state, faces_now)


class Table:
    """An omniscient game plus every seat's view, decks supplied by the test."""

    def __init__(self, options: Options | None = None, players: int = 3, *, dealer: int = 0,
                 decks: Iterable[DeckOrder] = (),
                 selection: list[int] | None = None) -> None:
        self.options = options or Options()
        names = [f"P{i}" for i in range(players)]
        first = selection if selection is not None else selection_deck(players, dealer)
        self.decks: list[DeckOrder] = [first, *decks]
        self.events: list[Event] = []
        #: Every face of every shuffle so far (the engine forgets old rounds' faces).
        self.all_faces: dict[Slot, int] = {}
        self.driver = _ScriptedDriver(self, self.options, names)
        self.settle()

    @property
    def state(self) -> State:
        return self.driver.state

    @state.setter
    def state(self, state: State) -> None:
        self.driver.state = state

    @property
    def views(self) -> list[State]:
        return self.driver.views

    @views.setter
    def views(self, views: list[State]) -> None:
        self.driver.views = views

    @property
    def violations(self) -> list[ClaimViolated]:
        return self.driver.violations

    @property
    def turn(self) -> int:
        """The seat whose turn it is (``State.current``; a test asks once one has it)."""
        seat = self.state.current
        assert seat is not None, "no player has had the turn yet"
        return seat

    # -- feeding --------------------------------------------------------------------------
    def settle(self) -> None:
        """Answer public reveals (and nothing else) until the game waits for a player."""
        while self.state.awaiting:
            self.apply(Reveal(tuple(faces_of(self.state, self.state.awaiting))))

    def apply(self, action: Action, now_ms: int = 0) -> list[Event]:
        """Apply to the omniscient state and every view (the Driver checks they agree)."""
        start = len(self.events)
        self.driver.now_ms = now_ms
        self.driver.apply(action)
        self.settle()
        return self.events[start:]

    def apply_views(self, action: Action, seats: Iterable[int], now_ms: int = 0) -> list[Event]:
        """Apply to some views only (an action the others would refuse)."""
        out: list[Event] = []
        for seat in seats:
            self.views[seat], events = apply(self.views[seat], action, now_ms)
            out = events
        return out

    # -- conveniences ---------------------------------------------------------------------
    def slot(self, seat: int, face: int, state: State | None = None) -> Slot:
        state = state or self.state
        known = self.state.known
        return next(s for s in state.hands[seat] if known.get(s) == face)

    def play_action(self, seat: int, *names: str, **kwargs: object) -> Play:
        faces: list[int] = []
        slots: list[Slot] = []
        for name in names:
            colour, rank = parse_card_name(name)
            ids = card_ids(colour, rank)
            slot = next(s for s in self.state.hands[seat]
                        if self.state.known.get(s) in ids and s not in slots)
            slots.append(slot)
            faces.append(self.state.known[slot])
        return Play(seat, tuple(slots), tuple(faces), **kwargs)  # type: ignore[arg-type]

    def play(self, seat: int, *names: str, now_ms: int = 0, **kwargs: object) -> list[Event]:
        return self.apply(self.play_action(seat, *names, **kwargs), now_ms)

    def draw(self, seat: int, now_ms: int = 0) -> list[Event]:
        return self.apply(Draw(seat), now_ms)

    def refused(self, action: Action, now_ms: int = 0,
                checked_by: Iterable[int] | None = None) -> IllegalAction:
        """Apply ``action``, expecting the omniscient engine and every seat's view to refuse
        it (``checked_by``: only these views, when the others cannot know it is wrong, e.g.
        a false claim about a hidden card); nothing changes. Returns the omniscient error.
        """
        before, views = self.state, list(self.views)
        try:
            apply(self.state, action, now_ms)
        except IllegalAction as error:
            found = error
        else:
            raise AssertionError(f"{action} was accepted")
        seats = range(len(self.views)) if checked_by is None else checked_by
        for seat in seats:
            try:
                apply(self.views[seat], action, now_ms)
            except IllegalAction:
                continue
            raise AssertionError(f"seat {seat}'s view accepted {action}")
        assert self.state is before
        assert self.views == views
        return found

    def trim(self, seat: int, keep: int) -> None:
        """Put all but the first ``keep`` cards of ``seat``'s hand under the draw pile.

        A scripted shortcut to a late-round position (cards stay accounted for);
        applied identically to the omniscient state and every view.
        """
        def cut(state: State) -> State:
            hand = state.hands[seat]
            hands = list(state.hands)
            hands[seat] = hand[:keep]
            return replace(state, hands=tuple(hands), draw_pile=hand[keep:] + state.draw_pile)
        self.state = cut(self.state)
        self.views = [cut(v) for v in self.views]

    def faces(self, seat: int) -> list[int]:
        return sorted(self.state.known[s] for s in self.state.hands[seat])

    def hand_size(self, seat: int) -> int:
        return len(self.state.hands[seat])

    @property
    def phase(self) -> Phase:
        return self.state.phase


def started(options: Options | None = None, players: int = 3, *, dealer: int = 0,
            hands: Sequence[Sequence[str]] = (), starter: str = "R5", pile: Sequence[str] = (),
            more: Iterable[DeckOrder] = (), exact: bool = False) -> Table:
    """A table whose first round is dealt from the given hands, starter and pile.

    ``exact``: the hands given (non-empty ones) are the whole hands (see ``trim``).
    """
    names_used = [n for h in hands for n in h] + [starter, *pile]
    ids = cards(*names_used)
    it = iter(ids)
    hand_ids = [[next(it) for _ in h] for h in hands]
    starter_id = next(it)
    pile_ids = list(it)
    deck = round_deck(players, dealer, hand_ids, starter_id, pile_ids)
    table = Table(options, players, dealer=dealer, decks=[deck, *more])
    if exact:
        for seat, hand in enumerate(hands):
            if hand:
                table.trim(seat, len(hand))
    return table


__all__ = ["OMNISCIENT", "Table", "card", "cards", "round_deck", "started", "top"]
