"""The node's driver ends when its seat has left (issue 25; table.md §8): once the
leave is logged the peer has no seat, and its process has nothing more to do. A seat
removed for vanishing that comes back watches the rest instead (§14.3).

Each seat is rebuilt from the log the others kept (``TablePeer.resume``), as a peer
restarting from its file would be, and pumped once by a driver whose frames go
nowhere.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.table.test_handover import MAX_STEPS
from tests.table.test_leaving import _leave, _mid_round, _table
from tests.table.test_removal import _vanish
from uno_p2p.audit import audit_file
from uno_p2p.audit.report import Status
from uno_p2p.cli.lan import Console, finish
from uno_p2p.crypto.identity import Identity
from uno_p2p.net import node as node_module
from uno_p2p.net.driver import Driver
from uno_p2p.net.link import DEFAULT_TIMINGS
from uno_p2p.net.mesh import Mesh
from uno_p2p.net.node import HostNode, JoinNode
from uno_p2p.net.seats import LogSaver
from uno_p2p.rules.options import preset
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Move, Shares
from uno_p2p.table.events import GameEnded
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_SYNC, frame, sync_request
from uno_p2p.table.memnet import NAMES, Network, TableSetup, game_over, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.state import TablePhase
from uno_p2p.ui.netsession import NetSession
from uno_p2p.wire.envelope import Entry

pytestmark = pytest.mark.game

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


#: A game to 1 point: one round, then the final reveals.
SUPERSEDED = b"driver end superseded"


def _ended_alone() -> tuple[Network, set[bytes]]:
    """A table whose host logs the final reveals and the game's end alone: it hears
    everyone, nothing it sends arrives, and meanwhile the others hand the table on from
    an entry before its end (table.md §13.2). ``cut`` holds the host while cut."""
    cut: set[bytes] = set()

    def tamper(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        return [] if sender in cut else [data]

    net = seat_table(TableSetup(3, preset("official", ["target=1"]), SUPERSEDED,
                                preset="official"), tamper)
    ann, bob = (net.peers[Identity(seeded(SUPERSEDED, f"identity {i}")).peer.key]
                for i in (0, 1))
    net.run(until=lambda n: ann.state.phase == TablePhase.REVEALING, max_steps=MAX_STEPS)
    cut.add(ann.peer_id.key)
    net.run(until=lambda n: bob.state.term >= 1, max_steps=MAX_STEPS)
    assert ann.state.phase == TablePhase.ENDED, "the host logged the end alone"
    assert bob.state.handovers[0][0] < ann.state.seq, "the others went on from before it"
    return net, cut


def _shown_end(screen: NetSession) -> GameEnded | None:
    return screen.result


async def test_an_end_a_hand_over_supersedes_is_no_end(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """The host said "Game over", then its log audited unfinished (a full run of
    test_lan_faults): the end it logged alone was superseded while its links lingered,
    and its node stopped there. The node goes on to the table's own end instead, its
    log always the chain it holds, and it announces only an end its log holds."""
    net, cut = _ended_alone()
    ann = net.host
    path = tmp_path / "ann.unolog"
    notes: list[str] = []
    screen = NetSession()  # what the full-screen UI reads

    def noted(text: str) -> None:
        notes.append(text)
        screen.note(text)

    driver = Unlinked(ann, LogSaver.create(path), on_event=screen.event, on_note=noted)
    driver.mesh = Mesh(driver, DEFAULT_TIMINGS, dials=False)
    screen.driver = driver
    try:
        driver.pump()
        assert driver.finished.is_set()
        announced = [e for e in net.events[ann.peer_id.key] if isinstance(e, GameEnded)]
        assert announced, "the host's own end was announced to its player"
        for event in net.events[ann.peer_id.key]:
            screen.event(event)  # the events the node passed on as they came
        assert _shown_end(screen) is not None, "the screen shows the end it was told of"
        assert screen.summaries[-1].game_winner >= 0
        cut.clear()  # the links heal: the hand-over reaches the old host
        net.run(until=lambda n: ann.state.phase != TablePhase.ENDED, max_steps=MAX_STEPS)
        driver.pump()
        assert not driver.finished.is_set(), "the game is not over here any more"
        assert _shown_end(screen) is None, "the screen forgets an end that is no end"
        assert screen.summaries[-1].game_winner < 0, "no 'Game over' box either"
        assert read_log(path).entries == ann.ledger.chain.entries
        asked = [o for o in driver.sent if o.data[:1] == FRAME_SYNC]
        assert asked, "it asks the members for what follows its head"
        assert asked[-1].data == frame(FRAME_SYNC, sync_request(ann.state.seq))
        console = Console(False)
        console.driver, console.result = driver, announced[-1]
        assert not finish(path, console)
        assert "Game over" not in capsys.readouterr().out
        net.run(until=game_over, max_steps=MAX_STEPS)
        driver.pump()
        assert driver.finished.is_set(), "the table's own end ends the node"
    finally:
        driver.close_log()
    others = {net.entries(p) for p in net.peers.values()}
    assert others == {read_log(path).entries}, "the log on disk is the table's"
    assert audit_file(path).status == Status.OK


#: A two-player game to 1 point.
TWO = b"driver two players"


def _two_player_log() -> tuple[Entry, ...]:
    net = seat_table(TableSetup(2, preset("official", ["target=1"]), TWO, preset="official"))
    net.run(until=game_over, max_steps=MAX_STEPS)
    return net.entries()


def _resumed(entries: tuple[Entry, ...], seat: int) -> TablePeer:
    return TablePeer.resume(Identity(seeded(TWO, f"identity {seat}")),
                            seeded(TWO, f"entropy {seat}"), entries, name=NAMES[seat],
                            bot="heuristic", nonce=seeded(TWO, f"nonce {seat}", 16))


async def test_a_stop_says_whom_the_table_was_waiting_for() -> None:
    """table.md §6.3, §14.1: a node that stops, out of reach of everyone, cannot tell its
    own absence from the others'; its sentence says whom the table was waiting for at
    its last entry, as a plain fact. Cut after Ann's move with Bob's move next in the
    log, the table waits for Bob's decision: the host says Bob, Bob's node "you"."""
    log = _two_player_log()
    ann = log[0].author
    cut = next(e.seq for e in log[1:-1] if isinstance(e.body, Move) and e.author == ann
               and isinstance(log[e.seq + 1].body, Move) and log[e.seq + 1].author != ann)
    host_notes: list[str] = []
    host = HostNode(_resumed(log[:cut + 1], 0), None, on_event=lambda event: None,
                    on_note=host_notes.append)
    bob_notes: list[str] = []
    bob = JoinNode(Identity(seeded(TWO, "identity 1")), ("127.0.0.1", 9),
                   make_peer=None, peer=_resumed(log[:cut + 1], 1),
                   on_event=lambda event: None, on_note=bob_notes.append)
    try:
        host.give_up()
        bob.give_up()
    finally:
        host.close_log()
        bob.close_log()
    assert host_notes[-1] == node_module.NOBODY_IN_REACH.format(
        seq=cut + 1, waited=node_module.WAITING_FOR.format(names="Bob"))
    assert bob_notes[-1] == node_module.HOST_GONE.format(
        seq=cut + 1, waited=node_module.WAITING_FOR.format(names=node_module.YOU))


class LingeringLink:
    """A member's link the host keeps until the member hangs up (``HostNode.run``)."""

    async def close(self, reason: str) -> None:
        """Nothing to send: the member is in memory."""


