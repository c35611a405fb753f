"""The sequencer's own absence (table.md §6.3): a sequencer that reaches no other
seat, or whose timer fired long after it was due, times nobody out; the table's
time-outs come later than §6 allows them, never earlier, and never from a
sequencer alone."""

from __future__ import annotations

from uno_p2p.crypto.identity import PeerId
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Abort, Handover, Remove
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.sequencer import QUIET_AFTER_AWAY_MS, WAKE_GRACE_MS, WOKE_LATE_MS, Sequencer

#: Away by this much, by table.md §6.3.
LATE_MS = WOKE_LATE_MS
GRACE_MS = WAKE_GRACE_MS


def _table(silent: int, start_ms: int = 0) -> tuple[Network, list[PeerId]]:
    """Three bots; the last ``silent`` seats vanish right after the start."""
    net = seat_table(TableSetup(3, preset("official", ["turn_timer=30", "target=60"]), b"absent",
                                start_ms=start_ms))
    seats = list(net.host.state.seats)
    for peer in seats[3 - silent:]:
        net.silent.add(peer.key)
    return net, seats


def _sequencer(host: TablePeer) -> Sequencer:
    assert host.sequencer is not None
    return host.sequencer


def _was_alone(sequencer: Sequencer) -> bool:
    """Whether ``sequencer`` counts itself alone now (a call, so that a check after a
    step is not taken for one made before it)."""
    return sequencer.was_alone


def _time_outs(net: Network) -> list[object]:
    return [e.body for e in net.entries() if isinstance(e.body, Remove | Abort)]


def _waiting(net: Network) -> int:
    """Run until the table waits on the sequencer's timer alone; return when it is due."""
    sequencer = _sequencer(net.host)
    net.run(until=lambda n: not n.queue and sequencer.next_timer() is not None,
            max_steps=100_000)
    due = sequencer.next_timer()
    assert due is not None
    assert not net.queue
    return due


def test_a_sequencer_that_reaches_nobody_times_nobody_out() -> None:
    net, seats = _table(silent=2)
    for peer in seats[1:]:
        net.host.peer_lost(peer)
    net.run(max_steps=100_000)
    assert _sequencer(net.host).next_timer() is None
    assert _time_outs(net) == []
    # One seat in reach again: first the grace (the entries it brings may tell of a
    # hand-over), then the table's time-outs run as §6 says.
    net.host.peer_back(seats[1])
    due = _sequencer(net.host).next_timer()
    assert due is not None
    net.host.handle_timer(due)
    assert _time_outs(net) == []
    assert _sequencer(net.host).next_timer() == due + GRACE_MS
    net.run(max_steps=100_000)
    removed = [b for b in _time_outs(net) if isinstance(b, Remove)]
    assert removed
    assert removed[0].peer in seats[1:]


def test_one_seat_in_reach_is_enough_for_the_time_outs() -> None:
    net, seats = _table(silent=1)
    net.host.peer_lost(seats[2])
    net.run(max_steps=100_000)
    removed = [b for b in _time_outs(net) if isinstance(b, Remove)]
    assert [r.peer for r in removed] == [seats[2]]


def test_a_timer_that_fired_late_waits_the_grace_first() -> None:
    net, seats = _table(silent=1)
    due = _waiting(net)
    before = len(net.entries())
    net.host.handle_timer(due + LATE_MS)
    assert len(net.entries()) == before
    assert _sequencer(net.host).next_timer() == due + LATE_MS + GRACE_MS
    net.host.handle_timer(due + LATE_MS + GRACE_MS - 1)
    assert len(net.entries()) == before
    net.host.handle_timer(due + LATE_MS + GRACE_MS)
    assert [b.peer for b in _time_outs(net) if isinstance(b, Remove)] == [seats[2]]


def test_a_timer_late_by_less_acts_at_once() -> None:
    net, seats = _table(silent=1)
    due = _waiting(net)
    net.host.handle_timer(due + LATE_MS - 1)
    assert [b.peer for b in _time_outs(net) if isinstance(b, Remove)] == [seats[2]]


def test_a_gap_in_the_shells_word_that_it_runs_is_the_machine_away() -> None:
    """The shell says it runs every fraction of a second (``awake``): a timer that comes
    on time right after a long gap (a pause as long as the wait) still waits the grace;
    one that comes after steady word acts at once."""
    net, seats = _table(silent=1)
    due = _waiting(net)
    net.host.awake(due - LATE_MS - 1)
    net.host.handle_timer(due)
    assert _time_outs(net) == []
    assert _sequencer(net.host).next_timer() == due + GRACE_MS
    net, seats = _table(silent=1)
    due = _waiting(net)
    net.host.awake(due - LATE_MS + 1)
    net.host.handle_timer(due)
    assert [b.peer for b in _time_outs(net) if isinstance(b, Remove)] == [seats[2]]


