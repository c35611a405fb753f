"""The signed envelope: an author's ``Message`` and the sequencer's ``Entry``.

docs/protocol/wire.md §3-§4. Two signatures, each over what its signer knows:

- The author signs a ``Message``: protocol version, table id, its own key, its
  per-author counter (0, 1, 2...), the head it has accepted (``seen`` entries,
  the last of which hashes to ``seen_hash``), the body kind and the body. The
  author cannot know the final sequence number when several peers send
  out-of-turn entries at once, so it does not sign one.
- The sequencer (the host) wraps it in an ``Entry`` at sequence number ``seq``
  after the entry hashing to ``prev_hash`` and countersigns the entry hash,
  which commits to (table id, seq, prev_hash, message hash).

Two messages by one author with one counter and different contents prove the
author equivocated; two countersigned entries at one sequence number prove the
sequencer forked (``uno_p2p.wire.chain``).

Hashes are SHA-256 and signatures Ed25519, each over a digest whose input
starts with its own ``uno-lan/v1/...`` label, so no signed value can be
mistaken for another.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from uno_p2p.crypto.identity import SIGNATURE_BYTES, Identity, PeerId
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError, RemoteProtocolError
from uno_p2p.wire import fields
from uno_p2p.wire.codec import DEFAULT_LIMITS, Limits, WireValue, pack, unpack
from uno_p2p.wire.registry import BODIES, MAX_KIND, Body, Registry

#: The table protocol version a new table speaks (wire.md §3), and every version this
#: program reads: version 1 logs stay auditable (version 2 adds the deck a shuffle
#: names, table.md §4.1).
PROTOCOL_VERSION = 2
PROTOCOL_VERSIONS = (1, 2)
TABLE_ID_BYTES = 16
HASH_BYTES = 32
#: Sequence numbers, counters and heads stay far below this.
MAX_POSITION = (1 << 48) - 1

MESSAGE_DIGEST_LABEL = b"uno-lan/v1/message\x00"
MESSAGE_HASH_LABEL = b"uno-lan/v1/message-hash\x00"
ENTRY_HASH_LABEL = b"uno-lan/v1/entry\x00"
GENESIS_LABEL = b"uno-lan/v1/genesis\x00"


def genesis_hash(table_id: bytes) -> bytes:
    """The ``prev_hash`` of entry 0: bound to the table so two logs never share a start."""
    return hashlib.sha256(GENESIS_LABEL + table_id).digest()


def entry_hash(table_id: bytes, seq: int, prev_hash: bytes, message_hash: bytes) -> bytes:
    """The chain link of one entry; the sequencer signs exactly this (wire.md §4)."""
    position = seq.to_bytes(8, "big")
    link = ENTRY_HASH_LABEL + table_id + position + prev_hash + message_hash
    return hashlib.sha256(link).digest()


@dataclass(frozen=True, slots=True)
class Head:
    """A peer's view of the log: it has accepted ``seen`` entries, the last hashing to ``hash``."""

    seen: int
    hash: bytes

    def __post_init__(self) -> None:
        fields.integer(self.seen, "seen", lo=0, hi=MAX_POSITION)
        fields.blob(self.hash, "a head hash", size=HASH_BYTES)

    @classmethod
    def genesis(cls, table_id: bytes) -> Head:
        """The view of a peer that has accepted nothing yet."""
        return cls(0, genesis_hash(table_id))


T = TypeVar("T")

#: msgpack's header of an array of 9 (``0x90 | 9``): a message's 8 unsigned fields and
#: its signature; the unsigned array's own header is one byte too (``0x98``).
_SIGNED_HEADER = b"\x99"


def _peer_error(error: CryptoError, *, entry: int | None, code: str) -> RemoteProtocolError:
    return RemoteProtocolError(str(error), peer=error.peer, entry=entry, code=code)


