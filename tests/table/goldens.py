"""Golden recordings of fixed-seed in-memory games (issue 26): what every peer logged
and every event it told its shell, byte for byte.

Recorded once, on the code before ``TablePeer`` was cut into parts, so that every
step of the cut can prove that nothing the peers send, log or tell changed. The
files under ``tests/table/golden/`` are frozen, like ``tests/data/*.unolog``: a
difference is a change of behaviour to explain, never a reason to record again.

Each scenario seats a table on ``memnet`` (honest tables of 2 to 4 players, each
adversary of ``tests/table/adversaries.py`` and ``cheats.py`` that plays through
the network, a hand-over, a removal), plays it to its end, and renders each peer's
log as the bytes of a ``.unolog`` file, its events as one JSON line each, and
the frames it sent (to whom, which bytes, in order) as one digest.

Written by ``python -m tests.table.goldens --write`` (from the repository root);
read back by ``tests/table/test_goldens.py``.
"""

from __future__ import annotations

import enum
import hashlib
import json
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path

from tests.table import adversaries as adv
from uno_p2p.crypto.identity import PeerId
from uno_p2p.rules.engine import public_digest
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import State
from uno_p2p.store.unolog import GameLog
from uno_p2p.table.events import TableEvent
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Entry, Message

GOLDEN = Path(__file__).parent / "golden"
MAX_STEPS = 400_000
#: The adversary tests' options (tests/table/test_adversaries.py).
ADVERSARY = ["target=60", "turn_timer=60"]


