"""What players (and the table) do: the engine's inputs.

Each action is a frozen value with a canonical wire form. ``seat`` is always
the player's fixed number in the game (0..n-1, the order they joined), not
their current place at the table, which ``seat_shuffle_every`` may change.
Out-of-turn actions (``SayUno``, ``CatchUno``, jump-ins, which are ``Play``
values from a player whose turn it is not) are ordinary actions whose windows
the state defines. ``Reveal`` and ``Reseat`` come from the table protocol: the
faces the deck proved, and a seat permutation drawn jointly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Self

from uno_p2p.rules.codec import MAX_SEATS, Slot, decode_any, decode_fields, encode

POWERS = ("", "peek", "swap")


def _check_seat(seat: int, what: str = "seat", allow_none: bool = False) -> None:
    low = -1 if allow_none else 0
    if type(seat) is not int or not low <= seat < MAX_SEATS:
        raise ValueError(f"{what} must be a seat number, not {seat!r}")


def _check_colour(colour: int) -> None:
    if type(colour) is not int or not -1 <= colour <= 3:
        raise ValueError(f"colour must be 0-3 (red, yellow, green, blue) or -1, not {colour!r}")


class _Wire:
    __slots__ = ()
    TAG: ClassVar[str]
    WIRE: ClassVar[tuple[tuple[str, str], ...]]

    def to_wire(self) -> list[object]:
        """The canonical ``[tag, field...]`` form."""
        return encode(self)

    @classmethod
    def from_wire(cls, value: object) -> Self:
        """Decode exactly this type from its wire form.

        Raises:
            InvalidMessage: a wrong tag, arity, type or bound.
        """
        return decode_fields(cls, value)


@dataclass(frozen=True, slots=True)
class Play(_Wire):
    """Put cards from the hand on the discard pile.

    One card normally; two identical cards (``jump_in``); or number cards whose
    sum is the top card (``sum_jump_in``). ``cards`` are the claimed faces of
    ``slots`` (the deck proves them; the engine checks them against the rules).
    ``colour`` is named for a black top card, ``-1`` otherwise. ``say_uno``
    says UNO with the play. ``target`` is the player a 7 swaps with
    (``seven_zero``) or a Wild power's victim; ``power`` is ``""``, ``"peek"``
    or ``"swap"`` (``wild_powers``), with ``give``/``take`` the swapped slots.
    """

    TAG: ClassVar[str] = "play"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "seat"), ("slots", "slots"), ("cards", "cards"), ("colour", "int"),
        ("say_uno", "bool"), ("target", "opt_seat"), ("power", "str"),
        ("give", "slots"), ("take", "slots"),
    )
    seat: int
    slots: tuple[Slot, ...]
    cards: tuple[int, ...]
    colour: int = -1
    say_uno: bool = False
    target: int = -1
    power: str = ""
    give: tuple[Slot, ...] = ()
    take: tuple[Slot, ...] = ()

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        _check_seat(self.target, "target", allow_none=True)
        _check_colour(self.colour)
        count = len(self.slots)
        if not count or count != len(self.cards):
            raise ValueError("a play names at least one slot and one face per slot")
        if count > 1 and len(set(self.slots)) != count:
            raise ValueError("a play names each slot once")
        if self.power not in POWERS:
            raise ValueError(f"power must be one of {POWERS}")
        if (self.give or self.take) and (len(self.give) > 3 or len(self.take) > 3):
            raise ValueError("a Wild swap moves at most 3 cards each way")


@dataclass(frozen=True, slots=True)
class Draw(_Wire):
    """Draw a card (or, with a penalty pending, take the whole penalty)."""

    TAG: ClassVar[str] = "draw"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"),)
    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)


@dataclass(frozen=True, slots=True)
class Pass(_Wire):
    """Keep the card just drawn and end the turn."""

    TAG: ClassVar[str] = "pass"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"),)
    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)


@dataclass(frozen=True, slots=True)
class SayUno(_Wire):
    """Say "UNO" (RULES.md "UNO": an action of its own)."""

    TAG: ClassVar[str] = "uno"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"),)
    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)


@dataclass(frozen=True, slots=True)
class CatchUno(_Wire):
    """Catch ``target``, who is down to one card and has not said UNO."""

    TAG: ClassVar[str] = "catch"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"), ("target", "seat"))
    seat: int
    target: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        _check_seat(self.target, "target")


@dataclass(frozen=True, slots=True)
class Challenge(_Wire):
    """Challenge the Wild Draw Four just played on us, instead of drawing."""

    TAG: ClassVar[str] = "challenge"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"),)
    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)


@dataclass(frozen=True, slots=True)
class ChallengeVerdict(_Wire):
    """The challenger's verdict after seeing the challenged hand.

    RULES.md: "The challenged hand is shown to the challenger alone", so the
    verdict shows no card: everyone else learns only ``guilty``, a claim that
    the hand's revealed cards check at the end of the round (and the audit
    from the deck).
    """

    TAG: ClassVar[str] = "verdict"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"), ("guilty", "bool"))
    seat: int
    guilty: bool = False

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        if type(self.guilty) is not bool:
            raise ValueError("a verdict is guilty or not guilty")


@dataclass(frozen=True, slots=True)
class ChooseColour(_Wire):
    """Name the colour of a Wild turned as the starter card."""

    TAG: ClassVar[str] = "colour"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"), ("colour", "int"))
    seat: int
    colour: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        _check_colour(self.colour)
        if self.colour < 0:
            raise ValueError("a colour must be named")


@dataclass(frozen=True, slots=True)
class TimeOut(_Wire):
    """``seat``'s turn timer ran out (proposed by the sequencer from its clock)."""

    TAG: ClassVar[str] = "timeout"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"),)
    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)


@dataclass(frozen=True, slots=True)
class ErrorPenalty(_Wire):
    """``seat`` sent a play the other peers refused: it costs cards (``error_penalty``)."""

    TAG: ClassVar[str] = "error_penalty"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "seat"),)
    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)


@dataclass(frozen=True, slots=True)
class Reveal(_Wire):
    """Faces the deck revealed to everyone, answering a public ``RevealRequested``."""

    TAG: ClassVar[str] = "reveal"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("faces", "faces"),)
    faces: tuple[tuple[Slot, int], ...]

    def __post_init__(self) -> None:
        if len({slot for slot, _ in self.faces}) != len(self.faces):
            raise ValueError("a reveal names each slot once")


@dataclass(frozen=True, slots=True)
class Reseat(_Wire):
    """The new clockwise seating, drawn jointly (``seat_shuffle_every``)."""

    TAG: ClassVar[str] = "reseat"
    WIRE: ClassVar[tuple[tuple[str, str], ...]] = (("order", "seats"),)
    order: tuple[int, ...]


Action = (
    Play | Draw | Pass | SayUno | CatchUno | Challenge | ChallengeVerdict | ChooseColour
    | TimeOut | ErrorPenalty | Reveal | Reseat
)
ACTION_TYPES: dict[str, type[Action]] = {
    cls.TAG: cls for cls in (
        Play, Draw, Pass, SayUno, CatchUno, Challenge, ChallengeVerdict, ChooseColour,
        TimeOut, ErrorPenalty, Reveal, Reseat,
    )
}


def action_from_wire(value: object) -> Action:
    """Decode any action from its wire form.

    Raises:
        InvalidMessage: unknown tag or malformed fields.
    """
    return decode_any(ACTION_TYPES, value, "action")

