"""A table-level rule refused from the outside: the forged entry, and its judges.

As the engine's differential negative test does for the rules (tests/rules/
test_differential.py), the table's own checks are tried with entries a
cheating peer could really log: signed by their author, countersigned by the
sequencer of their term and chained on the log every peer holds, so the only
thing wrong with one is the rule of docs/protocol/table.md it breaks. Each
such entry must be refused with that rule's code (docs/protocol/verdicts.md
§7.2) naming its author, by every peer (the table's ``apply_entry`` on each
peer's own state, and a seated peer's whole ``receive``) and by the audit.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from uno_p2p.audit.core import audit_entries
from uno_p2p.audit.report import Status
from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.rules.options import Options
from uno_p2p.table.bodies import Handover
from uno_p2p.table.events import PeerMisbehaved
from uno_p2p.table.frames import FRAME_ENTRY, frame
from uno_p2p.table.handover import Vote
from uno_p2p.table.ledger import apply_entry
from uno_p2p.table.memnet import Network, TableSetup, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import Misbehaviour, TableState
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.registry import Body


@dataclass(slots=True)
class Table:
    """A bot table stopped where every peer holds the same log, and its identities."""

    net: Network
    ids: list[Identity]

    @property
    def host(self) -> TablePeer:
        return self.net.host

    @property
    def head(self) -> Head:
        return self.host.ledger.head

    def peer(self, who: Identity) -> TablePeer:
        return self.net.peers[who.peer.key]


def in_step(net: Network) -> bool:
    """Every peer that hears holds the same number of entries (nothing sent is still on
    its way to one of them), so a forged next entry means the same to all."""
    return len({p.state.seq for p in live(net)}) == 1


def live(net: Network) -> list[TablePeer]:
    """The peers that hear the table (not silenced: a seat that vanished)."""
    return [p for key, p in net.peers.items() if key not in net.silent]


def table_at(players: int, options: Options, seed: bytes,
             when: Callable[[TableState], bool], *, vanished: int | None = None,
             start_ms: int = 0) -> Table:
    """A ``players``-seat bot table run until every peer holds the same log and the
    host's state is as ``when`` wants it; seat ``vanished``, if any, hears nothing
    from the start of the game on. The table's clock starts at ``start_ms``."""
    net = seat_table(TableSetup(players, options, seed, preset="official", start_ms=start_ms))
    ids = [Identity(seeded(seed, f"identity {i}")) for i in range(players)]
    if vanished is not None:
        net.silent.add(ids[vanished].peer.key)
    net.run(until=lambda n: in_step(n) and when(n.host.state), max_steps=200_000)
    assert when(net.host.state), "the game never came to that point: choose another seed"
    return Table(net, ids)


def past(entry: int) -> Callable[[TableState], bool]:
    """``when``: past entry ``entry``."""
    return lambda state: state.seq > entry


def sequencer_of(table: Table, body: Body) -> Identity:
    """Who countersigns ``body``'s entry: a hand-over's new sequencer (wire.md §4.4),
    else the sequencer of the term."""
    key = body.new.key if isinstance(body, Handover) else table.host.peer_id.key
    return next(i for i in table.ids if i.peer.key == key)


def forge(table: Table, author: Identity, body: Body, head: Head | None = None,
          sequencer: Identity | None = None) -> Entry:
    """``body`` as the next entry of the log: signed by ``author`` with its next counter
    and ``head`` (default: the last entry), countersigned by ``sequencer`` (default: the
    one of its term, ``sequencer_of``)."""
    last = table.head
    chain = table.host.ledger.chain
    message = Message.sign(author, table.host.table_id, chain.next_counter(author.peer),
                           head or last, body)
    return Entry.countersign(sequencer or sequencer_of(table, body), last.seen, last.hash,
                             message)


def votes(table: Table, voters: list[Identity], new: Identity, *, term: int = 1,
          old: PeerId | None = None, head: Head | None = None
          ) -> tuple[tuple[PeerId, bytes], ...]:
    """Each voter's signed hand-over vote (table.md §13.2), by default for the host's
    replacement by ``new`` at the last entry."""
    deposed = table.host.peer_id if old is None else old
    at = head or table.head
    return tuple((v.peer, Vote.sign(v, table.host.table_id, term, deposed, new.peer,
                                     at).signature) for v in voters)


def refused_everywhere(table: Table, entry: Entry) -> str:
    """Check that every peer and the audit refuse ``entry`` with one code naming its
    author; return the code."""
    author = entry.author
    codes = set()
    for peer in live(table.net):
        with pytest.raises(Misbehaviour) as caught:
            apply_entry(peer.state, entry)
        error = caught.value
        assert error.culprit == author, (error.code, error.culprit)
        codes.add(error.code)
        if not peer.is_host:
            told = told_by(peer, entry)
            assert [(e.code, e.peer) for e in told] == [(error.code, author)], told
    (code,) = codes
    report = audit_entries((*table.net.entries(), entry))
    assert report.status == Status.VIOLATION, report.status
    finding = report.violation
    assert finding is not None
    assert (finding.code, finding.entry) == (code, entry.seq)
    assert finding.peer is not None
    assert finding.peer.key == author.key
    return code


def accepted_everywhere(table: Table, entry: Entry) -> None:
    """The control: an entry no rule forbids is taken by every peer and the audit, so a
    refusal above is the rule's and not the harness's."""
    for peer in live(table.net):
        apply_entry(peer.state, entry)
        if not peer.is_host:
            assert not told_by(peer, entry)
    report = audit_entries((*table.net.entries(), entry))
    assert report.violation is None, report.violation


def told_by(peer: TablePeer, entry: Entry) -> list[PeerMisbehaved]:
    """What a copy of a seated ``peer`` names when the sequencer sends it ``entry``."""
    copied = copy.deepcopy(peer)
    copied.events()
    sequencer = PeerId(entry.author.key) if isinstance(entry.body, Handover) \
        else copied.host_id
    copied.receive(frame(FRAME_ENTRY, entry.encode()), copied.now_ms, sequencer)
    return [e for e in copied.events() if isinstance(e, PeerMisbehaved)]
