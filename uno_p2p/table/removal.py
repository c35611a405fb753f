"""Removing a seat that vanished (docs/protocol/table.md §14).

The mechanism is the simple sound one: the round under way is void and a new
one is dealt among the seats left. Every card of the void round stays under
the joint key of the old seating, which needs the vanished seat's key share
to open: nobody ever sees them. Every later deck is built under the joint
key of the seats left only, so the vanished seat's share is needed no more,
and "no coalition short of all the seats still playing learns a card" keeps
holding. What it costs: the void round's play, and the end-of-game
re-execution of the decks the vanished seat shuffled (it never reveals its
seed): those stay unproven, and the audit says so.
"""

from __future__ import annotations

from dataclasses import replace

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import ConfigError
from uno_p2p.rules.removal import can_remove, remove_player
from uno_p2p.table.bodies import Remove
from uno_p2p.table.duties import waiting_for
from uno_p2p.table.events import PlayerRemoved, TableEvent
from uno_p2p.table.game import fault, follow, start_engine
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.wire.envelope import Entry

PHASES = (TablePhase.KEYS, TablePhase.PLAYING)
#: The reason of a removal that a leave made (table.md §8); a vanished seat's is the
#: sequencer's own words.
LEFT = "left the table"
#: The table protocol version from which a leave in play removes the seat (wire.md §3).
LEAVE_REMOVES_FROM = 2


def awaited(ts: TableState, seat: int) -> bool:
    """Whether the table waits for ``seat``: work it owes, or a decision of its player
    that nothing else can make (its turn, its verdict, its colour)."""
    if seat in waiting_for(ts):
        return True
    game = ts.engine
    if ts.phase != TablePhase.PLAYING or game is None:
        return False
    return game.decider() == seat


def awaited_seats(ts: TableState) -> list[int]:
    """Every seat the table waits for now (``awaited``), in seat order: whom a log that
    ends here was waiting for (table.md §14.1), a fact a verifier reads off the log,
    not an accusation."""
    return [seat for seat in range(len(ts.seats)) if awaited(ts, seat)]


def removable(ts: TableState, peer: PeerId, by: PeerId) -> str:
    """Why ``by`` may not remove ``peer`` now ("" when it may, table.md §14.1)."""
    seat = ts.seat_of(peer.key)
    if ts.phase not in PHASES:
        return "seats are removed only during key setup and play"
    if ts.host is None or by != ts.host:
        return "only the sequencer removes a seat"
    if seat is None or peer == by:
        return "the sequencer removes another seat"
    if not awaited(ts, seat):
        return "the table is not waiting for this seat"
    if ts.engine is not None:
        return can_remove(ts.engine, seat)
    options = ts.rules
    if options.teams:
        return "a team game cannot lose a player"
    try:
        options.check_players(len(ts.seats) - 1)
    except ConfigError as error:
        return str(error)
    return ""


def leave_removes(ts: TableState, peer: PeerId) -> str:
    """Why a ``leave`` by ``peer`` now stops the game instead of removing its seat
    ("" when the seat is removed and the others play on, table.md §8).

    A player who leaves during play is removed as one who vanished (§14.2): the
    round is void and the others play on. Where a vanished seat could not be
    removed either (teams, a table left with one player, a game already over), or
    the leaver is the sequencer (whose peer orders every entry), the leave stops
    the game as before. A version 1 table keeps version 1's meaning (a leave stops
    it), so a log written before version 2 audits as it did.
    """
    seat = ts.seat_of(peer.key)
    if ts.version < LEAVE_REMOVES_FROM:
        return "a leave stops a version 1 table"
    if ts.phase != TablePhase.PLAYING or ts.engine is None or seat is None:
        return "only a seat in play is removed when it leaves"
    if ts.host is not None and peer == ts.host:
        return "the sequencer's leave stops the game"
    return can_remove(ts.engine, seat)


def apply_remove(ts: TableState, entry: Entry | None, seq: int, author: PeerId,
                 body: Remove) -> tuple[TableState, list[TableEvent]]:
    """The seat leaves the seating; in play, the round is void and a new one dealt.

    Raises:
        Misbehaviour: ``bad_remove`` naming the author (``removable`` says why).
    """
    why = removable(ts, body.peer, author)
    if why:
        raise fault(entry, seq, author, "bad_remove", why)
    return remove_seat(ts, seq, body.peer, body.reason)


def remove_seat(ts: TableState, seq: int, peer: PeerId,
                reason: str) -> tuple[TableState, list[TableEvent]]:
    """Take ``peer``'s seat away at entry ``seq`` (the caller checked that it may go):
    the seats close up; in play the round is void and a dealer is chosen again."""
    seat = ts.seat_of(peer.key)
    assert seat is not None  # noqa: S101 (the caller checked)
    name = ts.name_of(peer.key)
    seats = tuple(p for p in ts.seats if p != peer)
    keys = ts.keys[:seat] + ts.keys[seat + 1:]
    game = ts.engine
    round_number = 0 if game is None else game.round
    removed = PlayerRemoved(peer, name, round_number, seq, reason)
    ts = replace(ts, seats=seats, keys=keys,
                 removed=(*ts.removed, (seq, peer, round_number)))
    if game is None:
        if all(keys):
            ts, events = start_engine(ts, seq)
            return ts, [removed, *events]
        return ts, [removed]
    new, engine_events = remove_player(game, seat, ts.clock_ms)
    # The void round's decks are shut for good: no seat owes them a shuffle any more
    # (the seat numbers changed, and a shuffle now would be under the new joint key).
    decks = tuple(replace(d, shufflers=()) for d in ts.decks)
    ts = replace(ts, engine=new, decks=decks, void_decks=len(decks), shares={}, deals=(),
                 privates=())
    ts, events = follow(ts, engine_events, seq)
    return ts, [removed, *events]


__all__ = ["LEFT", "apply_remove", "awaited", "leave_removes", "removable", "remove_seat"]