class Sent:
    """Every frame a peer put on the network, in order, folded into one digest per
    sender (a ``Tamper`` that changes nothing): what the peers send, byte for byte."""

    def __init__(self) -> None:
        self.digests: dict[bytes, hashlib._Hash] = {}
        self.frames: dict[bytes, int] = {}

    def __call__(self, sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        digest = self.digests.setdefault(sender, hashlib.sha256())
        digest.update(len(recipient).to_bytes(4, "big") + recipient)
        digest.update(len(data).to_bytes(4, "big") + data)
        self.frames[sender] = self.frames.get(sender, 0) + 1
        return [data]

    def line(self, sender: bytes) -> bytes:
        digest = self.digests.get(sender, hashlib.sha256())
        return f"{self.frames.get(sender, 0)} frames, sha256 {digest.hexdigest()}\n".encode()


def _table(players: int, seed: bytes, options: list[str],
           custom: Mapping[int, type[TablePeer]] | None = None) -> Network:
    setup = TableSetup(players, preset("official", options), seed, preset="official")
    return seat_table(setup, Sent(), custom=dict(custom or {}))


def _played(players: int, seed: bytes, options: list[str],
            custom: Mapping[int, type[TablePeer]] | None = None) -> Callable[[], Network]:
    def play() -> Network:
        net = _table(players, seed, options, custom)
        net.run(until=game_over, max_steps=MAX_STEPS)
        return net
    return play


def _handover() -> Network:
    """The host falls silent mid-round; the next seat takes over; the old host comes
    back and plays on as an ordinary peer (tests/table/test_handover.py)."""
    net = _table(3, b"golden handover", ["target=30"])
    host = net.host
    net.run(until=lambda n: host.state.engine is not None and host.state.seq > 70,
            max_steps=MAX_STEPS)
    net.silent.add(host.peer_id.key)
    net.run(until=lambda n: all(p.state.term >= 1 for p in n.peers.values() if p is not host),
            max_steps=MAX_STEPS)
    net.silent.discard(host.peer_id.key)
    host.rejoin()
    net.flush(host)
    net.run(until=game_over, max_steps=MAX_STEPS)
    return net


def _removal() -> Network:
    """A player vanishes mid-round; the shells hold it lost; the sequencer removes it
    and the two others finish (tests/table/test_removal.py)."""
    net = _table(3, b"golden removal", ["target=30"])
    host = net.host
    net.run(until=lambda n: host.state.engine is not None and host.state.seq > 70,
            max_steps=MAX_STEPS)
    victim = next(p for p in net.peers.values() if p.state.my_seat == 2)
    key = victim.peer_id.key
    net.silent.add(key)
    net.run(until=lambda n: all(sender != key for sender, _, _ in n.queue), max_steps=MAX_STEPS)
    for peer in net.peers.values():
        if peer is not victim:
            peer.peer_lost(victim.peer_id)
            net.flush(peer)
    net.run(until=game_over, max_steps=MAX_STEPS)
    return net


#: Scenario name -> how to play it. Seeds as the neighbouring tests use them, where
#: one is known to reach the cheat ("liar 0" challenges, "bluff-seen" bluffs,
#: "powers2" peeks, swaps and challenges).
SCENARIOS: dict[str, Callable[[], Network]] = {
    "honest-2p": _played(2, b"golden honest 2", ["target=30"]),
    "honest-3p": _played(3, b"golden honest 3", ["target=30"]),
    "honest-4p": _played(4, b"golden honest 4", ["target=30", "turn_timer=60"]),
    "plays-card-not-held": _played(3, b"adv", ADVERSARY, {1: adv.PlaysCardNotHeld}),
    "plays-out-of-turn": _played(3, b"adv", ADVERSARY, {1: adv.PlaysOutOfTurn}),
    "claims-wrong-face": _played(3, b"adv", ADVERSARY, {1: adv.ClaimsWrongFace}),
    "bad-share": _played(3, b"adv", ADVERSARY, {1: adv.BadShare}),
    "equivocates": _played(3, b"adv", ADVERSARY, {1: adv.Equivocates}),
    "replays-old-message": _played(2, b"adv", ["target=30"], {1: adv.ReplaysOldMessage}),
    "dishonest-shuffler": _played(2, b"adv", ["target=30"], {1: adv.DishonestShuffler}),
    "stacks-the-deck": _played(3, b"adv", ["target=30"], {2: adv.StacksTheDeck}),
    "stacks-without-proof": _played(3, b"adv", ["target=30"], {2: adv.StacksWithoutProof}),
    "lying-challenger": _played(2, b"liar 0", ADVERSARY, {1: adv.LyingChallenger}),
    "unchecking-host": _played(3, b"adv", ADVERSARY,
                               {0: adv.UncheckingHost, 1: adv.PlaysCardNotHeld}),
    "skips-turn": _played(3, b"adv", ADVERSARY, {0: adv.SkipsTurn}),
    "forks": _played(3, b"adv", ADVERSARY, {0: adv.Forks}),
    "reorders": _played(3, b"adv", ADVERSARY, {0: adv.Reorders}),
    "eager": _played(3, b"powers2", ["target=30", "turn_timer=60", "wild_powers=true"],
                     {0: adv.Eager, 1: adv.Eager, 2: adv.Eager}),
    "bluffer": _played(3, b"bluff-seen", [*ADVERSARY, "wd4_strict=true"], {2: adv.Bluffer}),
    "handover": _handover,
    "removal": _removal,
}


# -- rendering ----------------------------------------------------------------------------
def render(value: object) -> object:
    """A JSON value for any event field: stable across runs (sets sorted, keys by
    position) and short where a field is big (a whole game state by its digest)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, enum.Enum):
        return render(value.value)
    if isinstance(value, PeerId):
        return "peer " + value.key.hex()[:16]
    if isinstance(value, Entry):
        return f"entry {value.seq} {value.hash.hex()}"
    if isinstance(value, Message):
        return f"message {value.hash.hex()}"
    if isinstance(value, State):
        # Its public digest (verdicts.md §5): what the protocol says of a state, not how
        # the engine holds it (an internal -1 that became None changes no byte of it).
        return "state " + public_digest(value).hex()
    if is_dataclass(value) and not isinstance(value, type):
        return {"type": type(value).__name__, **_fields(value)}
    if isinstance(value, tuple | list):
        return [render(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((render(v) for v in value), key=json.dumps)
    if isinstance(value, dict):
        return sorted(([render(k), render(v)] for k, v in value.items()), key=json.dumps)
    raise TypeError(f"no golden rendering for a {type(value).__name__}")


def _fields(value: object) -> dict[str, object]:
    return {f.name: render(getattr(value, f.name)) for f in fields(value)}  # type: ignore[arg-type]


def event_lines(events: list[TableEvent]) -> bytes:
    """One JSON line per event, in the order the peer told them."""
    return b"".join(json.dumps(render(e), sort_keys=True).encode() + b"\n" for e in events)


def unolog_bytes(entries: tuple[Entry, ...]) -> bytes:
    """The bytes of the ``.unolog`` file a shell writes for ``entries``."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.unolog"
        with GameLog.create(path) as log:
            for entry in entries:
                log.append(entry)
        return path.read_bytes()


@dataclass(frozen=True, slots=True)
class Recording:
    """One peer's part of a scenario: its file name stem and its three renderings."""

    stem: str
    unolog: bytes
    events: bytes
    sent: bytes


def record(name: str) -> list[Recording]:
    """Play scenario ``name`` and render each peer (by its seat at the start: p0, p1...)."""
    net = SCENARIOS[name]()
    sent = net.tamper
    assert isinstance(sent, Sent)  # every scenario seats through _table
    out = []
    for index, (key, peer) in enumerate(net.peers.items()):
        ended = peer.state.phase == TablePhase.ENDED or peer.stopped is not None
        stem = f"p{index}" + ("" if ended else "-unfinished")
        out.append(Recording(stem, unolog_bytes(peer.ledger.chain.entries),
                             event_lines(net.events[key]), sent.line(key)))
    return out


def write(names: list[str]) -> None:
    """Record the scenarios ``names`` into ``tests/table/golden/<name>/``."""
    for name in names:
        folder = GOLDEN / name
        folder.mkdir(parents=True, exist_ok=True)
        for item in record(name):
            (folder / f"{item.stem}.unolog").write_bytes(item.unolog)
            (folder / f"{item.stem}.events").write_bytes(item.events)
            (folder / f"{item.stem}.sent").write_bytes(item.sent)
        print(name, file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"]:
        sys.exit("usage: python -m tests.table.goldens --write [scenario ...]")
    write(sys.argv[2:] or list(SCENARIOS))
