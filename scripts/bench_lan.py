"""Benchmark of play over real sockets (issue 11; docs/performance.md).

For each peer count N, ``uno-lan host --autoplay --bots N-1`` runs on
127.0.0.1: the host and N-1 bot peers, each its own process with its own
keys and encrypted link, play ``--target`` points (default 1: one round).
Every node writes what it measured (``UNO_LAN_STATS``, ``uno_p2p.net.stats``):

- ``ready_s``: from starting the host process to the first playable turn
  (the lobby fills, keys, the joint shuffles, the deal, the starter);
  ``seated_s`` is the part until every process is up, linked and seated (the
  start entry), ``setup_s`` the rest (the protocol's own work);
- ``move_p50_ms`` / ``move_p99_ms``: for every move entry, from the moment
  its author sent it (the host: logged it) until the last peer accepted it,
  i.e. verified signature, chain, rules and proofs;
- ``bytes_per_move``: every record byte every peer sent during the whole
  game (setup included), divided by the number of moves;
- ``host_cpu_ms_per_move``: the host process's CPU for the whole game
  divided by the number of moves;
- ``loopback_rtt_ms``: median TCP round trip of a 64-byte message on
  127.0.0.1, the floor under any move latency.

With ``--load N --games G`` it measures robustness instead: G whole bot games
beside N busy loops, and how many finished, stopped, and whom an audit named
(``scripts/bench_lan_load.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import bench_lan_load

from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Move
from uno_p2p.wire.envelope import Entry

ROOT = Path(__file__).resolve().parent.parent


def loopback_rtt_ms(rounds: int = 500) -> float:
    """Median ping-pong time on a loopback TCP connection."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def echo() -> None:
        conn, _ = server.accept()
        with conn:
            while data := conn.recv(64):
                conn.sendall(data)

    threading.Thread(target=echo, daemon=True).start()
    samples = []
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(rounds):
            started = time.perf_counter()
            client.sendall(b"x" * 64)
            got = 0
            while got < 64:
                got += len(client.recv(64))
            samples.append((time.perf_counter() - started) * 1000)
    server.close()
    return statistics.median(samples)


def run_table(peers: int, target: int, timeout: float) -> dict[str, Any]:
    """One game among ``peers`` processes; the figures for that row."""
    started_ms = time.time_ns() / 1e6
    nodes, entries = play_table(peers, target, timeout)
    return figures(nodes, entries, started_ms)


def play_table(peers: int, target: int, timeout: float
               ) -> tuple[list[dict[str, Any]], tuple[Entry, ...]]:
    """One game among ``peers`` processes: every node's stats and the host's log."""
    with tempfile.TemporaryDirectory() as tmp:
        stats_dir, data = Path(tmp) / "stats", Path(tmp) / "data"
        env = dict(os.environ, XDG_DATA_HOME=str(data), UNO_LAN_STATS=str(stats_dir),
                   UNO_LAN_MDNS="off")  # loopback only: no mDNS on real interfaces
        command = [sys.executable, "-m", "uno_p2p", "host", "--autoplay", "--bots",
                   str(peers - 1), "--bind", "127.0.0.1", "--player", "Host",
                   "--option", f"target={target}"]
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,  # noqa: S603
                              timeout=timeout, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{peers} peers: the host exited {done.returncode}:\n"
                             f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
        nodes = [json.loads(p.read_text()) for p in stats_dir.glob("*.json")]
        host_log = next(p for p in (data / "uno-lan" / "games").glob("*-Host-*.unolog"))
        entries = read_log(host_log).entries
    return nodes, entries


def figures(nodes: list[dict[str, Any]], entries: tuple[Entry, ...],
            started_ms: float) -> dict[str, Any]:
    """Join every node's times through the log."""
    host = next(n for n in nodes if n["host"])
    by_key = {n["key"]: n for n in nodes}
    latencies = []
    moves = 0
    for entry in entries:
        if not isinstance(entry.body, Move) or type(entry.body.action).__name__ == "TimeOut":
            continue
        moves += 1
        author = by_key.get(entry.author.key.hex())
        if author is None:
            continue
        sent = author["accepted" if author["host"] else "sent"].get(
            str(entry.seq if author["host"] else entry.message.counter))
        done = [n["accepted"].get(str(entry.seq)) for n in nodes]
        if sent is None or any(d is None for d in done):
            continue
        latencies.append(max(d for d in done if d is not None) - sent)
    latencies.sort()
    total_bytes = sum(n["bytes_sent"] for n in nodes)
    return {
        "peers": len(nodes),
        "ready_s": round((host["ready_ms"] - started_ms) / 1000, 3),
        "seated_s": round((host["start_ms"] - started_ms) / 1000, 3),
        "setup_s": round((host["ready_ms"] - host["start_ms"]) / 1000, 3),
        "moves": moves,
        "move_p50_ms": round(statistics.median(latencies), 2),
        "move_p99_ms": round(latencies[min(len(latencies) - 1,
                                           int(0.99 * len(latencies)))], 2),
        "bytes_per_move": round(total_bytes / max(1, moves)),
        "host_cpu_ms_per_move": round(host["cpu_s"] * 1000 / max(1, moves), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--peers", default="2,4,6,10", help="peer counts (default 2,4,6,10)")
    parser.add_argument("--target", type=int, default=None,
                        help="points to play to (default 1: one round; with --load, the "
                             "preset's: a whole game)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per table")
    parser.add_argument("--load", type=int, default=None, metavar="N",
                        help="play whole bot games beside N busy loops (see --games)")
    parser.add_argument("--games", type=int, default=10, metavar="G",
                        help="with --load: games to play one after another (default 10)")
    parser.add_argument("--game-timeout", type=float, default=600,
                        help="with --load: seconds a game may last (default 600)")
    args = parser.parse_args()
    if args.load is not None:
        loaded = bench_lan_load.run(args.load, args.games, args.target, args.game_timeout)
        if args.json:
            print(json.dumps(loaded, sort_keys=True))
        else:
            bench_lan_load.print_table(loaded)
        return 0
    result: dict[str, Any] = {"loopback_rtt_ms": round(loopback_rtt_ms(), 3)}
    for peers in (int(p) for p in args.peers.split(",")):
        result[str(peers)] = run_table(peers, args.target or 1, args.timeout)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print(f"loopback round trip: {result['loopback_rtt_ms']} ms (the floor)")
    print(f"{'peers':>5} {'ready s':>8} {'seated s':>9} {'setup s':>8} {'moves':>6} "
          f"{'p50 ms':>8} {'p99 ms':>8} {'bytes/move':>11} {'host CPU ms/move':>17}")
    for key, row in result.items():
        if key == "loopback_rtt_ms":
            continue
        print(f"{row['peers']:>5} {row['ready_s']:>8} {row['seated_s']:>9} "
              f"{row['setup_s']:>8} {row['moves']:>6} {row['move_p50_ms']:>8} "
              f"{row['move_p99_ms']:>8} {row['bytes_per_move']:>11} "
              f"{row['host_cpu_ms_per_move']:>17}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
