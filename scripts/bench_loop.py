"""Benchmark of the event loop's longest stall during a game over loopback sockets.

docs/performance.md; docs/protocol/net.md §7.1. For each peer count N and
each way of doing the heavy cryptography (``UNO_LAN_VERIFY``: ``inline`` is
how every node worked before ``uno_p2p.net.verify``: proofs checked and made
on the event loop; ``thread``: one worker thread, the default; ``process``:
proofs checked in a worker process), ``uno-lan host --autoplay --bots N-1``
plays one round on 127.0.0.1, every peer its own process. Each node's
``LoopWatch`` (``UNO_LAN_STATS``) ticks every 5 ms on its loop and records:

- ``busy_ms``: the most CPU time the loop's thread spent between two ticks,
  i.e. the longest stretch of work that held the loop (independent of the
  machine's load: the figure the aim is about, < 100 ms at 4 peers);
- ``late_ms``: the most wall time a tick came late (includes waiting for a
  core: on a shared 2-core machine with N processes it is mostly that).

Each figure is the worst over the host (``host_``) or over every joiner
(``joiner_``); ``wall_s`` is the whole game.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODES = ("inline", "thread", "process")


def run_table(peers: int, mode: str, target: int, timeout: float) -> dict[str, Any]:
    """One game among ``peers`` processes with the heavy work done as ``mode`` says."""
    with tempfile.TemporaryDirectory() as tmp:
        stats_dir, data = Path(tmp) / "stats", Path(tmp) / "data"
        env = dict(os.environ, XDG_DATA_HOME=str(data), UNO_LAN_STATS=str(stats_dir),
                   UNO_LAN_MDNS="off", UNO_LAN_VERIFY=mode)  # loopback only
        command = [sys.executable, "-m", "uno_p2p", "host", "--autoplay", "--bots",
                   str(peers - 1), "--bind", "127.0.0.1", "--player", "Host",
                   "--option", f"target={target}"]
        started = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,  # noqa: S603
                              timeout=timeout, check=False)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{peers} peers, {mode}: the host exited {done.returncode}:\n"
                             f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
        nodes = [json.loads(p.read_text()) for p in stats_dir.glob("*.json")]
    hosts = [n for n in nodes if n["host"]]
    joiners = [n for n in nodes if not n["host"]]
    return {
        "peers": len(nodes), "mode": mode, "wall_s": round(wall, 1),
        "host_busy_ms": max(n["loop_max_busy_ms"] for n in hosts),
        "joiner_busy_ms": max(n["loop_max_busy_ms"] for n in joiners),
        "host_late_ms": max(n["loop_max_late_ms"] for n in hosts),
        "joiner_late_ms": max(n["loop_max_late_ms"] for n in joiners),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--peers", default="4,10", help="peer counts (default 4,10)")
    parser.add_argument("--modes", default=",".join(MODES),
                        help=f"UNO_LAN_VERIFY modes (default {','.join(MODES)})")
    parser.add_argument("--target", type=int, default=1,
                        help="points to play to (default 1: one round)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per table")
    args = parser.parse_args(argv)
    result: dict[str, dict[str, Any]] = {}
    for peers in (int(p) for p in args.peers.split(",")):
        for mode in args.modes.split(","):
            result.setdefault(str(peers), {})[mode] = run_table(
                peers, mode, args.target, args.timeout)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print("longest event-loop stall, one round over 127.0.0.1, one process per peer")
    print(f"{'peers':>5} {'mode':>8} {'host busy ms':>13} {'joiner busy ms':>15} "
          f"{'host late ms':>13} {'joiner late ms':>15} {'wall s':>7}")
    for by_mode in result.values():
        for row in by_mode.values():
            print(f"{row['peers']:>5} {row['mode']:>8} {row['host_busy_ms']:>13} "
                  f"{row['joiner_busy_ms']:>15} {row['host_late_ms']:>13} "
                  f"{row['joiner_late_ms']:>15} {row['wall_s']:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
