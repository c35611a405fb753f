"""The node's driver ends when its seat has left (issue 25; table.md §8): once the
leave is logged the peer has no seat, and its process has nothing more to do. A seat
removed for vanishing that comes back watches the rest instead (§14.3).

Each seat is rebuilt from the log the others kept (``TablePeer.resume``), as a peer
restarting from its file would be, and pumped once by a driver whose frames go
nowhere.
"""

from __future__ import annotations

from tests.table.test_handover import MAX_STEPS
from tests.table.test_leaving import _leave, _mid_round, _table
from tests.table.test_removal import _vanish
from uno_p2p.crypto.identity import Identity
from uno_p2p.net.driver import Driver
from uno_p2p.table.memnet import NAMES, Network, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.sending import Outgoing

SEAT = 2


class Unlinked(Driver):
    """A driver without links: what it would send is kept."""

    def route(self, out: Outgoing) -> None:
        self.sent = [*getattr(self, "sent", []), out]


def _rebuilt(net: Network, seed: bytes) -> Driver:
    peer = TablePeer.resume(Identity(seeded(seed, f"identity {SEAT}")),
                            seeded(seed, f"entropy {SEAT}"), net.entries(net.host),
                            name=NAMES[SEAT], bot="heuristic",
                            nonce=seeded(seed, f"nonce {SEAT}", 16))
    driver = Unlinked(peer, None, on_event=lambda event: None, on_note=lambda text: None)
    driver.pump()
    return driver


async def test_a_seat_whose_leave_is_logged_is_finished() -> None:
    net = _table(b"driver leave", 3)
    _mid_round(net)
    _leave(net, list(net.peers.values())[SEAT])
    assert _rebuilt(net, b"driver leave").finished.is_set()


async def test_a_seat_removed_for_vanishing_is_not_finished() -> None:
    net = _table(b"driver vanish", 3)
    _mid_round(net)
    victim = list(net.peers.values())[SEAT]
    _vanish(net, victim)
    net.run(until=lambda n: victim.peer_id not in n.host.state.seats, max_steps=MAX_STEPS)
    assert victim.peer_id not in net.host.state.seats
    assert not _rebuilt(net, b"driver vanish").finished.is_set()
