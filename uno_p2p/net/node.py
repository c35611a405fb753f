"""The asyncio shells that play one sans-IO ``TablePeer`` over real links: the
host's node, which listens and is the table's sequencer, and a joiner's, which
dials the host and redials it (docs/protocol/net.md §7). What both do with
their peer is ``uno_p2p.net.driver``'s; nothing here decides anything about the
game.

Every member links to every other (``uno_p2p.net.mesh``, net.md §1): messages go
to the sequencer, entries come from it, and votes, relayed messages and
entries travel on any surviving path, so the game goes on when the host is
gone (table.md §13). The host tells every joiner who is missing (a ``p``
control frame); a joiner whose link to the host breaks reconnects and asks
for what it missed (``TablePeer.resync``). A joiner with no link at all that
knows where members listen (resumed from its seat file, or cut off from
everyone) dials the sequencer the log names first, then the other members,
then the host (net.md §5.3, §6).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from functools import partial

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import UnoError
from uno_p2p.net.accepting import quiet_when_out_of_files
from uno_p2p.net.adverts import Announcement, Discovery, TableAdvert
from uno_p2p.net.doors import LOBBY_FULL, CodeGuesses, HandshakeSlots, Strangers, source_of
from uno_p2p.net.driver import Driver, EventSink, NoteSink, wall_ms
from uno_p2p.net.gate import Gate
from uno_p2p.net.handshake import HandshakeFailed, refusal
from uno_p2p.net.link import (
    DEFAULT_TIMINGS,
    LOCKED_OUT,
    PRESENCE,
    Link,
    LinkLost,
    Timings,
    accept,
    connect,
    framed,
)
from uno_p2p.net.mesh import MESH_FRAMES, REDIAL_S, Backoff, Mesh, members_in_order
from uno_p2p.net.seats import LogSaver
from uno_p2p.net.txt import OUR_PROTOCOL_VERSION
from uno_p2p.table.events import GameStarted, PlayerLeft, TableEvent
from uno_p2p.table.frames import FRAME_SYNC, FRAMES, frame, sync_request
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.removal import awaited_seats
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.sequencer import RESPONSE_TIMEOUT_MS
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.codec import WireValue, pack, unpack

LIVE = (TablePhase.KEYS, TablePhase.PLAYING, TablePhase.REVEALING)
#: After the game ends a node keeps its links this long: the last entries still
#: travel, through a member if need be (net.md §5.3), before anyone hangs up.
LINGER_S = 2.0
#: The host then keeps the links its members made until they hang up, for at most this
#: long: a member that is behind (a slow laptop) still reads the last entries.
HANG_UP_WAIT_S = 30.0
#: How long a node whose sequencer is out of reach (past the hand-over time-out) waits
#: for a hand-over before it stops (net.md §6).
GIVE_UP_S = 30.0
#: The code of the ``LinkLost`` a resumed joiner stops with when no member answered.
NOBODY_ANSWERED = "nobody_answered"

#: A node's stop, in one line for its player (pinned in tests/cli/test_words.py):
#: ``waited`` is ``WAITING_FOR`` or "" (``waited_for``).
NOBODY_IN_REACH = ("nobody at the table is in reach any more: the game stopped here after "
                   "entry {seq}{waited}")
SEQUENCER_GONE = "the sequencer is gone: the game stopped after entry {seq}{waited}"
HOST_GONE = "the host is gone: the game stopped after entry {seq}{waited}"
WAITING_FOR = ", where the table was waiting for {names}"
#: This node's own seat among those waited for.
YOU = "you"


def awaited_names(peer: TablePeer) -> tuple[str, ...]:
    """Whom the table was waiting for at the log's last entry, by name in seat order
    (``YOU`` for this seat), none once the game is over. A plain fact of the log
    (table.md §14.1), as the audit's ``waiting``: this node cannot tell its own absence
    from theirs, so it accuses nobody."""
    state = peer.state
    if state.phase not in LIVE:
        return ()
    mine = state.seat_of(peer.peer_id.key)
    return tuple(YOU if seat == mine else state.name_of(state.seats[seat].key)
                 for seat in awaited_seats(state))


def waited_for(peer: TablePeer) -> str:
    """The end of a stop sentence: ", where the table was waiting for Bob and you", or
    "" when the table waited for nobody."""
    names = awaited_names(peer)
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return WAITING_FOR.format(names=listed)


class HostNode(Driver):
    """The host: listens, authenticates joiners, and carries the sequencer's frames."""

    def __init__(self, peer: TablePeer, saver: LogSaver | None, *, on_event: EventSink,
                 on_note: NoteSink, code: str | None = None, timings: Timings = DEFAULT_TIMINGS,
                 autostart: int | None = None, discovery: Discovery | None = None,
                 table_name: str = "", clock: Callable[[], int] = wall_ms) -> None:
        super().__init__(peer, saver, on_event, on_note, clock)
        self.table_name = table_name or f"{peer.name}'s table"
        self.code = code
        self.timings = timings
        self.autostart = autostart
        self.discovery = discovery
        # After a hand-over the old host is an ordinary peer: it too gives up on a
        # sequencer that stays out of reach (net.md §6), never waits for ever.
        self.mesh = Mesh(self, timings, dials=False, give_up_ms=int(GIVE_UP_S * 1000))
        self.links: dict[bytes, Link] = self.mesh.links
        self.missing: set[bytes] = set()
        self.port = 0
        self.address = ""
        self._server: asyncio.Server | None = None
        #: net.md §4, §6.1: join codes tried and unfinished handshakes, per source address.
        self.guesses = CodeGuesses()
        self.gate = Gate(HandshakeSlots())
        self.strangers = Strangers()
        #: Links in the lobby whose peer has not joined: kept out of the mesh.
        self.unseated: dict[bytes, Link] = {}
        self._announcement: Announcement | None = None
        self._advertised: TableAdvert | None = None
        #: Set whenever a member's link ends (the end of the game waits for them all).
        self._link_ended = asyncio.Event()

    async def listen(self, host: str = "0.0.0.0", port: int = 0) -> int:  # noqa: S104
        """Open the table's port (0: any free one) and announce it; returns the port.

        Raises:
            LinkLost: the port cannot be opened.
        """
        try:
            self._server = await asyncio.start_server(self._on_connection, host, port)
        except OSError as error:
            raise LinkLost(f"cannot listen on {host}:{port}: {error.strerror}",
                           code="unreachable") from error
        quiet_when_out_of_files(asyncio.get_running_loop(), self.on_note)
        self.port = int(self._server.sockets[0].getsockname()[1])
        self.address = host
        self.pump()
        await self.mesh.start(None)
        await self._announce()
        return self.port

    # -- discovery ------------------------------------------------------------------------
    def advert(self) -> TableAdvert:
        """What the table says about itself on the network now."""
        state = self.peer.state
        lobby = state.lobby
        taken = 0 if lobby is None else len(lobby.joined)
        most = 10 if lobby is None else lobby.max_players
        wildcard = self.address in ("", "0.0.0.0", "::")  # noqa: S104
        return TableAdvert(
            instance=self.table_name, table_name=self.table_name,
            host_player=self.peer.name, addresses=() if wildcard else (self.address,),
            port=self.port, protocol_version=OUR_PROTOCOL_VERSION, seats_taken=taken,
            seats_free=max(0, most - taken) if state.phase == TablePhase.LOBBY else 0,
            preset=lobby.preset if lobby is not None else "",
            phase="lobby" if state.phase == TablePhase.LOBBY else "playing",
            join_code=self.code is not None, host_fingerprint=self.peer.peer_id.fingerprint)

    async def _announce(self) -> None:
        if self.discovery is None:
            return
        advert = self.advert()
        if advert == self._advertised:
            return
        self._advertised = advert
        if self._announcement is None:
            self._announcement = await self.discovery.announce(advert)
        else:
            await self._announcement.update(advert)

    # -- links ----------------------------------------------------------------------------
    async def _on_connection(self, reader: asyncio.StreamReader,
                             writer: asyncio.StreamWriter) -> None:
        try:
            await self._connection(reader, writer)
        except asyncio.CancelledError:
            writer.close()  # the table is closing: this connection ends with it
            raise

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        peername = writer.get_extra_info("peername")
        where = f"{peername[0]}:{peername[1]}" if isinstance(peername, tuple) else "?"
        source, now = source_of(peername), time.monotonic()
        locked = None if self.code is None else self.guesses.refusal(source, now)
        if self.finished.is_set() or locked is not None:
            if locked is not None:
                writer.write(framed(refusal(LOCKED_OUT, locked)))
            writer.close()
            return
        slot = self.gate.enter(writer)
        if slot is None:
            return  # this address holds its share of handshakes already
        try:
            link = await accept(reader, writer, self.peer.identity, self.peer.table_id,
                                code=self.code, timings=self.timings,
                                guesses=self.guesses, source=source)
        except (HandshakeFailed, LinkLost) as error:
            if error.code != LOCKED_OUT:
                self.on_note(f"a connection from {where} was refused ({error.code}): {error}")
            writer.close()
            return
        finally:
            self.gate.leave(slot)
        await self._serve(link)

    def _admitted(self, key: bytes) -> bool:
        """Once the game has started only its players may talk to the sequencer: a
        stranger's ``join`` would be refused as cheating and stop the game (table.md §7.2)."""
        state = self.peer.state
        lobby = state.lobby
        if state.phase == TablePhase.LOBBY:
            return True
        return state.seat_of(key) is not None or (
            lobby is not None and any(p.key == key for p in lobby.joined))

    async def _serve(self, link: Link) -> None:
        key = link.peer.key
        if not self._admitted(key):
            self.on_note(f"{link.peer.fingerprint} at {link.address} was turned away: "
                         "the game has started")
            await link.close("the game has started; this table takes no new players")
            return
        if self._member(key):
            self._attach(link)
        else:
            self._hold_stranger(link)
        try:
            while True:
                data = await link.receive()
                if self._link_of(key) is not link:
                    break  # a newer link of this peer took over, or a stranger's was closed
                self.strangers.heard(key, time.monotonic())
                await self.take_frame(data, partial(self._deliver, key, data, self.clock()))
                await self._announce()
        except LinkLost as error:
            if not self.finished.is_set():
                self.on_note(f"{self.name_of(key)} ({link.peer.fingerprint}) lost its link "
                             f"({error.code}): {error}")
        finally:
            link.abort()
            self.syncs.forget(key)
            self._let_go(key, link)
            self._link_ended.set()

    # -- who is linked: members in the mesh, strangers beside it (net.md §6.1) -------------
    def _member(self, key: bytes) -> bool:
        lobby = self.peer.state.lobby
        return lobby is not None and PeerId(key) in lobby.joined

    def _link_of(self, key: bytes) -> Link | None:
        return self.links.get(key) or self.unseated.get(key)

    def _attach(self, link: Link) -> None:
        self.mesh.catch_up(link, self.mesh.attach(link))
        self._back(link.peer.key)

    def _hold_stranger(self, link: Link) -> None:
        """A link whose peer holds no seat (yet) stays out of the mesh: it hears no
        member's key or port (``a``, ``k``) and costs no ``k`` to anyone; past
        ``MAX_STRANGERS`` of them the one idle longest is closed (net.md §6.1)."""
        key = link.peer.key
        old = self.unseated.pop(key, None)
        if old is not None:
            old.abort()
        self.unseated[key] = link
        self.link_bytes.opened(link)
        members = frozenset(k for k in self.unseated if self._member(k))
        for idle in self.strangers.linked(key, time.monotonic(), members):
            self._say_goodbye(self.unseated.pop(idle), LOBBY_FULL)

    def _let_go(self, key: bytes, link: Link) -> None:
        if self.unseated.get(key) is link:
            del self.unseated[key]
            self.strangers.gone(key)
        self.link_bytes.closed(link)
        if self.links.get(key) is link:
            self.mesh.detach(key, link)
            self._gone(key)

    def _seat_strangers(self) -> None:
        """A stranger whose ``join`` was logged joins the mesh, before the entries that
        say so are sent (they go to the members' links): called first in every pump."""
        for key in [k for k in self.unseated if self._member(k)]:
            self.strangers.gone(key)
            self._attach(self.unseated.pop(key))

    def route(self, out: Outgoing) -> None:
        """The sequencer may answer a stranger (a refused ``join``) on its own link."""
        for target in out.to or ():
            stranger = self.unseated.get(target.key)
            if stranger is not None:
                stranger.send(out.data)
        self.mesh.route(out)

    def _deliver(self, key: bytes, data: bytes, arrived_ms: int) -> None:
        """One frame from a member (it came off the link at ``arrived_ms``): to the
        sequencer, or, after a hand-over, from it.

        Raises:
            LinkLost: a frame a joiner never sends, or one that does not decode.
        """
        if key in self.unseated and data[:1] in MESH_FRAMES:
            return  # a stranger's mesh frames: it is no member, and tells us nothing
        if self.mesh.control(key, data) or self.closed or self.sync_refused(key, data):
            return
        # Every table frame (table.md §3.1), the sequencer's ``D`` too: once a hand-over
        # made another member the sequencer, the old host is an ordinary peer and takes
        # its notices (§13.4); a ``D`` from anyone else the peer ignores. Only bytes that
        # are no frame at all cut the link.
        if data[:1] not in FRAMES:
            raise LinkLost(f"a frame of unknown kind {data[:1]!r}", code="unexpected_frame")
        cut = self.peer.receive(data, self.clock(), PeerId(key), arrived_ms)
        self.pump()
        if cut:
            raise LinkLost(cut, code="invalid_frame")

    def _saw(self, event: TableEvent) -> None:
        if isinstance(event, PlayerLeft) and event.kicked and event.peer.key in self.links:
            # The kick entry is already queued on that link: say goodbye after it.
            self._say_goodbye(self.links[event.peer.key], "the host removed you from the "
                              f"table: {event.reason or 'no reason given'}")
        if isinstance(event, GameStarted):
            self._close_strangers()

    def _say_goodbye(self, link: Link, reason: str) -> None:
        """Close ``link`` after what is queued on it, without waiting here."""
        task = asyncio.get_running_loop().create_task(link.close(reason))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _close_strangers(self) -> None:
        """The game started: a link that completed the handshake in the lobby but never
        joined is no seat, and is closed now (net.md §6). It gets no addresses and no
        entries, and nothing more it sends reaches the peer (``_serve``)."""
        strangers = [*self.unseated.items()]
        self.unseated.clear()
        for key, link in [*strangers, *self.links.items()]:
            if not self._admitted(key):
                self.mesh.detach(key, link)
                self.strangers.gone(key)
                self.on_note(f"{link.peer.fingerprint} at {link.address} never joined: "
                             "its link is closed now that the game has started")
                self._say_goodbye(link, "the game has started without you; this table "
                                  "takes no new players")

    def _seated(self, key: bytes) -> bool:
        """A seat of a live game, while this node's peer is its sequencer: who is missing
        is the sequencer's news; after a hand-over (§13.4) the old host's view of its
        links is nobody's."""
        state = self.peer.state
        return state.phase in LIVE and state.seat_of(key) is not None and \
            self.peer.sequencer is not None

    def _gone(self, key: bytes) -> None:
        if self._seated(key) and not self.finished.is_set():
            self.missing.add(key)
            name = self.name_of(key)
            self.on_note(f"{name} is out of reach; the game goes on, and if the table has to "
                         f"wait for {name}, {name} is removed after "
                         f"{RESPONSE_TIMEOUT_MS // 1000} s")
            self._tell_presence()
            # table.md §14: out of reach by every path (the mesh judges), it is removed
            # when the table must wait for it, and the others play on.

    def _back(self, key: bytes) -> None:
        if key in self.missing:
            self.missing.discard(key)
            if self._seated(key):
                self.on_note(f"{self.name_of(key)} is back")
                self._tell_presence()

    def _tell_presence(self) -> None:
        names: list[WireValue] = [*sorted(self.name_of(k) for k in self.missing)]
        for link in self.links.values():
            link.send(PRESENCE + pack(names))

    def _before_send(self) -> None:
        self._seat_strangers()
        state = self.peer.state
        lobby = state.lobby
        if self.autostart is None or state.phase != TablePhase.LOBBY or lobby is None:
            return
        if len(lobby.joined) >= self.autostart and all(p.key in lobby.ready for p in lobby.joined):
            self.autostart = None
            self.peer.start(self.clock())

    async def run(self) -> None:
        """Until the game ends (or stops), then say goodbye to every joiner. An end that a
        hand-over supersedes while the links linger is no end (``Driver._superseded``):
        the node plays on to the table's own."""
        while True:
            await self.finished.wait()
            await asyncio.sleep(LINGER_S)
            await self._until_hung_up(HANG_UP_WAIT_S)
            if self.finished.is_set():
                break
        await self.shutdown("the game is over")

    async def _until_hung_up(self, seconds: float) -> None:
        """Keep the links the members made until they hang up (each does ``LINGER_S``
        after its own end), for at most ``seconds``. A member that is behind still has
        the last entries to read, queued or in its socket; closing its link first would
        reset the connection under it and lose them (net.md §6), and it would never
        see the end."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                while self.links and self.finished.is_set():
                    self._link_ended.clear()
                    await self._link_ended.wait()

    def _reopened(self) -> None:
        self._link_ended.set()  # ``_until_hung_up`` looks again, and sees the game go on

    def give_up(self) -> None:
        """The sequencer (another member, after a hand-over) stayed out of reach and no
        new hand-over came, or, this node the sequencer, no other seat came back in
        reach (table.md §6.3): stop, as a joiner does; the log holds what we accepted."""
        if self.finished.is_set():
            return
        said = NOBODY_IN_REACH if self.peer.sequencer is not None else SEQUENCER_GONE
        self.on_note(said.format(seq=self.peer.state.seq, waited=waited_for(self.peer)))
        self.finished.set()

    async def shutdown(self, reason: str) -> None:
        """Close every link (after sending what is queued), stop listening, unregister."""
        self.finished.set()
        if self._server is not None:
            self._server.close()
        await self.mesh.close(reason)
        if self._announcement is not None:
            with contextlib.suppress(Exception):
                await self._announcement.close()
        self.close_log()


class JoinNode(Driver):
    """A joiner: a link to the host, reconnecting by itself when it breaks, and links to
    every other member (``uno_p2p.net.mesh``)."""

    def __init__(self, identity: Identity, address: tuple[str, int], *,
                 make_peer: Callable[[Link], tuple[TablePeer, LogSaver | None]] | None,
                 peer: TablePeer | None = None, saver: LogSaver | None = None,
                 on_event: EventSink, on_note: NoteSink, code: str | None = None,
                 expect_host: PeerId | None = None, expect_fingerprint: str | None = None,
                 timings: Timings = DEFAULT_TIMINGS, give_up_s: float = GIVE_UP_S,
                 clock: Callable[[], int] = wall_ms,
                 members: Mapping[bytes, tuple[str, int]] | None = None,
                 on_members: Callable[[dict[bytes, tuple[str, int]]], None] | None = None
                 ) -> None:
        super().__init__(peer, saver, on_event, on_note, clock)
        self.identity = identity
        self.address = address
        self.make_peer = make_peer
        self.code = code
        self.expect_host = expect_host
        self.expect_fingerprint = expect_fingerprint
        self.timings = timings
        self.give_up_s = give_up_s
        self.link: Link | None = None
        self.missing: list[str] = []
        self.host_lost = False
        self.mesh = Mesh(self, timings, dials=True, give_up_ms=int(give_up_s * 1000),
                         on_learned=self._tell_members)
        # Resumed from disk: its first link is a way back, and asks every member (§13.4).
        self.mesh.ever_linked = peer is not None
        #: Where the members listened when the seat was saved: the oldest stamp, so that
        #: any address a member sends since wins (net.md §5.3).
        for key, (host, port) in (members or {}).items():
            self.mesh.remember(key, host, port)
        self.on_members = on_members
        self._told = dict(members or {})

    def _tell_members(self) -> None:
        """Where the members listen changed (an address learned, a member joined): tell
        ``on_members``, which keeps it in the seat file for ``--resume`` (net.md §8)."""
        book = self.mesh.member_addresses()
        if self.on_members is not None and book != self._told:
            self._told = book
            self.on_members(book)

    def _before_send(self) -> None:
        self._tell_members()

    def _targets(self) -> list[tuple[tuple[str, int], PeerId | None, str | None]]:
        """Whom to dial for the node's own link: the host (with the join code), as at
        first. A node with no link at all that knows where members listen (resumed from
        disk, or cut off) tries the sequencer the log names first (after a hand-over the
        host is gone), then the other members, then the host; a member's port takes no
        join code (net.md §5.3). Once linked, the mesh finds the rest."""
        host = (self.address, self.expect_host, self.code)
        peer = self._peer
        if peer is None or self.mesh.links:
            return [host]
        order = [peer.host_id, *(m for m in members_in_order(peer) if m != self.expect_host),
                 self.expect_host]
        targets: list[tuple[tuple[str, int], PeerId | None, str | None]] = []
        for member in dict.fromkeys(order):
            if member == self.expect_host:
                targets.append(host)
            elif member is not None and member != peer.peer_id:
                # Every address known for it: a false hint costs one try (net.md §5.3).
                targets.extend((where, member, None)
                               for where in self.mesh.candidates(member.key))
        return targets

    async def _connect(self) -> Link:
        """A link to the first of ``_targets`` that answers.

        Raises:
            LinkLost: none answered.
            HandshakeFailed: the host refused us, or is not who we expect.
        """
        lost = LinkLost("no member of the table answered", code="unreachable")
        for address, expected, code in self._targets():
            try:
                link = await connect(address, self.identity, code=code, expect_host=expected,
                                     timings=self.timings)
            except LinkLost as error:
                lost = error
                continue
            except HandshakeFailed:
                if expected == self.expect_host:
                    raise
                continue  # a member's saved address now leads elsewhere: it was a hint
            if self._peer is not None and link.table_id != self._peer.table_id:
                link.abort()  # the same player, at another table now
                continue
            wanted = self.expect_fingerprint
            if expected == self.expect_host and wanted is not None and \
                    link.peer.fingerprint != wanted:
                link.abort()
                raise HandshakeFailed(f"the host at {link.address} is {link.peer.fingerprint}, "
                                      f"not the announced {wanted}", code="wrong_host")
            return link
        raise lost

    def _seat(self, link: Link, cut_off: bool) -> None:
        """The node's own link (to the host, or, with no other link, to a member): sit
        down (a fresh join), or ask for what we missed: from the host while it is the
        sequencer, from every member when we were cut off from everyone (the table may
        have handed the sequencer on, table.md §13.4)."""
        if self.expect_host is None:
            self.expect_host = link.peer
        if self._peer is None or len(self._peer.ledger.chain) == 0:
            if self.make_peer is None:
                raise UnoError("nothing to resume from")
            again = self._peer is not None
            self._peer, self.saver = self.make_peer(link)
            self.pump()  # our join goes out first
            if again:
                # The join may have been logged while the link was down: then the same
                # join is a harmless replay, and this asks for the entries (table.md §9).
                link.send(frame(FRAME_SYNC, sync_request(0)))
        else:
            self.mesh.catch_up(link, cut_off)

    async def run(self) -> None:
        """Play until the game ends, or until the sequencer has been out of reach for
        the hand-over time-out plus ``give_up_s`` (no hand-over could be made).

        Raises:
            HandshakeFailed: the host refused us or did not authenticate.
            LinkLost: the host could not be reached at all the first time (a resumed
                seat: no member answered within ``give_up_s``, code ``nobody_answered``).
        """
        try:
            await self._run()
        except BaseException:
            self.mesh.abort()  # cancelled, or the first link failed: nothing to flush
            self.close_log()
            raise
        await self.mesh.close("the game is over")
        self.close_log()

    async def _run(self) -> None:
        first, since = True, time.monotonic()
        backoff = Backoff()
        while True:
            if not await self._play_on(first, since, backoff):
                return  # the host closed a lobby we had no place in: nothing to linger for
            first = False
            await asyncio.sleep(LINGER_S)
            if self.finished.is_set():
                break
            # Our end was superseded while we lingered (``Driver._superseded``): the game
            # goes on, over a fresh link (the last one stopped being read at the end).
            if self.link is not None:
                self.link.abort()
                self.link = None
        if self.link is not None:
            await self.link.close("the game is over")

    async def _play_on(self, first: bool, since: float, backoff: Backoff) -> bool:
        """Keep a link and play until the game ends (or this node gives up); False when
        the host closed the link on a peer that holds no place at the table."""
        while not self.finished.is_set():
            try:
                self.link = await self._connect()
            except LinkLost as unanswered:
                if first:
                    self._unanswered(unanswered, time.monotonic() - since)
                await asyncio.sleep(REDIAL_S)
                continue
            first = False
            self._say_whom(self.link)
            self._seat(self.link, self.mesh.attach(self.link))
            await self.mesh.start(self.link.local_host or None)
            self.pump()
            link, linked = self.link, time.monotonic()
            error = await self._serve(link)
            self.mesh.detach(link.peer.key, link)
            if error is not None and error.code == "bye" and not self._member():
                self.on_note(f"the host closed the link: {error}")
                self._lost()
                return False
            if error is not None and not self.finished.is_set():
                who = "the host" if link.peer == self.expect_host else \
                    self.name_of(link.peer.key)
                self.on_note(f"lost the link to {who} ({error.code}): {error}; "
                             "reconnecting, and playing on through the other members")
                await self._pause(backoff.after(time.monotonic() - linked))
        return True

    async def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` before dialing again, or less if the game ends meanwhile."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self.finished.wait()

    def _unanswered(self, error: LinkLost, waited_s: float) -> None:
        """No link yet in this run. A fresh join stops at once (most likely a wrong
        address, and nothing is lost). A seat resumed from disk redials while the
        others may be coming back too, then stops after its give-up time, as a node
        that lost its links does (net.md §6): its mesh, which would judge that, only
        starts with a first link.

        Raises:
            LinkLost: ``error`` for a fresh join; code ``nobody_answered`` for a
                resumed seat past its give-up time.
        """
        if self._peer is None:
            raise error
        if waited_s >= self.give_up_s:
            raise LinkLost(f"nobody at the table answered in {self.give_up_s:g} s ({error})",
                           code=NOBODY_ANSWERED) from error

    def _say_whom(self, link: Link) -> None:
        """A link to another member than the host: say whom, the way back being news."""
        peer = self._peer
        if peer is None or link.peer == self.expect_host:
            return
        role = ", who keeps the table going," if link.peer == peer.host_id else ""
        self.on_note(f"linked to {self.name_of(link.peer.key)}{role} at {link.address}")

    def _member(self) -> bool:
        peer = self._peer
        return peer is not None and peer.state.lobby is not None and \
            peer.peer_id in peer.state.lobby.joined

    async def _serve(self, link: Link) -> LinkLost | None:
        try:
            while not self.finished.is_set():
                data = await link.receive()
                if data[:1] == PRESENCE:
                    self._presence(data[1:])
                    continue
                self.head_start(link.peer.key, data)
                await self.take_frame(data, partial(self.deliver, link.peer.key, data,
                                                    self.clock()))
        except LinkLost as error:
            link.abort()
            self.link = None
            return error
        return None

    def _presence(self, payload: bytes) -> None:
        try:
            names = unpack(payload)
        except UnoError:
            return
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return
        missing = [str(n) for n in names]
        if missing != self.missing:
            self.missing = missing
            if missing:
                self.on_note(f"out of reach: {', '.join(missing)} (the game goes on; one the "
                             f"table has to wait for is removed after "
                             f"{RESPONSE_TIMEOUT_MS // 1000} s)")
            else:
                self.on_note("everyone is back")

    def give_up(self) -> None:
        self._lost()

    def _lost(self) -> None:
        if self.finished.is_set():
            return
        self.host_lost = True
        seq = 0 if self._peer is None else self._peer.state.seq
        waited = "" if self._peer is None else waited_for(self._peer)
        self.on_note(HOST_GONE.format(seq=seq, waited=waited))
        self.finished.set()
