"""The pause between rounds (issue 25; table.md §6): a player's seat holds its first
shuffle of the next round until its player has closed the round's scores, or
``ROUND_PAUSE_MS`` has passed, so the next round (and its first turn's timer) never
runs behind the round-over box; bots and round 1 wait for nobody.

Bot peers on the in-memory network; one seat is made to pause as a person's seat
does (``pauses_between_rounds``, on for every seat without a bot). Times are the
network's clock (``Network.now_ms``), which jumps to each peer's next timer.
"""

from __future__ import annotations

import copy

import pytest

from tests.table.test_handover import MAX_STEPS
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import ShuffleDeck
from uno_p2p.table.events import RoundEnded
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.memnet import Network, TableSetup, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.wire.limits import ROUND_PAUSE_MS

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("test_round_pause")]

PLAYER = 1


def _table(seed: bytes, pausing: bool) -> tuple[Network, TablePeer]:
    net = seat_table(TableSetup(3, preset("official", ["target=500"]), seed,
                                preset="official"))
    player = list(net.peers.values())[PLAYER]
    player.initiative.pauses_between_rounds = pausing
    return net, player


def _round_one_over(net: Network, peer: TablePeer) -> bool:
    """``peer`` has seen round 1 end (its player's scores are shown now)."""
    return any(isinstance(e, RoundEnded) for e in net.events[peer.peer_id.key])


def _shuffled_round_two(net: Network, player: TablePeer) -> bool:
    return any(isinstance(e.body, ShuffleDeck) and e.author == player.peer_id
               and net.host.state.decks[e.body.shuffle].round == 2 for e in net.entries())


def _round_one_ended(seed: bytes, *, pausing: bool) -> Network:
    """The table as the player's seat sees round 1 end."""
    net, player = _table(seed, pausing)
    net.run(until=lambda n: _round_one_over(n, player), max_steps=MAX_STEPS)
    return net


@pytest.fixture(scope="module")
def pausing_at_round_end() -> Network:
    """Round 1 with a pausing player's seat, played once for the two tests of it (the
    pause only starts here); each test goes on from a copy of its own."""
    return _round_one_ended(b"round pause", pausing=True)


def _pause(net: Network, *, goes_on: bool = False) -> int:
    """How long after round 1's end the player's seat shuffled for round 2 (ms)."""
    player = list(net.peers.values())[PLAYER]
    ended = net.now_ms
    if goes_on:
        player.go_on()  # the player pressed Enter on the round's scores
        net.flush(player)
    net.run(until=lambda n: _shuffled_round_two(n, player), max_steps=MAX_STEPS)
    assert _shuffled_round_two(net, player)
    return net.now_ms - ended


def test_a_players_seat_waits_for_the_pause_before_the_next_round(
        pausing_at_round_end: Network) -> None:
    waited = _pause(copy.deepcopy(pausing_at_round_end))
    assert ROUND_PAUSE_MS <= waited < ROUND_PAUSE_MS + 2_000


def test_a_player_who_closes_the_scores_lets_the_next_round_begin_at_once(
        pausing_at_round_end: Network) -> None:
    assert _pause(copy.deepcopy(pausing_at_round_end), goes_on=True) < 1_000


def test_bots_wait_for_nobody_between_rounds() -> None:
    assert _pause(_round_one_ended(b"round pause", pausing=False)) < 1_000


def test_the_pause_is_shorter_than_a_lost_sequencer() -> None:
    # table.md §13.1: the sequencer's own seat holding its shuffle is owed work; the
    # pause must end before the members would hold it lost.
    assert ROUND_PAUSE_MS < HOST_LOST_AFTER_MS
