"""The three frames a table peer exchanges (docs/protocol/table.md §3.1).

One tag byte, then the payload: ``M`` a signed message for the sequencer,
``E`` a countersigned entry from it, ``D`` the sequencer's notice that it
did not log a message (``[counter, code, reason, digest]``, unsigned: it only
lets the author decide again, and only for the message whose hash is
``digest``, so a notice earned by a forgery in the author's name names no
message the author sent; ``synced`` carries no digest), ``S`` a resumed peer's
request for the entries after the ``[seen]`` it has, ``R`` a peer's own signed
message relayed to every peer (any peer may carry it on), ``V`` a hand-over
vote (table.md §13), ``C`` a chat line (§15, never logged). ``E`` frames may
come from any peer: an entry proves itself by its countersignature.
"""

from __future__ import annotations

from dataclasses import dataclass

from uno_p2p.errors import InvalidMessage
from uno_p2p.wire import fields
from uno_p2p.wire.codec import pack, unpack

FRAME_MESSAGE = b"M"
FRAME_ENTRY = b"E"
FRAME_DROP = b"D"
FRAME_SYNC = b"S"
#: A peer's own signed message, sent to every peer when the sequencer leaves it
#: unlogged (table.md §6.2): evidence of censorship, and a second path to the host.
FRAME_RELAY = b"R"
#: A seated peer's signed hand-over vote, to every member (table.md §13.2).
FRAME_VOTE = b"V"
#: A member's signed chat line, passed on to every member (table.md §15).
FRAME_CHAT = b"C"
FRAMES = (FRAME_MESSAGE, FRAME_ENTRY, FRAME_DROP, FRAME_SYNC, FRAME_RELAY, FRAME_VOTE,
          FRAME_CHAT)


def frame(tag: bytes, payload: bytes) -> bytes:
    """``tag || payload``.

    Raises:
        InvalidMessage: an unknown tag (a caller's bug).
    """
    if tag not in FRAMES:
        raise InvalidMessage(f"unknown frame tag {tag!r}")
    return tag + payload


#: The ``digest`` of a drop notice: the dropped message's hash (wire.md §3), or empty.
DIGEST_BYTES = 32


@dataclass(frozen=True, slots=True)
class DropNotice:
    """A ``D`` frame: the sequencer did not log the message ``digest`` names."""

    counter: int
    code: str
    reason: str
    #: ``Message.hash`` of the message not logged; empty for ``synced`` (table.md §9).
    digest: bytes = b""


def drop_notice(counter: int, code: str, reason: str, digest: bytes = b"") -> bytes:
    """The payload of a ``D`` frame."""
    return pack([counter, code[:48], reason[:200], digest])


def decode_drop(payload: bytes) -> DropNotice:
    """Decode a ``D`` frame's payload.

    Raises:
        InvalidMessage: malformed.
    """
    counter, code, reason, digest = fields.array(unpack(payload), 4, "a drop notice")
    if not isinstance(code, str) or not isinstance(reason, str):
        raise InvalidMessage("a drop notice holds a code and a reason")
    digest = fields.blob(digest, "a message digest")
    if len(digest) not in (0, DIGEST_BYTES):
        raise InvalidMessage(f"a drop notice's digest is {DIGEST_BYTES} bytes or none")
    return DropNotice(fields.integer(counter, "a counter", lo=0, hi=(1 << 48) - 1),
                      fields.text(code, "a code", max_chars=48),
                      fields.text(reason, "a reason", max_chars=200), digest)


def sync_request(seen: int) -> bytes:
    """The payload of an ``S`` frame."""
    return pack([seen])


def decode_sync(payload: bytes) -> int:
    """Decode an ``S`` frame's payload.

    Raises:
        InvalidMessage: malformed.
    """
    (seen,) = fields.array(unpack(payload), 1, "a sync request")
    return fields.integer(seen, "a sync point", lo=0, hi=(1 << 48) - 1)
