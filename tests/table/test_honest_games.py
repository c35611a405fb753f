"""Whole honest games among bot peers through the full protocol (issue 5).

Every game runs through the real codec, signatures, deck and engine; each
test checks what a player would: the game ended with a winner at the
target, the end-of-game audit re-executed every shuffle, and every peer
holds the same log and computed the same public digest after every entry.
"""

from __future__ import annotations

import pytest

from uno_p2p.rules.options import preset
from uno_p2p.table.events import GameEnded, PeerMisbehaved
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.state import TablePhase


def play(players: int, preset_name: str, overrides: list[str], seed: bytes) -> Network:
    options = preset(preset_name, overrides)
    net = seat_table(TableSetup(players, options, seed, preset=preset_name))
    net.run(until=game_over)
    return net


def assert_agreed_and_won(net: Network) -> None:
    host = net.host
    logs = {tuple(e.hash for e in net.entries(peer)) for peer in net.peers.values()}
    digests = {tuple(peer.ledger.digests) for peer in net.peers.values()}
    assert len(logs) == 1, "every peer ends with the same log"
    assert len(digests) == 1, "every peer computed the same digest after every entry"
    assert all(peer.state.phase == TablePhase.ENDED for peer in net.peers.values())
    assert not any(isinstance(e, PeerMisbehaved) for _, e in net.all_events())
    game = host.state.game
    target = game.options.target
    assert game.winner >= 0
    assert host.state.audit_error == ""
    ended = [e for _, e in net.all_events() if isinstance(e, GameEnded)]
    assert len(ended) == len(net.peers)
    assert {e.winner for e in ended} == {game.winner}
    if game.options.scoring == "points":
        assert max(game.scores) >= target


@pytest.mark.parametrize("players", [2, 4])
def test_an_honest_game_ends_with_a_winner_every_peer_agrees_on(players: int) -> None:
    net = play(players, "official", ["target=80"], b"honest %d" % players)
    assert_agreed_and_won(net)
