"""What a node measured, for ``scripts/bench-lan`` (off unless ``UNO_LAN_STATS`` is set).

Each node records the wall-clock millisecond at which it accepted each entry,
at which it sent each of its own messages, when the first turn became
playable, its bytes on the wire, its CPU time and its event loop's longest
stalls (``LoopWatch``); at the end it writes them
as one JSON file into the ``UNO_LAN_STATS`` directory. The benchmark joins
the files of every peer through the log (entry -> author and counter).
Wall clocks are comparable because every peer runs on the same machine.
"""

from __future__ import annotations

import gc
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from uno_p2p.net.link import Link
from uno_p2p.net.loopwatch import LoopWatch
from uno_p2p.net.verify import VERIFY_ENV
from uno_p2p.rules.state import Phase
from uno_p2p.table.duties import waiting_for
from uno_p2p.table.peer import TablePeer

STATS_ENV = "UNO_LAN_STATS"


def _now_ms() -> float:
    return time.time_ns() / 1e6


@dataclass(slots=True)
class CollectorWatch:
    """The cyclic garbage collector's pauses once the table has started (``net/heap.py``):
    how many collections of each generation, and the longest of each, in ms of wall
    time. A move that meets a collection waits for it."""

    counts: list[int] = field(default_factory=lambda: [0, 0, 0])
    longest_ms: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    began: float = 0.0
    on: bool = False

    def start(self) -> None:
        if not self.on:
            self.on = True
            gc.callbacks.append(self.heard)

    def stop(self) -> None:
        if self.on:
            self.on = False
            gc.callbacks.remove(self.heard)

    def heard(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.began = time.perf_counter()
            return
        generation = info["generation"]
        self.counts[generation] += 1
        self.longest_ms[generation] = max(self.longest_ms[generation],
                                          (time.perf_counter() - self.began) * 1000)


@dataclass(slots=True)
class NodeStats:
    """One node's measurements."""

    directory: Path
    started_ms: float = field(default_factory=_now_ms)
    ready_ms: float | None = None
    start_ms: float | None = None
    accepted: dict[int, float] = field(default_factory=dict)
    sent: dict[int, float] = field(default_factory=dict)
    bytes_sent: int = 0
    bytes_received: int = 0
    #: The event loop's longest stalls (net.md §7.1), ticking from the first pump.
    watch: LoopWatch = field(default_factory=LoopWatch)
    #: The garbage collector's pauses from the start entry on.
    collector: CollectorWatch = field(default_factory=CollectorWatch)

    @classmethod
    def from_env(cls) -> NodeStats | None:
        where = os.environ.get(STATS_ENV, "")
        return cls(Path(where)) if where else None

    def observe(self, peer: TablePeer) -> None:
        """After each pump: new entries, our message in flight, the first playable turn."""
        now = _now_ms()
        self.watch.start()
        for seq in range(len(self.accepted), len(peer.ledger.chain)):
            self.accepted[seq] = now
        if peer.outstanding is not None and peer.outstanding not in self.sent:
            self.sent[peer.outstanding] = now
        state = peer.state
        if self.start_ms is None and state.seats:
            self.start_ms = now
            self.collector.start()
        if self.ready_ms is None and state.engine is not None and \
                state.engine.phase == Phase.PLAYING and not waiting_for(state):
            self.ready_ms = now

    def write(self, peer: TablePeer) -> None:
        """Write ``<key>.json`` into the stats directory."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.watch.stop()
        self.collector.stop()
        data = {
            **self.watch.figures(), "verify": os.environ.get(VERIFY_ENV, "") or "thread",
            "name": peer.name, "key": peer.peer_id.key.hex(), "host": peer.is_host,
            "started_ms": self.started_ms, "ready_ms": self.ready_ms,
            "start_ms": self.start_ms,
            "accepted": self.accepted, "sent": self.sent,
            "bytes_sent": self.bytes_sent, "bytes_received": self.bytes_received,
            "cpu_s": time.process_time(),
            "gc_collections": self.collector.counts,
            "gc_longest_ms": [round(ms, 3) for ms in self.collector.longest_ms],
            "gc_frozen": gc.get_freeze_count(),
        }
        path = self.directory / f"{peer.peer_id.key.hex()[:16]}.json"
        path.write_text(json.dumps(data))


class LinkBytes:
    """The bytes a node's links carried, for ``NodeStats`` (net.md §6): the links still
    open, and running totals of the closed ones. A closed link is folded into the
    totals and dropped, so a node holds no link it no longer uses (net.md §4.1: a
    stranger that links and leaves again and again costs the host nothing it keeps)."""

    __slots__ = ("_open", "_received", "_sent")

    def __init__(self) -> None:
        self._open: set[Link] = set()
        self._sent = 0
        self._received = 0

    def opened(self, link: Link) -> None:
        self._open.add(link)

    def closed(self, link: Link) -> None:
        """Fold ``link``'s counts into the totals and let it go; idempotent."""
        if link in self._open:
            self._open.discard(link)
            self._sent += link.sent_bytes
            self._received += link.received_bytes

    @property
    def open_links(self) -> int:
        return len(self._open)

    @property
    def sent(self) -> int:
        return self._sent + sum(link.sent_bytes for link in self._open)

    @property
    def received(self) -> int:
        return self._received + sum(link.received_bytes for link in self._open)
