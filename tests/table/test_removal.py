"""A player who vanishes does not end the game (issue 14; table.md §14, rules.md).

A seat's peer is cut off at each phase (the in-memory network drops every
frame to it, and the shell tells the others its links are down). What a
player would check: the table removes it once it waits for it, the round
under way is void and a new one is dealt among the players left, the game
ends with a winner among them, every remaining peer holds the same log, and
the audit verifies it, naming who left, when, and the final scores.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.audit.test_report_schema import SCHEMA, errors
from tests.table.test_handover import MAX_STEPS, PHASES
from tests.table.test_refusals_carry_evidence import playing_table
from uno_p2p.audit import walk
from uno_p2p.audit.core import audit_entries
from uno_p2p.audit.report import Status
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Move, Remove
from uno_p2p.table.events import PeerMisbehaved, PlayerRemoved, RoundEnded
from uno_p2p.table.ledger import check_message, refused
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.sequencer import RESPONSE_TIMEOUT_MS
from uno_p2p.table.state import Misbehaviour, TablePhase
from uno_p2p.wire.envelope import Message

pytestmark = pytest.mark.game

VICTIM = 2


def _table(seed: bytes, players: int, target: int) -> Network:
    options = preset("official", [f"target={target}"])
    return seat_table(TableSetup(players, options, seed, preset="official"))


def _vanish(net: Network, victim: TablePeer) -> None:
    key = victim.peer_id.key
    net.silent.add(key)
    # The shell holds a peer lost once its links stayed quiet past the time-out: by then
    # the frames it sent before it vanished have arrived (a frame from a peer is a sign
    # it is back, table.md §14). FIFO delivery: they leave the queue in bounded steps.
    net.run(until=lambda n: all(sender != key for sender, _, _ in n.queue),
            max_steps=MAX_STEPS)
    for peer in net.peers.values():
        if peer is not victim:
            peer.peer_lost(victim.peer_id)  # the shell's link time-out
            net.flush(peer)


def _live(net: Network) -> list[TablePeer]:
    return [p for k, p in net.peers.items() if k not in net.silent]


def _finish_without(net: Network, victim: TablePeer) -> list[TablePeer]:
    """``victim`` vanishes; the others play on to the end and hold one log. Returns them."""
    _vanish(net, victim)
    net.run(until=game_over, max_steps=MAX_STEPS)
    live = _live(net)
    assert len({tuple(e.hash for e in net.entries(p)) for p in live}) == 1
    return live


#: The phases whose game runs longest before and after the vanishing (5 to 9 s of CPU
#: each): the whole suite plays them, scripts/test --quick the keys, the shuffle and the
#: deal (and test_removal_steps, test_removal_rules_refused: the rules step by step).
SLOW_PHASES = frozenset({"mid-round", "round end", "challenge"})


@pytest.mark.parametrize("phase", [
    pytest.param(p, marks=[pytest.mark.slow] if p in SLOW_PHASES else [])
    for p in PHASES if p != "final reveal"])
def test_a_player_vanishes_and_the_others_finish_the_game(phase: str) -> None:
    # Seeds and targets so that the phase comes before the game's end (a challenge early
    # with this seed; a round end that does not end the game).
    target = {"round end": 150}.get(phase, 30)
    net = _table(b"challenge 6", 3, 100) if phase == "challenge" else \
        _table(b"removal " + phase.encode(), 4, target)
    host = net.host
    net.run(until=lambda n: PHASES[phase](host.state), max_steps=MAX_STEPS)
    assert PHASES[phase](host.state), f"the game reached {phase}"
    victim = list(net.peers.values())[VICTIM]
    round_then = 0 if host.state.engine is None else host.state.engine.round
    live = _finish_without(net, victim)
    assert all(p.state.phase == TablePhase.ENDED and p.stopped is None for p in live)
    assert not any(isinstance(e, PeerMisbehaved) for _, e in net.all_events())
    state = live[0].state
    assert victim.peer_id not in state.seats
    assert victim.name not in state.player_names
    assert state.game.winner is not None, "the players left play the game to its end"
    assert state.audit_error == "", "every deck after the removal re-executed"
    removals = [e.body for e in net.entries(host) if isinstance(e.body, Remove)]
    assert [r.peer for r in removals] == [victim.peer_id]
    removed = [e for e in net.events[host.peer_id.key] if isinstance(e, PlayerRemoved)]
    assert [e.name for e in removed] == [victim.name]
    # Its last message may have been on its way: then the next round is the one void.
    voided = removed[0].round
    assert voided in (round_then, round_then + 1)
    if voided:
        void = [e for e in net.events[host.peer_id.key]
                if isinstance(e, RoundEnded) and e.round == voided]
        assert [e.winner for e in void] == [-1], "the round under way is void"

    report = audit_entries(net.entries(host))
    assert report.status == Status.OK, report.lines()
    assert [(r.name, r.round) for r in report.removed] == [(victim.name, voided)]
    assert report.winner in state.player_names
    assert list(report.scores) == list(state.game.scores)
    assert len(report.scores) == len(state.seats)


@pytest.mark.slow  # a whole game to its final reveal (7 s of CPU)
def test_a_player_who_vanishes_during_the_final_reveal_is_named_by_the_closing_entry() -> None:
    net = _table(b"removal final reveal", 4, 30)
    host = net.host
    net.run(until=lambda n: host.state.phase == TablePhase.REVEALING, max_steps=MAX_STEPS)
    victim = list(net.peers.values())[VICTIM]
    live = _finish_without(net, victim)
    assert all(p.state.phase == TablePhase.ENDED for p in live)
    report = audit_entries(net.entries(host))
    # The game was won; only the proof of its shuffles is missing, and that is named.
    assert report.status == Status.ABORTED
    assert report.violation is not None
    assert report.violation.code == "missing_reveal"
    assert report.violation.peer is not None
    assert report.violation.peer.name == victim.name
    assert report.winner is None
    assert len(report.scores) == 4


def test_the_host_vanishes_for_good_the_next_seat_takes_over_and_removes_it() -> None:
    net = _table(b"host gone for good", 4, 30)
    host = net.host
    net.run(until=lambda n: host.state.seq > 60, max_steps=MAX_STEPS)
    # Until every other peer holds the removal (that the others then finish the game is
    # test_a_player_vanishes_and_the_others_finish_the_game's).
    _vanish(net, host)
    live = _live(net)
    net.run(until=lambda n: all(any(isinstance(e.body, Remove) for e in n.entries(p))
                                for p in live), max_steps=MAX_STEPS)
    logs = [tuple(e.hash for e in net.entries(p)) for p in live]
    shortest = min(logs, key=len)
    assert all(log[:len(shortest)] == shortest for log in logs), "every log agrees so far"
    assert all(p.stopped is None for p in live)
    assert not any(isinstance(e, PeerMisbehaved) for _, e in net.all_events())
    state = live[0].state
    assert state.player_names == ("Bob", "Cy", "Di")
    report = audit_entries(net.entries(live[0]))
    assert report.status == Status.UNFINISHED, report.lines()
    assert report.violation is None
    assert [(h.old, h.new) for h in report.handovers] == [("Ann", "Bob")]
    assert [r.name for r in report.removed] == ["Ann"]
    assert report.handovers[0].entry < report.removed[0].entry
    # table.md §14.1: a majority held the old host gone already, so the new sequencer
    # does not wait the response time-out for it again.
    clock = {step.entry.seq: step.after.clock_ms for step in walk(net.entries(live[0]))}
    assert clock[report.removed[0].entry] - clock[report.handovers[0].entry] < \
        RESPONSE_TIMEOUT_MS
    document = report.to_json()
    assert errors(document, SCHEMA) == [], "the --json report keeps its schema"
    assert document["handovers"] == [{"entry": report.handovers[0].entry, "term": 1,
                                      "from": "Ann", "to": "Bob"}]
    assert document["removed"] == [{"entry": report.removed[0].entry, "name": "Ann",
                                    "round": report.removed[0].round}]


def test_a_removed_player_who_comes_back_watches_the_rest() -> None:
    net = _table(b"removal comes back", 4, 30)
    host = net.host
    net.run(until=lambda n: host.state.seq > 60, max_steps=MAX_STEPS)
    victim = list(net.peers.values())[VICTIM]
    _vanish(net, victim)
    net.run(until=lambda n: victim.peer_id not in host.state.seats, max_steps=MAX_STEPS)
    net.silent.discard(victim.peer_id.key)
    victim.rejoin()
    net.flush(victim)
    net.run(until=game_over, max_steps=MAX_STEPS)
    assert net.entries(victim) == net.entries(host), "it caught up with the whole log"
    assert victim.state.my_seat is None, "it watches: no seat, no hand, no turn"
    assert victim.state.phase == TablePhase.ENDED
    assert not any(isinstance(e, PeerMisbehaved) for _, e in net.all_events())


@pytest.mark.slow  # three whole games (8 s of CPU)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.integers(min_value=8, max_value=160), seat=st.integers(min_value=0, max_value=3))
def test_wherever_a_player_vanishes_the_others_finish_the_same(cut: int, seat: int) -> None:
    net = _table(b"removal property", 4, 30)
    host = net.host
    net.run(until=lambda n: host.state.seq >= cut or host.state.phase == TablePhase.ENDED,
            max_steps=MAX_STEPS)
    victim = list(net.peers.values())[seat]
    live = _finish_without(net, victim)
    assert all(p.state.phase == TablePhase.ENDED for p in live)
    report = audit_entries(net.entries(live[0]))
    # A winner among the others, or (vanished during the final reveal) the closing entry.
    assert report.status in (Status.OK, Status.ABORTED), report.lines()
    if report.status == Status.ABORTED:
        assert report.violation is not None
        assert report.violation.code == "missing_reveal"


def test_a_move_signed_before_a_removal_renumbered_the_seats_is_a_race_not_a_lie() -> None:
    """table.md §5.3, §14.2: after a removal the seats close up, so a move signed just
    before it names its author's old seat number. Judged at its author's head it was
    the author's own seat: the sequencer drops it (a race) and never names the author
    (a loaded run once convicted an honest seat of ``wrong_seat`` this way)."""
    net = _table(b"removal renumbers", 4, 30)
    host = net.host
    net.run(until=lambda n: host.state.seq > 60, max_steps=MAX_STEPS)
    first_victim = list(net.peers.values())[1]
    _vanish(net, first_victim)
    net.run(until=lambda n: first_victim.peer_id not in host.state.seats,
            max_steps=MAX_STEPS)
    entries = host.ledger.chain.entries
    removal = next(e.seq for e in entries if isinstance(e.message.body, Remove))
    last = list(net.peers.values())[3]  # seat 3 before the removal, seat 2 after it
    moves = [e for e in entries[:removal]
             if e.message.author == last.peer_id and isinstance(e.message.body, Move)
             and getattr(e.message.body.action, "seat", None) == 3]
    assert moves, "the last seat moved before the removal"
    before = moves[-1].message
    # The same move again, signed at the same head: legal there, in seat 3's name.
    again = Message.sign(last.identity, host.state.table_id, last.counter, before.head,
                         before.body)
    assert not refused(host.state, again, host.ledger.view)
    with pytest.raises(Misbehaviour) as caught:  # now, in seat 3's name, it is not its seat
        check_message(host.state, again, host.ledger.view)
    assert caught.value.code in ("wrong_seat", "illegal_move")


def test_a_removal_names_the_round_it_voids() -> None:
    net = playing_table(b"fifth sample removal", 3)
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
