"""The private envelope: a body sealed to one recipient, logged as ciphertext.

docs/protocol/wire.md §6. A decryption share meant for one player travels in
a ``Sealed`` body: the recipient's identity, the nonce and the ciphertext of
the canonical encoding of ``[inner kind, inner body]``. The inner kind is
inside the ciphertext, so a relay does not even learn what was sent. The
ciphertext is bound (as associated data) to the table, the author and the
author's counter, so it cannot be moved to another entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from uno_p2p.crypto.channel import NONCE_BYTES, TAG_BYTES, ChannelKey, Party, open_sealed, seal
from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError, RemoteProtocolError
from uno_p2p.wire import fields
from uno_p2p.wire.codec import WireValue, pack, unpack
from uno_p2p.wire.envelope import Message
from uno_p2p.wire.registry import BODIES, MAX_KIND, Body, Names, Registry

#: Largest sealed ciphertext: a hand reveal of every card with proofs fits.
MAX_SEALED_BYTES = 256 * 1024
PRIVATE_CONTEXT_LABEL = b"uno-lan/v1/private\x00"


@BODIES.kind(16, "sealed")
@dataclass(frozen=True, slots=True)
class Sealed:
    """A body only ``recipient`` can read."""

    recipient: PeerId
    nonce: bytes
    ciphertext: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.recipient, PeerId):
            raise InvalidMessage("a sealed body names its recipient's identity")
        fields.blob(self.nonce, "a nonce", size=NONCE_BYTES)
        fields.blob(self.ciphertext, "a ciphertext", max_size=MAX_SEALED_BYTES)
        if len(self.ciphertext) < TAG_BYTES:
            raise InvalidMessage("a ciphertext is shorter than its tag")

    def to_wire(self) -> list[WireValue]:
        return [self.recipient.to_wire(), self.nonce, self.ciphertext]

    @classmethod
    def from_wire(cls, value: WireValue) -> Sealed:
        """Raises: InvalidMessage: malformed."""
        recipient, nonce, ciphertext = fields.array(value, 3, "sealed")
        return cls(PeerId.from_wire(recipient), fields.blob(nonce, "a nonce", size=NONCE_BYTES),
                   fields.blob(ciphertext, "a ciphertext", max_size=MAX_SEALED_BYTES))

    def describe(self, names: Names) -> str:
        size = len(self.ciphertext)
        return f"sent a private message to {names(self.recipient.key)} ({size} bytes)"


def private_context(table_id: bytes, author: PeerId, counter: int) -> bytes:
    """The associated data binding a sealed body to its message (wire.md §6)."""
    return PRIVATE_CONTEXT_LABEL + table_id + author.key + counter.to_bytes(8, "big")


def seal_body(
    body: Body,
    *,
    key: ChannelKey,
    sender: Party,
    recipient: Party,
    table_id: bytes,
    counter: int,
    registry: Registry = BODIES,
) -> Sealed:
    """Seal ``body`` for ``recipient``, to be sent as the sender's message ``counter``.

    Raises:
        LocalProtocolError: ``body`` is itself sealed, or not a registered kind.
        CryptoError: a key is wrong (see ``uno_p2p.crypto.channel.seal``).
    """
    if isinstance(body, Sealed):
        raise LocalProtocolError("a sealed body cannot be sealed again")
    context = private_context(table_id, PeerId(sender.identity), counter)
    plaintext = pack([registry.number_of(body), body.to_wire()])
    nonce, ciphertext = seal(key, sender, recipient, context, plaintext)
    return Sealed(PeerId(recipient.identity), nonce, ciphertext)


def open_body(
    message: Message,
    *,
    key: ChannelKey,
    sender_channel: bytes,
    recipient: Party,
    registry: Registry = BODIES,
) -> Body:
    """Open the sealed body of ``message``, addressed to ``recipient`` (us).

    ``sender_channel`` is the channel key the author announced in its lobby entry.

    Raises:
        LocalProtocolError: the message is not sealed, or not to ``recipient``.
        CryptoError: code ``sealed_tampered``, naming the author, if it does not open.
        RemoteProtocolError: code ``sealed_malformed`` if it opens to garbage.
    """
    sealed = message.body
    if not isinstance(sealed, Sealed) or sealed.recipient.key != recipient.identity:
        raise LocalProtocolError("this message is not sealed to us")
    author = message.author
    context = private_context(message.table_id, author, message.counter)
    sender = Party(author.key, sender_channel)
    try:
        plaintext = open_sealed(key, sender, recipient, context, sealed.nonce, sealed.ciphertext)
    except CryptoError as error:
        raise CryptoError(str(error), peer=author.fingerprint, item="sealed",
                          code=error.code) from error
    try:
        kind, inner = fields.array(unpack(plaintext), 2, "a sealed body")
        number = fields.integer(kind, "a kind", lo=0, hi=MAX_KIND)
        body = registry.decode(number, inner)
    except InvalidMessage as error:
        raise RemoteProtocolError(f"a sealed body opens to garbage: {error}",
                                  peer=author.fingerprint, code="sealed_malformed") from error
    if isinstance(body, Sealed):
        raise RemoteProtocolError("a sealed body contains another sealed body",
                                  peer=author.fingerprint, code="sealed_malformed")
    return body
