"""The mesh's own frames and routing, without sockets (net.md §5.1, §5.3).

A ``Mesh`` over a seated peer of an in-memory table, with stand-in links that
record what they were given: addresses spread by stamp, paths come from
``k`` frames, a frame with no direct link goes through a member that holds
one, and bytes that do not decode are ignored, never raised.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

import pytest

from uno_p2p.crypto.identity import PeerId
from uno_p2p.net.link import DEFAULT_TIMINGS, Link
from uno_p2p.net.mesh import ADDRESSES, FORWARD, LINKED, Mesh
from uno_p2p.rules.actions import Draw
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Move
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_MESSAGE, FRAME_SYNC
from uno_p2p.table.memnet import TableSetup, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.codec import pack
from uno_p2p.wire.envelope import Message
from uno_p2p.wire.limits import GAP_FILL_AFTER_MS

#: net.md §5.1: one member (key 11 repeated 32 times) on 127.0.0.1:40000, stamp 1,700,000,000,000.
ADDRESS_VECTOR = bytes.fromhex(
    "61" "91" "94" "c420" + "11" * 32 + "a9" + b"127.0.0.1".hex() + "cd9c40"
    "cf0000018bcfe56800")


class FakeLink:
    """What the mesh uses of a link: who is at the other end, and ``send``."""

    def __init__(self, key: bytes) -> None:
        self.peer = PeerId(key)
        self.sent: list[bytes] = []
        self.aborted = False

    def send(self, data: bytes) -> None:
        self.sent.append(data)

    def abort(self) -> None:
        self.aborted = True


class FakeNode:
    def __init__(self, peer: TablePeer) -> None:
        self.finished = asyncio.Event()
        self.all_links: list[Link] = []
        self.notes: list[str] = []
        self.on_note = self.notes.append
        self._peer = peer
        self.delivered: list[tuple[bytes, bytes]] = []

    @property
    def seated(self) -> TablePeer | None:
        return self._peer

    def clock(self) -> int:
        return 1

    def pump(self) -> None:
        self._peer.data_to_send()

    def deliver(self, key: bytes, data: bytes, arrived_ms: int = 0) -> None:
        self.delivered.append((key, data))

    async def take_frame(self, data: bytes, deliver: Callable[[], None]) -> None:
        deliver()

    def give_up(self) -> None:
        pass


@pytest.fixture
def table() -> list[TablePeer]:
    net = seat_table(TableSetup(4, preset("official"), b"mesh frames"))
    return list(net.peers.values())


def mesh_of(peer: TablePeer) -> tuple[Mesh, FakeNode]:
    node = FakeNode(peer)
    return Mesh(node, DEFAULT_TIMINGS, dials=False), node


def link(mesh: Mesh, peer: TablePeer) -> FakeLink:
    fake = FakeLink(peer.peer_id.key)
    mesh.attach(fake)  # type: ignore[arg-type]
    return fake


def test_the_address_frame_has_the_bytes_of_the_spec() -> None:
    assert ADDRESSES + pack([[b"\x11" * 32, "127.0.0.1", 40000, 1_700_000_000_000]]) == \
        ADDRESS_VECTOR


def test_the_newest_address_wins_and_news_is_passed_on(table: list[TablePeer]) -> None:
    mesh, _ = mesh_of(table[0])
    bob = link(mesh, table[1])
    cy_key = table[2].peer_id.key
    mesh.control(bob.peer.key, ADDRESSES + pack([[cy_key, "127.0.0.1", 4000, 5]]))
    assert mesh.addresses[cy_key] == ("127.0.0.1", 4000, 5)
    before = len(bob.sent)
    mesh.control(bob.peer.key, ADDRESSES + pack([[cy_key, "127.0.0.1", 3000, 4]]))
    assert mesh.addresses[cy_key] == ("127.0.0.1", 4000, 5)  # an older stamp: ignored
    assert len(bob.sent) == before  # nothing new: nothing passed on (gossip ends)
    mesh.control(bob.peer.key, ADDRESSES + pack([[cy_key, "127.0.0.1", 5000, 9]]))
    assert mesh.addresses[cy_key] == ("127.0.0.1", 5000, 9)
    assert bob.sent[-1][:1] == ADDRESSES


def test_without_a_direct_link_a_frame_goes_through_a_member_that_has_one(
        table: list[TablePeer]) -> None:
    ann, bob, cy = table[0], table[1], table[2]
    mesh, _ = mesh_of(ann)
    to_bob = link(mesh, bob)
    cy_id = cy.peer_id
    assert not mesh.reachable(cy_id.key)
    mesh.control(bob.peer_id.key, LINKED + pack([ann.peer_id.key, cy_id.key]))
    assert mesh.reachable(cy_id.key)
    entry = FRAME_ENTRY + b"entry bytes"
    mesh.route(Outgoing((cy_id,), entry))
    assert to_bob.sent[-1] == FORWARD + pack([cy_id.key, entry])
    sent = len(to_bob.sent)
    mesh.route(Outgoing((cy_id,), FRAME_SYNC + pack([3])))  # names its sender: not passed on
    assert len(to_bob.sent) == sent


def test_a_member_passes_a_forwarded_frame_on_once_and_only_table_frames(
        table: list[TablePeer]) -> None:
    ann, bob, cy = table[0], table[1], table[2]
    mesh, _ = mesh_of(bob)
    to_cy = link(mesh, cy)
    link(mesh, ann)
    signed = Message.sign(ann.identity, ann.table_id, 0, ann.ledger.head, Move(Draw(0)))
    message = FRAME_MESSAGE + signed.encode()
    mesh.control(ann.peer_id.key, FORWARD + pack([cy.peer_id.key, message]))
    assert to_cy.sent[-1] == message
    sent = len(to_cy.sent)
    # table.md §3.1: a member passes on no forgery (a message its author did not sign).
    forged = replace(signed, author=cy.peer_id)
    for bad in (FORWARD + pack([cy.peer_id.key, FRAME_MESSAGE + forged.encode()]),
                FORWARD + pack([cy.peer_id.key, FRAME_MESSAGE + b"not a message"]),
                FORWARD + pack([cy.peer_id.key, FRAME_SYNC + b"x"]),
                FORWARD + pack([cy.peer_id.key, b"p" + b"x"]),
                FORWARD + b"\xc1", FORWARD + pack([b"short", message])):
        assert mesh.control(ann.peer_id.key, bad)
    assert len(to_cy.sent) == sent


def test_bytes_that_do_not_decode_are_ignored(table: list[TablePeer]) -> None:
    mesh, _ = mesh_of(table[0])
    bob = link(mesh, table[1])
    for junk in (ADDRESSES + b"\xc1", ADDRESSES + pack([[b"k", "h", 0, 0]]),
                 LINKED + pack(["not a key"]), LINKED + pack([b"\x00" * 32] * 40),
                 ADDRESSES + pack([[b"\x01" * 32, "x" * 100, 1, 1]])):
        assert mesh.control(bob.peer.key, junk)
    assert not mesh.addresses
    assert not mesh.control(bob.peer.key, FRAME_MESSAGE + b"for the peer")


def test_a_member_out_of_reach_is_lost_to_the_sequencer_and_back_when_in_reach(
        table: list[TablePeer]) -> None:
    host, bob, cy = table[0], table[1], table[2]
    assert host.sequencer is not None
    mesh, _ = mesh_of(host)
    to_bob = link(mesh, bob)
    to_cy = link(mesh, cy)
    link(mesh, table[3])
    mesh.control(bob.peer_id.key, LINKED + pack([cy.peer_id.key]))
    mesh.detach(cy.peer_id.key, to_cy)  # type: ignore[arg-type]
    assert cy.peer_id.key not in host.sequencer.lost  # Bob still reaches Cy
    mesh.detach(bob.peer_id.key, to_bob)  # type: ignore[arg-type]
    assert {bob.peer_id.key, cy.peer_id.key} <= host.sequencer.lost
    link(mesh, cy)
    assert cy.peer_id.key not in host.sequencer.lost


class RoutingNode(FakeNode):
    """A node whose pump sends what its peer queued through the mesh, as the driver does."""

    mesh: Mesh

    def pump(self) -> None:
        for out in self._peer.data_to_send():
            self.mesh.route(out)


def test_cut_off_from_the_sequencer_a_joiner_asks_the_members_it_reaches() -> None:
    """net.md §5.3: the broken link may have lost the last entries, and a table that
    waits on us for them sends no later entry that would show the gap."""
    net = seat_table(TableSetup(3, preset("official"), b"asks around"))
    ann, bob, cy = net.peers.values()
    net.run(until=lambda _: bob.state.phase == TablePhase.PLAYING)
    node = RoutingNode(bob)
    mesh = node.mesh = Mesh(node, DEFAULT_TIMINGS, dials=False)
    to_cy = link(mesh, cy)
    to_ann = link(mesh, ann)
    bob.data_to_send()
    mesh._ask_around(bob)  # linked to the sequencer: nothing to ask
    assert not any(f[:1] == FRAME_SYNC for f in to_cy.sent + to_ann.sent)
    mesh.detach(ann.peer_id.key, to_ann)  # type: ignore[arg-type]
    mesh._ask_around(bob)
    asks = [f for f in to_cy.sent if f[:1] == FRAME_SYNC]
    assert asks == [FRAME_SYNC + pack([bob.state.seq])]  # table.md §3: `S` = [seen]
    mesh._ask_around(bob)  # again at once: not before GAP_FILL_AFTER_MS
    assert [f for f in to_cy.sent if f[:1] == FRAME_SYNC] == asks
    mesh._asked_at -= GAP_FILL_AFTER_MS / 1000
    mesh._ask_around(bob)
    assert len([f for f in to_cy.sent if f[:1] == FRAME_SYNC]) == 2
