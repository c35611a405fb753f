"""Replaying a log with no seat: the observer entry point the audit builds on.

docs/protocol/table.md §10. ``replay(entries)`` runs every entry through the
very ``Ledger.accept`` the live peers run (chain, table rules, engine, deck
proofs), as an observer that holds no secret, and stops at the first
violation. It returns the digest after each entry (to compare with the
peers'), the players, rounds and scores, how the game ended, and the end-of-
game audit of every shuffle when the reveals are in the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from uno_p2p.errors import RemoteProtocolError
from uno_p2p.table.events import GameEnded, PeerMisbehaved, RoundEnded, TableEvent
from uno_p2p.table.ledger import Ledger
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.wire.envelope import Entry


@dataclass(frozen=True, slots=True)
class Violation:
    """The first entry that broke the chain, the protocol or the rules."""

    entry: int
    peer: str | None
    name: str
    code: str
    reason: str


@dataclass(slots=True)
class ReplayResult:
    """What an observer learned from a log."""

    state: TableState
    digests: list[bytes] = field(default_factory=list)
    events: list[tuple[int, TableEvent]] = field(default_factory=list)
    violation: Violation | None = None

    @property
    def entries(self) -> int:
        return self.state.seq

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.player_names

    @property
    def scores(self) -> tuple[int, ...]:
        return () if self.state.engine is None else self.state.engine.scores

    @property
    def winner(self) -> int:
        """The winning seat, or -1 (no winner: unfinished or stopped)."""
        game = self.state.engine
        if game is None or game.winner is None or self.state.stop is not None:
            return -1
        return game.winner

    @property
    def rounds(self) -> list[RoundEnded]:
        return [e for _, e in self.events if isinstance(e, RoundEnded)]

    @property
    def ended(self) -> bool:
        """Every reveal is in and every shuffle was re-executed."""
        return self.state.phase == TablePhase.ENDED

    @property
    def stopped(self) -> str:
        """Why play stopped early ("" if it did not)."""
        return "" if self.state.stop is None else self.state.stop.reason

    @property
    def audit(self) -> str:
        """"" when every shuffle re-executed from its revealed seed, else why not."""
        return self.state.audit_error

    @property
    def misbehaviour(self) -> list[PeerMisbehaved]:
        """Everyone the log itself names (stops, broken claims, dishonest shuffles)."""
        return [e for _, e in self.events if isinstance(e, PeerMisbehaved)]

    @property
    def result(self) -> GameEnded | None:
        found = [e for _, e in self.events if isinstance(e, GameEnded)]
        return found[-1] if found else None


def replay(entries: Sequence[Entry]) -> ReplayResult:
    """Apply ``entries`` from entry 0 as an observer; stop at the first violation.

    The sequencer is the author of entry 0 (the host opens the table).
    Never raises for a bad log: the violation is in the result.

    Raises:
        RemoteProtocolError: code ``empty_log`` for a log without entries.
    """
    if not entries:
        raise RemoteProtocolError("the log has no entries", code="empty_log")
    first = entries[0]
    ledger = Ledger(first.message.table_id, first.author)
    events: list[tuple[int, TableEvent]] = []
    violation = None
    for entry in entries:
        try:
            accepted = ledger.accept(entry)
        except RemoteProtocolError as error:
            name = _name(ledger.state, error.peer)
            violation = Violation(entry.seq, error.peer, name, error.code, str(error))
            break
        events.extend((entry.seq, event) for event in accepted)
    return ReplayResult(ledger.state, list(ledger.digests), events, violation)


def _name(state: TableState, fingerprint: str | None) -> str:
    for peer in state.seats or (() if state.lobby is None else state.lobby.joined):
        if peer.fingerprint == fingerprint:
            return state.name_of(peer.key)
    return ""
