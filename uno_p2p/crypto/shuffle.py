"""ElGamal ciphertexts and the committed joint shuffle (Barnett & Smart 2003).

docs/protocol/deck.md §6. A deck starts as the public encryption
``(O, M_id)`` of its card ids in ascending order (O the identity: no secret
yet). Each peer in seat order permutes the previous peer's output and
re-randomises every ciphertext: ``(c1 + r·G, c2 + r·H)``. The permutation
and every ``r`` come from the peer's shuffle seed for that deck, itself
derived from the master seed it committed to before any shuffle (§4.2), so
a shuffle is fixed before the peer sees anyone's output and can be
re-executed by anyone once the seed is revealed (``uno_p2p.crypto.audit``).
Each shuffle is also proven on arrival in zero knowledge
(``uno_p2p.crypto.shuffle_proof``, §6.4); this module checks its structure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from uno_p2p.crypto.cards import CARD_COUNT, card_point, check_card_id
from uno_p2p.crypto.context import SEAL, ProofContext, Verified
from uno_p2p.crypto.group import (
    IDENTITY,
    Point,
    Scalar,
    base_mul,
    frame,
    hash_bytes,
    hash_to_nonzero_scalar,
)
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError

PURPOSE_SHUFFLE = "shuffle"
CIPHERTEXT_BYTES = 64
#: A shuffle of another size than its deck (pinned in tests/crypto/test_refusal_words.py).
WRONG_SIZE = "the shuffle holds {cards} cards, the deck {deck}"


class ShuffleRejected(CryptoError):
    """A shuffle message is malformed for the deck it claims to shuffle."""

    code = "shuffle_rejected"


@dataclass(frozen=True, slots=True)
class Ciphertext:
    """An ElGamal ciphertext ``(c1, c2) = (r·G, M + r·H)``."""

    c1: Point
    c2: Point

    def __deepcopy__(self, memo: dict[int, object]) -> Ciphertext:
        """A value of two values: a copy of a game shares it (most of a deck's bytes)."""
        return self

    @classmethod
    def from_wire(cls, raw: object, *, peer: str | None, item: str) -> Ciphertext:
        """Decode ``c1 || c2`` (64 bytes), both points checked.

        Raises:
            InvalidMessage: not 64 bytes.
            InvalidPoint: either half is not a valid group element.
        """
        if not isinstance(raw, bytes) or len(raw) != CIPHERTEXT_BYTES:
            raise InvalidMessage(f"{item}: a ciphertext is 64 bytes")
        return cls(
            Point.from_wire(raw[:32], peer=peer, item=f"{item} c1"),
            Point.from_wire(raw[32:], peer=peer, item=f"{item} c2"),
        )

    def to_wire(self) -> bytes:
        """``c1 || c2``."""
        return self.c1.data + self.c2.data


def initial_deck(card_ids: Sequence[int]) -> tuple[Ciphertext, ...]:
    """The public, unshuffled encryption ``(O, M_id)`` of distinct card ids, ascending.

    A reshuffle passes the discard pile's known ids; a round passes all 108.

    Raises:
        LocalProtocolError: an id repeats or is not a card.
    """
    ids = sorted(check_card_id(card) for card in card_ids)
    if len(set(ids)) != len(ids) or not ids:
        raise LocalProtocolError("a deck holds one or more distinct card ids")
    return tuple(Ciphertext(IDENTITY, card_point(card)) for card in ids)


def shuffle_seed(shuffle_master: bytes, round_number: int, deck: int) -> bytes:
    """The seed of one peer's shuffle of deck ``deck`` of round ``round_number`` (§6.2)."""
    return hash_bytes("shuffle-seed", shuffle_master, round_number, deck)


def permutation(seed: bytes, size: int) -> tuple[int, ...]:
    """Fisher-Yates driven by a SHA-512 counter stream, rejection sampled (§6.3).

    Returns ``perm`` such that output position ``k`` holds input ``perm[k]``.
    """
    stream = _ByteStream(seed)
    perm = list(range(size))
    for i in range(size - 1, 0, -1):
        j = stream.below(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)


class _ByteStream:
    """``SHA-512(frame("shuffle-permutation", seed, counter))`` blocks, 8 bytes a draw."""

    __slots__ = ("_buffer", "_counter", "_seed")

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._buffer = b""

    def _next_u64(self) -> int:
        if not self._buffer:
            block = frame("shuffle-permutation", self._seed, self._counter)
            self._buffer = hashlib.sha512(block).digest()
            self._counter += 1
        value, self._buffer = int.from_bytes(self._buffer[:8], "big"), self._buffer[8:]
        return value

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)`` drawn from this stream (``draw_below``)."""
        return draw_below(self._next_u64, bound)


def draw_below(draw: Callable[[], int], bound: int) -> int:
    """A uniform integer in ``[0, bound)`` from ``draw``'s uniform 64-bit values: reject
    the biased top of the range and draw again (deck.md §6.2). The rule is about the
    values, not where they come from, so a test may give them (a list's iterator)."""
    limit = 2**64 - (2**64 % bound)
    while True:
        value = draw()
        if value < limit:
            return value % bound


def rerandomisers(seed: bytes, size: int) -> tuple[Scalar, ...]:
    """``r_k = H("shuffle-rerandomiser", seed, k)`` for each output position ``k``."""
    return tuple(hash_to_nonzero_scalar("shuffle-rerandomiser", seed, k) for k in range(size))


def apply_shuffle(
    previous: Sequence[Ciphertext], seed: bytes, joint_key: Point,
    joint_secret: Scalar | None = None,
) -> tuple[Ciphertext, ...]:
    """Permute and re-randomise ``previous`` as the seed says.

    ``joint_secret`` (known only after every key share is revealed) lets the
    audit compute ``r·H`` as ``(r·x)·G``, a base-point multiplication several
    times cheaper; the result is the same.
    """
    perm = permutation(seed, len(previous))
    randomisers = rerandomisers(seed, len(previous))
    out = []
    for k, source in enumerate(perm):
        r = randomisers[k]
        mask = base_mul(r * joint_secret) if joint_secret is not None else joint_key * r
        card = previous[source]
        out.append(Ciphertext(card.c1 + base_mul(r), card.c2 + mask))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ShuffleMessage:
    """One peer's shuffled deck: a list of 64-byte ciphertexts on the wire."""

    ciphertexts: tuple[Ciphertext, ...]

    @classmethod
    def from_wire(
        cls, raw: object, *, peer: str | None, max_cards: int = CARD_COUNT
    ) -> ShuffleMessage:
        """Decode and check every point.

        Raises:
            InvalidMessage: not a list of 1..max_cards 64-byte strings.
            InvalidPoint: any point outside the group.
        """
        if not isinstance(raw, list | tuple) or not 1 <= len(raw) <= max_cards:
            raise InvalidMessage(f"shuffle: expected a list of 1..{max_cards} ciphertexts")
        return cls(tuple(
            Ciphertext.from_wire(entry, peer=peer, item=f"shuffle position {k}")
            for k, entry in enumerate(raw)
        ))

    def to_wire(self) -> list[bytes]:
        """The ciphertexts in deck order."""
        return [ciphertext.to_wire() for ciphertext in self.ciphertexts]


def shuffle_context(
    table: bytes, round_number: int, deck: int, peer: bytes, *, turn: int
) -> ProofContext:
    """The context naming one peer's shuffle of one deck: ``turn`` (the context's
    position) counts the shuffles of this deck before it (0 for the first)."""
    return ProofContext(table, round_number, deck, PURPOSE_SHUFFLE, peer, turn)


def make_shuffle(
    previous: Sequence[Ciphertext], *, shuffle_master: bytes, round_number: int, deck: int,
    joint_key: Point,
) -> ShuffleMessage:
    """This peer's shuffle of ``previous``, from its committed master seed."""
    seed = shuffle_seed(shuffle_master, round_number, deck)
    return ShuffleMessage(apply_shuffle(previous, seed, joint_key))


def verify_shuffle_message(
    message: ShuffleMessage, previous: Sequence[Ciphertext], context: ProofContext
) -> Verified[ShuffleMessage]:
    """Check the shape: the size, and no repeated ciphertext.

    Correctness (a true permutation, honest re-randomisation) is the proof of
    shuffle's (``shuffle_proof.verify_proven_shuffle``, which calls this
    first); points were checked on decoding.

    Raises:
        ShuffleRejected: wrong number of cards, or a repeated ``c1`` (which an
            honest shuffle produces with negligible probability).
    """
    peer = context.peer.hex()
    if len(message.ciphertexts) != len(previous):
        raise ShuffleRejected(
            WRONG_SIZE.format(cards=len(message.ciphertexts), deck=len(previous)),
            peer=peer, item="shuffle",
        )
    if len({ciphertext.c1 for ciphertext in message.ciphertexts}) != len(previous):
        raise ShuffleRejected("the shuffle repeats a ciphertext", peer=peer, item="shuffle")
    return Verified(message, context, SEAL)