#: Entries into the first round (past the deal), where the away begins.
AWAY_AT = 40
#: A shell's clock (0 is "the shell never says it runs").
START_MS = 1_000_000


def _away(ms: int) -> tuple[Network, Sequencer, int, int]:
    """Three honest bots; the host's machine away for ``ms`` at entry ``AWAY_AT``, then
    the frames the others sent meanwhile, handed in before the shell's next word (as
    the frames that waited in its socket come first on waking)."""
    net, _ = _table(silent=0, start_ms=START_MS)
    net.run(until=lambda n: len(n.entries()) >= AWAY_AT, max_steps=100_000)
    net.host.awake(net.now_ms)
    before = len(net.entries())
    woke = net.now_ms = net.now_ms + ms
    for _ in range(10_000):
        if not net.queue:
            break
        net.step()
    return net, _sequencer(net.host), before, woke


def _logs_agree(net: Network) -> None:
    logs = {key: net.entries(peer) for key, peer in net.peers.items()}
    assert len(set(logs.values())) == 1


def test_a_sequencer_back_from_a_long_away_logs_nothing_and_follows_the_hand_over() -> None:
    """Away as long as the hand-over time-out (table.md §13.1), the host logs nothing on
    its old view, its own seat's move included (§6.3): the others hand the table on,
    it follows, and nobody is timed out."""
    net, sequencer, before, woke = _away(HOST_LOST_AFTER_MS)
    assert len(net.entries()) == before
    assert sequencer.quiet(woke)
    assert sequencer.next_timer() == woke + GRACE_MS
    old = net.host.peer_id
    net.run(max_steps=200_000)
    first = net.entries()[before]
    assert isinstance(first.body, Handover), first.body
    assert first.body.old == old
    assert _time_outs(net) == []
    assert game_over(net)
    _logs_agree(net)


def test_a_shorter_away_holds_the_time_outs_only() -> None:
    """Away for less (a starved core): no member can have voted, so the host logs what
    came at once; only its time-outs wait the grace."""
    net, sequencer, before, woke = _away(HOST_LOST_AFTER_MS - 1)
    assert len(net.entries()) > before
    assert not sequencer.quiet(woke)
    net.run(max_steps=200_000)
    assert not [e for e in net.entries() if isinstance(e.body, Handover)]
    assert _time_outs(net) == []
    assert game_over(net)
    _logs_agree(net)


def test_a_sequencer_alone_is_quiet_and_one_seat_back_ends_it() -> None:
    net, seats = _table(silent=2)
    sequencer = _sequencer(net.host)
    for peer in seats[1:]:
        net.host.peer_lost(peer)
    assert sequencer.quiet(net.now_ms)
    net.host.peer_back(seats[1])
    assert not sequencer.quiet(net.now_ms)


def test_the_old_host_held_gone_at_a_hand_over_is_lost_as_any_seat() -> None:
    """§14.1 and §6.3: after a hand-over the new sequencer holds the old host gone
    (``depose``), lost as a seat the shell reports: if every other seat is out of reach
    already, it is now alone. It times nobody out, and once a seat is back the first
    time-out waits the grace, even the old host's removal that is otherwise at once."""
    net, seats = _table(silent=2)
    sequencer = _sequencer(net.host)
    net.host.peer_lost(seats[2])
    assert not _was_alone(sequencer), "one seat still in reach"
    sequencer.depose(seats[1].key)
    assert _was_alone(sequencer)
    assert sequencer.gone == {seats[1].key}
    net.run(max_steps=100_000)
    assert sequencer.next_timer() is None
    assert _time_outs(net) == []
    net.host.peer_back(seats[2])
    due = sequencer.next_timer()
    assert due is not None
    net.host.handle_timer(due)
    assert _time_outs(net) == [], "the grace first: the entries Cy brings may tell of more"
    assert sequencer.next_timer() == due + GRACE_MS


def test_asking_whether_quiet_changes_nothing_input_heard_after_a_long_gap_does() -> None:
    """§6.3: ``quiet`` only reads. The shell's input after a gap as long as
    ``QUIET_AFTER_AWAY_MS`` (``heard``, before anything is logged) is what starts the
    quiet, as the shell's own ``awake`` would; asking first, however late, does not."""
    net, _ = _table(silent=0, start_ms=START_MS)
    sequencer = _sequencer(net.host)
    net.host.awake(START_MS)
    woke = START_MS + QUIET_AFTER_AWAY_MS
    before = (sequencer.awake_ms, sequencer.hold_until_ms, sequencer.quiet_until_ms)
    assert not sequencer.quiet(woke)
    assert not sequencer.quiet(woke)
    assert (sequencer.awake_ms, sequencer.hold_until_ms, sequencer.quiet_until_ms) == before
    sequencer.heard(woke)
    assert sequencer.quiet(woke)
    assert sequencer.quiet_until_ms == woke + GRACE_MS
    assert not sequencer.quiet(woke + GRACE_MS)
