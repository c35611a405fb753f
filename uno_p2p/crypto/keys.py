"""Key shares, the joint key, seed commitments and the secrets' reveal.

docs/protocol/deck.md §4. Each peer derives from one caller-supplied 32-byte
seed its key share ``x_i`` and its shuffle master seed ``m_i``. It announces
``h_i = x_i·G``, a hash commitment to ``m_i`` and a Schnorr proof of knowledge
of ``x_i`` that also binds the commitment (no rogue keys: a peer cannot pick
``h_i`` as a function of the others' keys without knowing its log). The
joint key is ``H = Σ h_i``; nobody knows its secret.

At the end of the game (or on leaving) a peer reveals ``x_i`` and ``m_i``;
anyone checks ``x_i·G = h_i`` and the commitment, then re-executes that
peer's shuffles (``uno_p2p.crypto.audit``).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from uno_p2p.crypto.context import PURPOSE_KEY, SEAL, ProofContext, Verified
from uno_p2p.crypto.group import (
    Point,
    Scalar,
    base_mul,
    hash_bytes,
    hash_to_nonzero_scalar,
    sum_points,
)
from uno_p2p.crypto.proofs import Proof, prove_knowledge, verify_knowledge
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError

SEED_BYTES = 32
COMMITMENT_BYTES = 32


class KeyMismatch(CryptoError):
    """A revealed key share does not match the public key it was announced with."""

    code = "key_mismatch"


class CommitmentMismatch(CryptoError):
    """A revealed shuffle seed does not match its commitment."""

    code = "commitment_mismatch"


def peer_label(peer: bytes) -> str:
    """How errors name a peer: the hex of its id (the table maps it to a name)."""
    return peer.hex()


def key_context(table: bytes, peer: bytes) -> ProofContext:
    """The context of a key announcement: once per game, no round or deck."""
    return ProofContext(table, 0, 0, PURPOSE_KEY, peer)


def seed_commitment(table: bytes, peer: bytes, shuffle_master: bytes) -> bytes:
    """The hash commitment to a peer's shuffle master seed (§4.2)."""
    return hash_bytes("shuffle-commit", table, peer, shuffle_master)


@dataclass(frozen=True, slots=True)
class PeerSecrets:
    """One peer's secrets for one game. Never sent, except by ``reveal``."""

    table: bytes
    peer: bytes
    key_share: Scalar
    shuffle_master: bytes

    @classmethod
    def from_seed(cls, seed: bytes, *, table: bytes, peer: bytes) -> PeerSecrets:
        """Derive the key share and the shuffle master from a 32-byte seed (§4.1).

        Raises:
            LocalProtocolError: the seed is not 32 bytes.
        """
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise LocalProtocolError("a peer seed must be 32 bytes from a secure source")
        key_share = hash_to_nonzero_scalar("key-share", table, peer, seed)
        shuffle_master = hash_bytes("shuffle-master", table, peer, seed)
        return cls(table, peer, key_share, shuffle_master)

    @property
    def public_key(self) -> Point:
        """``h_i = x_i·G``."""
        return base_mul(self.key_share)

    def announce(self) -> KeyAnnouncement:
        """The public key, the seed commitment and the proof binding both."""
        commitment = seed_commitment(self.table, self.peer, self.shuffle_master)
        proof = prove_knowledge(
            self.key_share, key_context(self.table, self.peer), extra=commitment
        )
        return KeyAnnouncement(self.public_key, commitment, proof)

    def reveal(self) -> SecretsReveal:
        """The end-of-game (or leaving) reveal of both secrets."""
        return SecretsReveal(self.key_share, self.shuffle_master)

    def __repr__(self) -> str:
        return f"PeerSecrets(peer={self.peer.hex()[:16]}..., <secret>)"


