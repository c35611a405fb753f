"""The prime-order group: libsodium's edwards25519 through PyNaCl.

docs/protocol/deck.md §1. We never write curve arithmetic ourselves: every
point operation is a libsodium call. Scalars are plain integers modulo the
group order ``L`` (integer arithmetic is not curve arithmetic) and travel as
32 little-endian bytes, as libsodium stores them.

Two doors let bytes in, and both check: ``Point.from_wire`` (canonical, on the
curve, in the prime-order subgroup, not of small order) and
``Scalar.from_wire`` (canonical, below ``L``). libsodium's ``add``/``sub``
check nothing, so every point a peer sends must come through ``from_wire``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from nacl import bindings as _na
from nacl.exceptions import RuntimeError as _NaclRuntimeError

from uno_p2p.crypto.context import VerifiedStatements
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError

#: The order of the prime subgroup of edwards25519.
L = 2**252 + 27742317777372353535851937790883648493
POINT_BYTES = 32
SCALAR_BYTES = 32

#: Every label of this layer starts here (docs/protocol.md, conventions).
LABEL_PREFIX = "uno-lan/deck/v1/"


class InvalidPoint(CryptoError):
    """A peer's point is not a canonical element of the prime-order subgroup."""

    code = "invalid_point"


class InvalidScalar(CryptoError):
    """A peer's scalar is not canonical (not below the group order)."""

    code = "invalid_scalar"


class GroupOps:
    """Counts the expensive libsodium calls, for the benchmark's op table.

    Counting is not I/O and costs an integer add; it lets ``bench-deck``
    compare the work done with the minimum the protocol needs.
    """

    __slots__ = ("adds", "base_muls", "muls", "validations")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.muls = 0
        self.base_muls = 0
        self.adds = 0
        self.validations = 0

    def snapshot(self) -> dict[str, int]:
        """The counts so far, by operation."""
        return {
            "mul": self.muls,
            "base_mul": self.base_muls,
            "add": self.adds,
            "validate": self.validations,
        }


OPS = GroupOps()


#: This process's memo of valid point encodings.
VALID_POINTS = VerifiedStatements(size=16384)
"""Checking that 32 bytes are in the prime-order subgroup costs a scalar
multiplication (``is_valid_point``, some 80 µs), and a shuffled deck's 216
points reach one process more than once: a node decodes a turn in its check
worker and again in its ledger, and every in-memory peer decodes every turn.
Validity is a function of the bytes alone, so they are the key; only valid
encodings are kept."""


@dataclass(frozen=True, slots=True)
class Scalar:
    """An integer modulo ``L``; always reduced."""

    value: int

    def __deepcopy__(self, memo: dict[int, object]) -> Scalar:
        """A value, like an int: a copy of a game (a fuzz target's template) shares it."""
        return self

    def __post_init__(self) -> None:
        if not 0 <= self.value < L:
            raise LocalProtocolError("a Scalar must be reduced modulo L")

    @classmethod
    def of(cls, value: int) -> Scalar:
        """Reduce any integer into a scalar."""
        return cls(value % L)

    @classmethod
    def from_wire(cls, raw: object, *, peer: str | None, item: str) -> Scalar:
        """Decode 32 little-endian bytes, refusing non-canonical values.

        Raises:
            InvalidMessage: not 32 bytes.
            InvalidScalar: the integer is not below ``L``.
        """
        if not isinstance(raw, bytes) or len(raw) != SCALAR_BYTES:
            raise InvalidMessage(f"{item}: a scalar must be {SCALAR_BYTES} bytes")
        value = int.from_bytes(raw, "little")
        if value >= L:
            raise InvalidScalar(
                f"{item}: scalar is not canonical", peer=peer, item=item
            )
        return cls(value)

    def to_wire(self) -> bytes:
        """32 little-endian bytes."""
        return self.value.to_bytes(SCALAR_BYTES, "little")

    def __add__(self, other: Scalar) -> Scalar:
        return Scalar((self.value + other.value) % L)

    def __sub__(self, other: Scalar) -> Scalar:
        return Scalar((self.value - other.value) % L)

    def __mul__(self, other: Scalar) -> Scalar:
        return Scalar((self.value * other.value) % L)

    def __neg__(self) -> Scalar:
        return Scalar((-self.value) % L)

    def __repr__(self) -> str:
        # Scalars are usually secrets: never print them by accident.
        return "Scalar(...)"


