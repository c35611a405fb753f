"""Decryption shares: ``D_i = x_i·c1`` with a Chaum-Pedersen proof.

docs/protocol/deck.md §7. To open the card at a deck position every seat's
share of its ``c1`` is needed: ``M = c2 - Σ D_i``. A share names its position
and carries a DLEQ proof that ``log_G(h_i) = log_{c1}(D_i)`` under a context
binding table, round, deck, purpose, prover, position and recipient; a share
for another position or replayed from another context fails at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from uno_p2p.crypto.cards import card_of
from uno_p2p.crypto.context import SEAL, ProofContext, Verified, VerifiedStatements
from uno_p2p.crypto.group import Point, Scalar, hash_bytes, sum_points
from uno_p2p.crypto.keys import KeyAnnouncement, PeerSecrets, peer_label
from uno_p2p.crypto.proofs import Proof, prove_dleq, verify_dleq
from uno_p2p.crypto.shuffle import Ciphertext
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError

MAX_POSITION = 2**32 - 1


class ShareRejected(CryptoError):
    """A decryption share is for another position than the one expected."""

    code = "share_rejected"


@dataclass(frozen=True, slots=True)
class DecryptionShare:
    """``[position, D_i, e || z]`` on the wire."""

    position: int
    share: Point
    proof: Proof

    @classmethod
    def from_wire(cls, raw: object, *, peer: str | None) -> DecryptionShare:
        """Decode a share, checking its point.

        Raises:
            InvalidMessage: wrong shape, or a position that is no u32.
            InvalidPoint / InvalidScalar: a bad point or proof scalar.
        """
        if not isinstance(raw, list | tuple) or len(raw) != 3:
            raise InvalidMessage("decryption share: expected [position, share, proof]")
        position = raw[0]
        if not isinstance(position, int) or isinstance(position, bool) or not (
            0 <= position <= MAX_POSITION
        ):
            raise InvalidMessage("decryption share: the position must be a u32")
        item = f"decryption share for position {position}"
        return cls(
            position,
            Point.from_wire(raw[1], peer=peer, item=item),
            Proof.from_wire(raw[2], peer=peer, item=f"{item} proof"),
        )

    def to_wire(self) -> list[object]:
        """``[position, D_i, e || z]``."""
        return [self.position, self.share.to_wire(), self.proof.to_wire()]


def make_share(
    secrets: PeerSecrets, ciphertext: Ciphertext, context: ProofContext, *, aux: bytes = b""
) -> DecryptionShare:
    """This peer's share of ``ciphertext`` at ``context.position``, with its proof.

    Raises:
        LocalProtocolError: the context has no position or is not this peer's.
    """
    if context.position is None or context.peer != secrets.peer:
        raise LocalProtocolError("a share's context names this peer and a position")
    share, proof = prove_dleq(secrets.key_share, ciphertext.c1, context, aux=aux)
    return DecryptionShare(context.position, share, proof)


def verify_share(
    share: DecryptionShare, *, ciphertext: Ciphertext, key: Verified[KeyAnnouncement],
    context: ProofContext,
) -> Verified[DecryptionShare]:
    """Check a share against the position's ciphertext and the prover's key.

    Raises:
        ShareRejected: the share names another position than ``context``'s.
        ProofRejected: the DLEQ proof fails (wrong share, wrong key, or a proof
            made for another context: a replay).
    """
    peer = peer_label(context.peer)
    item = f"decryption share for position {context.position}"
    if share.position != context.position:
        raise ShareRejected(
            f"a share for position {share.position} was sent where position "
            f"{context.position} was expected", peer=peer, item=item,
        )
    if key.context.peer != context.peer:
        raise LocalProtocolError("verify_share: the key is not the prover's")
    memo_key = _share_key(share.share.data, share.proof.to_wire(),
                          key.value.public_key.data, ciphertext.c1.data, context)
    if memo_key in VERIFIED_SHARES:
        return Verified(share, context, SEAL)
    verify_dleq(
        share.proof, key.value.public_key, ciphertext.c1, share.share, context,
        peer=peer, item=item,
    )
    return Verified(share, context, SEAL)


#: Share proofs a shell checked ahead, off its event loop (``ShareStatement``).
#: Unlike the proofs of shuffle, a share checked inline is not recorded: one
#: costs ~0.4 ms, so the in-memory table and its benchmarks go on measuring
#: every peer's own checks; only a batch checked ahead is worth remembering.
VERIFIED_SHARES = VerifiedStatements(size=4096)


def _share_key(share: bytes, proof: bytes, public: bytes, c1: bytes,
               context: ProofContext) -> bytes:
    return hash_bytes("share/verified", *context.encode(), share, proof, public, c1)


@dataclass(frozen=True, slots=True)
class ShareStatement:
    """One share's DLEQ proof to check elsewhere (as ``shuffle_proof.ShuffleStatement``).

    ``public`` (the prover's announced key) and ``c1`` (the slot's ciphertext)
    come from the checker's accepted state and are bound into the key; the
    share and its proof are the peer's bytes, checked in full.
    """

    share: bytes
    proof: bytes
    public: bytes
    c1: bytes
    context: ProofContext

    memo: ClassVar[VerifiedStatements] = VERIFIED_SHARES

    def key(self) -> bytes:
        """Its memo key, as ``verify_share`` computes it."""
        return _share_key(self.share, self.proof, self.public, self.c1, self.context)

    def check(self) -> bytes | None:
        """Verify the proof (no memo touched: any thread or process); the key or None."""
        try:
            share = Point.from_wire(self.share, peer=None, item="share")
            proof = Proof.from_wire(self.proof, peer=None, item="share proof")
            verify_dleq(proof, Point(self.public), Point(self.c1), share, self.context,
                        peer=None, item="share")
        except (CryptoError, InvalidMessage, ValueError, RuntimeError, TypeError):
            return None
        return self.key()


def share_from_key(key_share: Scalar, ciphertext: Ciphertext) -> Point:
    """``x·c1``: one's own share, or a leaver's from its released key (no proof needed)."""
    return ciphertext.c1 * key_share


def open_card(
    ciphertext: Ciphertext, shares: Sequence[Point], *, peer: str | None = None,
    item: str = "card",
) -> int:
    """The card under ``ciphertext``, given every seat's share: ``c2 - Σ D_i``.

    Pass only verified shares (or ones computed from a known key).

    Raises:
        UnknownCard: the point is no card (a bad deck, or a share missing).
    """
    return card_of(ciphertext.c2 - sum_points(list(shares)), peer=peer, item=item)
