"""An in-memory network: N table peers, the real codec, a deterministic queue.

Like h11's ``ConnectionPair``, but for a whole table: bytes move between
``TablePeer`` objects through one FIFO queue of ``(from, to, bytes)``, and a
simulated clock jumps to the next timer when nothing is in flight. It is
pure and deterministic (the same seed gives the same game, byte for byte),
so tests, ``uno-lan simulate``, the benchmark and the audit's reference logs
all use it. An adversary plugs in as a ``Tamper``: a function that may
rewrite, drop, duplicate or redirect any frame on its way.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import LocalProtocolError
from uno_p2p.rules.options import Options
from uno_p2p.table.events import TableEvent
from uno_p2p.table.offload import Statement, WorkAhead, frame_statements, frame_turn_ahead
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import PROTOCOL_VERSION, Entry

#: ``tamper(sender, recipient, data) -> frames to deliver instead`` (empty: dropped).
Tamper = Callable[[bytes, bytes, bytes], list[bytes]]
NAMES = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo")
MAX_DELIVERIES = 2_000_000


def seeded(seed: bytes, label: str, size: int = 32) -> bytes:
    """Deterministic test bytes (the shells draw real ones with ``secrets``)."""
    return hashlib.sha256(b"uno-lan/memnet\x00" + label.encode() + b"\x00" + seed).digest()[:size]


@dataclass(slots=True)
class Traffic:
    """What the network carried."""

    frames: int = 0
    sent_bytes: int = 0
    by_sender: dict[bytes, int] = field(default_factory=dict)


class Network:
    """Peers by key, a FIFO of frames, a clock; ``run`` delivers until the table is quiet."""

    def __init__(self, tamper: Tamper | None = None, start_ms: int = 0, *,
                 offload: bool = False) -> None:
        self.peers: dict[bytes, TablePeer] = {}
        #: Do what a shell's workers do (net.md §7.1), in line: check each frame's
        #: statements before ``receive``, compute each heavy duty the peer asks for.
        self.offload = offload
        self.checked_ahead = 0
        #: Shuffle turns a joiner sent before the turn they follow was checked.
        self.sent_ahead = 0
        #: Shuffle turns made on a head start (the shuffler before sent its turn).
        self.head_starts = 0
        #: Next rounds' first turns made as a round neared its end.
        self.next_rounds = 0
        self._work_ahead: dict[bytes, WorkAhead] = {}
        self.queue: deque[tuple[bytes, bytes, bytes]] = deque()
        self.now_ms = start_ms
        self.tamper = tamper
        self.traffic = Traffic()
        self.events: dict[bytes, list[TableEvent]] = {}
        self.silent: set[bytes] = set()

    def add(self, peer: TablePeer) -> TablePeer:
        """Seat ``peer`` on the network and send what it has queued."""
        key = peer.peer_id.key
        self.peers[key] = peer
        peer.duties.offload = self.offload
        self.events.setdefault(key, [])
        self.flush(peer)
        return peer

    @property
    def host(self) -> TablePeer:
        for peer in self.peers.values():
            if peer.is_host:
                return peer
        raise LocalProtocolError("no host on this network")

    def flush(self, peer: TablePeer) -> None:
        """Run ``peer``'s queued duties, keep its events and queue what it has to send.

        The network does this after every frame and timer it gives a peer; a test
        that calls a peer directly (``start``, ``leave``, a chat line) calls it too,
        so the peer's words reach the others as they would from a shell.
        """
        while (job := peer.duties.take()) is not None:
            body = job.run()
            self._check_ahead(job.statements(body))
            peer.duty_done(job, body)
        if self.offload:
            self._next_round(peer)
        key = peer.peer_id.key
        self.events[key].extend(peer.events())
        for out in peer.data_to_send():
            targets = (peer.host_id,) if out.to is None else out.to
            for target in targets:
                self.send(key, target.key, out.data)

    def send(self, sender: bytes, recipient: bytes, data: bytes) -> None:
        """Queue one frame (through the tamper hook, if any)."""
        frames = [data] if self.tamper is None else self.tamper(sender, recipient, data)
        for item in frames:
            self.queue.append((sender, recipient, item))
            self.traffic.frames += 1
            self.traffic.sent_bytes += len(item)
            self.traffic.by_sender[sender] = self.traffic.by_sender.get(sender, 0) + len(item)

    def step(self) -> bool:
        """Deliver one frame, or fire the earliest timer; False when nothing is left."""
        if self.queue:
            sender, recipient, data = self.queue.popleft()
            peer = self.peers.get(recipient)
            if peer is not None and recipient not in self.silent:
                if self.offload:
                    self._head_start(peer, sender, data)
                    self._turn_ahead(peer, data)
                    self._check_ahead(frame_statements(peer.state, data,
                                                       sequencer=peer.is_host))
                peer.receive(data, self.now_ms, PeerId(sender))
                self.flush(peer)
            return True
        timers = [(t, k) for k, p in self.peers.items() if k not in self.silent
                  for t in [p.next_timer()] if t is not None]
        if not timers:
            return False
        when, key = min(timers)
        self.now_ms = max(self.now_ms, when)
        peer = self.peers[key]
        peer.handle_timer(self.now_ms)
        self.flush(peer)
        return True

    def _next_round(self, peer: TablePeer) -> None:
        """As a node after each pump (``NodeDriver._next_round``): seat 0 makes the next
        round's first turn as the round nears its end, once per deck it may be."""
        turn = self._ahead(peer).after_pump(peer.state, peer.secrets)
        if turn is not None:
            turn.run()
            self.next_rounds += 1

    def _head_start(self, peer: TablePeer, sender: bytes, data: bytes) -> None:
        """As a node before a frame queues (``NodeDriver.head_start``): a shuffler's turn
        sent straight to the seat that shuffles next starts that seat's turn."""
        turn = None if peer.is_host else \
            self._ahead(peer).on_frame(peer.state, data, peer.secrets, sender)
        if turn is not None:
            turn.run()
            self.head_starts += 1

    def _ahead(self, peer: TablePeer) -> WorkAhead:
        return self._work_ahead.setdefault(peer.peer_id.key, WorkAhead())

    def _turn_ahead(self, peer: TablePeer, data: bytes) -> None:
        """As a node's duty worker beside its check (net.md §7.1 item 4): the turn that
        follows the arriving one made ahead, and a joiner's sent before the arriving
        turn is checked (deck.md §6.3); its own proof checked right after."""
        turn = frame_turn_ahead(peer.state, data, peer.secrets, sequencer=peer.is_host)
        if turn is None:
            return
        turn.run()
        if turn.entry is not None:
            sent = peer.send_turn_ahead(turn.entry)
            self.sent_ahead += bool(sent)
            self.flush(peer)
            self._check_ahead(sent)

    def _check_ahead(self, statements: Iterable[Statement]) -> None:
        for statement in statements:
            key = statement.check()
            if key is not None:
                self.checked_ahead += 1
                statement.memo.add(key)

    def run(self, until: Callable[[Network], bool] | None = None,
            max_steps: int = MAX_DELIVERIES) -> int:
        """Deliver until ``until`` holds or nothing moves; returns the steps taken.

        Raises:
            LocalProtocolError: still busy after ``max_steps`` (a livelock is a bug).
        """
        for steps in range(max_steps):
            if until is not None and until(self):
                return steps
            if not self.step():
                return steps
        raise LocalProtocolError(f"the table did not settle in {max_steps} steps")

    # -- conveniences ---------------------------------------------------------------------
    def entries(self, peer: TablePeer | None = None) -> tuple[Entry, ...]:
        """The log as ``peer`` (default: the host) accepted it."""
        return (peer or self.host).ledger.chain.entries

    def all_events(self) -> Iterator[tuple[bytes, TableEvent]]:
        for key, events in self.events.items():
            for event in events:
                yield key, event


