"""Links between every two members, so that losing the host does not stop the game.

docs/protocol/net.md §1 and §5.3. Every joiner also listens (on the local
address of its link to the host) and tells the others where (an ``a`` frame,
passed on by whoever learns something new); of every two members, the one
that joined later dials the one that joined earlier, pinning the identity
key the log holds for it (the handshake's ``expect_host``), so every pair has
one link and no address can be spoofed. The host joined first: everyone
dials it, as before.

What a node sends goes straight to its destination's link; with no such
link it goes through one member that says (``k`` frame) it holds one (``f``
frame, one hop). The receiver hands a forwarded frame to its peer as coming
from the forwarder: entries prove themselves by their countersignature and
messages by their author's signature, so a forwarder can drop but not forge
(table.md §3.1).

The mesh also tells the peer what only the network can know (table.md
§13.1, §14.1): a member out of reach by any path is lost (``peer_lost``), back
in reach is back (``peer_back``); the sequencer out of reach for
``HOST_LOST_AFTER_MS`` is gone (``host_lost``: the members vote over the mesh
and the next seat takes over); a node that was cut off from everyone asks
every member for what it missed (``rejoin``).

Every one of those decisions is ``uno_p2p.net.meshcore``'s, on the node's
injected clock; this adapter only moves bytes, runs the dialers and the
ticker, and carries out what the core returns, as ``link.py`` does for the
handshake.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import Protocol

from uno_p2p.crypto.identity import PeerId
from uno_p2p.net.doors import HandshakeSlots
from uno_p2p.net.gate import PEER_BACKLOG, PEER_PENDING, Gate
from uno_p2p.net.handshake import HandshakeFailed
from uno_p2p.net.link import Link, LinkLost, Timings, accept, connect
from uno_p2p.net.meshcore import (
    ADDRESSES,
    FORWARD,
    LINKED,
    MESH_FRAMES,
    REDIAL_S,
    AskAround,
    Back,
    Backoff,
    Dial,
    GiveUp,
    Learned,
    Lost,
    MeshAction,
    MeshCore,
    Rejoin,
    Resync,
    Send,
    SequencerGone,
    Standing,
)
from uno_p2p.net.stats import LinkBytes
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.sending import Outgoing

TICK_S = 0.25


class MeshNode(Protocol):
    """What the mesh needs of its node (``uno_p2p.net.driver.Driver``)."""

    finished: asyncio.Event
    link_bytes: LinkBytes
    on_note: Callable[[str], None]

    @property
    def seated(self) -> TablePeer | None: ...

    def clock(self) -> int: ...

    def pump(self) -> None: ...

    def deliver(self, key: bytes, data: bytes, arrived_ms: int) -> None: ...

    async def take_frame(self, data: bytes, deliver: Callable[[], None]) -> None: ...

    def head_start(self, key: bytes, data: bytes) -> None: ...

    def give_up(self) -> None: ...


def members_in_order(peer: TablePeer) -> tuple[PeerId, ...]:
    """Every member that ever joined, in joining order: who dials whom (§5.3)."""
    lobby = peer.state.lobby
    return () if lobby is None else lobby.joined


def standing_of(peer: TablePeer | None, *, finished: bool = False) -> Standing | None:
    """What the mesh core needs of the peer now (None before a joiner is seated)."""
    if peer is None:
        return None
    sequencer = peer.sequencer
    return Standing(me=peer.peer_id, members=members_in_order(peer), sequencer=peer.host_id,
                    phase=peer.state.phase,
                    counted_lost=frozenset() if sequencer is None else frozenset(sequencer.lost),
                    stopped=peer.stopped is not None, finished=finished)


class Mesh:
    """One node's links to the other members: the asyncio side of ``MeshCore``."""

    def __init__(self, node: MeshNode, timings: Timings, *, dials: bool,
                 give_up_ms: int | None = None,
                 host_lost_after_ms: int = HOST_LOST_AFTER_MS,
                 on_learned: Callable[[], None] | None = None) -> None:
        self.node = node
        #: Told when an address is learned (a joiner keeps them in its seat file, §8).
        self.on_learned = on_learned
        self.timings = timings
        self.core = MeshCore(dials=dials, give_up_ms=give_up_ms,
                             host_lost_after_ms=host_lost_after_ms)
        self.links: dict[bytes, Link] = {}
        self.port = 0
        self._server: asyncio.Server | None = None
        self.gate = Gate(HandshakeSlots(most=PEER_PENDING))
        self._tasks: dict[bytes, asyncio.Task[None]] = {}
        self._ticker: asyncio.Task[None] | None = None

    @property
    def ever_linked(self) -> bool:
        """Whether this node ever had a link (a node resumed from disk had one)."""
        return self.core.ever_linked

    @ever_linked.setter
    def ever_linked(self, value: bool) -> None:
        self.core.ever_linked = value

    def _standing(self) -> Standing | None:
        return standing_of(self.node.seated, finished=self.node.finished.is_set())

    # -- carrying out what the core decided -----------------------------------------------
    def _do(self, actions: Iterable[MeshAction]) -> None:
        """Carry out the core's actions in order; the peer's output is moved (``pump``)
        once it has been told something, and before the node gives up."""
        told = False
        peer = self.node.seated
        for action in actions:
            match action:
                case Send(to, data):
                    link = self.links.get(to)
                    if link is not None:
                        link.send(data)
                case Dial(member):
                    self._tasks[member.key] = asyncio.create_task(self._dial(member))
                case Learned():
                    if self.on_learned is not None:
                        self.on_learned()
                case GiveUp():
                    if told:
                        self.node.pump()
                        told = False
                    self.node.give_up()
                case SequencerGone(sequencer):
                    self.node.on_note(f"{self._name(sequencer.key)} is out of reach: the "
                                      "others agree on who keeps the table going")
                    told = self._tell(peer, action) or told
                case _:
                    told = self._tell(peer, action) or told
        if told:
            self.node.pump()

    @staticmethod
    def _tell(peer: TablePeer | None, action: MeshAction) -> bool:
        """Tell the peer what the network knows; True if it was told."""
        if peer is None:
            return False
        match action:
            case Lost(member):
                peer.peer_lost(member)
            case Back(member):
                peer.peer_back(member)
            case SequencerGone():
                peer.host_lost()
            case AskAround():
                peer.ask_members()
            case Rejoin():
                peer.rejoin()
            case Resync():
                peer.resync()
            case _:
                return False
        return True

    # -- starting and stopping ------------------------------------------------------------
    async def start(self, listen_host: str | None) -> None:
        """Listen for peer links on ``listen_host`` (None: the node has its own port) and
        start keeping the mesh; idempotent.

        Raises:
            LinkLost: the port cannot be opened.
        """
        if self._ticker is None:
            self._ticker = asyncio.create_task(self._tick_loop())
        if listen_host is None or self._server is not None:
            return
        try:
            self._server = await asyncio.start_server(self._on_connection, listen_host, 0,
                                                      backlog=PEER_BACKLOG)
        except OSError as error:
            raise LinkLost(f"cannot listen on {listen_host}: {error.strerror}",
                           code="unreachable") from error
        self.port = int(self._server.sockets[0].getsockname()[1])
        self._do(self.core.listening(listen_host, self.port, self._standing(),
                                     self.node.clock()))

    async def close(self, reason: str) -> None:
        """Stop listening and dialing, close every link (after what is queued)."""
        if self._server is not None:
            self._server.close()
        for task in [*self._tasks.values(), *([self._ticker] if self._ticker else [])]:
            task.cancel()
        await asyncio.gather(*(link.close(reason) for link in list(self.links.values())))

    def reopen(self) -> None:
        """The node's game goes on after all (its end was superseded, table.md §13.4):
        tick again, and let the next tick dial again each member whose dialer ended with
        the game (``MeshCore.judge``)."""
        if self._ticker is not None and self._ticker.done():
            self._ticker = asyncio.create_task(self._tick_loop())
        for key, task in list(self._tasks.items()):
            if task.done():
                del self._tasks[key]
                self.core.dialing.discard(key)

    def abort(self) -> None:
        """Drop everything at once (the node is being cancelled: nothing is awaited)."""
        if self._server is not None:
            self._server.close()
        for task in [*self._tasks.values(), *([self._ticker] if self._ticker else [])]:
            task.cancel()
        for link in list(self.links.values()):
            link.abort()

    # -- links ----------------------------------------------------------------------------
    def attach(self, link: Link) -> bool:
        """A new authenticated link to a member (it replaces an older one). True when this
        node had no link at all before: it was cut off, and should ask what it missed."""
        key = link.peer.key
        old = self.links.get(key)
        if old is not None and old is not link:
            old.abort()
            self.node.link_bytes.closed(old)
        self.links[key] = link
        self.node.link_bytes.opened(link)
        cut_off, actions = self.core.link_up(key, self._standing())
        self._do(actions)
        return cut_off

    def detach(self, key: bytes, link: Link) -> None:
        """A link ended (its reader saw it): forget it and what its member said."""
        self.node.link_bytes.closed(link)
        if self.links.get(key) is link:
            del self.links[key]
            self._do(self.core.link_down(key, self._standing()))

    def catch_up(self, link: Link, cut_off: bool) -> None:
        """A new link: ask for what the broken one may have lost (``MeshCore.catch_up``)."""
        self._do(self.core.catch_up(link.peer.key, cut_off, self._standing()))

    async def serve(self, link: Link) -> None:
        """Carry one peer link's frames to the node until it ends."""
        key = link.peer.key
        self.catch_up(link, self.attach(link))
        try:
            while True:  # until the link ends: a finished node closes it (after its queue)
                data = await link.receive()
                if self.links.get(key) is not link:
                    break  # a newer link of this member took over
                self.node.head_start(key, data)
                await self.node.take_frame(data, partial(self.node.deliver, key, data,
                                                         self.node.clock()))
        except LinkLost as error:
            if not self.node.finished.is_set():
                self.node.on_note(f"the link to {self._name(key)} ended ({error.code})")
        finally:
            link.abort()
            self.detach(key, link)

    async def _on_connection(self, reader: asyncio.StreamReader,
                             writer: asyncio.StreamWriter) -> None:
        peer = self.node.seated
        slot = None if peer is None or self.node.finished.is_set() else self.gate.enter(writer)
        if peer is None or slot is None:
            writer.close()
            return
        try:
            link = await accept(reader, writer, peer.identity, peer.table_id, code=None,
                                timings=self.timings)
        except (HandshakeFailed, LinkLost):
            writer.close()
            return
        except asyncio.CancelledError:
            writer.close()
            raise
        finally:
            self.gate.leave(slot)  # net.md §6.1: unfinished handshakes, per address
        members = members_in_order(peer)
        if link.peer not in members or link.peer == peer.peer_id:
            # Only a member the log knows may link to us (net.md §5.3).
            await link.close("not a member of this table")
            return
        await self.serve(link)

    async def _dial(self, member: PeerId) -> None:
        """Keep one link to an earlier member: dial its latest address, pinning its key;
        a link that keeps ending soon after it is made is dialed again later and later
        (``Backoff``)."""
        backoff = Backoff()
        tried = 0
        while not self.node.finished.is_set():
            peer = self.node.seated
            where = self.core.address_to_try(member.key, tried)
            tried += 1
            wait = REDIAL_S
            if peer is not None and where is not None and member.key not in self.links:
                with contextlib.suppress(LinkLost, HandshakeFailed):
                    link = await connect(where, peer.identity, expect_host=member,
                                         timings=self.timings)
                    if link.table_id != peer.table_id:
                        link.abort()
                    else:
                        linked, tried = time.monotonic(), 0
                        await self.serve(link)
                        wait = max(REDIAL_S, backoff.after(time.monotonic() - linked))
            await asyncio.sleep(wait)

    # -- frames -----------------------------------------------------------------------------
    def control(self, key: bytes, data: bytes) -> bool:
        """A mesh frame from ``key``'s link: True if it was one (handled or ignored)."""
        actions = self.core.hear(key, data, self._standing(), self.node.clock())
        if actions is None:
            return False
        self._do(actions)
        return True

    def route(self, out: Outgoing) -> None:
        """What the peer sends: to the sequencer (``to`` None) or the listed members."""
        self._do(self.core.route(out, self._standing()))

    def remember(self, key: bytes, host: str, port: int) -> None:
        """Where the seat file says ``key`` listened (``AddressBook.remember``). Nothing
        learned: the seat file holds it already."""
        self.core.book.remember(key, host, port)

    def candidates(self, key: bytes) -> list[tuple[str, int]]:
        """Every address we know for ``key``, best first (``AddressBook.candidates``)."""
        return self.core.book.candidates(key)

    def member_addresses(self) -> dict[bytes, tuple[str, int]]:
        """Where the other members of the table listen, as far as this node knows."""
        return self.core.member_addresses(self._standing())

    # -- who is in reach (table.md §13.1, §14.1) ----------------------------------------
    def tick(self) -> None:
        """What the core decides with the time alone (``MeshCore.tick``), on the node's
        clock: the one the peer runs on, so a test or a replay can move it."""
        now = self.node.clock()
        peer = self.node.seated
        if peer is not None:
            peer.awake(now)  # a gap here is this machine away (table.md §6.3)
        self._do(self.core.tick(self._standing(), now))

    async def _tick_loop(self) -> None:
        while not self.node.finished.is_set():
            await asyncio.sleep(TICK_S)
            self.tick()

    def _name(self, key: bytes) -> str:
        peer = self.node.seated
        return PeerId(key).fingerprint if peer is None else peer.state.name_of(key)


__all__ = ["ADDRESSES", "FORWARD", "LINKED", "MESH_FRAMES", "REDIAL_S", "Backoff", "Mesh",
           "MeshNode", "members_in_order", "standing_of"]
