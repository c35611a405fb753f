"""The three frames a table peer exchanges (docs/protocol/table.md §3.1).

One tag byte, then the payload: ``M`` a signed message for the sequencer,
``E`` a countersigned entry from it, ``D`` the sequencer's notice that it
did not log a message (``[counter, code, reason]``, unsigned: it only lets
the author decide again; nothing depends on it), ``S`` a resumed peer's
request for the entries after the ``[seen]`` it has, ``R`` a peer's own signed
message relayed to every peer (any peer may carry it on), ``V`` a hand-over
vote (table.md §13), ``C`` a chat line (§15, never logged). ``E`` frames may
come from any peer: an entry proves itself by its countersignature.
"""

from __future__ import annotations

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


def drop_notice(counter: int, code: str, reason: str) -> bytes:
    """The payload of a ``D`` frame."""
    return pack([counter, code[:48], reason[:200]])


def decode_drop(payload: bytes) -> tuple[int, str, str]:
    """Decode a ``D`` frame's payload.

    Raises:
        InvalidMessage: malformed.
    """
    counter, code, reason = fields.array(unpack(payload), 3, "a drop notice")
    if not isinstance(code, str) or not isinstance(reason, str):
        raise InvalidMessage("a drop notice holds a code and a reason")
    return (fields.integer(counter, "a counter", lo=0, hi=(1 << 48) - 1),
            fields.text(code, "a code", max_chars=48),
            fields.text(reason, "a reason", max_chars=200))


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