@dataclass(frozen=True, slots=True)
class Message:
    """What an author signs. ``kind`` must be the registered number of ``body``'s class."""

    table_id: bytes
    author: PeerId
    counter: int
    head: Head
    kind: int
    body: Body
    signature: bytes
    version: int = PROTOCOL_VERSION
    #: SHA-256 over the label and the unsigned fields: what the author signs.
    digest: bytes = field(init=False, repr=False, compare=False)
    #: SHA-256 over the label and the whole signed message: what an entry commits to.
    hash: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.version not in PROTOCOL_VERSIONS:
            raise InvalidMessage(f"protocol version {self.version} is not supported")
        if not isinstance(self.author, PeerId) or not isinstance(self.head, Head):
            raise InvalidMessage("a message needs an author identity and a head")
        fields.blob(self.table_id, "a table id", size=TABLE_ID_BYTES)
        fields.integer(self.counter, "an author counter", lo=0, hi=MAX_POSITION)
        fields.integer(self.kind, "a kind", lo=0, hi=MAX_KIND)
        fields.blob(self.signature, "a signature", size=SIGNATURE_BYTES)
        # The signed message is the unsigned array with the signature appended: its
        # encoding is the unsigned one under a header one longer, so the body (most of
        # the bytes, and of the codec's checks) is encoded once, not twice.
        unsigned = pack(self._unsigned_wire())
        digest = hashlib.sha256(MESSAGE_DIGEST_LABEL + unsigned).digest()
        object.__setattr__(self, "digest", digest)
        signed = _SIGNED_HEADER + unsigned[1:] + pack(self.signature)
        full = hashlib.sha256(MESSAGE_HASH_LABEL + signed).digest()
        object.__setattr__(self, "hash", full)

    def _unsigned_wire(self) -> list[WireValue]:
        return [self.version, self.table_id, self.author.to_wire(), self.counter,
                self.head.seen, self.head.hash, self.kind, self.body.to_wire()]

    @classmethod
    def sign(
        cls,
        identity: Identity,
        table_id: bytes,
        counter: int,
        head: Head,
        body: Body,
        registry: Registry = BODIES,
        version: int = PROTOCOL_VERSION,
    ) -> Message:
        """Make and sign a message by ``identity`` (``version``: its table's, wire.md §3).

        Raises:
            LocalProtocolError: ``body`` is not a registered kind.
            InvalidMessage: a field is out of range.
        """
        kind = registry.number_of(body)
        blank = cls(table_id, identity.peer, counter, head, kind, body, bytes(SIGNATURE_BYTES),
                    version)
        signature = identity.sign(blank.digest)
        return cls(table_id, identity.peer, counter, head, kind, body, signature, version)

    def verify(self, *, entry: int | None = None) -> None:
        """Check the author's signature.

        Raises:
            RemoteProtocolError: code ``bad_signature``, naming the author.
        """
        try:
            self.author.verify(self.digest, self.signature, item="author signature")
        except CryptoError as error:
            raise _peer_error(error, entry=entry, code="bad_signature") from error

    def to_wire(self) -> list[WireValue]:
        return [*self._unsigned_wire(), self.signature]

    def encode(self) -> bytes:
        return pack(self.to_wire())

    @classmethod
    def from_wire(cls, value: WireValue, registry: Registry = BODIES) -> Message:
        """Decode (not verify) a message.

        Raises:
            InvalidMessage: malformed, unknown version or kind.
        """
        (version, table_id, author, counter, seen, seen_hash, kind, body,
         signature) = fields.array(value, 9, "a message")
        number = fields.integer(version, "a protocol version", lo=0, hi=MAX_POSITION)
        if number not in PROTOCOL_VERSIONS:
            raise InvalidMessage(f"protocol version {number} is not supported")
        version, number = number, fields.integer(kind, "a kind", lo=0, hi=MAX_KIND)
        return cls(
            fields.blob(table_id, "a table id", size=TABLE_ID_BYTES),
            PeerId.from_wire(author),
            fields.integer(counter, "an author counter", lo=0, hi=MAX_POSITION),
            Head(fields.integer(seen, "seen", lo=0, hi=MAX_POSITION),
                 fields.blob(seen_hash, "a head hash", size=HASH_BYTES)),
            number,
            registry.decode(number, body),
            fields.blob(signature, "a signature", size=SIGNATURE_BYTES),
            version,
        )

    @classmethod
    def decode(
        cls, data: bytes, registry: Registry = BODIES, limits: Limits = DEFAULT_LIMITS
    ) -> Message:
        """Decode untrusted bytes (as sent from an author to the sequencer).

        Raises:
            InvalidMessage: anything wrong with the bytes.
        """
        if registry is not BODIES or limits is not DEFAULT_LIMITS:
            return cls.from_wire(unpack(data, limits), registry)
        return RECENT_DECODES.decoded(cls, data, lambda: cls.from_wire(unpack(data)))


