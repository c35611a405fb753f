"""A wake-up before any deadline changes nothing (the sans-IO timer contract).

``handle_timer(now)`` is called by the shell when ``next_timer`` says, but a
shell's timers are coarse and one wake-up serves every deadline of the peer,
so each step behind it (the sequencer's time-outs, table.md §6; the relay of
an unlogged message, §6.2; the gap fill, §9.1; the succession, §13.1; a bot's
thinking) checks its own time. A game whose peers are all woken after every
delivery must therefore log exactly what the same seeds log without them.
"""

from __future__ import annotations

import pytest

from uno_p2p.rules.options import preset
from uno_p2p.table.memnet import MAX_DELIVERIES, Network, TableSetup, game_over, seat_table

pytestmark = pytest.mark.game

#: A game of one round (target 1): its shuffles, deal, play, round end and final reveal
#: hold every step with a deadline a table of bots has; a second round (bots do not
#: pause between rounds) only repeats them.
SETUP = TableSetup(3, preset("official", ["target=1"]), b"early wake-ups")


def _play(woken: bool) -> Network:
    net = seat_table(SETUP)
    for _ in range(MAX_DELIVERIES):
        if game_over(net) or not net.step():
            break
        if woken:
            for peer in net.peers.values():
                peer.handle_timer(net.now_ms)
                net.flush(peer)
    return net


def test_waking_every_peer_early_changes_nothing_logged_or_sent() -> None:
    plain, woken = _play(woken=False), _play(woken=True)
    assert game_over(plain)
    assert game_over(woken)
    assert [e.encode() for e in woken.entries()] == [e.encode() for e in plain.entries()]
    # Nothing sent early either: no relay, no sync request, no vote before its time.
    assert woken.traffic.frames == plain.traffic.frames
    assert woken.traffic.by_sender == plain.traffic.by_sender
    assert sum(plain.traffic.by_sender.values()) == plain.traffic.sent_bytes, "every byte counted"
    for peer in woken.peers.values():
        assert peer.stopped is None
        assert peer.ledger.chain.entries == woken.entries()
