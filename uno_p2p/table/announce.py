"""Which entries go to whom: what the sequencer sends of what it logged (table.md §3),
its drop notice to a message's author (§3.1), and what any member sends a peer that
asks for the entries after its log (§9, §9.1, §13.4).

Pure functions of the table and the log: the peer queues the frames they return,
in the order returned, so the frames of one entry go out before whatever that entry
then makes the peer send.
"""

from __future__ import annotations

from collections.abc import Sequence

from uno_p2p.crypto.identity import PeerId
from uno_p2p.table.frames import (
    FRAME_DROP,
    FRAME_ENTRY,
    FRAME_SYNC,
    drop_notice,
    frame,
    sync_request,
)
from uno_p2p.table.handover import members
from uno_p2p.table.outbox import SYNCED
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.sequencer import Drop
from uno_p2p.table.state import TableState
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import Join


def announcement(entry: Entry, state: TableState, logged: Sequence[Entry],
                 me: PeerId) -> list[Outgoing]:
    """The frames that send ``entry``, which we just logged as the sequencer, to the
    table (``state``: after it; ``logged``: our log): to every member but us, and to its
    author and the seat it names (a ``remove``'s) when they are no members (not yet,
    or no more); a joiner first gets the log before its join."""
    lobby = state.lobby
    to = [] if lobby is None else [p for p in lobby.joined if p != me]
    out: list[Outgoing] = []
    author = entry.author
    if isinstance(entry.body, Join) and author != me:
        out.extend(Outgoing((author,), frame(FRAME_ENTRY, e.encode()))
                   for e in logged[:entry.seq])
    for extra in (author, getattr(entry.body, "peer", None)):
        if isinstance(extra, PeerId) and extra != me and extra not in to:
            to.append(extra)
    if to:
        out.append(Outgoing(tuple(to), frame(FRAME_ENTRY, entry.encode())))
    return out


def drop_sent(drop: Drop, me: PeerId) -> list[Outgoing]:
    """The notice that the sequencer did not log a message, to its author only (none
    for our own: the sequencer's own message is refused to us as an error)."""
    author = PeerId(drop.author)
    if author == me:
        return []
    notice = drop_notice(drop.counter, drop.code, drop.reason, drop.digest)
    return [Outgoing((author,), frame(FRAME_DROP, notice))]


def sync_answer(asker: PeerId, seen: int, state: TableState, logged: Sequence[Entry],
                hosting: bool) -> list[Outgoing]:
    """What we send a member that asks for the entries after ``seen`` (any member
    answers, §13.4): our log from there, and from the last hand-over on at least (it
    may have replaced entries the asker holds); the sequencer then says it has sent
    all (``synced``, with the asker's next number in the log, §9). A stranger gets
    nothing."""
    lobby = state.lobby
    if lobby is None or asker not in lobby.joined:
        return []
    if state.handovers:
        seen = min(seen, state.handovers[-1][0])
    out = [Outgoing((asker,), frame(FRAME_ENTRY, e.encode())) for e in logged[seen:]]
    if hosting:
        counter = sum(1 for e in logged if e.author == asker)
        out.append(Outgoing((asker,), frame(FRAME_DROP, drop_notice(
            counter, SYNCED, "these are all the entries"))))
    return out


def sync_asked(state: TableState, me: PeerId) -> list[Outgoing]:
    """Our request for the entries after our log (``S``), to every member but us
    (§9.1, §13.4): any of them answers."""
    others = tuple(p for p in members(state) if p != me)
    return [Outgoing(others, frame(FRAME_SYNC, sync_request(state.seq)))] if others else []


__all__ = ["announcement", "drop_sent", "sync_answer", "sync_asked"]
