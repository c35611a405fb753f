"""No single point of failure over real sockets (issue 14, net.md §1, §5.3).

Four bot peers in one process on 127.0.0.1: a host node and three joiner
nodes, each with its own keys, its own encrypted links and its own listening
port; the joiners link to each other as well as to the host. The host is
killed mid-round (every link of it drops at once, nothing more comes from
it): the others vote over their own links, the next seat takes over, the
host's seat is removed when the table waits for it, and the game ends with a
winner; every remaining log is the same and the audit says OK.

Below it, the adapter (``Mesh``) without sockets, over peers of an in-memory
table and stand-in links: what its core decides reaches the peer, on the
node's clock. The core's own rules are ``test_mesh_frames`` and
``test_mesh_reach``'s.

A joiner whose link to the host is cut while its link to the other joiner
stays up is tested between processes (``test_lan_faults``): in one process,
four nodes share one event loop, and a shuffle proof checked for one of them
holds every other's frames long enough to look like a clock running ahead
(table.md §6.1).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from uno_p2p.audit import audit_entries
from uno_p2p.crypto.identity import Identity
from uno_p2p.net.driver import Driver
from uno_p2p.net.link import DEFAULT_TIMINGS, Link, Timings
from uno_p2p.net.mesh import LINKED, Mesh
from uno_p2p.net.node import HostNode, JoinNode
from uno_p2p.net.seats import LogSaver
from uno_p2p.net.stats import LinkBytes
from uno_p2p.rules.options import network_options, preset
from uno_p2p.table.events import TableEvent
from uno_p2p.table.frames import FRAME_VOTE
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.memnet import TableSetup
from uno_p2p.table.memnet import seat_table as seat_in_memory
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.codec import pack

#: Four nodes share one event loop and its CPU: a link's idle time-out is generous.
TIMINGS = Timings(handshake_s=5.0, heartbeat_s=1.0, idle_s=10.0)
NAMES = ("Ann", "Bob", "Cy", "Di")
#: Every wait in these tests is bounded: the whole game, and each step.
GAME_S = 400.0


@dataclass
class Seat:
    """One node and what it said."""

    name: str
    node: Driver
    notes: list[str] = field(default_factory=list)
    task: asyncio.Task[None] | None = None


@dataclass
class Game:
    host: Seat
    joiners: list[Seat]

    @property
    def seats(self) -> list[Seat]:
        return [self.host, *self.joiners]


async def until(what: Callable[[], bool], within: float, why: str,
                game: Game | None = None) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        if what():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{why} within {within:.0f} s" + (describe(game) if game else ""))


def describe(game: Game) -> str:
    """Where every node stands: for a failure's message."""
    lines = []
    for seat in game.seats:
        peer = seat.node.seated
        if peer is None:
            continue
        state = peer.state
        lines.append(f"\n{seat.name}: entry {state.seq} {state.phase.value}, sequencer "
                     f"{state.name_of(peer.host_id.key)}, stopped {peer.stopped}, outstanding "
                     f"{peer.outstanding}, links {[state.name_of(k) for k in seat.node.mesh.links]}"
                     f", notes {seat.notes[-3:]}")
    return "".join(lines)


async def seat_table(players: int, target: int,
                     connect_to: Callable[[int], int] | None = None) -> Game:
    """A host and ``players - 1`` bot joiners, linked and playing (autostart)."""
    options = network_options(preset("official", [f"target={target}", "turn_timer=3"]))
    host_id = Identity(secrets.token_bytes(32))
    notes: list[str] = []
    peer = TablePeer.host(host_id, secrets.token_bytes(32), table_id=secrets.token_bytes(16),
                          name=NAMES[0], options=options, nonce=secrets.token_bytes(16))
    host = HostNode(peer, None, on_event=lambda _: None, on_note=notes.append,
                    timings=TIMINGS, autostart=players)
    port = await host.listen("127.0.0.1", 0)
    game = Game(Seat(NAMES[0], host, notes), [])
    for i in range(1, players):
        game.joiners.append(join(NAMES[i], connect_to(port) if connect_to else port))
        # One at a time, so the seat order is the joining order.
        lobby_holds = i + 1
        await until(lambda: peer.state.lobby is not None and
                    len(peer.state.lobby.joined) >= lobby_holds,  # noqa: B023
                    20, f"{NAMES[i]} did not sit down")
    return game


