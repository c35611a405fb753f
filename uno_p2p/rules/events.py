"""What the engine tells the world: work it needs done, and what happened.

A table protocol drives the engine purely from these: it answers
``ShuffleRequested`` with a joint shuffle, ``RevealRequested`` with a proven
reveal (public ones come back as a ``Reveal`` action; private ones are fed to
the one seat through ``learn``), ``CardsDrawn`` with a private reveal to the
drawer, and ``ReseatRequested`` with a ``Reseat`` action. The rest are facts
for the UI and the log. Every event has a canonical wire form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import _Wire
from uno_p2p.rules.codec import Slot, decode_any

#: ``RevealRequested.to`` for a reveal to everyone.
EVERYONE = -1


@dataclass(frozen=True, slots=True)
class ShuffleRequested(_Wire):
    """Start joint shuffle number ``shuffle`` of ``size`` cards.

    ``sources`` empty: a fresh 108-card deck (canonical ids 0..107). Otherwise
    the new deck is made of the cards now at ``sources`` (old slots, in that
    order), whose faces are ``faces`` when they are public (the discard pile)
    or empty when they are not (a starter Wild Draw Four shuffled back).
    The new slots are ``Slot(shuffle, 0..size-1)``.
    """

    TAG: ClassVar[str] = "shuffle"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (
        ("shuffle", "int"), ("size", "int"), ("sources", "slots"), ("faces", "cards"),
    )
    shuffle: int
    size: int
    sources: tuple[Slot, ...] = ()
    faces: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class RevealRequested(_Wire):
    """Reveal the faces of ``slots`` to seat ``to`` (``EVERYONE``: publicly).

    Public requests block the game until a ``Reveal`` action answers them;
    private ones (peek, challenge, swapped cards) are fed to that seat alone.
    """

    TAG: ClassVar[str] = "reveal_request"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (
        ("slots", "slots"), ("to", "opt_seat"), ("reason", "str"),
    )
    slots: tuple[Slot, ...]
    to: int
    reason: str


@dataclass(frozen=True, slots=True)
class CardsDrawn(_Wire):
    """``seat`` took ``slots`` from the draw pile; reveal them to that seat alone."""

    TAG: ClassVar[str] = "drawn"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "seat"), ("slots", "slots"), ("reason", "str"),
    )
    seat: int
    slots: tuple[Slot, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class CardsPlayed(_Wire):
    """``seat`` put ``cards`` on the pile (``colour`` named for a black card)."""

    TAG: ClassVar[str] = "played"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "seat"), ("slots", "slots"), ("cards", "cards"), ("colour", "int"),
    )
    seat: int
    slots: tuple[Slot, ...]
    cards: tuple[int, ...]
    colour: int


@dataclass(frozen=True, slots=True)
class UnoSaid(_Wire):
    """``seat`` said UNO."""

    TAG: ClassVar[str] = "uno_said"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"),)
    seat: int


@dataclass(frozen=True, slots=True)
class UnoCaught(_Wire):
    """``seat`` caught ``target``'s missed UNO; ``target`` draws 2."""

    TAG: ClassVar[str] = "uno_caught"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"), ("target", "seat"))
    seat: int
    target: int


@dataclass(frozen=True, slots=True)
class ChallengeResolved(_Wire):
    """The Wild Draw Four challenge ended; ``guilty`` says who drew."""

    TAG: ClassVar[str] = "challenge_resolved"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (
        ("challenger", "seat"), ("challenged", "seat"), ("guilty", "bool"),
    )
    challenger: int
    challenged: int
    guilty: bool


@dataclass(frozen=True, slots=True)
class DealerChosen(_Wire):
    """``seat`` deals round ``round``."""

    TAG: ClassVar[str] = "dealer"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"), ("round", "int"))
    seat: int
    round: int


@dataclass(frozen=True, slots=True)
class ReseatRequested(_Wire):
    """Draw a new seating jointly and answer with ``Reseat`` (``seat_shuffle_every``)."""

    TAG: ClassVar[str] = "reseat_request"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("round", "int"),)
    round: int


@dataclass(frozen=True, slots=True)
class ClaimViolated(_Wire):
    """A claim about hidden cards turned out false once the faces were known."""

    TAG: ClassVar[str] = "violation"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "seat"), ("rule", "str"), ("message", "str"),
    )
    seat: int
    rule: str
    message: str

    def error(self) -> IllegalAction:
        """The violation as the error a peer raises against the cheater."""
        return IllegalAction(self.message, rule=self.rule)


@dataclass(frozen=True, slots=True)
class RoundOver(_Wire):
    """Round ``round`` ended; ``winner`` is -1 for a void round (``empty_deck``).

    ``changes`` is each player's score change (by seat number).
    """

    TAG: ClassVar[str] = "round_over"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (
        ("round", "int"), ("winner", "opt_seat"), ("changes", "ints"),
    )
    round: int
    winner: int
    changes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver(_Wire):
    """The game is over: ``winner`` won (with ``team``, or -1 without teams)."""

    TAG: ClassVar[str] = "game_over"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("winner", "seat"), ("team", "int"))
    winner: int
    team: int


Event = (
    ShuffleRequested | RevealRequested | CardsDrawn | CardsPlayed | UnoSaid | UnoCaught
    | ChallengeResolved | DealerChosen | ReseatRequested | ClaimViolated | RoundOver | GameOver
)
EVENT_TYPES: dict[str, type[Event]] = {
    cls.TAG: cls for cls in (
        ShuffleRequested, RevealRequested, CardsDrawn, CardsPlayed, UnoSaid, UnoCaught,
        ChallengeResolved, DealerChosen, ReseatRequested, ClaimViolated, RoundOver, GameOver,
    )
}


def event_from_wire(value: object) -> Event:
    """Decode any event from its wire form.

    Raises:
        InvalidMessage: unknown tag or malformed fields.
    """
    return decode_any(EVENT_TYPES, value, "event")
