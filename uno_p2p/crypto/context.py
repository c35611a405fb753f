"""Proof contexts and the ``Verified`` seal.

docs/protocol/deck.md §2. Every Fiat-Shamir challenge of this layer hashes a
``ProofContext``: the table, the round, the deck within the round, the
purpose, the proving peer, the deck position and the intended recipient. The
context is never sent: each verifier rebuilds it from where the value sits in
the game log, so a proof made for one place fails everywhere else (no
replays).

``Verified[T]`` marks a value that passed its checks. Only this layer's
verification functions make one (they hold the seal), so unverified data
cannot reach the table's state by mistake: the type checker says so.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from uno_p2p.errors import LocalProtocolError

T = TypeVar("T")

MAX_ID_BYTES = 64
MAX_U32 = 2**32 - 1
_PURPOSE = re.compile(r"[a-z][a-z0-9_]{0,31}")

# The purposes the protocol uses (docs/protocol/deck.md §2); the table may add
# its own lower-case labels.
PURPOSE_KEY = "key"
PURPOSE_DEAL = "deal"
PURPOSE_OPEN = "open"
PURPOSE_PRIVATE = "private"


@dataclass(frozen=True, slots=True)
class ProofContext:
    """Where a proof belongs; hashed into its challenge.

    ``position`` is ``None`` for proofs not about a deck position (keys);
    ``recipient`` is empty for public values.
    """

    table: bytes
    round: int
    deck: int
    purpose: str
    peer: bytes
    position: int | None = None
    recipient: bytes = b""

    def __post_init__(self) -> None:
        for name, ident in (("table", self.table), ("peer", self.peer)):
            if not isinstance(ident, bytes) or not 1 <= len(ident) <= MAX_ID_BYTES:
                raise LocalProtocolError(f"proof context: {name} must be 1..64 bytes")
        if not isinstance(self.recipient, bytes) or len(self.recipient) > MAX_ID_BYTES:
            raise LocalProtocolError("proof context: recipient must be 0..64 bytes")
        for name, number in (("round", self.round), ("deck", self.deck)):
            if not isinstance(number, int) or not 0 <= number <= MAX_U32:
                raise LocalProtocolError(f"proof context: {name} must be 0..2^32-1")
        if self.position is not None and not 0 <= self.position <= MAX_U32:
            raise LocalProtocolError("proof context: position must be 0..2^32-1")
        if not isinstance(self.purpose, str) or not _PURPOSE.fullmatch(self.purpose):
            raise LocalProtocolError("proof context: purpose must match [a-z][a-z0-9_]{0,31}")

    def encode(self) -> list[bytes | int]:
        """The framed parts this context contributes to a transcript (§2)."""
        position: bytes | int = b"" if self.position is None else self.position
        return [
            self.table,
            self.round,
            self.deck,
            self.purpose.encode("ascii"),
            self.peer,
            position,
            self.recipient,
        ]

    def at(
        self, position: int | None, *, purpose: str, peer: bytes, recipient: bytes = b""
    ) -> ProofContext:
        """The same table, round and deck, for another position or prover."""
        return ProofContext(
            self.table, self.round, self.deck, purpose, peer, position, recipient
        )


class _Seal:
    """Held only by this package's verification functions."""

    __slots__ = ()


SEAL = _Seal()


@dataclass(frozen=True, slots=True)
class Verified(Generic[T]):
    """A value that passed verification in ``context``.

    Construct only through the verify functions of ``uno_p2p.crypto``; a
    direct construction without the package's seal raises.
    """

    value: T
    context: ProofContext
    seal: _Seal = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.seal is not SEAL:
            raise LocalProtocolError("Verified values are made only by the verify functions")


class VerifiedStatements:
    """The last statements this process verified, by a digest of every input.

    A check that is a pure function of its inputs (a proof of shuffle, a
    shuffle's re-execution) need not run twice on the same inputs: several
    peers in one process (the in-memory table, the tests) or one peer judging a
    message twice (the sequencer's evidence check) pay once. Only successes are
    kept, keyed by SHA-256 of every input (or the input's bytes, when they are
    short: a point); ``enabled = False`` measures the real cost (the
    benchmarks). The network shell's worker threads write too, and this layer
    takes no locks: each step is one dict operation, and a racing writer at
    worst forgets one entry more.
    """

    __slots__ = ("_seen", "enabled", "size")

    def __init__(self, size: int = 256) -> None:
        self._seen: dict[bytes, None] = {}
        self.size = size
        self.enabled = True

    def __contains__(self, key: bytes) -> bool:
        return self.enabled and key in self._seen

    def clear(self) -> None:
        """Forget every statement."""
        self._seen.clear()

    def add(self, key: bytes) -> None:
        """Remember a verified statement (the oldest is forgotten beyond ``size``)."""
        if not self.enabled:
            return
        seen = self._seen
        seen[key] = None
        while len(seen) > self.size:
            # Another thread may have taken the same oldest entry, or emptied the memo.
            with contextlib.suppress(KeyError, StopIteration, RuntimeError):
                del seen[next(iter(seen))]
