"""Benchmark of the audit (issue 6; docs/performance.md).

Plays one full game in memory (4 bot peers to 500 points by default, every
message through the real protocol), then audits its log as ``uno-lan audit``
does, stage by stage: the chain and signatures, the public replay through the
table's ledger (rules and proofs), the end-of-game re-execution of every
shuffle, and the full-knowledge walk. Prints the entries verified per second
and the time of a whole audit (the aim: under 10 s for a full 4-player game,
every proof of shuffle checked, on every core). Each timed audit starts with
the process's memo of verified statements empty, as a fresh ``uno-lan audit``.
Every loop is bounded in count and in time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from uno_p2p.audit import audit_entries
from uno_p2p.crypto.audit import REEXECUTED
from uno_p2p.crypto.identity import VERIFIED_SIGNATURES
from uno_p2p.crypto.shuffle_proof import VERIFIED
from uno_p2p.rules.options import preset
from uno_p2p.store.unolog import GameLog, read_log
from uno_p2p.table.bodies import ShuffleDeck  # (also registers the table's body kinds)
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.table.replay import replay
from uno_p2p.wire.chain import verify_chain
from uno_p2p.wire.envelope import Entry

T = TypeVar("T")


def timed(action: Callable[[], T], *, repeat: int, budget: float) -> tuple[float, T]:
    """The best wall time of up to ``repeat`` runs of ``action`` within ``budget`` seconds."""
    best, _, result = timed_both(action, repeat=repeat, budget=budget)
    return best, result


def timed_both(action: Callable[[], T], *, repeat: int,
               budget: float) -> tuple[float, float, T]:
    """The best wall and CPU times (this process only: other jobs on the machine do
    not count) of up to ``repeat`` runs of ``action`` within ``budget`` seconds."""
    best_wall = best_cpu = float("inf")
    deadline = time.perf_counter() + budget
    result: T | None = None
    for _ in range(max(1, repeat)):
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        if time.perf_counter() > deadline:
            break
    assert result is not None  # noqa: S101 (the loop ran at least once)
    return best_wall, best_cpu, result


def full_game(players: int, target: int, seed: bytes,
              log: Path | None) -> tuple[tuple[Entry, ...], float]:
    """The game's log, played now (or read from ``log`` if an earlier run kept it)."""
    if log is not None and log.exists():
        return read_log(log).entries, 0.0
    started = time.perf_counter()
    net = seat_table(TableSetup(players, preset("official", [f"target={target}"]), seed))
    net.run(until=game_over)
    entries = net.entries()
    if log is not None:
        with GameLog.create(log) as out:
            for entry in entries:
                out.append(entry)
    return entries, time.perf_counter() - started


def fresh(action: Callable[[], T]) -> Callable[[], T]:
    """``action`` in a process that has verified nothing yet (as ``uno-lan audit`` is)."""
    def run() -> T:
        VERIFIED.clear()
        REEXECUTED.clear()
        VERIFIED_SIGNATURES.clear()
        return action()
    return run


def measure(players: int, target: int, seed: bytes, repeat: int, budget: float,
            log: Path | None = None) -> dict[str, float]:
    entries, play_s = full_game(players, target, seed, log)
    _, chain_s, _ = timed_both(lambda: verify_chain(entries), repeat=repeat, budget=budget)
    # One core: the table's own replay, every proof of shuffle checked in turn.
    _, replay_s, _ = timed_both(fresh(lambda: replay(entries)), repeat=repeat, budget=budget)
    children = os.times().children_user + os.times().children_system
    full_s, full_cpu_s, report = timed_both(fresh(lambda: audit_entries(entries)),
                                            repeat=repeat, budget=budget)
    workers_s = os.times().children_user + os.times().children_system - children
    if report.exit_code != 0:
        raise SystemExit(f"the benchmark game did not audit clean: {report.lines()}")
    shuffles = sum(isinstance(e.body, ShuffleDeck) for e in entries)
    return {
        "players": players, "target": target, "entries": len(entries),
        "rounds": len(report.rounds), "shuffles": shuffles, "play_s": play_s,
        "chain_s": chain_s, "replay_s": replay_s,
        "full_game_s": full_s, "full_game_cpu_s": full_cpu_s, "workers_cpu_s": workers_s,
        "entries_per_s": len(entries) / full_s,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Audit speed on a full simulated game.")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--target", type=int, default=500)
    parser.add_argument("--seed", default="bench-audit")
    parser.add_argument("--repeat", type=int, default=3, help="audits timed (best kept)")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per measurement")
    parser.add_argument("--log", type=Path, help="keep the played game here (reused if present)")
    args = parser.parse_args(argv)
    figures = measure(args.players, args.target, args.seed.encode(), args.repeat, args.budget,
                      args.log)
    if args.json:
        print(json.dumps({"entries_per_s": round(figures["entries_per_s"], 1),
                          "full_game_s": round(figures["full_game_s"], 3)}))
        return 0
    rows = [
        ("game", f"{figures['players']} players to {figures['target']}: "
                 f"{figures['entries']} entries, {figures['rounds']} rounds, "
                 f"{figures['shuffles']} proven shuffles"),
        ("1. chain and signatures (CPU)", f"{figures['chain_s']:.3f} s"),
        ("2-3. replay on one core: rules and every proof (CPU)",
         f"{figures['replay_s']:.3f} s"),
        ("whole audit (uno-lan audit)", f"{figures['full_game_s']:.3f} s wall (aim: < 10 s); "
                                        f"CPU {figures['full_game_cpu_s']:.3f} s main + "
                                        f"{figures['workers_cpu_s']:.3f} s proof workers "
                                        f"(all runs)"),
        ("entries verified per second", f"{figures['entries_per_s']:.0f}"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
