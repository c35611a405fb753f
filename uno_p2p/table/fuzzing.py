"""Frames for fuzzing a seated peer and the host (issue 10: the h11 invariant).

The property: whatever bytes arrive, ``TablePeer.receive`` (a seated peer's or
the host's, with its sequencer) returns; a fault becomes an event, never an
exception; and the memory it holds stays within a fixed multiple of the frame
limit. ``scripts/fuzz-table`` drives this with a seeded mutation fuzzer and
``tests/table/test_h11.py`` with hypothesis. Deterministic: a table played by
bots on the in-memory network gives the seeds; the peers under test are copies
taken in the middle of that game, so valid next entries exist in the corpus.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from uno_p2p.crypto.identity import PeerId
from uno_p2p.rules.options import preset
from uno_p2p.table.frames import (
    FRAME_DROP,
    FRAME_ENTRY,
    FRAME_MESSAGE,
    FRAME_RELAY,
    FRAME_SYNC,
    drop_notice,
    frame,
    sync_request,
)
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.wire import fuzzing

#: How many inputs one copy of a peer takes before a fresh copy replaces it.
REUSE = 32
MUTATION_BYTES = (0x00, 0x7F, 0x80, 0x90, 0xC0, 0xC1, 0xC4, 0xCA, 0xDC, 0xDD, 0xFF)


@dataclass(slots=True)
class FrameTarget:
    """Templates of a seated peer and of the host, mid-game, and the seed frames."""

    guest: TablePeer
    host: TablePeer
    seeds: list[bytes]
    now_ms: int
    _live: dict[bool, tuple[TablePeer, int]] = field(default_factory=dict)

    def peer(self, host: bool) -> TablePeer:
        """A copy of the template under test (reused for ``REUSE`` inputs)."""
        live = self._live.get(host)
        if live is None or live[1] >= REUSE or live[0].stopped is not None:
            live = (copy.deepcopy(self.host if host else self.guest), 0)
        self._live[host] = (live[0], live[1] + 1)
        return live[0]

    def deliver(self, data: bytes) -> TablePeer:
        """Give ``data`` (its first byte chooses the recipient and the sender) to a peer.

        Raises:
            whatever ``receive`` lets escape: a bug.
        """
        selector, rest = (data[0], data[1:]) if data else (0, b"")
        to_host = bool(selector & 1)
        peer = self.peer(to_host)
        sender: PeerId | None = self.guest.peer_id if to_host else self.host.peer_id
        if selector & 2:
            sender = None
        peer.receive(rest, self.now_ms + (selector >> 2) * 997, sender)
        peer.data_to_send()
        peer.events()
        return peer


def make_target(seed: bytes = b"uno-lan/fuzz-table", cut: int = 40) -> FrameTarget:
    """Play a 3-seat bot game, copy seat 1 and the host after ``cut`` entries, and keep
    every frame of the whole game (entries, messages, relays, notices) as seeds."""
    setup = TableSetup(3, preset("official", ["target=60", "turn_timer=60"]), seed)
    net = seat_table(setup)
    # Not "and nothing in flight": mid-game something always is, and waiting for it
    # copied the peers at the game's end, where they take nothing (tests/table/
    # test_fuzz_target.py).
    net.run(until=lambda n: n.host.state.seq > cut)
    host = net.host
    guest = next(p for p in net.peers.values() if p.state.my_seat == 1)
    templates = copy.deepcopy(guest), copy.deepcopy(host)
    now = net.now_ms
    net.run(until=game_over)
    entries = net.entries()
    seeds = [frame(FRAME_ENTRY, e.encode()) for e in entries]
    seeds += [frame(FRAME_MESSAGE, e.message.encode()) for e in entries[cut:cut + 40]]
    seeds += [frame(FRAME_RELAY, e.message.encode()) for e in entries[cut:cut + 10]]
    seeds += [frame(FRAME_DROP, drop_notice(3, "race", "x")),
              frame(FRAME_SYNC, sync_request(5)), b"E\x90", b"M\xc0", b"R", b"\x00"]
    return FrameTarget(templates[0], templates[1], seeds, now)


def _retype(rng: fuzzing.Rng, data: bytearray) -> None:
    """Make the frame another kind (docs/protocol/table.md: the frame's first byte)."""
    data[:1] = bytes([rng.choice(b"EMRDS")])


def mutate(rng: fuzzing.Rng, seeds: list[bytes]) -> bytes:
    """A seed frame with up to four random edits (one may change its kind), behind a
    selector byte for ``FrameTarget.deliver``."""
    return fuzzing.mutate(rng, seeds, fewest=0, insert=MUTATION_BYTES, selectors=16,
                          extra=(_retype,))
