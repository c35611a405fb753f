"""A peer whose link broke asks for what it missed (``TablePeer.resync``), sans-IO.

On the in-memory network: every frame to and from one peer is lost for a
while (a cut cable), including a message it sent; then it resyncs. The
sequencer's reply gives its next number: the lost message was never logged,
so that number is used again, and the game goes on to its end (table.md §9).
"""

from __future__ import annotations

import pytest

from uno_p2p.rules.options import preset
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.table.state import TablePhase

pytestmark = pytest.mark.game


def test_a_peer_cut_off_mid_game_resyncs_and_the_game_ends() -> None:
    cut = {"on": False, "lost_from_victim": 0}
    victim_key: list[bytes] = []

    def tamper(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        # The cable goes on its way out first: the victim's next message is lost.
        if cut["on"] and victim_key and sender == victim_key[0]:
            cut["lost_from_victim"] += 1
            return []
        if cut["on"] and victim_key and recipient == victim_key[0] and cut["lost_from_victim"]:
            return []
        return [data]

    options = preset("official", ["target=60"])
    net = seat_table(TableSetup(3, options, b"resync"), tamper)
    victim = list(net.peers.values())[2]
    victim_key.append(victim.peer_id.key)
    net.run(until=lambda n: n.host.state.seq >= 60)
    cut["on"] = True
    net.run(until=lambda n: cut["lost_from_victim"] >= 1, max_steps=100_000)
    net.run(until=lambda n: n.host.state.seq >= 200 or not n.queue, max_steps=100_000)
    cut["on"] = False
    assert cut["lost_from_victim"] >= 1
    assert victim.outstanding is not None  # a message of ours never reached the sequencer
    victim.resync()
    net.flush(victim)
    net.run(until=game_over, max_steps=300_000)
    for peer in net.peers.values():
        assert peer.state.phase == TablePhase.ENDED
        assert peer.state.stop is None, peer.state.stop
    assert len({tuple(p.ledger.digests) for p in net.peers.values()}) == 1
