"""Zero-knowledge proofs: Schnorr (knowledge of a key) and Chaum-Pedersen (DLEQ).

docs/protocol/deck.md §3. Both are non-interactive through Fiat-Shamir, with
the challenge binding the full ``ProofContext`` and every public value of the
statement. A proof travels as 64 bytes ``e || z`` (challenge, response; 32
bytes each, little-endian scalars); the verifier recomputes the commitments from them and
checks that they hash back to ``e``.

Nonces are deterministic (RFC 6979 in spirit): hashed from the secret, the
whole statement and the context, plus optional caller bytes. The same secret
never meets two statements with one nonce, and no randomness is needed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from uno_p2p.crypto.context import ProofContext
from uno_p2p.crypto.group import G, Point, Scalar, base_mul, hash_to_nonzero_scalar, hash_to_scalar
from uno_p2p.errors import InvalidMessage, ProofRejected

PROOF_BYTES = 64

_SCHNORR_CHALLENGE = "schnorr/challenge"
_SCHNORR_NONCE = "schnorr/nonce"
_DLEQ_CHALLENGE = "dleq/challenge"
_DLEQ_NONCE = "dleq/nonce"


@dataclass(frozen=True, slots=True)
class Proof:
    """A Fiat-Shamir proof ``(e, z)``: challenge and response."""

    challenge: Scalar
    response: Scalar

    @classmethod
    def from_wire(cls, raw: object, *, peer: str | None, item: str) -> Proof:
        """Decode ``e || z``.

        Raises:
            InvalidMessage: not 64 bytes.
            InvalidScalar: a non-canonical scalar.
        """
        if not isinstance(raw, bytes) or len(raw) != PROOF_BYTES:
            raise InvalidMessage(f"{item}: a proof is {PROOF_BYTES} bytes (challenge, response)")
        return cls(
            Scalar.from_wire(raw[:32], peer=peer, item=f"{item} challenge"),
            Scalar.from_wire(raw[32:], peer=peer, item=f"{item} response"),
        )

    def to_wire(self) -> bytes:
        """``e || z``: two 32-byte little-endian scalars."""
        return self.challenge.to_wire() + self.response.to_wire()


def _schnorr_challenge(
    context: ProofContext, public: Point, extra: bytes, nonce_point: Point
) -> Scalar:
    return hash_to_scalar(
        _SCHNORR_CHALLENGE, *context.encode(), G.data, public.data, extra, nonce_point.data
    )


def prove_knowledge(secret: Scalar, context: ProofContext, *, extra: bytes = b"") -> Proof:
    """Prove knowledge of ``x`` with ``X = x·G`` (Schnorr 1991).

    ``extra`` is bound into the challenge (the key announcement binds its seed
    commitment here, so key and commitment cannot be split).
    """
    public = base_mul(secret)
    nonce = hash_to_nonzero_scalar(
        _SCHNORR_NONCE, secret.to_wire(), *context.encode(), public.data, extra
    )
    challenge = _schnorr_challenge(context, public, extra, base_mul(nonce))
    return Proof(challenge, nonce + challenge * secret)


def verify_knowledge(
    proof: Proof, public: Point, context: ProofContext, *, peer: str | None, item: str,
    extra: bytes = b"",
) -> None:
    """Check a Schnorr proof of knowledge of ``log_G(public)``.

    Raises:
        ProofRejected: the proof does not verify in this context.
    """
    nonce_point = base_mul(proof.response) - public * proof.challenge
    if _schnorr_challenge(context, public, extra, nonce_point) != proof.challenge:
        raise ProofRejected(
            f"{item}: the proof of knowledge of the key does not verify",
            peer=peer, item=item,
        )


def _dleq_challenge(
    context: ProofContext, public: Point, base: Point, share: Point, nonce_g: Point,
    nonce_b: Point,
) -> Scalar:
    return hash_to_scalar(
        _DLEQ_CHALLENGE, *context.encode(), G.data, public.data, base.data, share.data,
        nonce_g.data, nonce_b.data,
    )


def prove_dleq(
    secret: Scalar, base: Point, context: ProofContext, *, aux: bytes = b""
) -> tuple[Point, Proof]:
    """Compute ``D = x·B`` and prove ``log_G(x·G) = log_B(D)`` (Chaum-Pedersen 1992).

    Returns the share ``D`` and its proof. ``aux`` (optional caller bytes) is
    mixed into the deterministic nonce.
    """
    public = base_mul(secret)
    share = base * secret
    nonce = hash_to_nonzero_scalar(
        _DLEQ_NONCE, secret.to_wire(), *context.encode(), base.data, share.data, aux
    )
    challenge = _dleq_challenge(context, public, base, share, base_mul(nonce), base * nonce)
    return share, Proof(challenge, nonce + challenge * secret)


def verify_dleq(
    proof: Proof, public: Point, base: Point, share: Point, context: ProofContext, *,
    peer: str | None, item: str,
) -> None:
    """Check that ``share = x·base`` for the ``x`` behind ``public = x·G``.

    Raises:
        ProofRejected: the proof does not verify for this statement and context.
    """
    nonce_g = base_mul(proof.response) - public * proof.challenge
    nonce_b = base * proof.response - share * proof.challenge
    if _dleq_challenge(context, public, base, share, nonce_g, nonce_b) != proof.challenge:
        raise ProofRejected(
            f"{item}: the decryption share's proof (DLEQ) does not verify",
            peer=peer, item=item,
        )
