"""The part of a node that drives its sans-IO ``TablePeer`` (docs/protocol/net.md §7).

Like aioquic's asyncio layer around its connection: bytes from a link go to
``TablePeer.receive`` (with the sender's key), what the peer queues
(``data_to_send``) goes to the links its ``Outgoing`` names, its timer is one
``call_later``, its events go to a callback, and every entry it accepted is
written to its ``.unolog`` at once. The host's and a joiner's ways of holding
their links (``uno_p2p.net.node``) are built on it; nothing here decides
anything about the game.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import UnoError
from uno_p2p.net.doors import SyncAllowance
from uno_p2p.net.link import PRESENCE
from uno_p2p.net.mesh import Mesh
from uno_p2p.net.seats import LogSaver
from uno_p2p.net.stats import LinkBytes, NodeStats
from uno_p2p.net.verify import Ahead, Offloader
from uno_p2p.rules.actions import Action
from uno_p2p.table.events import GameEnded, PlayerLeft, PlayerRemoved, RoundEnded, TableEvent
from uno_p2p.table.frames import FRAME_MESSAGE, FRAME_SYNC
from uno_p2p.table.offload import (
    Duty,
    DutyJob,
    Statement,
    WorkAhead,
    frame_statements,
    frame_turn_ahead,
)
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.removal import LEFT
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Entry

EventSink = Callable[[TableEvent], None]
NoteSink = Callable[[str], None]


def wall_ms() -> int:
    """The table clock's source: milliseconds since the epoch (the shell's only clock)."""
    return time.time_ns() // 1_000_000


class Driver:
    """What host and joiner share: pump the peer, save its log, keep its timer."""

    def __init__(self, peer: TablePeer | None, saver: LogSaver | None,
                 on_event: EventSink, on_note: NoteSink,
                 clock: Callable[[], int] = wall_ms) -> None:
        self._peer = peer
        self.saver = saver
        self.on_event = on_event
        self.on_note = on_note
        self.clock = clock
        self.finished = asyncio.Event()
        self._timer: asyncio.TimerHandle | None = None
        self.stats = NodeStats.from_env()
        #: Bytes on the wire: open links, and totals of closed ones (never kept).
        self.link_bytes = LinkBytes()
        self.mesh: Mesh
        self.closed = False
        #: Why the host removed this peer from the lobby (a kick), else "".
        self.removed = ""
        self._closing: set[asyncio.Task[None]] = set()
        #: net.md §7.1: proofs checked and duties proven off the event loop.
        self.offloader = Offloader.from_env()
        #: net.md §5.2: how often each member may make us queue the log for it.
        self.syncs = SyncAllowance()
        #: deck.md §6.3: the turns started ahead of any frame, each once.
        self.work_ahead = WorkAhead()
        #: ``finished`` was set by the game's end (phase ``ended``), which a hand-over
        #: this peer had not seen may still supersede (``_superseded``).
        self._over = False

    @property
    def peer(self) -> TablePeer:
        if self._peer is None:
            raise UnoError("the peer is not seated yet")
        return self._peer

    @property
    def seated(self) -> TablePeer | None:
        """The peer, or None before a joiner's first link made it."""
        return self._peer

    def name_of(self, key: bytes) -> str:
        if self._peer is None:
            return PeerId(key).fingerprint
        return self._peer.state.name_of(key)

    def pump(self) -> None:
        """Move everything the peer produced: log, frames, events, timer."""
        peer = self.peer
        self._before_send()
        if self.saver is not None:
            self.saver.save(peer.ledger.chain)
        for out in peer.data_to_send():
            self.route(out)
        while (event := peer.next_event()) is not None:
            if self.saver is not None and isinstance(event, RoundEnded | GameEnded):
                self.saver.log.sync()
            self._saw(event)
            if isinstance(event, PlayerLeft) and event.kicked and event.peer == peer.peer_id:
                self.removed = event.reason or "removed by the host"
                self.finished.set()  # no place at this table any more
            if isinstance(event, PlayerRemoved) and event.peer == peer.peer_id \
                    and event.reason == LEFT:
                # Our leave was logged (table.md §8): we are done. (A seat removed for
                # vanishing that comes back watches the rest, §14.3.)
                self.finished.set()
            self.on_event(event)
        self._schedule()
        peer.duties.offload = self.offloader.offloads
        job = peer.duties.take()
        if job is not None:
            # A joiner sends its turn before checking its own proof (issue 28).
            self.offloader.duty(job, self._duty_done, check_first=peer.is_host)
        self._next_round(peer)
        if self.stats is not None:
            self.stats.observe(peer)
        if peer.state.phase == TablePhase.ENDED or peer.stopped is not None:
            self._over = peer.state.phase == TablePhase.ENDED
            self.finished.set()
        elif self._over and not self.closed:
            self._superseded()

    def _superseded(self) -> None:
        """The end this peer logged was never agreed: a hand-over it had not seen took the
        table on from an entry before it (table.md §13.4), and the log on disk (saved
        above) now stops there. The game is not over here: the node goes on, asks every
        member for what follows, and ends with the table's own end (or gives up, net.md
        §6), so that its log is the table's and its last word that log's verdict."""
        self._over = False
        self.finished.clear()
        self.on_note(f"the table went on without this seat's last entries: following it "
                     f"from entry {self.peer.state.seq}")
        self.mesh.reopen()
        self._reopened()
        self.peer.ask_members()
        self.pump()

    def _reopened(self) -> None:
        """A hook: the host stops waiting for its members to hang up."""

    def _duty_done(self, job: DutyJob, body: Duty) -> None:
        self.peer.duty_done(job, body)
        self.pump()

    async def take_frame(self, data: bytes, deliver: Callable[[], None]) -> None:
        """Check the frame's heavy statements in a worker, then ``deliver`` it, in
        arrival order (net.md §7.1).

        Raises:
            Whatever ``deliver`` raises.
        """
        def statements() -> tuple[Statement, ...]:
            peer = self._peer
            if peer is None:
                return ()
            return frame_statements(peer.state, data, sequencer=peer.is_host)

        def ahead() -> Ahead | None:
            peer = self._peer
            if peer is None:
                return None
            turn = frame_turn_ahead(peer.state, data, peer.secrets, sequencer=peer.is_host)
            if turn is None:
                return None
            entry = turn.entry
            return Ahead(turn.run, None if entry is None else lambda: self._send_ahead(entry))

        await self.offloader.receive(statements, deliver, ahead)

    def _next_round(self, peer: TablePeer) -> None:
        """Seat 0 makes the next round's first turn as this round nears its end, once per
        deck it may be (deck.md §6.3, "The next round's first turn")."""
        if not self.offloader.offloads:
            return
        turn = self.work_ahead.after_pump(peer.state, peer.secrets)
        if turn is not None:
            self.offloader.start_ahead(turn.run, "next round")

    def head_start(self, key: bytes, data: bytes) -> None:
        """A frame from ``key``'s link, before it queues: a shuffler's turn sent straight
        to this seat, which shuffles next, starts this seat's turn now, beside the
        sequencer's check of it (deck.md §6.3, "A head start"); the entry that logs it
        later finds the turn made. At most one per turn of a deck (``HeadStarts``)."""
        peer = self._peer
        if peer is None or self.closed or peer.is_host or data[:1] != FRAME_MESSAGE:
            return
        turn = self.work_ahead.on_frame(peer.state, data, peer.secrets, key)
        if turn is not None:
            self.offloader.start_ahead(turn.run, "head start")

    def _send_ahead(self, entry: Entry) -> None:
        """The turn made ahead on ``entry``'s deck is ready while ``entry`` is still being
        checked: a joiner sends it now (deck.md §6.3, issue 28), then checks it."""
        peer = self._peer
        if peer is None or self.closed:
            return
        sent = peer.send_turn_ahead(entry)
        if sent:
            self.pump()
            self.offloader.check_sent(sent)

    def _before_send(self) -> None:
        """A hook for the host's lobby (autostart)."""

    def _saw(self, event: TableEvent) -> None:
        """A hook: the host cuts a link whose frame did not decode."""

    def route(self, out: Outgoing) -> None:
        """To the sequencer or the listed members, on any path the mesh has."""
        self.mesh.route(out)

    def deliver(self, key: bytes, data: bytes, arrived_ms: int) -> None:
        """A frame from a member's link (taken off it at ``arrived_ms``): the mesh's own,
        or one for the peer.

        Raises:
            LinkLost: a frame a member never sends, or one that does not decode.
        """
        if self.mesh.control(key, data) or data[:1] == PRESENCE or self._peer is None or \
                self.closed or self.sync_refused(key, data):
            return
        # table.md §6.1: the clock check counts from when the frame came off the link,
        # not from when its proofs were checked; a forward's delay only makes it looser.
        self.peer.receive(data, self.clock(), PeerId(key), arrived_ms)
        self.pump()

    def sync_refused(self, key: bytes, data: bytes) -> bool:
        """An ``S`` from ``key`` past its allowance (``doors.SyncAllowance``): ignored, as
        every answer queues the log for it and it asks again in a second if it still
        needs it (net.md §5.2)."""
        return data[:1] == FRAME_SYNC and not self.syncs.allows(key, time.monotonic())

    def give_up(self) -> None:
        """The sequencer stayed out of reach and no hand-over came (a joiner stops)."""

    def act(self, action: Action) -> None:
        """The local player's move (see ``TablePeer.act``).

        Raises:
            IllegalAction / LocalProtocolError: as ``TablePeer.act``.
        """
        self.peer.act(action)
        self.pump()

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        when = self.peer.next_timer()
        if when is not None and not self.finished.is_set():
            delay = max(0.0, (when - self.clock()) / 1000)
            self._timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.peer.handle_timer(self.clock())
        self.pump()

    def close_log(self) -> None:
        """Stop the timer, close the log, write the stats (if measured)."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        if self.saver is not None:
            self.saver.close()
        self.offloader.close()
        if self.stats is not None and self._peer is not None:
            self.stats.bytes_sent = self.link_bytes.sent
            self.stats.bytes_received = self.link_bytes.received
            self.stats.write(self._peer)
            self.stats = None
