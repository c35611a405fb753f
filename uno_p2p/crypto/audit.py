"""The end-of-game check: re-execute every shuffle and compare.

docs/protocol/deck.md §9. Once every peer has revealed its key share and
shuffle master seed (``SecretsReveal``, checked against the announced key and
the commitment), anyone holding the log can recompute each peer's shuffle of
each deck from the public starting deck and compare it byte for byte with
what the peer published. The first shuffle that differs is a proven cheat,
and its author is named: a dropped, duplicated or substituted card, or a
permutation not drawn from the committed seed, all differ. With every shuffle
proven, the order of every deck follows from the permutations alone, so the
audit learns every card at every position (for hands, draws, challenges).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from uno_p2p.crypto.context import Verified, VerifiedStatements
from uno_p2p.crypto.group import Point, Scalar, hash_bytes
from uno_p2p.crypto.keys import KeyAnnouncement, SecretsReveal, joint_key, peer_label
from uno_p2p.crypto.shuffle import (
    Ciphertext,
    ShuffleMessage,
    apply_shuffle,
    initial_deck,
    permutation,
    shuffle_seed,
)
from uno_p2p.errors import CryptoError, LocalProtocolError

#: Our own code's misuse of the check after the game (tests/crypto/test_misuse_words.py).
NO_EARLIER_POSITION = "no earlier deck position ({index}, {position})"
ANOTHER_PEERS_REVEAL = "the reveal given for seat {seat} is another peer's"

#: This process's memo of shuffles re-executed clean (``reexecute_shuffle``).
REEXECUTED = VerifiedStatements()


class ShuffleCheatDetected(CryptoError):
    """A published shuffle differs from the one its committed seed gives."""

    code = "dishonest_shuffle"


class MissingReveal(CryptoError):
    """A peer that shuffled never revealed its secrets: its shuffles stay unproven."""

    code = "missing_reveal"


@dataclass(frozen=True, slots=True)
class DeckRecord:
    """What the log holds about one deck: its cards, who shuffled, and how.

    The deck starts from ``carried`` ciphertexts, each named by the index of an
    earlier record of the same game and a position in that deck (cards put
    back into a deck without being seen, §8 step 4), followed by the public
    encryption of ``card_ids`` ascending (known cards: a discard pile).
    ``shufflers`` are seats in the order they shuffled; ``shuffles`` their
    messages, in the same order.
    """

    round: int
    deck: int
    card_ids: tuple[int, ...]
    shufflers: tuple[int, ...]
    shuffles: tuple[ShuffleMessage, ...]
    carried: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        if len(self.shufflers) != len(self.shuffles) or not self.shuffles:
            raise LocalProtocolError("a deck record needs one message per shuffler")


@dataclass(frozen=True, slots=True)
class DeckResult:
    """A verified deck: its final ciphertexts and the card at each position."""

    ciphertexts: tuple[Ciphertext, ...]
    order: tuple[int, ...]


def verify_deck(
    record: DeckRecord, *, keys: Sequence[Verified[KeyAnnouncement]],
    reveals: Mapping[int, Verified[SecretsReveal]], earlier: Sequence[DeckResult] = (),
) -> DeckResult:
    """Re-execute every shuffle of one deck; return its ciphertexts and card order.

    ``reveals`` maps seats to their verified secrets; every seat's is needed
    (its key share is part of the joint secret used to check re-randomising).
    ``earlier`` holds the results of the game's earlier decks, for ``carried``.

    Raises:
        MissingReveal: a seat's secrets are missing.
        ShuffleCheatDetected: a shuffle differs from its re-execution; the
            error names the shuffler and the first differing position.
        LocalProtocolError: ``carried`` names no earlier deck position.
    """
    joint_secret = _joint_secret(keys, reveals)
    public_key = joint_key(list(keys))
    current, order = _starting_deck(record, earlier)
    for seat, message in zip(record.shufflers, record.shuffles, strict=True):
        reveal = reveals[seat].value
        seed = shuffle_seed(reveal.shuffle_master, record.round, record.deck)
        expected = apply_shuffle(current, seed, public_key, joint_secret)
        _compare(record, seat, keys, expected, message.ciphertexts)
        order = tuple(order[source] for source in permutation(seed, len(order)))
        current = expected
    return DeckResult(current, order)


def reexecute_shuffle(
    previous: Sequence[Ciphertext], published: Sequence[Ciphertext], *, shuffle_master: bytes,
    round_number: int, deck: int, joint_key: Point, peer: bytes, where: str,
) -> None:
    """Re-execute one seat's shuffle from its own revealed seed alone (§9).

    Needs no other seat's secrets (``r·H`` is computed with the public joint
    key), so a seat's reveal convicts it even if another seat never reveals.

    Raises:
        ShuffleCheatDetected: the published deck differs from the re-execution;
            the error names ``peer`` and the first differing position.
    """
    seed = shuffle_seed(shuffle_master, round_number, deck)
    key = _reexecuted_key(seed, joint_key.data, b"".join(c.to_wire() for c in previous),
                          b"".join(c.to_wire() for c in published))
    if key in REEXECUTED:
        return
    _compare_reexecution(previous, published, seed, joint_key, peer, where)
    REEXECUTED.add(key)


def _reexecuted_key(seed: bytes, joint_key: bytes, previous: bytes, published: bytes) -> bytes:
    return hash_bytes("reexecuted", seed, joint_key, previous, published)


def _compare_reexecution(previous: Sequence[Ciphertext], published: Sequence[Ciphertext],
                         seed: bytes, joint_key: Point, peer: bytes, where: str) -> None:
    """Re-execute from ``seed`` and compare, touching no memo.

    Raises:
        ShuffleCheatDetected: as ``reexecute_shuffle``.
    """
    expected = apply_shuffle(previous, seed, joint_key)
    if len(expected) != len(published):
        raise ShuffleCheatDetected(f"{where} holds {len(published)} cards instead of "
                                   f"{len(expected)}", peer=peer_label(peer), item=where)
    for position, (want, got) in enumerate(zip(expected, published, strict=True)):
        if want != got:
            raise ShuffleCheatDetected(
                f"{where} differs from its committed seed at position {position}",
                peer=peer_label(peer), item=f"{where}, position {position}",
            )


@dataclass(frozen=True, slots=True)
class ReexecutionStatement:
    """One seat's shuffle to re-execute from its revealed seed, in wire bytes.

    Like ``shuffle_proof.ShuffleStatement``: checked in a worker ahead of the
    ledger (``reexecute_shuffle`` then finds it in ``REEXECUTED``); a shuffle
    that differs is not recorded, so the ledger convicts its author itself.
    Both decks are the checker's own accepted state, bound into the key.
    """

    previous: tuple[bytes, ...]
    published: tuple[bytes, ...]
    shuffle_master: bytes
    round_number: int
    deck: int
    joint_key: bytes

    memo: ClassVar[VerifiedStatements] = REEXECUTED

    def key(self) -> bytes:
        """Its memo key, as ``reexecute_shuffle`` computes it."""
        seed = shuffle_seed(self.shuffle_master, self.round_number, self.deck)
        return _reexecuted_key(seed, self.joint_key, b"".join(self.previous),
                               b"".join(self.published))

    def check(self) -> bytes | None:
        """Re-execute and compare (no memo touched: any thread or process); the key if
        the published deck is the re-execution, else None."""
        seed = shuffle_seed(self.shuffle_master, self.round_number, self.deck)
        try:
            _compare_reexecution(_trusted(self.previous), _trusted(self.published), seed,
                                 Point(self.joint_key), b"", "")
        except (CryptoError, ValueError, RuntimeError, TypeError):
            return None
        return self.key()


def _trusted(deck: Sequence[bytes]) -> tuple[Ciphertext, ...]:
    """Accepted state's ciphertexts, not validated again (the key binds their bytes)."""
    return tuple(Ciphertext(Point(c[:32]), Point(c[32:])) for c in deck)


