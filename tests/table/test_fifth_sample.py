"""What a player is told when a seat vanishes, the sequencer forks, or a drop notice is
malformed (the table's seed-18 mutation sample, docs/testing.md).

- table.md §14.2 and ``PlayerRemoved``: the event names the round the removal
  voids, the same round whose ``RoundEnded`` has winner -1.
- table.md §7.4 and wire.md §4: two countersigned entries at one number are a
  fork, blamed on the sequencer; the player reads which number.
- ``Ledger.state_at``: a peer remembers the states after the last ``HISTORY``
  entries only, so a long game does not grow what it holds.
- table.md §3.1: a ``D`` frame is ``[counter, code, reason]``, code and reason
  text; one that is not is a fault of the sequencer (net.md: ``invalid_frame``)
  that says it was the drop notice that was malformed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from uno_p2p.rules.options import preset
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Clock
from uno_p2p.table.events import PeerMisbehaved, PlayerRemoved, RoundEnded
from uno_p2p.table.frames import FRAME_DROP, FRAME_ENTRY, frame
from uno_p2p.table.ledger import HISTORY, Ledger
from uno_p2p.table.memnet import Network, TableSetup, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.codec import pack
from uno_p2p.wire.envelope import Entry, Message

MAX_STEPS = 20_000
DATA = Path(__file__).resolve().parent.parent / "data"


def _playing(seed: bytes, players: int) -> Network:
    net = seat_table(TableSetup(players, preset("official", ["target=100"]), seed))
    net.run(until=lambda n: n.host.state.phase == TablePhase.PLAYING
            and n.host.state.engine is not None and n.host.state.engine.round >= 1
            and n.host.state.seq > 30, max_steps=MAX_STEPS)
    engine = net.host.state.engine
    assert engine is not None
    assert engine.round >= 1, "a round is under way"
    return net


def _guest(net: Network) -> TablePeer:
    return next(p for p in net.peers.values() if not p.is_host)


def test_a_removal_names_the_round_it_voids() -> None:
    net = _playing(b"fifth sample removal", 3)
    victim = list(net.peers.values())[2]
    key = victim.peer_id.key
    net.silent.add(key)
    net.run(until=lambda n: all(sender != key for sender, _, _ in n.queue),
            max_steps=MAX_STEPS)
    for peer in net.peers.values():
        if peer is not victim:
            peer.peer_lost(victim.peer_id)  # the shell's link time-out (table.md §14.1)
            net.flush(peer)
    host = net.host
    net.run(until=lambda n: any(isinstance(e, PlayerRemoved)
                                for e in n.events[host.peer_id.key]), max_steps=MAX_STEPS)
    events = net.events[host.peer_id.key]
    removed = [e for e in events if isinstance(e, PlayerRemoved)]
    assert [e.name for e in removed] == [victim.name]
    void = [e.round for e in events if isinstance(e, RoundEnded) and e.winner == -1]
    assert void, "the round under way is void (table.md §14.2)"
    assert removed[0].round == void[0] >= 1


def test_a_fork_is_blamed_on_the_sequencer_naming_the_number() -> None:
    net = _playing(b"fifth sample fork", 2)
    host, guest = net.host, _guest(net)
    entries = net.entries(guest)
    at = 12
    # Another entry countersigned by the sequencer at a number the guest already holds.
    other = Message.sign(host.identity, host.table_id, 50_000, entries[at - 1].message.head,
                         Clock(net.now_ms + 1))
    fork = Entry.countersign(host.identity, at, entries[at - 1].hash, other)
    assert fork.hash != entries[at].hash
    guest.receive(frame(FRAME_ENTRY, fork.encode()), net.now_ms, host.peer_id)
    assert guest.stopped is not None, "a fork stops the peer (table.md §7.4)"
    told = [e for e in net.events[guest.peer_id.key] + guest.events()
            if isinstance(e, PeerMisbehaved)]
    assert [(e.peer, e.code, e.entry) for e in told] == [(host.peer_id, "sequencer_fork", at)]
    # The evidence: both entries the sequencer signed with that number (table.md §7.4).
    assert set(told[0].evidence) == {entries[at], fork}
    assert told[0].name == "Ann"
    assert str(at) in told[0].reason
    assert "two different entries" in told[0].reason


@pytest.mark.parametrize(("code", "reason"), [("race", 7), (7, "late")])
def test_a_drop_notice_without_text_is_named_as_a_malformed_drop_notice(
        code: int | str, reason: int | str) -> None:
    net = _playing(b"fifth sample drop", 2)
    host, guest = net.host, _guest(net)
    guest.receive(frame(FRAME_DROP, pack([3, code, reason])), net.now_ms, host.peer_id)
    told = [e for e in guest.events() if isinstance(e, PeerMisbehaved)]
    assert [(e.peer, e.code) for e in told] == [(host.peer_id, "invalid_frame")]
    assert told[0].name == "Ann", "the sequencer by the name it joined under"
    assert "drop notice" in told[0].reason


def test_a_long_game_leaves_a_peer_only_the_last_states_it_may_need() -> None:
    """A peer keeps the table's state after each of the last ``HISTORY`` entries (what a
    late message's head may point at, ``Ledger.state_at``), never every state of a
    long game: what it holds stays bounded (issue 10's h11 invariant)."""
    entries = read_log(DATA / "honest-3p-bluffs.unolog").entries
    assert len(entries) > HISTORY + 50
    ledger = Ledger(entries[0].message.table_id, entries[0].author)
    for entry in entries:
        ledger.accept(entry)
    last = len(entries)
    assert ledger.state_at(last) is ledger.state
    assert ledger.state_at(last - HISTORY + 1) is not None
    assert ledger.state_at(last - HISTORY) is None
    assert ledger.state_at(0) is None
