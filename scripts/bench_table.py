"""Benchmark of the table protocol (issue 5; docs/performance.md).

Every peer of an N-peer table runs in this one process on the in-memory
network, each doing its own work (signing, shuffling, sharing, checking every
entry), so the table's CPU is the sum of the peers'. Figures:

- ``ready_s``: CPU of the whole table from the host's start to the first
  playable turn (keys, dealer selection, two joint shuffles, the deal, the
  starter); ``ready_per_peer_s`` is that divided by N (peers run in parallel);
- ``cpu_per_move_ms``: CPU one peer spends checking and applying one move
  entry (engine, shares, proofs), the median over every peer and move;
- ``bytes_per_move``: every byte the network carried during the game, divided
  by the number of moves;
- ``game_s``: wall time of a whole game to ``--target`` with heuristic bots
  (``null`` with ``game_done: false`` if ``--budget`` ran out first).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from uno_p2p.crypto.audit import REEXECUTED
from uno_p2p.crypto.group import VALID_POINTS
from uno_p2p.crypto.identity import VERIFIED_SIGNATURES
from uno_p2p.crypto.shuffle_proof import VERIFIED
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import Phase
from uno_p2p.table.bodies import Move
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import RECENT_DECODES, Entry

MOVE_SAMPLES: list[float] = []


class TimedPeer(TablePeer):
    """A peer that records the CPU it spends on each move entry it accepts."""

    def _accept(self, entry: Entry, arrived_ms: int | None) -> None:
        if not isinstance(entry.body, Move):
            super()._accept(entry, arrived_ms)
            return
        started = time.process_time()
        super()._accept(entry, arrived_ms)
        MOVE_SAMPLES.append(time.process_time() - started)


def playable(net: Network) -> bool:
    game = net.host.state.engine
    return game is not None and game.phase == Phase.PLAYING and game.round >= 1


def bench(players: int, target: int, budget: float) -> dict[str, object]:
    MOVE_SAMPLES.clear()
    options = preset("official", [f"target={target}", "turn_timer=60"])
    setup = TableSetup(players, options, b"bench %d" % players)
    net = seat_table(setup, peer_class=TimedPeer)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    net.run(until=playable)
    ready = time.process_time() - cpu0
    deadline = wall0 + budget
    done = True
    while not game_over(net) and net.step():
        if time.perf_counter() > deadline:
            done = False
            break
    wall = time.perf_counter() - wall0
    moves = sum(1 for e in net.entries() if isinstance(e.body, Move))
    state = net.host.state
    return {
        "ready_s": round(ready, 3),
        "ready_per_peer_s": round(ready / players, 3),
        "cpu_per_move_ms": round(statistics.median(MOVE_SAMPLES) * 1000, 3)
        if MOVE_SAMPLES else None,
        "bytes_per_move": round(net.traffic.sent_bytes / moves) if moves else None,
        "game_s": round(wall, 2) if done else None,
        "game_done": done and state.phase == TablePhase.ENDED,
        "rounds": 0 if state.engine is None else state.engine.round,
        "moves": moves,
        "entries": state.seq,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--players", default="2,4,6,10", help="comma-separated table sizes")
    parser.add_argument("--target", type=int, default=500, help="points to win (default 500)")
    parser.add_argument("--budget", type=float, default=120.0,
                        help="seconds allowed for each whole game (default 120)")
    args = parser.parse_args(argv)
    # Every peer pays its own checks, as on separate machines (no shared memo).
    VERIFIED.enabled = REEXECUTED.enabled = VALID_POINTS.enabled = RECENT_DECODES.enabled = False
    VERIFIED_SIGNATURES.enabled = False
    sizes = [int(n) for n in args.players.split(",") if n]
    results = {str(n): bench(n, args.target, args.budget) for n in sizes}
    if args.json:
        print(json.dumps(results, sort_keys=True))
        return 0
    print(f"{'N':>3} {'ready (table CPU)':>18} {'per peer':>9} {'CPU/move/peer':>14} "
          f"{'bytes/move':>11} {'game to ' + str(args.target):>13} {'rounds':>7}")
    for n, row in results.items():
        game = f"{row['game_s']} s" if row["game_s"] is not None else "over budget"
        print(f"{n:>3} {row['ready_s']:>16} s {row['ready_per_peer_s']:>7} s "
              f"{row['cpu_per_move_ms']:>11} ms {row['bytes_per_move']:>11} {game:>13} "
              f"{row['rounds']:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