async def _turns(count: int = 20) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def test_a_host_whose_end_is_superseded_while_it_lingers_plays_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``HostNode.run`` after its end keeps the links until the members hang up; an end
    superseded meanwhile sends it back to waiting for the table's own end, and only
    that end closes the node."""
    monkeypatch.setattr(node_module, "LINGER_S", 0.0)
    net, cut = _ended_alone()
    ann = net.host
    host = HostNode(ann, None, on_event=lambda event: None, on_note=lambda text: None)
    key = next(k for k in net.peers if k != ann.peer_id.key)
    host.links[key] = LingeringLink()  # type: ignore[assignment]
    host.pump()
    running = asyncio.create_task(host.run())
    try:
        await _turns()
        assert not running.done(), "it lingers while a member's link is open"
        cut.clear()
        net.run(until=lambda n: ann.state.phase != TablePhase.ENDED, max_steps=MAX_STEPS)
        host.pump()
        await _turns()
        assert not host.closed, "the game goes on here: the node is not shut down"
        assert not running.done()
        net.run(until=game_over, max_steps=MAX_STEPS)
        host.links.clear()  # the members hung up after their own end
        host.pump()
        await asyncio.wait_for(running, 60)
        assert host.closed
    finally:
        running.cancel()
        host.close_log()


async def _checked_in_the_worker(net: Network, seed: bytes, entry: Entry) -> int:
    """How many of ``entry``'s statements the driver of seat ``SEAT``, rebuilt from the
    entries before it, sent to its check worker before the entry was accepted."""
    before = [e for e in net.entries(net.host) if e.seq < entry.seq]
    peer = TablePeer.resume(Identity(seeded(seed, f"identity {SEAT}")),
                            seeded(seed, f"entropy {SEAT}"), before, name=NAMES[SEAT],
                            bot="heuristic", nonce=seeded(seed, f"nonce {SEAT}", 16))
    driver = Unlinked(peer, None, on_event=lambda event: None, on_note=lambda text: None)
    data = frame(FRAME_ENTRY, entry.encode())
    host = net.host.peer_id

    def deliver() -> None:
        peer.receive(data, driver.clock(), host, None)

    await driver.take_frame(data, deliver)
    assert peer.state.seq == entry.seq + 1, "accepted"
    checked = driver.offloader.checked
    driver.close_log()
    return checked


async def test_share_proofs_few_or_a_deal_are_checked_in_the_worker() -> None:
    # net.md §7.1 item 1: no proof is checked on the event loop, however few a frame holds
    # (a drawn card's private shares) or many (a deal's batch).
    seed = b"driver inline shares"
    net = _table(seed, 3, target=1)
    net.run(until=game_over, max_steps=MAX_STEPS)
    seat = list(net.peers.values())[SEAT].peer_id
    batches = [e for e in net.entries(net.host) if isinstance(e.body, Shares) and
               e.author != seat]
    few = next(e for e in batches if isinstance(e.body, Shares) and 0 < len(e.body.items) <= 3)
    deal = next(e for e in batches if isinstance(e.body, Shares) and len(e.body.items) > 3)
    assert isinstance(few.body, Shares)
    assert await _checked_in_the_worker(net, seed, few) == len(few.body.items)
    assert isinstance(deal.body, Shares)
    assert await _checked_in_the_worker(net, seed, deal) == len(deal.body.items)
