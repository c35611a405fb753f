"""Card points: one public group element per card id, and the way back.

docs/protocol/deck.md §5. Card ids are 0..107 (the rules engine owns the
faces). ``M_id = from_uniform(SHA-256(frame("card", id)))``: libsodium's
Elligator 2 map of a domain-separated hash, so nobody knows any discrete-log
relation between two cards. A decrypted point that is no card is an error,
never a guess.
"""

from __future__ import annotations

from functools import cache

from uno_p2p.crypto.group import Point, point_from_hash
from uno_p2p.errors import CryptoError, LocalProtocolError

CARD_COUNT = 108
CARD_IDS = tuple(range(CARD_COUNT))
#: Our own code handed over something else than a card id (tests/crypto/test_misuse_words.py).
NOT_A_CARD_ID = "{card!r} is not a card id (0..107)"


class UnknownCard(CryptoError):
    """A decryption gave a point that encodes no card (a bad share or deck)."""

    code = "unknown_card"


def check_card_id(card: int) -> int:
    """Return ``card`` if it is a card id, else raise.

    Raises:
        LocalProtocolError: not an int in 0..107.
    """
    if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < CARD_COUNT:
        raise LocalProtocolError(NOT_A_CARD_ID.format(card=card))
    return card


@cache
def card_points() -> tuple[Point, ...]:
    """``M_0 .. M_107`` (computed once)."""
    return tuple(point_from_hash("card", card) for card in CARD_IDS)


@cache
def _lookup() -> dict[bytes, int]:
    return {point.data: card for card, point in enumerate(card_points())}


def card_point(card: int) -> Point:
    """The public point ``M_card``.

    Raises:
        LocalProtocolError: not a card id.
    """
    return card_points()[check_card_id(card)]


def card_of(point: Point, *, peer: str | None = None, item: str = "card") -> int:
    """The card id a decrypted point encodes.

    Raises:
        UnknownCard: the point is no card's (someone's share or shuffle was bad).
    """
    card = _lookup().get(point.data)
    if card is None:
        raise UnknownCard(f"{item}: the decrypted point is not a card", peer=peer, item=item)
    return card
