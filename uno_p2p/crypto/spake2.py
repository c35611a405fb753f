"""SPAKE2 over edwards25519: a join code turned into a shared key, one guess per try.

docs/protocol/net.md §4. A private table has a short join code. Deriving the
link key from the code alone would let anyone who records one handshake try
every code offline; SPAKE2 (Abdalla and Pointcheval, 2005; RFC 9382) gives an
eavesdropper nothing to test guesses against, and an active attacker exactly
one guess per handshake.

Construction (all group operations are libsodium's, through ``crypto.group``):

- ``w = SHA-512(frame("uno-lan/net/v1/spake2/w", code)) mod L`` where ``code``
  is the UTF-8 of the code with surrounding white space removed;
- ``M`` and ``N`` are ``from_uniform(SHA-256(seed))`` (Elligator 2, cofactor
  cleared) of the ASCII seeds ``uno-lan/net/v1/spake2/M`` and ``.../N``: nobody
  knows their discrete logarithms;
- the joiner (side A) sends ``X = x·G + w·M``, the host (side B) ``Y = y·G + w·N``;
- A computes ``K = x·(Y - w·N)``, B computes ``K = y·(X - w·M)``; both equal ``xy·G``;
- the key is ``SHA-256(frame("uno-lan/net/v1/spake2/key", X, Y, K, w))``.

Sans-IO: the secret scalars come from bytes the caller drew.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from nacl import bindings as _na

from uno_p2p.crypto.group import IDENTITY, L, Point, Scalar, base_mul
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError

LABEL = "uno-lan/net/v1/spake2/"
#: Largest join code accepted, in UTF-8 bytes.
MAX_CODE_BYTES = 64
SECRET_BYTES = 32


def _frame(label: str, *parts: bytes) -> bytes:
    """``u32be(len) || data`` for the label then each part (as deck.md §1.2)."""
    chunks = [(LABEL + label).encode("ascii"), *parts]
    return b"".join(len(c).to_bytes(4, "big") + c for c in chunks)


def _generator(name: str) -> Point:
    seed = hashlib.sha256((LABEL + name).encode("ascii")).digest()
    return Point(_na.crypto_core_ed25519_from_uniform(seed))


#: The two fixed points of the protocol, from public seeds (net.md §4).
M = _generator("M")
N = _generator("N")


def code_scalar(code: str) -> Scalar:
    """The password scalar ``w`` of a join code.

    Raises:
        LocalProtocolError: an empty code, or one over 64 bytes.
    """
    data = code.strip().encode("utf-8")
    if not 0 < len(data) <= MAX_CODE_BYTES:
        raise LocalProtocolError(f"a join code has 1 to {MAX_CODE_BYTES} bytes")
    digest = hashlib.sha512(_frame("w", data)).digest()
    return Scalar(int.from_bytes(digest, "little") % L)


@dataclass(frozen=True, slots=True)
class Spake2:
    """One side of one SPAKE2 exchange: ``message`` to send, ``finish`` with the other's.

    ``side`` is ``"A"`` (the joiner) or ``"B"`` (the host).

    Raises (on construction):
        LocalProtocolError: a bad side, code, or secret.
    """

    side: str
    code: str = field(repr=False)
    secret: bytes = field(repr=False)
    _x: Scalar = field(init=False, repr=False)
    _w: Scalar = field(init=False, repr=False)
    message: bytes = field(init=False)

    def __post_init__(self) -> None:
        if self.side not in ("A", "B") or len(self.secret) < SECRET_BYTES:
            raise LocalProtocolError("SPAKE2 needs side A or B and 32 secret bytes")
        digest = hashlib.sha512(_frame("x", self.secret)).digest()
        x = Scalar(int.from_bytes(digest, "little") % L or 1)
        w = code_scalar(self.code)
        blind = M if self.side == "A" else N
        object.__setattr__(self, "_x", x)
        object.__setattr__(self, "_w", w)
        object.__setattr__(self, "message", (base_mul(x) + blind * w).to_wire())

    def finish(self, other: bytes) -> bytes:
        """The shared key, from the other side's message.

        Raises:
            CryptoError: code ``bad_pake`` when the message is not a point of
                the prime-order group, or the exchange lands on the identity.
        """
        try:
            theirs = Point.from_wire(other, peer=None, item="SPAKE2 message")
        except (InvalidMessage, CryptoError) as error:
            raise CryptoError("the SPAKE2 message is not a group element",
                              item="SPAKE2 message", code="bad_pake") from error
        unblind = N if self.side == "A" else M
        shared = (theirs - unblind * self._w) * self._x
        if shared == IDENTITY:
            raise CryptoError("the SPAKE2 exchange is degenerate", code="bad_pake")
        x_msg, y_msg = (self.message, other) if self.side == "A" else (other, self.message)
        return hashlib.sha256(_frame("key", x_msg, y_msg, shared.to_wire(),
                                     self._w.to_wire())).digest()