def join(name: str, port: int) -> Seat:
    identity = Identity(secrets.token_bytes(32))
    notes: list[str] = []

    def make_peer(link: Link) -> tuple[TablePeer, LogSaver | None]:
        return TablePeer.join(identity, secrets.token_bytes(32), table_id=link.table_id,
                              host=link.peer, name=name, nonce=secrets.token_bytes(16)), None

    events: list[TableEvent] = []
    node = JoinNode(identity, ("127.0.0.1", port), make_peer=make_peer,
                    on_event=events.append, on_note=notes.append, timings=TIMINGS,
                    give_up_s=20.0)
    seat = Seat(name, node, notes)
    seat.task = asyncio.create_task(node.run())
    return seat


def kill(node: HostNode) -> None:
    """As SIGKILL would: every link drops at once, no goodbye, nothing more from it."""
    node.finished.set()
    if node._server is not None:
        node._server.close()
    if node._timer is not None:
        node._timer.cancel()
    node.mesh.abort()


async def stop(game: Game) -> None:
    for seat in game.joiners:
        if seat.task is not None and not seat.task.done():
            seat.task.cancel()
    await asyncio.gather(*(s.task for s in game.joiners if s.task), return_exceptions=True)
    if isinstance(game.host.node, HostNode) and not game.host.node.finished.is_set():
        await game.host.node.shutdown("test over")


def entries(seat: Seat) -> list[bytes]:
    peer = seat.node.seated
    assert peer is not None
    return [e.encode() for e in peer.ledger.chain.entries]


def ended(seat: Seat) -> bool:
    peer = seat.node.seated
    return peer is not None and (peer.state.phase == TablePhase.ENDED or
                                 peer.stopped is not None)


def mid_round(peer: TablePeer) -> bool:
    game = peer.state.engine
    # Entry 40 is always inside round 1 (the setup of four takes about 28 entries, and a
    # round at least 25 more): at entry 60 a short first round could already have
    # ended the game, and the test waited for a round that never came.
    return peer.state.phase == TablePhase.PLAYING and game is not None and \
        bool(game.hands[0]) and peer.state.seq >= 40


@pytest.mark.slow
@pytest.mark.timeout(int(GAME_S) + 60)
async def test_the_host_killed_mid_round_the_others_hand_over_and_finish() -> None:
    # A game to 1: the round of the hand-over is void once the dead host's seat is
    # removed, and the next round ends the game.
    game = await seat_table(4, target=1)
    host = game.host.node
    assert isinstance(host, HostNode)
    try:
        await until(lambda: all(len(s.node.mesh.links) == 3 for s in game.seats), 30,
                    "the mesh did not link every pair")
        await until(lambda: mid_round(host.peer), 120, "the round did not get going")
        killed_at = host.peer.state.seq
        kill(host)
        await until(lambda: all(ended(s) for s in game.joiners), GAME_S,
                    "the game did not end after the hand-over", game)
        for seat in game.joiners:
            peer = seat.node.seated
            assert peer is not None
            assert peer.stopped is None, (seat.name, peer.stopped, seat.notes[-10:])
            assert peer.state.phase == TablePhase.ENDED
            assert peer.state.handovers, "the sequencer never moved on"
            assert not getattr(seat.node, "host_lost", False)
        logs = [entries(s) for s in game.joiners]
        assert logs[0] == logs[1] == logs[2]
        assert len(logs[0]) > killed_at
        joiner = game.joiners[0].node.seated
        assert joiner is not None
        report = audit_entries(joiner.ledger.chain.entries)
        assert report.status.value == "ok", report
        assert max(report.scores) >= 1
        # The next seat took over, and every joiner heard it by the mesh.
        assert joiner.state.handovers[0][0] >= killed_at - 5
    finally:
        await stop(game)