@dataclass(frozen=True, slots=True)
class KeyAnnouncement:
    """``[h_i, commitment, e || z]`` on the wire."""

    public_key: Point
    commitment: bytes
    proof: Proof

    @classmethod
    def from_wire(cls, raw: object, *, peer: str | None) -> KeyAnnouncement:
        """Decode and check the shapes and the point.

        Raises:
            InvalidMessage: wrong shape or lengths.
            InvalidPoint / InvalidScalar: a bad point or scalar.
        """
        item = "key announcement"
        if not isinstance(raw, list | tuple) or len(raw) != 3:
            raise InvalidMessage(f"{item}: expected [public_key, commitment, proof]")
        public_key = Point.from_wire(raw[0], peer=peer, item=f"{item} public key")
        if not isinstance(raw[1], bytes) or len(raw[1]) != COMMITMENT_BYTES:
            raise InvalidMessage(f"{item}: the seed commitment must be 32 bytes")
        return cls(public_key, raw[1], Proof.from_wire(raw[2], peer=peer, item=f"{item} proof"))

    def to_wire(self) -> list[object]:
        """``[h_i, commitment, e || z]``."""
        return [self.public_key.to_wire(), self.commitment, self.proof.to_wire()]


def verify_key_announcement(
    announcement: KeyAnnouncement, *, table: bytes, peer: bytes
) -> Verified[KeyAnnouncement]:
    """Check the proof of knowledge (which also binds the commitment).

    Raises:
        ProofRejected: no valid proof of knowledge of the key for this table
            and peer (a rogue or replayed key).
    """
    context = key_context(table, peer)
    verify_knowledge(
        announcement.proof, announcement.public_key, context,
        peer=peer_label(peer), item="key announcement", extra=announcement.commitment,
    )
    return Verified(announcement, context, SEAL)


def joint_key(keys: list[Verified[KeyAnnouncement]]) -> Point:
    """``H = Σ h_i`` over verified announcements only.

    Raises:
        LocalProtocolError: no keys, or one peer twice.
    """
    peers = [key.context.peer for key in keys]
    if not keys or len(set(peers)) != len(peers):
        raise LocalProtocolError("the joint key needs one verified key per peer")
    return sum_points([key.value.public_key for key in keys])


@dataclass(frozen=True, slots=True)
class SecretsReveal:
    """``[x_i, m_i]``: published on leaving or at the end of the game (§4.3)."""

    key_share: Scalar
    shuffle_master: bytes

    @classmethod
    def from_wire(cls, raw: object, *, peer: str | None) -> SecretsReveal:
        """Decode ``[x_i, m_i]``.

        Raises:
            InvalidMessage: wrong shape or lengths.
            InvalidScalar: a non-canonical key share.
        """
        item = "secrets reveal"
        if not isinstance(raw, list | tuple) or len(raw) != 2:
            raise InvalidMessage(f"{item}: expected [key_share, shuffle_seed]")
        key_share = Scalar.from_wire(raw[0], peer=peer, item=f"{item} key share")
        if not isinstance(raw[1], bytes) or len(raw[1]) != SEED_BYTES:
            raise InvalidMessage(f"{item}: the shuffle seed must be 32 bytes")
        return cls(key_share, raw[1])

    def to_wire(self) -> list[bytes]:
        """``[x_i, m_i]``."""
        return [self.key_share.to_wire(), self.shuffle_master]


def verify_secrets_reveal(
    reveal: SecretsReveal, key: Verified[KeyAnnouncement]
) -> Verified[SecretsReveal]:
    """Check a revealed key share against ``h_i`` and the seed against its commitment.

    Raises:
        KeyMismatch: ``x_i·G != h_i``.
        CommitmentMismatch: the seed does not open the commitment.
    """
    table, peer = key.context.table, key.context.peer
    if base_mul(reveal.key_share) != key.value.public_key:
        raise KeyMismatch(
            "the revealed key share does not match the announced public key",
            peer=peer_label(peer), item="secrets reveal key share",
        )
    expected = seed_commitment(table, peer, reveal.shuffle_master)
    if not hmac.compare_digest(expected, key.value.commitment):
        raise CommitmentMismatch(
            "the revealed shuffle seed does not match the commitment made before the shuffle",
            peer=peer_label(peer), item="secrets reveal shuffle seed",
        )
    return Verified(reveal, key.context, SEAL)