def verify_game(
    records: Sequence[DeckRecord], *, keys: Sequence[Verified[KeyAnnouncement]],
    reveals: Mapping[int, Verified[SecretsReveal]],
) -> list[tuple[int, ...]]:
    """``verify_deck`` for every deck of the game, in log order; the card orders.

    Raises:
        MissingReveal / ShuffleCheatDetected: as ``verify_deck``, for the first
            deck that fails.
    """
    results: list[DeckResult] = []
    for record in records:
        results.append(verify_deck(record, keys=keys, reveals=reveals, earlier=results))
    return [result.order for result in results]


def _starting_deck(
    record: DeckRecord, earlier: Sequence[DeckResult]
) -> tuple[tuple[Ciphertext, ...], tuple[int, ...]]:
    ciphertexts: list[Ciphertext] = []
    order: list[int] = []
    for index, position in record.carried:
        if not 0 <= index < len(earlier) or not 0 <= position < len(earlier[index].order):
            raise LocalProtocolError(NO_EARLIER_POSITION.format(index=index, position=position))
        ciphertexts.append(earlier[index].ciphertexts[position])
        order.append(earlier[index].order[position])
    if record.card_ids:
        ciphertexts.extend(initial_deck(record.card_ids))
        order.extend(sorted(record.card_ids))
    return tuple(ciphertexts), tuple(order)


def _joint_secret(
    keys: Sequence[Verified[KeyAnnouncement]], reveals: Mapping[int, Verified[SecretsReveal]]
) -> Scalar:
    total = Scalar(0)
    for seat, key in enumerate(keys):
        reveal = reveals.get(seat)
        if reveal is None:
            raise MissingReveal(
                "this peer never revealed its key share and shuffle seed",
                peer=peer_label(key.context.peer), item="secrets reveal",
            )
        if reveal.context.peer != key.context.peer:
            raise LocalProtocolError(ANOTHER_PEERS_REVEAL.format(seat=seat))
        total = total + reveal.value.key_share
    return total


def _compare(
    record: DeckRecord, seat: int, keys: Sequence[Verified[KeyAnnouncement]],
    expected: Sequence[Ciphertext], published: Sequence[Ciphertext],
) -> None:
    where = f"round {record.round} deck {record.deck}: shuffle by seat {seat}"
    if len(expected) != len(published):
        raise ShuffleCheatDetected(
            f"{where} holds {len(published)} cards instead of {len(expected)}",
            peer=peer_label(keys[seat].context.peer), item=where,
        )
    for position, (want, got) in enumerate(zip(expected, published, strict=True)):
        if want != got:
            raise ShuffleCheatDetected(
                f"{where} differs from its committed seed at position {position}",
                peer=peer_label(keys[seat].context.peer), item=f"{where}, position {position}",
            )
