"""The cryptographic layer: pure, no I/O, no clock, no randomness of its own.

The mental-poker deck (docs/protocol/deck.md), one module per concern:

- ``group``: edwards25519 points and scalars through libsodium, the checked
  doors for peer bytes, domain-separated hashing.
- ``context``: ``ProofContext`` (what every proof is bound to) and the
  ``Verified[T]`` seal.
- ``proofs``: Schnorr and Chaum-Pedersen (DLEQ) proofs.
- ``keys``: a peer's secrets from its seed, key announcements with seed
  commitments, the joint key, the secrets' reveal.
- ``cards``: card points and the lookup back to card ids.
- ``shuffle``: ElGamal ciphertexts and the committed shuffle.
- ``shuffle_proof``: the zero-knowledge proof of shuffle (Terelius-Wikström).
- ``shares``: decryption shares with their proofs.
- ``deck``: one peer's view of one deck (what the table keeps).
- ``audit``: the re-execution of a seat's shuffles at its reveal, and of every
  shuffle at the end of the game.

``identity`` and ``channel`` (signatures and the private channel) belong to
the wire format (docs/protocol/wire.md).
"""

from __future__ import annotations

from uno_p2p.crypto.audit import (
    DeckRecord,
    DeckResult,
    MissingReveal,
    ShuffleCheatDetected,
    verify_deck,
    verify_game,
)
from uno_p2p.crypto.cards import CARD_COUNT, UnknownCard, card_of, card_point
from uno_p2p.crypto.context import (
    PURPOSE_DEAL,
    PURPOSE_KEY,
    PURPOSE_OPEN,
    PURPOSE_PRIVATE,
    ProofContext,
    Verified,
)
from uno_p2p.crypto.deck import ClaimMismatch, Deck, DuplicateCard
from uno_p2p.crypto.group import InvalidPoint, InvalidScalar, Point, Scalar
from uno_p2p.crypto.keys import (
    CommitmentMismatch,
    KeyAnnouncement,
    KeyMismatch,
    PeerSecrets,
    SecretsReveal,
    joint_key,
    peer_label,
    verify_key_announcement,
    verify_secrets_reveal,
)
from uno_p2p.crypto.proofs import Proof
from uno_p2p.crypto.shares import (
    DecryptionShare,
    ShareRejected,
    make_share,
    open_card,
    share_from_key,
    verify_share,
)
from uno_p2p.crypto.shuffle import (
    Ciphertext,
    ShuffleMessage,
    ShuffleRejected,
    initial_deck,
    make_shuffle,
    shuffle_context,
    verify_shuffle_message,
)
from uno_p2p.crypto.shuffle_proof import (
    ShuffleProof,
    make_proven_shuffle,
    prove_shuffle,
    verify_proven_shuffle,
    verify_shuffle_proof,
)

__all__ = [
    "CARD_COUNT",
    "PURPOSE_DEAL",
    "PURPOSE_KEY",
    "PURPOSE_OPEN",
    "PURPOSE_PRIVATE",
    "Ciphertext",
    "ClaimMismatch",
    "CommitmentMismatch",
    "Deck",
    "DeckRecord",
    "DeckResult",
    "DecryptionShare",
    "DuplicateCard",
    "InvalidPoint",
    "InvalidScalar",
    "KeyAnnouncement",
    "KeyMismatch",
    "MissingReveal",
    "PeerSecrets",
    "Point",
    "Proof",
    "ProofContext",
    "Scalar",
    "SecretsReveal",
    "ShareRejected",
    "ShuffleCheatDetected",
    "ShuffleMessage",
    "ShuffleProof",
    "ShuffleRejected",
    "UnknownCard",
    "Verified",
    "card_of",
    "card_point",
    "initial_deck",
    "joint_key",
    "make_proven_shuffle",
    "make_share",
    "make_shuffle",
    "open_card",
    "peer_label",
    "prove_shuffle",
    "share_from_key",
    "shuffle_context",
    "verify_deck",
    "verify_game",
    "verify_key_announcement",
    "verify_proven_shuffle",
    "verify_secrets_reveal",
    "verify_share",
    "verify_shuffle_message",
    "verify_shuffle_proof",
]
