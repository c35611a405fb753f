"""Entries that come ahead of this peer's log, kept until the gap below them fills
(docs/protocol/table.md §9.1, §12).

A link may lose an entry while a member forwards the ones after it (net.md
§5.3), so a peer keeps what comes early instead of dropping it: each entry
only once, only when it proves itself (countersigned by its sequencer, signed
by its author), and only up to ``MAX_EARLY_ENTRIES`` entries of
``MAX_EARLY_BYTES`` together, so that no bytes can make a peer hold more
(§12). What is over the bounds is dropped unnamed: the sequencer sends it
again on a sync request (§9).

A part of the peer that owns its state, as ``Sequencer`` does: the entries
kept, their size, and since when the gap has been open. It returns verdicts
(an entry that does not verify, whether it is time to ask every member for
what is missing); the peer applies the entries it hands back, in order,
through its own ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import RemoteProtocolError
from uno_p2p.table.handover import handover_successor
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.limits import GAP_FILL_AFTER_MS, MAX_EARLY_BYTES, MAX_EARLY_ENTRIES


@dataclass(frozen=True, slots=True)
class Unverified:
    """An entry ahead of our log that does not prove itself: anyone can send such
    bytes, so it names nobody (table.md §7.4); the peer tells its player."""

    seq: int
    code: str
    reason: str


class EarlyEntries:
    """The entries this peer holds ahead of its log, and the gap below them (§9.1, §12)."""

    def __init__(self) -> None:
        #: The entries kept, by their number in the log.
        self.kept: dict[int, Entry] = {}
        #: Their encoded size together (bounded by ``MAX_EARLY_BYTES``).
        self.size = 0
        #: Since when (our clock) our log has had a gap below the entries kept.
        self.gap_since: int | None = None

    def __len__(self) -> int:
        return len(self.kept)

    def __contains__(self, seq: object) -> bool:
        return seq in self.kept

    def keep(self, entry: Entry, sequencer: PeerId, now_ms: int,
             members: Sequence[PeerId] = ()) -> Unverified | None:
        """Keep ``entry``, ahead of our log, if it is new, fits the bounds and proves
        itself (countersigned by ``sequencer``, or by the new sequencer a hand-over
        names, table.md §13.2); the bounds come first, so a full buffer checks no
        signature. Returns why it does not verify, if it does not.

        An entry another of the table's ``members`` countersigned comes from a later
        term: a hand-over we have not logged yet lies in our gap (§13). It is no
        fault, and no proof either: dropped untold, it comes again once the gap is
        filled (table.md §7.4; the forwarded entries of a new term once told a
        player "a peer misbehaved" for nothing)."""
        size = len(entry.encode())
        if entry.seq in self.kept or len(self.kept) >= MAX_EARLY_ENTRIES or \
                self.size + size > MAX_EARLY_BYTES:
            return None  # the sequencer sends it again on a sync request (table.md §9)
        expected = handover_successor(entry) or sequencer
        try:
            entry.verify_countersignature(expected)
            entry.message.verify(entry=entry.seq)
        except RemoteProtocolError as error:
            if error.code == "bad_countersignature" and \
                    any(_countersigned(entry, m) for m in members if m != expected):
                return None
            return Unverified(entry.seq, error.code,
                              f"an entry ahead of our log does not verify: {error}")
        self.kept[entry.seq] = entry
        self.size += size
        if self.gap_since is None:
            self.gap_since = now_ms
        return None

    def take(self, seq: int) -> Entry | None:
        """The entry kept at ``seq``, our log's next number, handed back once to apply."""
        entry = self.kept.pop(seq, None)
        if entry is not None:
            self.size -= len(entry.encode())
        return entry

    def settle(self) -> None:
        """Our log took what it could: with nothing kept, there is no gap to fill."""
        if not self.kept:
            self.gap_since = None

    def new_term(self) -> None:
        """A hand-over was logged: what was kept under the old sequencer stands at places
        the new term fills anew (table.md §13.3). Forget it, and the gap below it: a
        gap under the new term opens with the next entry that comes early. (A peer that
        took over is never told of entries ahead of its own log, so a gap it kept open
        would have made it ask every member for its own entries each second for the
        rest of the game.)"""
        self.kept.clear()
        self.size = 0
        self.gap_since = None

    def clear(self) -> None:
        """A resync asks the sequencer for everything after our log (§9): forget all."""
        self.new_term()

    def deadline(self) -> int | None:
        """When ``ask_due`` says yes, if a gap is open."""
        return None if self.gap_since is None else self.gap_since + GAP_FILL_AFTER_MS

    def ask_due(self, now_ms: int) -> bool:
        """Whether the gap has stayed open ``GAP_FILL_AFTER_MS``, so the peer asks every
        member for what follows its log (§9.1, rule 1); the wait then starts again."""
        due = self.deadline()
        if due is None or now_ms < due:
            return False
        self.gap_since = now_ms
        return True


def _countersigned(entry: Entry, member: PeerId) -> bool:
    try:
        entry.verify_countersignature(member)
    except RemoteProtocolError:
        return False
    return True


__all__ = ["EarlyEntries", "Unverified"]
