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
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from functools import partial
from typing import Protocol

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import InvalidMessage, UnoError
from uno_p2p.net.doors import HandshakeSlots
from uno_p2p.net.gate import PEER_BACKLOG, PEER_PENDING, Gate
from uno_p2p.net.handshake import MAX_PLAINTEXT, HandshakeFailed
from uno_p2p.net.link import Link, LinkLost, Timings, accept, connect
from uno_p2p.net.stats import LinkBytes
from uno_p2p.table.frames import (
    FRAME_CHAT,
    FRAME_ENTRY,
    FRAME_MESSAGE,
    FRAME_RELAY,
    FRAME_VOTE,
)
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.state import TablePhase
from uno_p2p.wire import fields
from uno_p2p.wire.codec import Limits, WireValue, pack, unpack
from uno_p2p.wire.envelope import Message
from uno_p2p.wire.limits import GAP_FILL_AFTER_MS

#: Link-level frames of the mesh (net.md §5.1).
ADDRESSES = b"a"
LINKED = b"k"
FORWARD = b"f"
MESH_FRAMES = (ADDRESSES, LINKED, FORWARD)
#: Table frames a member passes on (``S`` and ``D`` name their sender: never forwarded).
FORWARDABLE = (FRAME_MESSAGE, FRAME_ENTRY, FRAME_RELAY, FRAME_VOTE, FRAME_CHAT)
#: A forwarded frame's wrapping: ``f``, the msgpack array, the key and the bin header.
FORWARD_OVERHEAD = 64
#: At most this many entries in an ``a`` or ``k`` frame (a table seats 10).
MAX_MEMBERS = 16
ADDRESS_LIMITS = Limits(max_frame=8192, max_array=MAX_MEMBERS, max_str=64, max_bin=32,
                        max_depth=3)
#: An address whose stamp is more than this ahead of this node's clock is refused
#: (net.md §5.3): clocks on a LAN differ by seconds, and a stamp far in the future
#: would outrank every honest address to come.
STAMP_AHEAD_MS = 60_000
TICK_S = 0.25
REDIAL_S = 0.5
#: A link that lived this long was a working link: the next one is dialed at once.
STEADY_S = 10.0
#: The longest wait between links that keep failing soon after they are made.
BACKOFF_MAX_S = 8.0
LIVE = (TablePhase.KEYS, TablePhase.PLAYING, TablePhase.REVEALING)


class Backoff:
    """How long to wait before dialing a member again after its link ended (net.md §6):
    at once after a link that worked for ``STEADY_S``; after one that failed sooner,
    ``REDIAL_S``, doubling with each such failure up to ``BACKOFF_MAX_S``. A fault that
    repeats on every link (a frame the other side refuses) so costs a handshake every
    few seconds, never a loop that spins."""

    def __init__(self) -> None:
        self.failures = 0

    def after(self, lived_s: float) -> float:
        """The wait before the next dial, the ended link having lived ``lived_s``."""
        if lived_s >= STEADY_S:
            self.failures = 0
            return 0.0
        wait = min(BACKOFF_MAX_S, REDIAL_S * 2.0 ** min(self.failures, 16))
        self.failures += 1
        return wait


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

    def give_up(self) -> None: ...


def members_in_order(peer: TablePeer) -> tuple[PeerId, ...]:
    """Every member that ever joined, in joining order: who dials whom (§5.3)."""
    lobby = peer.state.lobby
    return () if lobby is None else lobby.joined


