"""Benchmark of a round's start (issue 28; docs/performance.md).

Three pauses a player sees, for N peers:

- ``setup``: the first round, from the start entry to the first playable turn
  (keys, the dealer draw's joint shuffle, the round's joint shuffle, the deal,
  the starter);
- ``gap``: from the entry that ends a round (its last card) to the next
  round's first playable turn (the hands revealed, a new joint shuffle, the
  deal, the starter);
- ``reshuffle``: from the entry that asks for a new deck in the middle of a
  round (the draw pile is empty) until that deck is shuffled and nobody owes
  anything.

``--mode memory`` (the default; CPU only, deterministic): every peer runs in
this one process on the in-memory network (``uno_p2p.table.memnet``), every
peer paying its own checks. Each frame carries the critical path that
produced it, as if every peer had a core of its own and the network were
free: the path's CPU (``path_s``), its sequential protocol hops (``hops``:
frames, each waiting for the one before it) and what that CPU was (making
proofs of shuffle, checking them, making and checking decryption shares,
the rest). ``cpu_s`` is the whole table's CPU over the pause; ``floor_s``
the proof CPU that must happen (every proof and share made and checked, by
every peer) divided by 2 cores; ``timer_ms`` the simulated clock the table
waited on timers (none: nothing on the path is a timer). A seat's shuffle
turn is made ahead, on the deck that arrived, beside the check of that
deck (``offload.frame_turn_ahead``, as a node's duty worker does it): on the
path that step costs the longer of the two; a joiner sends it as soon as it
is made (``TablePeer.send_turn_ahead``, deck.md §6.3), so the turn's path
is the frame's path and the proving, not the check. ``--no-send-ahead``
sends it only from the accepted state; ``--no-ahead`` measures the table
as before, each turn proven once its deck is accepted.

``--mode lan``: ``uno-lan host --autoplay --bots N-1`` as real processes on
127.0.0.1 (like ``scripts/bench-lan``), to ``--target`` points so that
several rounds are played; the pauses' wall time is joined from every
node's stats (``UNO_LAN_STATS``) through the host's log: from the moment the
last peer accepted the entry that opened the pause until the last peer
accepted the last entry before the next move. ``entries`` counts the log
entries in the pause (each one a message to the sequencer and its entry back:
two hops), ``cpu_s`` is every process's CPU over the whole game.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import bench_lan

from uno_p2p.crypto.audit import REEXECUTED
from uno_p2p.crypto.group import VALID_POINTS
from uno_p2p.crypto.identity import VERIFIED_SIGNATURES
from uno_p2p.crypto.shuffle_proof import VERIFIED
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import Phase
from uno_p2p.table import duties, game
from uno_p2p.table.bodies import Move, ShuffleDeck
from uno_p2p.table.duties import waiting_for
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.offload import frame_turn_ahead
from uno_p2p.table.state import TableState
from uno_p2p.wire.envelope import RECENT_DECODES

ROOT = Path(__file__).resolve().parent.parent
CORES = 2
KINDS = ("prove", "check", "shares")
SPENT = dict.fromkeys(KINDS, 0.0)
COUNTS = dict.fromkeys(KINDS, 0)


def _timed(kind: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            SPENT[kind] += time.process_time() - started
            COUNTS[kind] += 1
    return timed


def instrument() -> None:
    """Count the proof work where the core calls it (the names the core imported)."""
    duties.make_proven_shuffle = _timed("prove", duties.make_proven_shuffle)  # type: ignore[assignment]
    game.verify_proven_shuffle = _timed("check", game.verify_proven_shuffle)  # type: ignore[assignment]
    duties.make_share = _timed("shares", duties.make_share)  # type: ignore[assignment]
    game.verify_share = _timed("shares", game.verify_share)  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Path:
    """The critical path up to a point: CPU, sequential hops, and what the CPU was."""

    time: float = 0.0
    hops: int = 0
    prove: float = 0.0
    check: float = 0.0
    shares: float = 0.0

    def then(self, cost: float, spent: dict[str, float]) -> Path:
        return replace(self, time=self.time + cost, prove=self.prove + spent["prove"],
                       check=self.check + spent["check"], shares=self.shares + spent["shares"])

    def minus(self, start: Path) -> dict[str, float | int]:
        proofs = {k: getattr(self, k) - getattr(start, k) for k in KINDS}
        took = self.time - start.time
        return {"path_s": round(took, 3), "hops": self.hops - start.hops,
                **{f"path_{k}_s": round(v, 3) for k, v in proofs.items()},
                "path_other_s": round(took - sum(proofs.values()), 3)}


class PathNetwork(Network):
    """The in-memory network, each frame stamped with the critical path that made it."""

    paths: deque[list[Path]]
    at: dict[bytes, Path]
    cpu: float
    last: bytes
    base: Path
    cost: float
    proved: float
    counted: dict[str, int]
    ahead: bool
    send_ahead: bool

    def adopt(self) -> None:
        self.paths = deque([Path()] for _ in self.queue)
        self.at = dict.fromkeys(self.peers, Path())
        self.cpu = 0.0
        #: The last step's starting path, CPU and proof CPU (a pause opens before it).
        self.base, self.cost, self.proved = Path(), 0.0, 0.0
        self.counted = dict(COUNTS)

    def send(self, sender: bytes, recipient: bytes, data: bytes) -> None:
        super().send(sender, recipient, data)
        self.paths.append([Path()])

    def step(self) -> bool:
        if self.queue:
            key = self.queue[0][1]
            arriving = self.paths.popleft()[0]
            mine = self.at.get(key, Path())
            base = arriving if arriving.time >= mine.time else mine
        else:
            timers = [t for k, p in self.peers.items() for t in [p.next_timer()]
                      if t is not None and k not in self.silent]
            if not timers:
                return False
            key = min((t, k) for k, p in self.peers.items()
                      for t in [p.next_timer()] if t is not None and k not in self.silent)[1]
            base = self.at[key]
        spent0, self.counted = dict(SPENT), dict(COUNTS)
        queued = len(self.paths)
        ahead = self.turn_ahead() if self.queue else 0.0
        # A joiner's turn sent ahead leaves once made, beside the check of the frame.
        sent = base.then(ahead, {"prove": ahead, "check": 0.0, "shares": 0.0})
        for i in range(queued, len(self.paths)):
            self.paths[i][0] = replace(sent, hops=sent.hops + 1)
        queued = len(self.paths)
        cpu0 = time.process_time()
        moved = super().step()
        cost = time.process_time() - cpu0
        self.cpu += cost + ahead
        spent = {k: SPENT[k] - spent0[k] for k in KINDS}
        spent["prove"] -= ahead
        # The turn made ahead runs on the peer's duty worker beside the step's checks.
        spent["prove"] += max(0.0, ahead - cost)
        after = base.then(max(cost, ahead), spent)
        self.base, self.cost, self.proved = base, cost, proof_cpu() - sum(spent0.values())
        self.at[key] = after
        for i in range(queued, len(self.paths)):
            self.paths[i][0] = replace(after, hops=after.hops + 1)
        self.last = key
        return moved


    def turn_ahead(self) -> float:
        """With ``ahead``: the recipient's next shuffle turn made before the frame is
        received, as a node's duty worker does while its check worker checks the frame;
        its CPU (0 if none)."""
        _, to, data = self.queue[0]
        peer = self.peers.get(to)
        if not self.ahead or peer is None:
            return 0.0
        turn = frame_turn_ahead(peer.state, data, peer.secrets, sequencer=peer.is_host)
        if turn is None:
            return 0.0
        started = time.process_time()
        turn.run()
        # deck.md §6.3: a joiner's turn sent before the check of the turn it follows.
        if turn.entry is not None and self.send_ahead and peer.send_turn_ahead(turn.entry):
            self.flush(peer)
        return time.process_time() - started


def proof_cpu() -> float:
    return sum(SPENT.values())


def playable(ts: TableState, round_number: int) -> bool:
    engine = ts.engine
    return engine is not None and engine.round == round_number and \
        engine.phase == Phase.PLAYING and not waiting_for(ts)


def measure(net: PathNetwork, opened: Callable[[PathNetwork], bool],
            closed: Callable[[TableState], bool], budget: float) -> dict[str, Any] | None:
    """Run until ``opened`` holds (the pause's start), then until every peer's state is
    ``closed``; the figures of that pause, or None if the game or the budget ran out."""
    deadline = time.perf_counter() + budget
    while not opened(net):
        if game_over(net) or not net.step() or time.perf_counter() > deadline:
            return None
    # The step that opened the pause (the entry logged, the sequencer's own turn) counts.
    start = net.base
    cpu0, proof0 = net.cpu - net.cost, proof_cpu() - net.proved
    wall0, clock0 = time.perf_counter(), net.now_ms
    counts0 = net.counted
    ends: dict[bytes, Path] = {}
    while len(ends) < len(net.peers):
        if not net.step() or time.perf_counter() > deadline:
            return None
        key = net.last
        if key not in ends and closed(net.peers[key].state):
            ends[key] = net.at[key]
    end = max(ends.values(), key=lambda p: p.time)
    return {**end.minus(start), "cpu_s": round(net.cpu - cpu0, 3),
            "floor_s": round((proof_cpu() - proof0) / CORES, 3),
            "wall_s": round(time.perf_counter() - wall0, 3),
            "timer_ms": net.now_ms - clock0,
            **{f"{k}_made_or_checked": COUNTS[k] - counts0[k] for k in KINDS}}


def bench_memory(players: int, budget: float, seed: int, ahead: bool,
                 send_ahead: bool = True) -> dict[str, Any]:
    options = preset("official", ["target=500", "turn_timer=60"])
    net = seat_table(TableSetup(players, options, b"bench round %d %d" % (players, seed)))
    net.__class__ = PathNetwork
    if not isinstance(net, PathNetwork):
        raise TypeError("the network did not take the path stamps")
    net.adopt()
    net.ahead = ahead
    net.send_ahead = ahead and send_ahead
    net.last = net.host.peer_id.key
    net.base = net.at[net.last]
    row: dict[str, Any] = {}
    row["setup"] = measure(net, lambda n: True, lambda ts: playable(ts, 1), budget)
    host = net.host

    def round_over(n: PathNetwork) -> bool:
        engine = host.state.engine
        return engine is not None and engine.phase == Phase.ROUND_OVER

    first = host.state.engine.round if host.state.engine else 1
    row["gap"] = measure(net, round_over, lambda ts: playable(ts, first + 1), budget)
    decks = len(host.state.decks)

    def reshuffled(n: PathNetwork) -> bool:
        ts = host.state
        return len(ts.decks) > decks and ts.decks[-1].round == (
            ts.engine.round if ts.engine else -1) and bool(ts.decks[-1].sources) and \
            ts.engine is not None and ts.engine.phase != Phase.ROUND_OVER

    def settled(ts: TableState) -> bool:
        return all(d.ready for d in ts.decks) and not waiting_for(ts)

    row["reshuffle"] = measure(net, reshuffled, settled, budget)
    return row


# -- real processes ------------------------------------------------------------------------

def run_lan(peers: int, target: int, timeout: float) -> dict[str, Any]:
    """One game among ``peers`` processes on 127.0.0.1; its pauses from the nodes' stats."""
    nodes, entries = bench_lan.play_table(peers, target, timeout)
    return lan_pauses(nodes, entries)


def lan_pauses(nodes: list[dict[str, Any]], entries: tuple[Any, ...]) -> dict[str, Any]:
    """The pauses, each from the entry that opens it to the last entry before a move."""
    def last_accepted(seq: int) -> float | None:
        times = [n["accepted"].get(str(seq)) for n in nodes]
        return None if any(t is None for t in times) else max(times)

    pauses: dict[str, list[dict[str, Any]]] = {"setup": [], "gap": [], "reshuffle": []}
    seen_decks: set[int] = set()
    opened: tuple[str, int, int] | None = None  # kind, opening entry, shuffles
    for seq, entry in enumerate(entries):
        body = entry.body
        if isinstance(body, ShuffleDeck) and body.shuffle not in seen_decks:
            seen_decks.add(body.shuffle)
            start = body.start
            if opened is None and start is not None and start.round >= 1:
                kind = "reshuffle" if start.sources else "gap"
                opened = (kind, _last_move(entries, seq), 0)
        if isinstance(body, ShuffleDeck) and opened is not None:
            opened = (opened[0], opened[1], opened[2] + 1)
        if isinstance(body, Move) and opened is not None and seq > opened[1] + 1:
            kind, first, shuffles = opened
            if kind == "gap" and not pauses["setup"] and not pauses["gap"]:
                kind, first = "setup", 0
            began, ended = last_accepted(first), last_accepted(seq - 1)
            if began is not None and ended is not None:
                pauses[kind].append({"wall_s": round((ended - began) / 1000, 3),
                                     "entries": seq - 1 - first, "shuffles": shuffles,
                                     "first": first, "last": seq - 1})
            opened = None
    return {"pauses": pauses, "cpu_s": round(sum(n["cpu_s"] for n in nodes), 2),
            "entries": len(entries)}


def _last_move(entries: tuple[Any, ...], seq: int) -> int:
    for back in range(seq - 1, -1, -1):
        if isinstance(entries[back].body, Move):
            return back
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--mode", choices=("memory", "lan"), default="memory")
    parser.add_argument("--peers", default="2,4", help="comma-separated table sizes")
    parser.add_argument("--budget", type=float, default=120.0,
                        help="memory: seconds allowed per table (default 120)")
    parser.add_argument("--seed", type=int, default=0, help="memory: the table's seed")
    parser.add_argument("--no-ahead", action="store_true",
                        help="memory: no turn made ahead (each turn proven once its deck is "
                             "accepted, as before issue 28)")
    parser.add_argument("--no-send-ahead", action="store_true",
                        help="memory: turns made ahead but sent only once the deck they "
                             "follow is accepted (as before the pending check)")
    parser.add_argument("--target", type=int, default=60,
                        help="lan: points to play to (default 60: a few rounds)")
    parser.add_argument("--timeout", type=float, default=600, help="lan: seconds per table")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.peers.split(",") if n]
    result: dict[str, Any] = {"mode": args.mode, "load": os.getloadavg()[0]}
    if args.mode == "memory":
        result["ahead"] = not args.no_ahead
        result["send_ahead"] = not (args.no_ahead or args.no_send_ahead)
    if args.mode == "memory":
        # Every peer pays its own checks, as on separate machines (no shared memo).
        VERIFIED.enabled = REEXECUTED.enabled = VALID_POINTS.enabled = False
        RECENT_DECODES.enabled = VERIFIED_SIGNATURES.enabled = False
        instrument()
        for n in sizes:
            result[str(n)] = bench_memory(n, args.budget, args.seed, not args.no_ahead,
                                          not args.no_send_ahead)
    else:
        for n in sizes:
            result[str(n)] = run_lan(n, args.target, args.timeout)
    result["load_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print_table(result, sizes)
    return 0


def print_table(result: dict[str, Any], sizes: list[int]) -> None:
    print(f"mode {result['mode']}, load average {result['load']:.1f} -> "
          f"{result['load_after']:.1f}")
    for n in sizes:
        row = result[str(n)]
        if result["mode"] == "lan":
            print(f"{n} peers: CPU {row['cpu_s']} s (every process, whole game), "
                  f"{row['entries']} entries")
            for kind, found in row["pauses"].items():
                walls = [p["wall_s"] for p in found]
                if walls:
                    print(f"  {kind:>9}: wall {statistics.median(walls)} s median of "
                          f"{len(walls)} ({min(walls)}-{max(walls)}), entries "
                          f"{found[0]['entries']}, shuffles {found[0]['shuffles']}")
                else:
                    print(f"  {kind:>9}: none in this game")
            continue
        print(f"{n} peers:")
        for kind in ("setup", "gap", "reshuffle"):
            p = row[kind]
            if p is None:
                print(f"  {kind:>9}: none within the budget")
                continue
            print(f"  {kind:>9}: path {p['path_s']} s in {p['hops']} hops (prove "
                  f"{p['path_prove_s']}, check {p['path_check_s']}, shares "
                  f"{p['path_shares_s']}, other {p['path_other_s']}); table CPU "
                  f"{p['cpu_s']} s, floor {p['floor_s']} s, timers {p['timer_ms']} ms")


if __name__ == "__main__":
    sys.exit(main())
