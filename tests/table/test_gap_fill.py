"""A gap in a peer's log fills from the other members (table.md §12, net.md §5.3).

When a joiner's link to the host breaks, the host's entries sent into the dead
link are lost, while the ones after it reach the joiner through another member.
The joiner then holds entries ahead of a gap. It must not wait for its own
link to come back: after ``GAP_FILL_AFTER_MS`` it asks every member for the
entries after its head, and any of them answers. These games drop one entry
on its way from the host to one seat, and drop that seat's request to the
host as well, so that only another member can fill the gap.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from uno_p2p.audit import Status, audit_entries
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Clock
from uno_p2p.table.events import PeerMisbehaved
from uno_p2p.table.frames import (
    FRAME_DROP,
    FRAME_ENTRY,
    FRAME_SYNC,
    decode_drop,
    decode_sync,
    frame,
    sync_request,
)
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.limits import GAP_FILL_AFTER_MS

pytestmark = pytest.mark.game

SEED = b"gap fill"
#: Inside the first round of three players (the deal is done by entry 22).
LOST = 40


class Cut:
    """Drops the host's entry ``LOST`` to the last seat, and every sync request that seat
    sends the host; notes every sync request and when it was sent."""

    def __init__(self, *, hold_only: bool = False) -> None:
        self.hold_only = hold_only
        self.net: Network | None = None
        self.host = b""
        self.victim = b""
        self.held: bytes | None = None
        self.requests: list[tuple[bytes, int, int]] = []  # (to, seen, at_ms)
        self.lost_at_ms: int | None = None

    def __call__(self, sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        if not self.victim:
            return [data]
        now = self.net.now_ms if self.net is not None else 0
        if sender == self.victim and data[:1] == FRAME_SYNC:
            self.requests.append((recipient, decode_sync(data[1:]), now))
            return [] if recipient == self.host else [data]
        if sender != self.host or recipient != self.victim or data[:1] != FRAME_ENTRY:
            return [data]
        seq = Entry.decode(data[1:]).seq
        if seq == LOST:
            self.lost_at_ms = now
            if self.hold_only:
                self.held = data  # delivered after the next one: out of order, not lost
            return []
        if self.held is not None and seq == LOST + 1:
            held, self.held = self.held, None
            return [data, held]
        return [data]


def play(cut: Cut) -> Network:
    options = preset("official", ["target=1", "turn_timer=5"])  # one round: LOST is in it
    net = seat_table(TableSetup(3, options, SEED), cut)
    keys = list(net.peers)
    cut.net, cut.host, cut.victim = net, keys[0], keys[-1]
    net.run(until=game_over)
    return net


def ended_alike(net: Network) -> None:
    assert all(p.state.phase == TablePhase.ENDED and p.stopped is None
               for p in net.peers.values())
    assert len({tuple(p.ledger.digests) for p in net.peers.values()}) == 1
    assert not any(isinstance(e, PeerMisbehaved) for _, e in net.all_events())
    assert audit_entries(net.entries()).status == Status.OK


def requests_to(cut: Cut, who: Callable[[bytes], bool]) -> list[tuple[bytes, int, int]]:
    return [r for r in cut.requests if who(r[0])]


def test_an_entry_lost_to_one_seat_comes_from_another_member() -> None:
    cut = Cut()
    net = play(cut)
    assert cut.lost_at_ms is not None, "the game never reached the entry to lose"
    ended_alike(net)
    asked = requests_to(cut, lambda key: key != cut.host)
    assert asked, "the seat never asked the other member"
    _, seen, at_ms = asked[0]
    assert seen == LOST  # "the entries after our head": our head is the lost entry's number
    # Not before the gap is GAP_FILL_AFTER_MS old (it opened when the next entry came).
    assert at_ms >= cut.lost_at_ms + GAP_FILL_AFTER_MS


def test_entries_out_of_order_fill_themselves_and_ask_nobody() -> None:
    cut = Cut(hold_only=True)
    net = play(cut)
    assert cut.lost_at_ms is not None, "the game never reached the entry to hold"
    ended_alike(net)
    assert cut.requests == []


def test_any_member_answers_a_sync_request_and_only_the_sequencer_closes_it() -> None:
    """table.md §9.1: any member answers ``S [seen]`` with the entries after ``seen``
    that it holds; the sequencer also closes its answer with ``D synced``, whose counter
    is the asker's next message number (§2; counters go 0, 1, 2..., wire.md §3), and a
    member that is not the sequencer sends no ``D`` at all (only the sequencer's count
    is the truth)."""
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), b"sync answers"))
    net.run(until=lambda n: n.host.state.seq > 30)
    host = net.host
    asker, member = (p for p in net.peers.values() if not p.is_host)
    seen = 10
    request = frame(FRAME_SYNC, sync_request(seen))
    for answerer in (host, member):
        answerer.data_to_send()  # what it had queued before the request
        answerer.receive(request, net.now_ms, asker.peer_id)
        out = [o for o in answerer.data_to_send() if o.to == (asker.peer_id,)]
        entries = [Entry.decode(o.data[1:]) for o in out if o.data[:1] == FRAME_ENTRY]
        held = answerer.ledger.chain.entries
        assert [e.seq for e in entries] == list(range(seen, len(held)))
        drops = [decode_drop(o.data[1:]) for o in out if o.data[:1] == FRAME_DROP]
        if answerer is host:
            mine = sum(1 for e in held if e.author == asker.peer_id)
            assert [(d.counter, d.code) for d in drops] == [(mine, "synced")]
            assert out[-1].data[:1] == FRAME_DROP, "the closing D comes last"
        else:
            assert drops == []


def test_a_seat_that_takes_over_with_a_gap_open_stops_asking_for_it() -> None:
    # Nothing is ahead of the sequencer's own log: a gap open when this seat takes over
    # closes with the old term. It once stayed open, and the new sequencer asked every
    # member for every entry since the hand-over each second for the rest of the game.
    options = preset("official", ["target=30"])
    net = seat_table(TableSetup(3, options, b"gap at the hand-over"))
    host, bob, _ = net.peers.values()
    net.run(until=lambda n: host.state.phase == TablePhase.PLAYING)
    message = Message.sign(host.identity, host.table_id, 10_000, bob.ledger.head, Clock(1))
    ahead = Entry.countersign(host.identity, bob.state.seq + 60, bytes(32), message)
    bob.receive(frame(FRAME_ENTRY, ahead.encode()), net.now_ms, host.peer_id)
    net.flush(bob)
    assert len(bob.early) == 1, "a countersigned entry ahead of Bob's log is kept"
    net.silent.add(host.peer_id.key)
    net.run(until=lambda n: bob.is_host)
    assert bob.is_host, "Bob, the next seat, took over"
    asked: list[int] = []

    def note_requests(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        if sender == bob.peer_id.key and data[:1] == FRAME_SYNC:
            asked.append(net.now_ms)
        return [data]

    net.tamper = note_requests
    took_over = net.now_ms
    net.run(until=lambda n: n.now_ms > took_over + 60_000)
    assert asked == [], "the new sequencer asks nobody for what follows its own log"
