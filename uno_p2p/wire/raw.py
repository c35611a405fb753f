"""A countersigned record whose message does not decode: the sequencer's violation.

docs/protocol/verdicts.md §8 and wire.md §8. A ``.unolog`` record whose CRC
holds but whose bytes are not a valid entry is one of two things:

- bytes that are not even the *frame* of an entry (canonical msgpack of
  ``[seq, prev_hash(bin 32), message(array of 9), countersignature(bin 64)]``
  with the message's ``version`` 1 or 2, ``table_id(bin 16)``, ``author(bin 32)``,
  ``counter``, ``seen``, ``seen_hash(bin 32)``, ``kind``, ``body``,
  ``signature(bin 64)``): nobody's signature covers them, so the file is
  *unreadable*;
- a well-framed entry whose body (an unknown kind, a malformed body) or author
  key (not a valid point) is refused. Its entry hash is still defined (wire.md
  §4: it covers ``msgpack(message)``), so the §4.1 place checks and the
  countersignature are checked as for any entry; if they hold, the sequencer
  countersigned a message it had to refuse: ``malformed_entry``, naming it.
"""

from __future__ import annotations

import hashlib

from uno_p2p.crypto.identity import SIGNATURE_BYTES, PeerId
from uno_p2p.errors import CryptoError, InvalidMessage
from uno_p2p.wire.chain import ChainError
from uno_p2p.wire.codec import WireValue, pack, unpack
from uno_p2p.wire.envelope import (
    HASH_BYTES,
    MAX_POSITION,
    MESSAGE_HASH_LABEL,
    PROTOCOL_VERSIONS,
    TABLE_ID_BYTES,
    Entry,
    entry_hash,
)

#: The message's fields that must be bin of a fixed size (index -> size).
_BINS = {1: TABLE_ID_BYTES, 2: 32, 5: HASH_BYTES, 8: SIGNATURE_BYTES}


def _framed(record: bytes) -> tuple[int, bytes, list[WireValue], bytes] | None:
    """``(seq, prev_hash, message fields, countersignature)`` if ``record`` is an
    entry's frame (see the module docstring), else None."""
    try:
        value = unpack(record)
    except InvalidMessage:
        return None
    if type(value) is not list or len(value) != 4:
        return None
    seq, prev_hash, message, countersignature = value
    if type(seq) is not int or not 0 <= seq <= MAX_POSITION or type(message) is not list:
        return None
    if type(prev_hash) is not bytes or len(prev_hash) != HASH_BYTES or \
            type(countersignature) is not bytes or len(countersignature) != SIGNATURE_BYTES:
        return None
    if len(message) != 9 or message[0] not in PROTOCOL_VERSIONS or type(message[0]) is not int:
        return None
    if any(type(message[i]) is not bytes or len(message[i]) != size  # type: ignore[arg-type]
           for i, size in _BINS.items()):
        return None
    if any(type(message[i]) is not int for i in (3, 4, 6)):
        return None
    return seq, prev_hash, message, countersignature


def judge_record(record: bytes, previous: Entry, sequencer: PeerId) -> ChainError | None:
    """What an undecodable record after ``previous`` proves, or None (unreadable).

    ``previous`` is the last decoded entry (so the table id and sequencer are
    known: a record 0 that does not decode leaves the file unreadable).

    Returns:
        A ``ChainError`` naming the sequencer: ``wrong_table``, ``bad_sequence``,
        ``bad_prev_hash``, ``bad_countersignature`` (the §4.1 checks, in order),
        or ``malformed_entry`` when all of them hold.
    """
    framed = _framed(record)
    if framed is None:
        return None
    seq, prev_hash, message, countersignature = framed
    table_id = previous.message.table_id
    checks = (
        (message[1] != table_id, "wrong_table", "it belongs to another table"),
        (seq != previous.seq + 1, "bad_sequence", f"expected entry number {previous.seq + 1}"),
        (prev_hash != previous.hash, "bad_prev_hash", "it does not follow the previous entry"),
    )
    for failed, code, why in checks:
        if failed:
            return ChainError(f"entry {seq}: {why}", peer=sequencer, entry=seq, code=code)
    message_hash = hashlib.sha256(MESSAGE_HASH_LABEL + pack(message)).digest()
    link = entry_hash(table_id, seq, prev_hash, message_hash)
    try:
        sequencer.verify(link, countersignature, item="countersignature")
    except CryptoError:
        return ChainError(f"entry {seq}: the countersignature does not verify",
                          peer=sequencer, entry=seq, code="bad_countersignature")
    return ChainError(
        f"entry {seq}: the sequencer countersigned a message that is not a valid message "
        "(an unknown kind, a malformed body or an author key that is no valid point)",
        peer=sequencer, entry=seq, code="malformed_entry")

