"""The 108 cards of UNO and their canonical ids (RULES.md "Cards (108)").

The ids are a contract shared with the crypto layer, which maps the same ids
to curve points without importing this module: colours in the order red,
yellow, green, blue (index ``c``); ids ``25*c + k`` with ``k = 0`` the ``0``,
``k = 1..18`` the ``1``-``9`` twice (``1,1,2,2,...``), ``19-20`` Skip,
``21-22`` Reverse, ``23-24`` Draw Two; ``100-103`` Wild and ``104-107`` Wild
Draw Four. Everything here is a table lookup so the engine stays fast.
"""

from __future__ import annotations

from enum import IntEnum

CARD_COUNT = 108
#: Cards per colour: one 0, two each of 1-9, two Skip, two Reverse, two Draw Two.
PER_COLOUR = 25


class Colour(IntEnum):
    """The four colours, in card-id order."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3


class Rank(IntEnum):
    """What a card is, regardless of colour. Numbers are their own value."""

    ZERO = 0
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    SKIP = 10
    REVERSE = 11
    DRAW_TWO = 12
    WILD = 13
    WILD_DRAW_FOUR = 14


#: Colour index of every card, -1 for the black cards.
NO_COLOUR = -1
COLOUR_LETTERS = ("R", "Y", "G", "B")
COLOUR_NAMES = ("Red", "Yellow", "Green", "Blue")
_RANK_SHORT = {
    Rank.SKIP: "skip", Rank.REVERSE: "rev", Rank.DRAW_TWO: "+2",
    Rank.WILD: "W", Rank.WILD_DRAW_FOUR: "W+4",
}
_RANK_LONG = {
    Rank.SKIP: "Skip", Rank.REVERSE: "Reverse", Rank.DRAW_TWO: "Draw Two",
    Rank.WILD: "Wild", Rank.WILD_DRAW_FOUR: "Wild Draw Four",
}


def _rank_of_k(k: int) -> Rank:
    if k == 0:
        return Rank.ZERO
    if k <= 18:
        return Rank((k + 1) // 2)
    return (Rank.SKIP, Rank.SKIP, Rank.REVERSE, Rank.REVERSE, Rank.DRAW_TWO, Rank.DRAW_TWO)[k - 19]


def _build_tables() -> tuple[tuple[int, ...], tuple[Rank, ...]]:
    colours: list[int] = []
    ranks: list[Rank] = []
    for card in range(CARD_COUNT):
        if card < 100:
            colours.append(card // PER_COLOUR)
            ranks.append(_rank_of_k(card % PER_COLOUR))
        else:
            colours.append(NO_COLOUR)
            ranks.append(Rank.WILD if card < 104 else Rank.WILD_DRAW_FOUR)
    return tuple(colours), tuple(ranks)


#: ``CARD_COLOUR[card]`` is the colour index (0-3) or ``NO_COLOUR``.
#: ``CARD_RANK[card]`` is the card's ``Rank``.
CARD_COLOUR, CARD_RANK = _build_tables()
#: Points at round end: face value, 20 for Skip/Reverse/Draw Two, 50 for black cards.
CARD_POINTS: tuple[int, ...] = tuple(
    int(r) if r <= Rank.NINE else (20 if r <= Rank.DRAW_TWO else 50) for r in CARD_RANK
)


def check_card(card: object) -> int:
    """Return ``card`` if it is a canonical card id.

    Raises:
        ValueError: if it is not an int in 0..107 (bools are refused too).
    """
    if type(card) is not int or not 0 <= card < CARD_COUNT:
        raise ValueError(f"{card!r} is not a card id (0-107)")
    return card


def colour_of(card: int) -> int:
    """The colour index of ``card`` (0-3), or ``NO_COLOUR`` for a black card."""
    return CARD_COLOUR[card]


def rank_of(card: int) -> Rank:
    """What ``card`` is (a number, an action, or a black card)."""
    return CARD_RANK[card]


def points(card: int) -> int:
    """The card's value when counted in a loser's hand (RULES.md "Points")."""
    return CARD_POINTS[card]


def is_number(card: int) -> bool:
    """True for the number cards 0-9."""
    return CARD_RANK[card] <= Rank.NINE


def is_black(card: int) -> bool:
    """True for Wild and Wild Draw Four."""
    return card >= 100


def same_face(a: int, b: int) -> bool:
    """True when two cards are identical in colour and face (RULES.md jump_in)."""
    return CARD_RANK[a] == CARD_RANK[b] and CARD_COLOUR[a] == CARD_COLOUR[b]


def short_name(card: int) -> str:
    """A compact label: ``R7``, ``Y+2``, ``B-skip``, ``G-rev``, ``W``, ``W+4``."""
    rank = CARD_RANK[card]
    if rank >= Rank.WILD:
        return _RANK_SHORT[rank]
    letter = COLOUR_LETTERS[CARD_COLOUR[card]]
    if rank <= Rank.NINE:
        return f"{letter}{int(rank)}"
    if rank == Rank.DRAW_TWO:
        return f"{letter}+2"
    return f"{letter}-{_RANK_SHORT[rank]}"


def long_name(card: int) -> str:
    """A readable name: ``Red 7``, ``Yellow Draw Two``, ``Wild Draw Four``."""
    rank = CARD_RANK[card]
    if rank >= Rank.WILD:
        return _RANK_LONG[rank]
    colour = COLOUR_NAMES[CARD_COLOUR[card]]
    if rank <= Rank.NINE:
        return f"{colour} {int(rank)}"
    return f"{colour} {_RANK_LONG[rank]}"


def parse_card_name(text: str) -> tuple[int, Rank]:
    """Parse a short name back to ``(colour, rank)`` (colour -1 for black cards).

    Raises:
        ValueError: if ``text`` is not a short name this module prints.
    """
    for card in range(0, CARD_COUNT):
        if short_name(card).lower() == text.strip().lower():
            return CARD_COLOUR[card], CARD_RANK[card]
    raise ValueError(f"{text!r} is not a card name like R7, Y+2, B-skip, G-rev, W or W+4")


def card_ids(colour: int, rank: Rank) -> tuple[int, ...]:
    """Every card id with this colour and rank (colour ignored for black cards)."""
    return tuple(
        c for c in range(CARD_COUNT)
        if CARD_RANK[c] == rank and (rank >= Rank.WILD or CARD_COLOUR[c] == colour)
    )
