"""A scratch copy of a ``State`` that one ``apply`` call edits, then freezes.

Keeping the edits on a private mutable copy makes ``apply`` both fast and
atomic: an ``IllegalAction`` raised half-way leaves the caller's state as it
was, because the caller's state was never touched.
"""

from __future__ import annotations

from typing import Any

from uno_p2p.rules.codec import Slot
from uno_p2p.rules.events import CardsDrawn, Event, ShuffleRequested
from uno_p2p.rules.state import (
    FIELD_INDEX,
    OMNISCIENT,
    STATE_FIELDS,
    Phase,
    State,
    WildFour,
    check_transition,
    seat_after,
    state_values,
)


class Work:
    """Mutable mirror of ``State`` plus the events of the action being applied."""

    __slots__ = (*STATE_FIELDS, "events", "now_ms", "_known_copied")

    # Declared for the type checker; set in ``__init__`` from the state.
    options: Any
    players: tuple[str, ...]
    viewer: int
    phase: Phase
    round: int
    order: tuple[int, ...]
    dealer: int | None
    current: int | None
    direction: int
    next_shuffle: int
    draw_pile: list[Slot]
    discard: list[tuple[Slot, int]]
    colour: int | None
    hands: list[tuple[Slot, ...]]
    pending: int
    pending_rank: int | None
    drawn: Slot | None
    last_player: int | None
    uno_said: list[bool]
    exposed: int | None
    exposed_ms: int
    awaiting: tuple[Slot, ...]
    contenders: tuple[tuple[int, Slot], ...]
    challenge: WildFour | None
    claims: tuple[Any, ...]
    scores: list[int]
    round_winner: int | None
    winner: int | None
    violations: tuple[tuple[int, str], ...]
    turn_started_ms: int
    known: Any
    seen: tuple[frozenset[Slot], ...]
    public: frozenset[Slot]

    def __init__(self, state: State, now_ms: int) -> None:
        for setter, value in zip(_SETTERS, state_values(state), strict=True):
            setter(self, value)
        self.draw_pile = list(state.draw_pile)
        self.discard = list(state.discard)
        self.hands = list(state.hands)
        self.uno_said = list(state.uno_said)
        self.scores = list(state.scores)
        self.events: list[Event] = []
        self.now_ms = now_ms
        self._known_copied = False

    def freeze(self) -> State:
        """The edited state as a new immutable value."""
        values = list(state_values(self))
        for index in _LIST_FIELDS:
            values[index] = tuple(values[index])
        return State(*values)

    # ----------------------------------------------------------------------------------------
    def set_phase(self, phase: Phase) -> None:
        """Move to ``phase`` through the transition table."""
        check_transition(self.phase, phase)
        self.phase = phase

    def learn(self, slot: Slot, card: int) -> None:
        """This viewer now knows ``slot`` holds ``card`` (copy-on-write of ``known``)."""
        if not self._known_copied:
            self.known = dict(self.known)
            self._known_copied = True
        self.known[slot] = card

    def make_public(self, slot: Slot, card: int) -> None:
        """Everyone now knows ``slot``'s face (a public reveal or a play)."""
        self.learn(slot, card)
        self.public = self.public | {slot}

    def show_privately(self, seat: int, slots: tuple[Slot, ...]) -> None:
        """Record, in the omniscient view, that ``seat`` has now seen ``slots``."""
        if self.viewer == OMNISCIENT and slots:
            seen = list(self.seen)
            seen[seat] = seen[seat] | frozenset(slots)
            self.seen = tuple(seen)

    def set_turn(self, seat: int) -> None:
        """Give the turn to ``seat`` and start its turn timer."""
        self.current = seat
        self.drawn = None
        self.turn_started_ms = self.now_ms

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The player ``steps`` places after ``seat`` in the direction of play."""
        return seat_after(self.order, self.direction, seat, steps)

    # ----------------------------------------------------------------------------------------
    def new_shuffle(self, size: int, sources: tuple[Slot, ...], faces: tuple[int, ...]) -> None:
        """Ask for joint shuffle number ``next_shuffle`` and make it the draw pile."""
        number = self.next_shuffle
        self.next_shuffle += 1
        self.events.append(ShuffleRequested(number, size, sources, faces))
        # Top card last: position 0 is drawn first (docs/protocol.md deals in order).
        self.draw_pile = [Slot(number, p) for p in range(size - 1, -1, -1)]

    def reshuffle_discard(self) -> bool:
        """RULES.md: "the discard pile except its top card is shuffled into a new deck".

        Returns False when there is nothing under the top card to reshuffle.
        """
        if len(self.discard) < 2:
            return False
        under = self.discard[:-1]
        self.discard = self.discard[-1:]
        self.new_shuffle(len(under), tuple(s for s, _ in under), tuple(c for _, c in under))
        return True

    def take_from_pile(self, count: int) -> list[Slot]:
        """Pop up to ``count`` slots from the draw pile, reshuffling when it runs out."""
        taken: list[Slot] = []
        while len(taken) < count:
            if not self.draw_pile and not self.reshuffle_discard():
                break
            taken.append(self.draw_pile.pop())
        return taken

    def give_cards(self, seat: int, count: int, reason: str) -> int:
        """``seat`` draws ``count`` cards (fewer if the deck is exhausted); returns how many."""
        taken = self.take_from_pile(count)
        if taken:
            self.hands[seat] = self.hands[seat] + tuple(taken)
            self.events.append(CardsDrawn(seat, tuple(taken), reason))
            if len(self.hands[seat]) != 1:
                self.uno_said[seat] = False
            if self.exposed == seat:
                self.exposed = None
        return len(taken)


#: The slot descriptors' setters of ``Work``, in ``STATE_FIELDS`` order (copying a
#: state field by field through them is about twice as fast as ``setattr`` by name).
_SETTERS = tuple(getattr(Work, name).__set__ for name in STATE_FIELDS)
#: Fields that ``Work`` holds as lists and ``State`` as tuples.
_LIST_FIELDS = tuple(FIELD_INDEX[name] for name in
                     ("draw_pile", "discard", "hands", "uno_said", "scores"))
