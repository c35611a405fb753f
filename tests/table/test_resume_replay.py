"""Replay is the same code: a restarted peer and an observer rebuild the game from its log.

Determinism: a game replayed from its log gives the digests every peer
recorded; a peer that crashes mid-game and resumes from its saved entries
(same identity and entropy) relearns its hand and finishes the game with
the others, ending on the same log.
"""

from __future__ import annotations

import pytest

from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.options import preset
from uno_p2p.table.events import GameEnded, PeerMisbehaved
from uno_p2p.table.frames import FRAME_VOTE
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.memnet import NAMES, TableSetup, game_over, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.replay import replay
from uno_p2p.table.state import TablePhase

pytestmark = pytest.mark.game


def test_an_observer_replaying_the_log_computes_every_peers_digests() -> None:
    # A game of one round: the observer replays it to its end as it would a longer one.
    net = seat_table(TableSetup(2, preset("house", ["target=1"]), b"determinism"))
    net.run(until=game_over)
    result = replay(net.entries())
    assert result.violation is None
    for peer in net.peers.values():
        assert peer.ledger.digests == result.digests
    assert result.scores == net.host.state.game.scores
    assert result.winner == net.host.state.game.winner
    assert result.ended
    assert result.audit == ""
    again = replay(net.entries())
    assert again.digests == result.digests


def test_a_peer_resumed_from_its_log_finishes_the_game_with_the_others() -> None:
    seed = b"resume"
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), seed))
    net.run(until=lambda n: n.host.state.engine is not None
             and n.host.state.engine.round >= 1 and n.host.state.seq > 40)
    old = next(p for p in net.peers.values() if p.state.my_seat == 2)
    saved = old.ledger.chain.entries
    hand = old.state.game.hand_faces(2)
    resumed = TablePeer.resume(Identity(seeded(seed, "identity 2")), seeded(seed, "entropy 2"),
                               saved, name=NAMES[2], bot="heuristic",
                               nonce=seeded(seed, "nonce 2", 16))
    assert resumed.state.game.hand_faces(2) == hand, "the hand is relearned from the log"
    assert resumed.ledger.digests == old.ledger.digests
    net.peers[old.peer_id.key] = resumed
    net.events[old.peer_id.key] = []
    net.flush(resumed)
    net.run(until=game_over)
    assert resumed.state.phase == TablePhase.ENDED
    assert {p.ledger.chain.entries for p in net.peers.values()} == {net.entries()}
    assert not any(isinstance(e, PeerMisbehaved) for _, e in net.all_events())


def test_a_peer_leaving_mid_game_releases_its_key_and_the_game_stops_audited() -> None:
    # table.md §8: at two players the others cannot play on, so a leave stops the game
    # (at three and more the leaver is removed instead: tests/table/test_leaving.py).
    net = seat_table(TableSetup(2, preset("official", ["target=200"]), b"leaver"))
    net.run(until=lambda n: n.host.state.engine is not None
             and n.host.state.engine.phase.value == "playing" and n.host.state.seq > 25)
    leaver = next(p for p in net.peers.values() if p.state.my_seat == 1)
    while leaver.outstanding is not None:
        net.step()
    leaver.leave("dinner is ready")
    net.flush(leaver)
    net.run(until=game_over)
    for peer in net.peers.values():
        assert peer.state.phase == TablePhase.ENDED
        assert peer.stopped is None
    ended = [e for _, e in net.all_events() if isinstance(e, GameEnded)]
    assert len(ended) == 2
    assert all(e.winner == -1 and "left" in e.stopped for e in ended)
    assert all(e.audit == "" for e in ended), "every shuffle is proven: all reveals are in"
    result = replay(net.entries())
    assert result.violation is None
    assert "Bob left" in result.stopped


def test_a_peer_resumed_late_in_the_day_does_not_hold_the_sequencer_lost_at_once() -> None:
    """table.md §13.1: the time a resumed seat waits for the sequencer runs from when it
    came back (the shell's clock), not from the epoch. Resumed at a wall-clock time, it
    used to vote the sequencer gone at its first timer, as if it had waited for hours."""
    seed = b"resume late"
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), seed))
    net.run(until=lambda n: n.host.state.engine is not None and n.host.state.seq > 40)
    old = next(p for p in net.peers.values() if p.state.my_seat == 2)
    now = 1_780_000_000_000  # a wall clock in December 2026
    resumed = TablePeer.resume(Identity(seeded(seed, "identity 2")), seeded(seed, "entropy 2"),
                               old.ledger.chain.entries, name=NAMES[2], bot="heuristic",
                               nonce=seeded(seed, "nonce 2", 16), now_ms=now)
    resumed.data_to_send()
    due = resumed.next_timer()
    assert due is None or due >= now + HOST_LOST_AFTER_MS
    resumed.handle_timer(now + 1)
    assert resumed.succession.election is None
    assert not [o for o in resumed.data_to_send() if o.data[:1] == FRAME_VOTE]


def test_a_sequencer_resumed_from_its_log_counts_the_tables_progress_from_its_return() -> None:
    """table.md §9, §13.3: a seat whose log holds the hand-over that made it the
    sequencer is the sequencer again once resumed, and its response time-out runs from
    when it came back (the shell's clock), not from the epoch: else it would time out
    at its first timer every seat the table waits for."""
    seed = b"resumed sequencer"
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), seed))
    net.run(until=lambda n: n.host.state.engine is not None and n.host.state.seq > 30)
    old_host = net.host
    net.silent.add(old_host.peer_id.key)
    net.run(until=lambda n: any(p.is_host for p in n.peers.values() if p is not old_host),
            max_steps=200_000)
    new = next(p for p in net.peers.values() if p.is_host and p is not old_host)
    seat = next(i for i in range(3) if Identity(seeded(seed, f"identity {i}")).peer == new.peer_id)
    back_ms = net.now_ms + 10 * HOST_LOST_AFTER_MS
    resumed = TablePeer.resume(Identity(seeded(seed, f"identity {seat}")),
                               seeded(seed, f"entropy {seat}"), new.ledger.chain.entries,
                               name=NAMES[seat], bot="heuristic",
                               nonce=seeded(seed, f"nonce {seat}", 16), now_ms=back_ms)
    assert resumed.state.term == 1
    assert resumed.sequencer is not None
    assert resumed.sequencer.last_progress_ms == back_ms
