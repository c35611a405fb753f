"""Readable transcripts of a log: ``entry 41, seat 2 (alice): played Red 7``.

Used by ``uno-lan log show`` and by the audit. Names come from the lobby
entries (``open_table``, ``join``) and seats from ``start``, so a transcript
needs nothing but the log. Every body kind describes itself (``describe``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from uno_p2p.wire.codec import WireValue
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import Join, OpenTable, Start
from uno_p2p.wire.registry import BODIES, Registry

JsonValue = int | bool | str | None | list["JsonValue"] | dict[str, "JsonValue"]


@dataclass(slots=True)
class Roster:
    """Who is who at the table, learned from the log as it is read."""

    names: dict[bytes, str] = field(default_factory=dict)
    seats: dict[bytes, int] = field(default_factory=dict)

    def learn(self, entry: Entry) -> None:
        """Record a name or the seat order from a lobby entry."""
        body = entry.body
        if isinstance(body, OpenTable | Join):
            self.names.setdefault(entry.author.key, body.name)
        elif isinstance(body, Start):
            self.seats = {seat.key: index for index, seat in enumerate(body.seats)}

    def name(self, key: bytes) -> str:
        """A peer's name, or ``peer <first 4 key bytes in hex>`` if it never gave one.

        The same fallback as ``uno_p2p.table.state`` (not ``PeerId.fingerprint``).
        """
        return self.names.get(key) or f"peer {key[:4].hex()}"

    def who(self, key: bytes) -> str:
        """``seat 2 (alice)`` once seated, ``alice`` before."""
        seat = self.seats.get(key)
        return self.name(key) if seat is None else f"seat {seat} ({self.name(key)})"


def describe_entries(entries: Iterable[Entry]) -> Iterator[str]:
    """One line per entry, as a player would read it."""
    roster = Roster()
    for entry in entries:
        roster.learn(entry)
        what = entry.body.describe(roster.name)
        yield f"entry {entry.seq}, {roster.who(entry.author.key)}: {what}"


def _jsonable(value: WireValue) -> JsonValue:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    return value


def entries_as_json(
    entries: Iterable[Entry], registry: Registry = BODIES
) -> Iterator[dict[str, JsonValue]]:
    """One JSON-ready object per entry, bytes as lowercase hex (``log show --json``)."""
    kind_names = {info.number: info.name for info in registry}
    roster = Roster()
    for entry in entries:
        roster.learn(entry)
        message = entry.message
        key = message.author.key
        yield {
            "seq": entry.seq,
            "hash": entry.hash.hex(),
            "prev_hash": entry.prev_hash.hex(),
            "author": key.hex(),
            "fingerprint": message.author.fingerprint,
            "name": roster.names.get(key),
            "seat": roster.seats.get(key),
            "counter": message.counter,
            "seen": message.head.seen,
            "seen_hash": message.head.hash.hex(),
            "kind": message.kind,
            "kind_name": kind_names.get(message.kind),
            "body": _jsonable(message.body.to_wire()),
            "description": message.body.describe(roster.name),
            "signature": message.signature.hex(),
            "countersignature": entry.countersignature.hex(),
        }
