"""The private channel: a message only its recipient can read.

Used for a decryption share meant for one player (docs/protocol/wire.md §6).
The ciphertext is still logged, so a relay learns nothing and an audit sees
that it was sent.

Construction (all from ``cryptography``):

- Each peer has a *channel key*, an X25519 key made from a 32-byte seed given
  by the caller. Its public half travels in the peer's signed lobby entry, so
  the channel key is bound to the peer's Ed25519 identity by that signature.
- Sender and recipient share ``X25519(sender, recipient)`` (static-static).
  HKDF-SHA256 turns it into two keys, with both identities and both channel
  keys in ``info``: a ciphertext copied into another peer's entry, or sent
  to another recipient, does not open.
- Nonces are *synthetic* (SIV, after Rogaway and Shrimpton's deterministic
  authenticated encryption): ``nonce = HMAC-SHA256(k_nonce, context ||
  plaintext)[:12]``, then ChaCha20-Poly1305 under ``k_enc`` with ``context``
  as associated data. There is no randomness here at all, and reusing a nonce
  needs the same context and plaintext, which only reveals that the same
  message was sent twice. Callers make ``context`` unique per message anyway
  (table id, author, author counter), so nothing repeats in practice.
- No forward secrecy: channel keys live for one game and the shell draws fresh
  seeds for every game.

Sans-IO: no randomness or I/O is used here.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from uno_p2p.errors import CryptoError

CHANNEL_KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
#: Domain labels (docs/protocol/wire.md §6).
KDF_LABEL = b"uno-lan/v1/channel\x00"


@dataclass(frozen=True, slots=True)
class ChannelKey:
    """A peer's X25519 channel key, made from a 32-byte secret seed.

    Raises (on construction):
        CryptoError: if the seed is not 32 bytes.
    """

    seed: bytes = field(repr=False)
    _private: X25519PrivateKey = field(init=False, repr=False, compare=False)
    public: bytes = field(init=False)

    def __post_init__(self) -> None:
        if type(self.seed) is not bytes or len(self.seed) != CHANNEL_KEY_BYTES:
            raise CryptoError("a channel key seed must be 32 bytes", item="seed", code="bad_seed")
        private = X25519PrivateKey.from_private_bytes(self.seed)
        object.__setattr__(self, "_private", private)
        public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        object.__setattr__(self, "public", public)

    def shared_secret(self, other_public: bytes, *, peer: str | None = None) -> bytes:
        """X25519 with ``other_public``.

        Raises:
            CryptoError: code ``bad_channel_key`` if the other key is malformed
                or of small order (the shared secret would be all zeros).
        """
        if type(other_public) is not bytes or len(other_public) != CHANNEL_KEY_BYTES:
            raise CryptoError(
                "a channel key must be 32 bytes", peer=peer, item="channel key",
                code="bad_channel_key",
            )
        try:
            return self._private.exchange(X25519PublicKey.from_public_bytes(other_public))
        except ValueError as error:
            raise CryptoError(
                "the channel key is a weak (small-order) point", peer=peer,
                item="channel key", code="bad_channel_key",
            ) from error


#: A fixed seed whose key checks a peer's channel key on arrival (wire.md §6).
_PROBE = ChannelKey(hashlib.sha256(b"uno-lan/v1/channel-probe").digest())


def check_channel_key(public: bytes, *, peer: str | None = None) -> None:
    """Refuse a channel key nobody could seal to: not 32 bytes, or a small-order
    point (X25519 with any clamped scalar gives all zeros). Checked when the key
    arrives in the lobby, so a later seal to it can never fail (wire.md §6).

    Raises:
        CryptoError: code ``bad_channel_key``.
    """
    _PROBE.shared_secret(public, peer=peer)


@dataclass(frozen=True, slots=True)
class Party:
    """One end of a private channel: Ed25519 identity key and X25519 channel key."""

    identity: bytes
    channel: bytes


def _keys(mine: ChannelKey, sender: Party, recipient: Party, other: bytes) -> tuple[bytes, bytes]:
    """Derive (encryption key, nonce key) for the ordered pair sender -> recipient."""
    secret = mine.shared_secret(other)
    info = KDF_LABEL + sender.identity + sender.channel + recipient.identity + recipient.channel
    okm = HKDF(algorithm=hashes.SHA256(), length=64, salt=None, info=info).derive(secret)
    return okm[:32], okm[32:]


def _synthetic_nonce(nonce_key: bytes, context: bytes, plaintext: bytes) -> bytes:
    framed = len(context).to_bytes(4, "big") + context + plaintext
    return hmac.new(nonce_key, framed, hashlib.sha256).digest()[:NONCE_BYTES]


def seal(
    key: ChannelKey, sender: Party, recipient: Party, context: bytes, plaintext: bytes
) -> tuple[bytes, bytes]:
    """Encrypt ``plaintext`` from ``sender`` (whose channel key is ``key``) to ``recipient``.

    ``context`` must identify the message (wire.md §6 uses table id, author
    and author counter); it is authenticated, not sent.

    Returns:
        ``(nonce, ciphertext)``; the ciphertext carries the 16-byte tag.

    Raises:
        CryptoError: ``key`` is not the sender's channel key, or the
            recipient's channel key is malformed or weak.
    """
    if key.public != sender.channel:
        raise CryptoError("sealing with a key that is not the sender's", code="wrong_channel_key")
    enc_key, nonce_key = _keys(key, sender, recipient, recipient.channel)
    nonce = _synthetic_nonce(nonce_key, context, plaintext)
    return nonce, ChaCha20Poly1305(enc_key).encrypt(nonce, plaintext, context)


def open_sealed(
    key: ChannelKey,
    sender: Party,
    recipient: Party,
    context: bytes,
    nonce: bytes,
    ciphertext: bytes,
) -> bytes:
    """Decrypt a message sealed by ``sender`` to ``recipient`` (whose channel key is ``key``).

    Raises:
        CryptoError: code ``sealed_tampered`` if it was not sealed by this
            sender to this recipient under this context, or was altered;
            ``wrong_channel_key`` if ``key`` is not the recipient's.
    """
    if key.public != recipient.channel:
        raise CryptoError(
            "opening with a key that is not the recipient's", code="wrong_channel_key"
        )
    if len(nonce) != NONCE_BYTES or len(ciphertext) < TAG_BYTES:
        raise CryptoError("a sealed message is malformed", item="sealed", code="sealed_tampered")
    enc_key, nonce_key = _keys(key, sender, recipient, sender.channel)
    try:
        plaintext = ChaCha20Poly1305(enc_key).decrypt(nonce, ciphertext, context)
    except InvalidTag as error:
        raise CryptoError(
            "a sealed message does not open: altered, or not for us", item="sealed",
            code="sealed_tampered",
        ) from error
    if not hmac.compare_digest(nonce, _synthetic_nonce(nonce_key, context, plaintext)):
        raise CryptoError(
            "a sealed message has a forged nonce", item="sealed", code="sealed_tampered"
        )
    return plaintext