class FakeLink:
    """What the mesh uses of a link: who is at the other end, ``send`` and ``abort``."""

    def __init__(self, peer: TablePeer) -> None:
        self.peer = peer.peer_id
        self.sent: list[bytes] = []
        self.sent_bytes = self.received_bytes = 0

    def send(self, data: bytes) -> None:
        self.sent.append(data)

    def abort(self) -> None:
        pass


class FakeNode:
    """A node whose clock the test moves, and whose pump routes what its peer queued
    through the mesh, as the driver does."""

    mesh: Mesh

    def __init__(self, peer: TablePeer, now_ms: int) -> None:
        self.finished = asyncio.Event()
        self.link_bytes = LinkBytes()
        self.notes: list[str] = []
        self.on_note = self.notes.append
        self.now_ms = now_ms
        self._peer = peer

    @property
    def seated(self) -> TablePeer | None:
        return self._peer

    def clock(self) -> int:
        return self.now_ms

    def pump(self) -> None:
        for out in self._peer.data_to_send():
            self.mesh.route(out)

    def deliver(self, key: bytes, data: bytes, arrived_ms: int) -> None:
        raise AssertionError("no frame is delivered here")

    async def take_frame(self, data: bytes, deliver: Callable[[], None]) -> None:
        deliver()

    def head_start(self, key: bytes, data: bytes) -> None:
        """No turn is made here."""

    def give_up(self) -> None:
        self.notes.append("gave up")


def in_memory_game() -> list[TablePeer]:
    """Four peers of an in-memory table, playing (Ann the host and sequencer)."""
    net = seat_in_memory(TableSetup(4, preset("official"), b"mesh adapter"))
    peers = list(net.peers.values())
    net.run(until=lambda _: all(p.state.phase == TablePhase.PLAYING for p in peers))
    return peers


def mesh_of(peer: TablePeer, now_ms: int = 0) -> tuple[Mesh, FakeNode]:
    node = FakeNode(peer, now_ms)
    node.mesh = Mesh(node, DEFAULT_TIMINGS, dials=False, give_up_ms=30_000)
    return node.mesh, node


def test_the_sequencer_out_of_reach_on_the_nodes_clock_makes_the_peer_vote() -> None:
    """net.md §6 "Who holds the sequencer gone": the node's clock, not another, counts
    the hand-over time-out; then the peer votes for the next seat over the mesh."""
    ann, bob, cy, _ = in_memory_game()
    start = bob.now_ms
    mesh, node = mesh_of(bob, start)
    to_cy = FakeLink(cy)
    mesh.attach(to_cy)  # type: ignore[arg-type]
    mesh.tick()
    node.now_ms = start + HOST_LOST_AFTER_MS - 1
    mesh.tick()
    assert not any(f[:1] == FRAME_VOTE for f in to_cy.sent)
    node.now_ms = start + HOST_LOST_AFTER_MS
    mesh.tick()
    election = bob.succession.election
    assert election is not None
    assert (election.old, election.new) == (ann.peer_id, bob.peer_id)
    assert [f[:1] for f in to_cy.sent if f[:1] == FRAME_VOTE] == [FRAME_VOTE]
    assert "gave up" not in node.notes


def test_the_sequencer_is_told_who_is_out_of_reach_and_back() -> None:
    host, bob, cy, di = in_memory_game()
    assert host.sequencer is not None
    mesh, _ = mesh_of(host)
    to_bob, to_cy = FakeLink(bob), FakeLink(cy)
    for link in (to_bob, to_cy, FakeLink(di)):
        mesh.attach(link)  # type: ignore[arg-type]
    mesh.control(bob.peer_id.key, LINKED + pack([cy.peer_id.key]))
    mesh.detach(cy.peer_id.key, to_cy)  # type: ignore[arg-type]
    assert cy.peer_id.key not in host.sequencer.lost  # Bob still reaches Cy
    mesh.detach(bob.peer_id.key, to_bob)  # type: ignore[arg-type]
    assert {bob.peer_id.key, cy.peer_id.key} <= host.sequencer.lost
    mesh.attach(FakeLink(cy))  # type: ignore[arg-type]
    assert cy.peer_id.key not in host.sequencer.lost