@dataclass(frozen=True, slots=True)
class Entry:
    """A message at its place in the log, countersigned by the sequencer."""

    seq: int
    prev_hash: bytes
    message: Message
    countersignature: bytes
    #: The chain link: what the next entry's ``prev_hash`` must be.
    hash: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        fields.integer(self.seq, "a sequence number", lo=0, hi=MAX_POSITION)
        fields.blob(self.prev_hash, "a previous hash", size=HASH_BYTES)
        fields.blob(self.countersignature, "a countersignature", size=SIGNATURE_BYTES)
        if not isinstance(self.message, Message):
            raise InvalidMessage("an entry holds a message")
        link = entry_hash(self.message.table_id, self.seq, self.prev_hash, self.message.hash)
        object.__setattr__(self, "hash", link)

    @property
    def author(self) -> PeerId:
        return self.message.author

    @property
    def body(self) -> Body:
        return self.message.body

    @classmethod
    def countersign(
        cls, sequencer: Identity, seq: int, prev_hash: bytes, message: Message
    ) -> Entry:
        """The sequencer places ``message`` at ``seq`` after ``prev_hash``.

        Raises:
            LocalProtocolError: a field is out of range (the caller's bug).
        """
        try:
            link = entry_hash(message.table_id, seq, prev_hash, message.hash)
            return cls(seq, prev_hash, message, sequencer.sign(link))
        except (InvalidMessage, OverflowError) as error:
            raise LocalProtocolError(f"cannot countersign: {error}") from error

    def verify_countersignature(self, sequencer: PeerId) -> None:
        """Check that ``sequencer`` placed this entry here.

        Raises:
            RemoteProtocolError: code ``bad_countersignature``, naming the sequencer.
        """
        try:
            sequencer.verify(self.hash, self.countersignature, item="countersignature")
        except CryptoError as error:
            raise _peer_error(error, entry=self.seq, code="bad_countersignature") from error

    def to_wire(self) -> list[WireValue]:
        return [self.seq, self.prev_hash, self.message.to_wire(), self.countersignature]

    def encode(self) -> bytes:
        return pack(self.to_wire())

    @classmethod
    def from_wire(cls, value: WireValue, registry: Registry = BODIES) -> Entry:
        """Decode (not verify) an entry.

        Raises:
            InvalidMessage: malformed, unknown version or kind.
        """
        seq, prev_hash, message, countersignature = fields.array(value, 4, "an entry")
        return cls(
            fields.integer(seq, "a sequence number", lo=0, hi=MAX_POSITION),
            fields.blob(prev_hash, "a previous hash", size=HASH_BYTES),
            Message.from_wire(message, registry),
            fields.blob(countersignature, "a countersignature", size=SIGNATURE_BYTES),
        )

    @classmethod
    def decode(
        cls, data: bytes, registry: Registry = BODIES, limits: Limits = DEFAULT_LIMITS
    ) -> Entry:
        """Decode untrusted bytes of one log entry.

        Raises:
            InvalidMessage: anything wrong with the bytes.
        """
        if registry is not BODIES or limits is not DEFAULT_LIMITS:
            return cls.from_wire(unpack(data, limits), registry)
        return RECENT_DECODES.decoded(cls, data, lambda: cls.from_wire(unpack(data)))


class RecentDecodes:
    """The entries and messages this process decoded last, by their bytes.

    A frame is decoded up to three times on its way into a node: for the proofs
    its check worker verifies ahead (``table.offload.frame_statements``), for a
    shuffle turn it may start ahead (``frame_turn_ahead``), and by
    ``TablePeer.receive``; decoding is most of what a move costs a peer besides
    its signatures (the codec's canonical check, and the signed digests). A
    decoding is a function of the bytes alone (with the default registry and
    limits) and gives immutable values, so the later readers take the first
    one's. Bytes that do not decode are not kept: they raise again, with the
    same error, each time. ``enabled = False`` measures the real cost (the
    benchmarks), as ``crypto.context.VerifiedStatements`` does. A node's worker
    threads may decode too, hence the lock (held for dict steps only).

    Bounded in count (``size``) and in the bytes kept (``max_bytes``, 1 MiB: a
    decoded value holds its frame's bytes, and a member may send frames of up to
    4 MiB, wire.md §7, where an honest table's largest, a proven shuffle turn, is
    some 21 KB); a frame over ``max_bytes`` is decoded and not kept.
    """

    __slots__ = ("_bytes", "_kept", "_lock", "enabled", "max_bytes", "size")

    def __init__(self, size: int = 16, max_bytes: int = 1 << 20) -> None:
        self._kept: OrderedDict[tuple[type, bytes], object] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.size = size
        self.max_bytes = max_bytes
        self.enabled = True

    def decoded(self, kind: type[T], data: bytes, decode: Callable[[], T]) -> T:
        """``decode()``'s value for ``data`` read as ``kind``, computed once while kept.

        Raises:
            Whatever ``decode`` raises (nothing is kept then).
        """
        if not self.enabled:
            return decode()
        key = (kind, data)
        with self._lock:
            kept = self._kept.get(key)
            if isinstance(kept, kind):
                self._kept.move_to_end(key)
                return kept
        value = decode()
        if len(data) > self.max_bytes:
            return value
        with self._lock:
            if key not in self._kept:
                self._bytes += len(data)
            self._kept[key] = value
            self._kept.move_to_end(key)
            while len(self._kept) > self.size or self._bytes > self.max_bytes:
                (_, gone), _ = self._kept.popitem(last=False)
                self._bytes -= len(gone)
        return value

    def clear(self) -> None:
        """Forget every decoding."""
        with self._lock:
            self._kept.clear()
            self._bytes = 0


#: This process's recent decodings (``Entry.decode``, ``Message.decode``).
RECENT_DECODES = RecentDecodes()