class Mesh:
    """One node's links to the other members, and what they say about reaching each other."""

    def __init__(self, node: MeshNode, timings: Timings, *, dials: bool,
                 give_up_ms: int | None = None,
                 host_lost_after_ms: int = HOST_LOST_AFTER_MS,
                 on_learned: Callable[[], None] | None = None) -> None:
        self.node = node
        #: Told when an address is learned (a joiner keeps them in its seat file, §8).
        self.on_learned = on_learned
        self.timings = timings
        self.dials = dials
        self.give_up_ms = give_up_ms
        self.host_lost_after_ms = host_lost_after_ms
        self.links: dict[bytes, Link] = {}
        #: key -> (host, port, stamp): where each member listens, the best we know: its
        #: own word (``a`` from its own link) if we heard it, else the newest hint.
        self.addresses: dict[bytes, tuple[str, int, int]] = {}
        #: The members whose entry in ``addresses`` is their own word: no hint overrides it.
        self.own_word: set[bytes] = set()
        #: key -> teller -> (host, port, stamp): what each member (or the seat file, b"")
        #: said about another's address. Hints only: a resume tries them all (net.md §5.3).
        self.hints: dict[bytes, dict[bytes, tuple[str, int, int]]] = {}
        #: For each linked member, the members it says it has a link to.
        self.reports: dict[bytes, frozenset[bytes]] = {}
        self.lost: set[bytes] = set()
        self.port = 0
        self._server: asyncio.Server | None = None
        self.gate = Gate(HandshakeSlots(most=PEER_PENDING))
        self._tasks: dict[bytes, asyncio.Task[None]] = {}
        self._ticker: asyncio.Task[None] | None = None
        self._out_of_reach: tuple[bytes, float] | None = None
        self._voted = False
        self._judged_for: PeerId | None = None
        #: When we last asked the members for entries, our link to the sequencer down.
        self._asked_at = 0.0
        #: Whether this node ever had a link (a node resumed from disk had one).
        self.ever_linked = False

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
        peer = self.node.seated
        if peer is not None:
            me = peer.peer_id.key
            self._learn(me, listen_host, self.port, self.node.clock(), teller=me)
            book = ADDRESSES + self._book()
            for link in self.links.values():
                link.send(book)

    async def close(self, reason: str) -> None:
        """Stop listening and dialing, close every link (after what is queued)."""
        if self._server is not None:
            self._server.close()
        for task in [*self._tasks.values(), *([self._ticker] if self._ticker else [])]:
            task.cancel()
        await asyncio.gather(*(link.close(reason) for link in list(self.links.values())))

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
        cut_off = not self.links and self.ever_linked
        self.ever_linked = True
        old = self.links.get(key)
        if old is not None and old is not link:
            old.abort()
            self.node.link_bytes.closed(old)
        self.links[key] = link
        self.node.link_bytes.opened(link)
        link.send(ADDRESSES + self._book())
        self._tell_linked()
        self.judge()
        return cut_off

    def detach(self, key: bytes, link: Link) -> None:
        """A link ended (its reader saw it): forget it and what its member said."""
        self.node.link_bytes.closed(link)
        if self.links.get(key) is link:
            del self.links[key]
            self.reports.pop(key, None)
            self._tell_linked()
            self.judge()

    async def serve(self, link: Link) -> None:
        """Carry one peer link's frames to the node until it ends."""
        key = link.peer.key
        self.catch_up(link, self.attach(link))
        try:
            while True:  # until the link ends: a finished node closes it (after its queue)
                data = await link.receive()
                if self.links.get(key) is not link:
                    break  # a newer link of this member took over
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
            # Every address we know for it in turn: a false hint costs one try (§5.3).
            known = self.candidates(member.key)
            where = known[tried % len(known)] if known else None
            tried += 1
            wait = REDIAL_S
            if peer is not None and where is not None and member.key not in self.links:
                with contextlib.suppress(LinkLost, HandshakeFailed):
                    link = await connect((where[0], where[1]), peer.identity,
                                         expect_host=member, timings=self.timings)
                    if link.table_id != peer.table_id:
                        link.abort()
                    else:
                        linked, tried = time.monotonic(), 0
                        await self.serve(link)
                        wait = max(REDIAL_S, backoff.after(time.monotonic() - linked))
            await asyncio.sleep(wait)

    def _ensure_dialers(self, peer: TablePeer) -> None:
        """Of every two members the later dials the earlier; the host's link (the first
        member's) is the node's own."""
        order = members_in_order(peer)
        if not self.dials or peer.peer_id not in order:
            return
        for member in order[1:order.index(peer.peer_id)]:
            if member.key not in self._tasks:
                self._tasks[member.key] = asyncio.create_task(self._dial(member))

    # -- frames -----------------------------------------------------------------------------
    def control(self, key: bytes, data: bytes) -> bool:
        """A mesh frame from ``key``'s link: True if it was one (handled or ignored)."""
        tag = data[:1]
        if tag not in MESH_FRAMES:
            return False
        try:
            if tag == ADDRESSES:
                self._addresses(key, data[1:])
            elif tag == LINKED:
                self._linked(key, data[1:])
            else:
                self._forward(key, data[1:])
        except (InvalidMessage, UnoError):
            pass  # a malformed hint: addresses and paths are hints, keys are pinned
        return True

    def route(self, out: Outgoing) -> None:
        """What the peer sends: to the sequencer (``to`` None) or the listed members."""
        peer = self.node.seated
        if peer is None:
            return
        targets = (peer.host_id,) if out.to is None else out.to
        for target in targets:
            link = self.links.get(target.key)
            if link is not None:
                link.send(out.data)
            elif target != peer.peer_id:
                self._send_through(target.key, out.data)

    def _send_through(self, target: bytes, data: bytes) -> None:
        if data[:1] not in FORWARDABLE or len(data) + FORWARD_OVERHEAD > MAX_PLAINTEXT:
            return
        for key in sorted(self.reports):
            if target in self.reports[key] and key in self.links:
                self.links[key].send(FORWARD + pack([target, data]))
                return

    def _forward(self, key: bytes, payload: bytes) -> None:
        target, data = fields.array(unpack(payload), 2, "a forwarded frame")
        target = fields.blob(target, "a member's key", size=32)
        data = fields.blob(data, "a table frame")
        link = self.links.get(target)
        peer = self.node.seated
        if link is None or peer is None or data[:1] not in FORWARDABLE or \
                PeerId(key) not in members_in_order(peer) or not _signed(data):
            return
        link.send(data)

    def _linked(self, key: bytes, payload: bytes) -> None:
        keys = fields.items(unpack(payload, ADDRESS_LIMITS), "linked members", max_len=MAX_MEMBERS)
        self.reports[key] = frozenset(fields.blob(k, "a key", size=32) for k in keys)
        self.judge()

    def _tell_linked(self) -> None:
        linked: list[WireValue] = [*sorted(self.links)]
        for link in self.links.values():
            link.send(LINKED + pack(linked))

    def _addresses(self, teller: bytes, payload: bytes) -> None:
        """An ``a`` frame from ``teller``'s link: its own entry is its word, the others are
        hints; an entry stamped more than ``STAMP_AHEAD_MS`` ahead of our clock is refused."""
        changed = False
        latest = self.node.clock() + STAMP_AHEAD_MS
        for item in fields.items(unpack(payload, ADDRESS_LIMITS), "addresses", max_len=MAX_MEMBERS):
            key, host, port, stamp = fields.array(item, 4, "an address")
            stamp = fields.integer(stamp, "a stamp", lo=0, hi=(1 << 62))
            if stamp > latest:
                continue
            changed |= self._learn(fields.blob(key, "a key", size=32),
                                   fields.text(host, "a host", max_chars=64),
                                   fields.integer(port, "a port", lo=1, hi=65535),
                                   stamp, teller=teller)
        if changed:  # pass news on: a stamp only grows, so this ends
            book = ADDRESSES + self._book()
            for link in self.links.values():
                link.send(book)

    def _learn(self, key: bytes, host: str, port: int, stamp: int, *, teller: bytes) -> bool:
        """Take what ``teller`` says about where ``key`` listens; True if our best
        address for ``key`` changed. A member's own word (``teller == key``) wins over any
        hint, whatever its stamp; among hints, and among its own words, the newest wins."""
        known = self.addresses.get(key)
        if teller == key:
            if key in self.own_word and known is not None and known[2] >= stamp:
                return False
            self.own_word.add(key)
        else:
            told = self.hints.setdefault(key, {})
            said = told.get(teller)
            if (said is not None and said[2] >= stamp) or \
                    (said is None and len(told) >= MAX_MEMBERS):
                return False
            told[teller] = (host, port, stamp)
            if key in self.own_word or (known is not None and known[2] >= stamp):
                return False
        self.addresses[key] = (host, port, stamp)
        if self.on_learned is not None:
            self.on_learned()
        return True

    def remember(self, key: bytes, host: str, port: int) -> None:
        """Where the seat file says ``key`` listened: a hint with the oldest stamp, so that
        anything the table says since wins, and kept to be tried on a resume. Nothing
        learned: the seat file holds it already."""
        self.hints.setdefault(key, {})[b""] = (host, port, 0)
        self.addresses.setdefault(key, (host, port, 0))

    def candidates(self, key: bytes) -> list[tuple[str, int]]:
        """Every address we know for ``key``, best first: its own word (or the newest
        hint), then the other hints, newest first. A resume tries them all (net.md §6)."""
        said = sorted(self.hints.get(key, {}).values(), key=lambda where: -where[2])
        best = self.addresses.get(key)
        ordered = ([best] if best is not None else []) + said
        return list(dict.fromkeys((host, port) for host, port, _ in ordered))

    def member_addresses(self) -> dict[bytes, tuple[str, int]]:
        """Where the other members of the table listen, as far as this node knows: the
        entries of its book that the log names, itself left out."""
        peer = self.node.seated
        if peer is None:
            return {}
        return {m.key: self.addresses[m.key][:2] for m in members_in_order(peer)
                if m.key in self.addresses and m != peer.peer_id}

    def _book(self) -> bytes:
        return pack([[k, h, p, s] for k, (h, p, s) in sorted(self.addresses.items())])

    # -- who is in reach (table.md §13.1, §14.1) ----------------------------------------
    def reachable(self, key: bytes) -> bool:
        """A direct link, or a linked member that holds one."""
        return key in self.links or any(key in r for k, r in self.reports.items()
                                        if k in self.links)

    def judge(self) -> None:
        """Tell the peer who is lost and who is back, by every path the mesh knows."""
        peer = self.node.seated
        if peer is None or self.node.finished.is_set():
            return
        self._ensure_dialers(peer)
        if peer.state.phase not in LIVE:
            return
        if self._judged_for != peer.host_id:
            # A new sequencer (table.md §13): it learns afresh who is out of reach.
            self._judged_for, self.lost = peer.host_id, set()
        me, changed = peer.peer_id.key, False
        for member in members_in_order(peer):
            key = member.key
            if key == me or member == peer.host_id:
                continue
            if self.reachable(key):
                if key in self.lost or (peer.sequencer is not None and
                                        key in peer.sequencer.lost):
                    self.lost.discard(key)
                    peer.peer_back(member)
                    changed = True
            elif key not in self.lost:
                self.lost.add(key)
                peer.peer_lost(member)
                changed = True
        if changed:
            self.node.pump()

    def _watch_sequencer(self, peer: TablePeer) -> None:
        """The sequencer out of reach: after ``host_lost_after_ms``, hold it gone (once per
        absence); past ``give_up_ms`` more, the node gives up (no hand-over came)."""
        sequencer = peer.host_id.key
        if sequencer == peer.peer_id.key or self.reachable(sequencer) or \
                peer.state.phase == TablePhase.ENDED:
            self._out_of_reach, self._voted = None, False
            return
        now = time.monotonic()
        if self._out_of_reach is None or self._out_of_reach[0] != sequencer:
            self._out_of_reach, self._voted = (sequencer, now), False
            return
        gone_ms = (now - self._out_of_reach[1]) * 1000
        # A lobby whose host is gone closes: only a started game is worth a hand-over
        # (and only the host's node starts a game).
        live = peer.state.phase != TablePhase.LOBBY
        if live and gone_ms >= self.host_lost_after_ms and not self._voted:
            self._voted = True
            self.node.on_note(f"{self._name(sequencer)} is out of reach: the others agree "
                              "on who keeps the table going")
            peer.host_lost()
            self.node.pump()
        if self.give_up_ms is not None and gone_ms >= self.host_lost_after_ms + self.give_up_ms:
            self.node.give_up()

    def _ask_around(self, peer: TablePeer) -> None:
        """No link to the sequencer, links to other members: ask them for the entries
        after our head, now and then. The broken link may have lost the last entries,
        and a table waiting on us for them sends no later one that would show the gap."""
        sequencer = peer.host_id.key
        if sequencer == peer.peer_id.key or sequencer in self.links or not self.links or \
                peer.state.phase not in LIVE:
            return
        now = time.monotonic()
        if (now - self._asked_at) * 1000 >= GAP_FILL_AFTER_MS:
            self._asked_at = now
            peer.ask_members()
            self.node.pump()

    async def _tick_loop(self) -> None:
        while not self.node.finished.is_set():
            await asyncio.sleep(TICK_S)
            peer = self.node.seated
            if peer is None:
                continue
            self.judge()
            self._watch_sequencer(peer)
            self._ask_around(peer)

    def catch_up(self, link: Link, cut_off: bool) -> None:
        """A new link: what the broken one may have lost. Cut off from everyone, ask
        every member (the table may have handed the sequencer on, table.md §13.4); a new
        link to the sequencer, ask it (§9)."""
        peer = self.node.seated
        if peer is None or peer.state.phase not in LIVE or peer.stopped is not None:
            return
        if cut_off:
            peer.rejoin()
        elif link.peer == peer.host_id:
            peer.resync()
        else:
            return
        self.node.pump()

    def _name(self, key: bytes) -> str:
        peer = self.node.seated
        return PeerId(key).fingerprint if peer is None else peer.state.name_of(key)


def _signed(data: bytes) -> bool:
    """A message frame carries its author's own signature: a member passes on no
    forgery, so the sequencer may name the link a forgery comes by (table.md §3.1)."""
    if data[:1] not in (FRAME_MESSAGE, FRAME_RELAY):
        return True
    try:
        Message.decode(data[1:]).verify()
    except (InvalidMessage, UnoError):
        return False
    return True


__all__ = ["ADDRESSES", "FORWARD", "LINKED", "MESH_FRAMES", "Backoff", "Mesh", "MeshNode"]