@dataclass(frozen=True, slots=True)
class TableSetup:
    """How to seat a simulated table."""

    players: int
    options: Options
    seed: bytes
    preset: str = ""
    bots: tuple[str, ...] = ()
    start_ms: int = 0
    #: As ``Network.offload``.
    offload: bool = False
    #: The table protocol version the table speaks (wire.md §3).
    version: int = PROTOCOL_VERSION


def seat_table(setup: TableSetup, tamper: Tamper | None = None, *,
               peer_class: type[TablePeer] | None = None,
               custom: dict[int, type[TablePeer]] | None = None) -> Network:
    """A network with a host and ``players - 1`` joiners, all bots, joined, ready, started.

    ``custom`` maps a seat to a ``TablePeer`` subclass (an adversary) for that seat.
    """
    net = Network(tamper, setup.start_ms, offload=setup.offload)
    table_id = seeded(setup.seed, "table", 16)
    identities = [Identity(seeded(setup.seed, f"identity {i}")) for i in range(setup.players)]
    bots = setup.bots or ("heuristic",) * setup.players
    kinds = {i: (custom or {}).get(i, peer_class or TablePeer) for i in range(setup.players)}
    host_id: PeerId = identities[0].peer
    net.add(kinds[0].host(identities[0], seeded(setup.seed, "entropy 0"), table_id=table_id,
                          name=NAMES[0], options=setup.options, preset=setup.preset,
                          max_players=max(2, setup.players), bot=bots[0],
                          now_ms=setup.start_ms, nonce=seeded(setup.seed, "nonce 0", 16),
                          version=setup.version))
    for i in range(1, setup.players):
        net.add(kinds[i].join(identities[i], seeded(setup.seed, f"entropy {i}"),
                              table_id=table_id, host=host_id, name=NAMES[i], bot=bots[i],
                              nonce=seeded(setup.seed, f"nonce {i}", 16),
                              version=setup.version))
        net.run(until=lambda n: False, max_steps=10_000)
    lobby = net.host.state.lobby
    if lobby is None or len(lobby.joined) != setup.players or len(lobby.ready) != setup.players:
        raise LocalProtocolError("the simulated lobby did not fill")
    net.host.start()
    net.flush(net.host)
    return net


def game_over(net: Network) -> bool:
    """Every peer has ended (or stopped)."""
    return all(p.state.phase == TablePhase.ENDED or p.stopped is not None
               for k, p in net.peers.items() if k not in net.silent)
