"""Peer identities: Ed25519 keys, signatures and fingerprints.

A peer is known at the table by its Ed25519 public key (docs/protocol.md,
"Conventions"); every log entry is signed with it (docs/protocol/wire.md §3).
This module is part of the sans-IO core: the 32-byte secret seed comes in as an
argument (the shell draws it with ``secrets``), so tests and vectors are
reproducible from fixed seeds.

Signing and verifying go through libsodium (PyNaCl), whose verifier rejects
non-canonical signatures and small-order public keys; we additionally refuse a
public key that is not a valid, prime-order-subgroup point when it is decoded,
so a peer cannot pick a "weak" key that verifies many messages.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache

import nacl.bindings
import nacl.exceptions

from uno_p2p.crypto.context import VerifiedStatements
from uno_p2p.crypto.group import hash_bytes
from uno_p2p.errors import CryptoError, InvalidMessage

#: Sizes fixed by RFC 8032.
PUBLIC_KEY_BYTES = 32
SEED_BYTES = 32
SIGNATURE_BYTES = 64

#: Domain label of a key fingerprint (docs/protocol/wire.md §2).
FINGERPRINT_LABEL = b"uno-lan/v1/fingerprint\x00"


#: This process's memo of signatures that verified, or that it made.
VERIFIED_SIGNATURES = VerifiedStatements(size=4096)
"""An Ed25519 check costs some 50 µs, and a sequencer made four of them on the
path of every move: the author's signature as the message came in, again before
placing it, again as it logged the entry, and its own countersignature on that
entry. Whether a signature verifies is a function of the key, the signed bytes
and the signature alone, so a digest of the three is the memo's key; only
signatures that verified are kept, and those this process made itself (valid by
construction, RFC 8032 §5.1.6-7)."""


def _signature_key(key: bytes, signature: bytes, message: bytes) -> bytes:
    return hash_bytes("signature/verified", key, signature, message)


@lru_cache(maxsize=4096)
def _is_valid_point(key: bytes) -> bool:
    """Whether ``key`` encodes a canonical Ed25519 point of prime order.

    Cached: the same few keys are decoded once per entry of a game.
    """
    return bool(nacl.bindings.crypto_core_ed25519_is_valid_point(key))


@dataclass(frozen=True, slots=True)
class PeerId:
    """A peer's public identity: its Ed25519 public key.

    Raises (on construction):
        InvalidMessage: if ``key`` is not 32 bytes encoding a valid point.
    """

    key: bytes

    def __post_init__(self) -> None:
        if type(self.key) is not bytes or len(self.key) != PUBLIC_KEY_BYTES:
            raise InvalidMessage("a peer identity must be a 32-byte Ed25519 public key")
        if not _is_valid_point(self.key):
            raise InvalidMessage("a peer identity is not a valid Ed25519 public key")

    @property
    def fingerprint(self) -> str:
        """Short, human-comparable form of the key: ``1a2b-3c4d-5e6f-7a8b``.

        Domain-separated SHA-256 of the key, first 8 bytes, in 4-hex groups:
        enough for people to compare at a table, not a security boundary (the
        full key is what is signed and checked).
        """
        digest = hashlib.sha256(FINGERPRINT_LABEL + self.key).hexdigest()[:16]
        return "-".join(digest[i : i + 4] for i in range(0, 16, 4))

    def verify(self, message: bytes, signature: bytes, *, item: str = "signature") -> None:
        """Check ``signature`` by this peer over ``message``.

        Raises:
            CryptoError: code ``bad_signature`` naming this peer and ``item``.
        """
        if type(signature) is not bytes or len(signature) != SIGNATURE_BYTES:
            raise CryptoError(
                "a signature must be 64 bytes", peer=self.fingerprint, item=item,
                code="bad_signature",
            )
        memo_key = _signature_key(self.key, signature, message)
        if memo_key in VERIFIED_SIGNATURES:
            return
        try:
            nacl.bindings.crypto_sign_open(signature + message, self.key)
        except (nacl.exceptions.BadSignatureError, ValueError) as error:
            raise CryptoError(
                f"the {item} by {self.fingerprint} does not verify", peer=self.fingerprint,
                item=item, code="bad_signature",
            ) from error
        VERIFIED_SIGNATURES.add(memo_key)

    def to_wire(self) -> bytes:
        return self.key

    @classmethod
    def from_wire(cls, value: object) -> PeerId:
        """Decode a key received from a peer.

        Raises:
            InvalidMessage: not 32 bytes, or not a valid Ed25519 point.
        """
        if type(value) is not bytes:
            raise InvalidMessage("a peer identity must be a bin of 32 bytes")
        return cls(value)

    def __str__(self) -> str:
        return self.fingerprint


@dataclass(frozen=True, slots=True)
class Identity:
    """A peer's own signing key, made from a 32-byte secret seed.

    The seed is kept out of ``repr`` so that it never lands in a log line.

    Raises (on construction):
        CryptoError: if the seed is not 32 bytes.
    """

    seed: bytes = field(repr=False)
    _secret: bytes = field(init=False, repr=False, compare=False)
    peer: PeerId = field(init=False)

    def __post_init__(self) -> None:
        if type(self.seed) is not bytes or len(self.seed) != SEED_BYTES:
            raise CryptoError("an identity seed must be 32 bytes", item="seed", code="bad_seed")
        public, secret = nacl.bindings.crypto_sign_seed_keypair(self.seed)
        object.__setattr__(self, "_secret", secret)
        object.__setattr__(self, "peer", PeerId(public))

    def sign(self, message: bytes) -> bytes:
        """Sign ``message`` (callers pass a domain-separated digest, wire.md §3)."""
        signed: bytes = nacl.bindings.crypto_sign(message, self._secret)
        signature = signed[:SIGNATURE_BYTES]
        VERIFIED_SIGNATURES.add(_signature_key(self.peer.key, signature, message))
        return signature