@dataclass(frozen=True, slots=True)
class Point:
    """A compressed edwards25519 point (32 bytes).

    Made by ``from_wire`` (checked), by libsodium arithmetic on checked
    points, or by the constructors below; never directly from peer bytes.
    """

    data: bytes

    def __deepcopy__(self, memo: dict[int, object]) -> Point:
        """A value, like bytes: a copy of a game (a fuzz target's template) shares it."""
        return self

    @classmethod
    def from_wire(cls, raw: object, *, peer: str | None, item: str) -> Point:
        """Decode a peer's point, refusing anything outside the prime subgroup.

        Raises:
            InvalidMessage: not 32 bytes.
            InvalidPoint: non-canonical, off the curve, of small order (the
                identity included) or outside the prime-order subgroup.
        """
        if not isinstance(raw, bytes) or len(raw) != POINT_BYTES:
            raise InvalidMessage(f"{item}: a point must be {POINT_BYTES} bytes")
        if raw in VALID_POINTS:
            return cls(raw)
        OPS.validations += 1
        if not _na.crypto_core_ed25519_is_valid_point(raw):
            raise InvalidPoint(
                f"{item}: not a valid point of the prime-order group", peer=peer, item=item
            )
        VALID_POINTS.add(raw)
        return cls(raw)

    def to_wire(self) -> bytes:
        """The 32-byte compressed encoding."""
        return self.data

    def __add__(self, other: Point) -> Point:
        OPS.adds += 1
        return Point(_na.crypto_core_ed25519_add(self.data, other.data))

    def __sub__(self, other: Point) -> Point:
        OPS.adds += 1
        return Point(_na.crypto_core_ed25519_sub(self.data, other.data))

    def __mul__(self, scalar: Scalar) -> Point:
        """``scalar · self``; libsodium refuses the identity, so zero is ours."""
        if scalar.value == 0 or self.data == IDENTITY_BYTES:
            return IDENTITY
        OPS.muls += 1
        try:
            return Point(_na.crypto_scalarmult_ed25519_noclamp(scalar.to_wire(), self.data))
        except _NaclRuntimeError as exc:  # pragma: no cover - only for unchecked points
            raise CryptoError("scalar multiplication of an invalid point") from exc

    def __repr__(self) -> str:
        return f"Point({self.data.hex()[:16]}...)"


IDENTITY_BYTES = b"\x01" + bytes(31)
#: The neutral element. Never accepted from a peer (it has small order).
IDENTITY = Point(IDENTITY_BYTES)


def base_mul(scalar: Scalar) -> Point:
    """``scalar · G`` for the standard base point G."""
    if scalar.value == 0:
        return IDENTITY
    OPS.base_muls += 1
    return Point(_na.crypto_scalarmult_ed25519_base_noclamp(scalar.to_wire()))


#: The standard edwards25519 base point.
G = base_mul(Scalar(1))


def frame(label: str, *parts: bytes | int) -> bytes:
    """The canonical, unambiguous input of every hash of this layer.

    docs/protocol/deck.md §1.2: ``u32be(len(label)) || label`` then, for each
    part, ``u32be(len(part)) || part``; an integer part is first written as
    8 bytes big-endian (it must fit in 64 bits).
    """
    chunks = [_with_length((LABEL_PREFIX + label).encode("ascii"))]
    for part in parts:
        if isinstance(part, int):
            part = part.to_bytes(8, "big")
        chunks.append(_with_length(part))
    return b"".join(chunks)


def _with_length(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def hash_bytes(label: str, *parts: bytes | int) -> bytes:
    """SHA-256 of the framed input: commitments and derived seeds."""
    return hashlib.sha256(frame(label, *parts)).digest()


def hash_to_scalar(label: str, *parts: bytes | int) -> Scalar:
    """SHA-512 of the framed input, reduced modulo ``L`` (a wide reduction).

    Used for Fiat-Shamir challenges, where zero is as good as any value.
    """
    digest = hashlib.sha512(frame(label, *parts)).digest()
    return Scalar(int.from_bytes(digest, "little") % L)


def hash_to_nonzero_scalar(label: str, *parts: bytes | int) -> Scalar:
    """Like ``hash_to_scalar`` but never zero: secrets, nonces, re-randomisers.

    On a zero (probability 2^-252) a counter byte string is appended and the
    hash retried, so the derivation stays total and deterministic.
    """
    counter = 0
    while True:
        scalar = hash_to_scalar(label, *parts, *([counter] if counter else []))
        if scalar.value:
            return scalar
        counter += 1  # pragma: no cover - needs a SHA-512 preimage


def point_from_hash(label: str, *parts: bytes | int) -> Point:
    """Hash to the prime-order group: libsodium's Elligator 2 map.

    ``crypto_core_ed25519_from_uniform`` of SHA-256 of the framed input; the
    map clears the cofactor, so the result lies in the prime-order subgroup.
    """
    digest = hashlib.sha256(frame(label, *parts)).digest()
    return Point(_na.crypto_core_ed25519_from_uniform(digest))


def sum_points(points: list[Point]) -> Point:
    """The sum of a list of points (the identity for an empty list)."""
    total = IDENTITY
    for point in points:
        total = total + point
    return total
