"""Every decision a player owes counts down, on the screen as at the sequencer.

RULES.md ``turn_timer``: "Every decision a player owes ... is covered by
turn_timer, so no table can stall": a turn, a challenge verdict, a starter
Wild's colour. The sequencer times out on ``duties.turn_deadline``, and the
player's screen (``NetSession.deadline_ms``) must show the same moment, or a
player deciding a challenge sees no countdown and is timed out without warning.

Found by CI: a network session whose turn began with a Wild Draw Four's
verdict showed no deadline, because the session read only ``Phase.PLAYING``.
"""

from __future__ import annotations

import pytest

from tests.table import adversaries as adv
from uno_p2p.net.driver import Driver
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import TIMED_PHASES, Phase
from uno_p2p.table.duties import turn_deadline, waiting_for
from uno_p2p.table.memnet import Network, TableSetup, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.player import Seat
from uno_p2p.ui.netsession import NetSession

pytestmark = pytest.mark.game

TIMER_S = 30
MAX_STEPS = 200_000


def _session(peer: TablePeer) -> NetSession:
    session = NetSession("a test table")
    session.driver = Driver(peer, None, on_event=lambda event: None, on_note=lambda text: None)
    return session


def _owes(peer: TablePeer, phase: Phase) -> bool:
    """This peer's game waits for a player's ``phase`` decision, and for no peer's work."""
    ts = peer.state
    return ts.engine is not None and ts.engine.phase == phase and not waiting_for(ts)


def _check(peer: TablePeer) -> bool:
    """What this peer's sequencer and screen say of the decision owed; True if its own."""
    game = peer.state.engine
    assert game is not None
    expected = game.turn_started_ms + TIMER_S * 1000
    assert turn_deadline(peer.state) == expected
    session = _session(peer)
    # Only the seat that owes the decision sees its own countdown in the centre; the
    # others see it beside that player's name.
    mine, theirs = session.deadline_ms(), session.table_status().turn_ends_ms
    if peer.state.my_seat == game.current:
        assert (mine, theirs) == (expected, None)
        return True
    assert (mine, theirs) == (None, expected)
    return False


def _watch(seed: bytes, phase: Phase) -> tuple[Network, set[bool]]:
    """Play until both a decider and an onlooker were checked while their logs owed
    ``phase``. Peers lag one another, so each is read at its own head: an onlooker after
    each delivery, the decider just before its bot decides (a bot acts within the
    delivery that hands it the decision). Returns which of the two were seen."""
    seen: set[bool] = set()

    class Watched(adv.Playing):
        def move(self, seat: Seat) -> bool:
            if _owes(self, phase):
                seen.add(_check(self))
            return super().move(seat)

    options = preset("official", ["target=100", f"turn_timer={TIMER_S}"])
    net = seat_table(TableSetup(3, options, seed, preset="official"), peer_class=Watched)

    def look(n: Network) -> bool:
        seen.update(_check(peer) for peer in n.peers.values() if _owes(peer, phase))
        return seen == {True, False}

    net.run(until=look, max_steps=MAX_STEPS)
    return net, seen


def test_a_challenge_verdict_counts_down_for_the_challenger() -> None:
    # A seed whose bots reach a Wild Draw Four challenge early (as in test_handover).
    _, seen = _watch(b"challenge 6", Phase.CHALLENGE)
    assert seen == {True, False}


def test_a_turn_counts_down_and_a_peer_s_work_stops_the_clock() -> None:
    net, seen = _watch(b"a turn's countdown", Phase.PLAYING)
    assert seen == {True, False}
    # While the table waits for a peer's shares (a drawn card's face, a deal), the player
    # still sees the decision's moment (the time-out can only come later), and the
    # sequencer does not time the player out: the game waits for the peer's work.
    waits = 0

    def look(n: Network) -> bool:
        nonlocal waits
        for peer in n.peers.values():
            game = peer.state.engine
            if game is None or not waiting_for(peer.state) or game.phase not in TIMED_PHASES:
                continue
            deadline = game.turn_started_ms + TIMER_S * 1000
            assert turn_deadline(peer.state) == deadline
            assert peer.sequencer is None or peer.sequencer.next_timer() != deadline
            waits += 1
        return waits >= 10

    net.run(until=look, max_steps=MAX_STEPS)
    assert waits >= 10
