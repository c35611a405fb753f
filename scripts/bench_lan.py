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
- ``moves_behind_setup`` / ``move_p50_play_ms`` / ``move_p99_play_ms`` (issue 28):
  a move sent before every peer had accepted the entries before the first move
  after the last proven shuffle (a round's start, a reshuffle) waits, at the
  slowest peer, for that peer's setup (its proof checks, the deal), not for its
  own path; how many moves did, and the latency of the others;
- ``draw_p50_ms`` / ``draw_p99_ms``: from a draw's sending to the sending of the
  move after it: every other seat makes its share of the card drawn, the host logs
  them, the drawer opens the card and moves (a bot at once);
- ``bytes_per_move``: every record byte every peer sent during the whole
  game (setup included), divided by the number of moves;
- ``host_cpu_ms_per_move``: the host process's CPU for the whole game
  divided by the number of moves;
- ``loopback_rtt_ms``: median TCP round trip of a 64-byte message on
  127.0.0.1, the floor under any move latency;
- ``floor_s`` (issue 28): the CPU the setup's proofs and shares cost the
  table, divided by the machine's cores: each shuffle turn in the log from
  the start entry to the first move made once and checked by each other
  peer, each decryption share likewise, at this machine's cost of one
  (``proof_costs``, measured first, idle or not; a check with its new points
  checked too, as a peer meets it); ``setup_floor_x`` is
  ``setup_s / floor_s``;
- ``gc_full`` / ``gc_longest_ms`` / ``gc_frozen_min``: the garbage collector once the
  table started, every node's full collections, the longest collection any node
  made (ms of wall time), and the fewest objects a node froze before the game
  (``uno_p2p/net/heap.py``);
- ``round_gap_s``: the pause between rounds (the median, with ``--target``
  high enough for several rounds), from the last peer accepting a round's
  last move to the last peer accepting the last entry before the next
  round's first move (``bench_round.lan_pauses``); ``gap_floor_s`` the same
  floor over that pause's entries (one joint shuffle and its deal),
  ``gap_floor_x`` their ratio.

``--load N`` plays those tables beside N busy loops that it starts and stops
itself (each bounded in time). With ``--games G`` it measures robustness
instead: G whole bot games beside N busy loops, and how many finished,
stopped, and whom an audit named (``scripts/bench_lan_load.py``).
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bench_lan_load

from uno_p2p.crypto.cards import CARD_COUNT
from uno_p2p.crypto.context import PURPOSE_DEAL, ProofContext
from uno_p2p.crypto.group import VALID_POINTS
from uno_p2p.crypto.keys import PeerSecrets, verify_key_announcement
from uno_p2p.crypto.shares import DecryptionShare, make_share, verify_share
from uno_p2p.crypto.shuffle import Ciphertext, ShuffleMessage, initial_deck, shuffle_context
from uno_p2p.crypto.shuffle_proof import ShuffleProof, ShuffleStatement, make_proven_shuffle
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Move, Shares, ShuffleDeck
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import Start

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


def best_cpu_s(call: Callable[[], object], times: int = 3, *,
               fresh_points: bool = False) -> float:
    """The least thread CPU seconds ``call`` took in ``times`` runs; with ``fresh_points``
    each run meets the points it checks as new (the process's memo of them emptied)."""
    costs = []
    for _ in range(times):
        if fresh_points:
            VALID_POINTS.clear()
        started = time.thread_time()
        call()
        costs.append(time.thread_time() - started)
    return min(costs)


def proof_costs() -> dict[str, float]:
    """Thread CPU seconds, on this machine now, of a 108-card proof of shuffle made and
    checked, and of a decryption share made and checked (each the best of 3).

    A check is timed as a peer meets it at a table: the deck shuffled is known
    (checked with the turn before), while the shuffled deck, the proof and the
    share are a peer's new bytes, whose every point is first checked to lie in the
    prime-order group (``Point.from_wire``, deck.md §1; some 30 us a point, 433
    points a turn). The process keeps the points it checked (``VALID_POINTS``), so
    a check timed again on the same bytes skips that, and the floor would miss
    some 15 % of every check. A deck's first turn starts from the open deck, whose
    ``c1`` are the identity: its check is cheaper (``first_check_s``)."""
    table, peer = b"t" * 16, b"p" * 32
    secrets = PeerSecrets.from_seed(b"s" * 32, table=table, peer=peer)
    announced = secrets.announce()
    key = announced.public_key
    deck = initial_deck(list(range(CARD_COUNT)))

    def prove(previous: Sequence[Ciphertext], turn: int) -> tuple[ShuffleMessage, ShuffleProof]:
        return make_proven_shuffle(previous, shuffle_master=bytes([turn]) * 32, round_number=1,
                                   deck=0, joint_key=key,
                                   context=shuffle_context(table, 1, 0, peer, turn=turn))

    def statement(previous: Sequence[Ciphertext], turn: int) -> ShuffleStatement:
        message, proof = prove(previous, turn)
        return ShuffleStatement(tuple(c.to_wire() for c in previous), tuple(message.to_wire()),
                                proof.to_wire(), key.to_wire(), table, 1, 0, peer, turn)

    first, _ = prove(deck, 0)
    where = ProofContext(table, 1, 0, PURPOSE_DEAL, peer, 0, b"")
    ciphertext = first.ciphertexts[0]
    share = make_share(secrets, ciphertext, where).to_wire()
    verified = verify_key_announcement(announced, table=table, peer=peer)

    def check_share() -> None:
        verify_share(DecryptionShare.from_wire(share, peer=None), ciphertext=ciphertext,
                     key=verified, context=where)

    return {
        "prove_s": best_cpu_s(lambda: prove(first.ciphertexts, 1)),
        "first_check_s": best_cpu_s(statement(deck, 0).check, fresh_points=True),
        "check_s": best_cpu_s(statement(first.ciphertexts, 1).check, fresh_points=True),
        "share_s": best_cpu_s(lambda: make_share(secrets, ciphertext, where)),
        "share_check_s": best_cpu_s(check_share, fresh_points=True),
    }


def proof_floor_s(entries: Sequence[Entry], peers: int, costs: dict[str, float]) -> float:
    """The CPU ``entries``' proofs and shares cost the table, on this machine's cores:
    each turn made once and checked by every other peer, each share likewise (a turn's
    cost in proportion to its deck's size; a shuffle's first turn, in the slice, at
    the cost of a check from the open deck)."""
    others, cpu, begun = peers - 1, 0.0, set()
    for entry in entries:
        body = entry.body
        if isinstance(body, ShuffleDeck):
            size = len(body.ciphertexts) / CARD_COUNT
            check = costs["check_s" if body.shuffle in begun else "first_check_s"]
            begun.add(body.shuffle)
            cpu += size * (costs["prove_s"] + others * check)
        items = body.items if isinstance(body, Shares) else \
            body.shares if isinstance(body, Move) else ()
        cpu += len(items) * (costs["share_s"] + others * costs["share_check_s"])
    return cpu / (os.cpu_count() or 1)


def run_table(peers: int, target: int, timeout: float,
              costs: dict[str, float]) -> dict[str, Any]:
    """One game among ``peers`` processes; the figures for that row."""
    started_ms = time.time_ns() / 1e6
    load = os.getloadavg()[0]
    nodes, entries = play_table(peers, target, timeout)
    row = figures(nodes, entries, started_ms)
    row.update(floors(nodes, entries, row["setup_s"], costs))
    row["load"] = [round(load, 1), round(os.getloadavg()[0], 1)]
    return row


def floors(nodes: list[dict[str, Any]], entries: tuple[Entry, ...], setup_s: float,
           costs: dict[str, float]) -> dict[str, Any]:
    """The setup's floor and ratio, and the pause between rounds against its floor."""
    import bench_round  # here: it imports this module

    peers = len(nodes)
    start = next(e.seq for e in entries if isinstance(e.body, Start))
    first_move = next(e.seq for e in entries if isinstance(e.body, Move))
    floor = proof_floor_s(entries[start:first_move], peers, costs)
    gaps = bench_round.lan_pauses(nodes, entries)["pauses"]["gap"]
    row: dict[str, Any] = {"floor_s": round(floor, 3),
                           "setup_floor_x": round(setup_s / floor, 2) if floor else None,
                           "round_gap_s": None, "gap_floor_s": None, "gap_floor_x": None,
                           "gaps": len(gaps)}
    if gaps:
        wall = statistics.median(g["wall_s"] for g in gaps)
        gap_floor = statistics.median(
            proof_floor_s(entries[g["first"] + 1:g["last"] + 1], peers, costs) for g in gaps)
        row.update(round_gap_s=round(wall, 3), gap_floor_s=round(gap_floor, 3),
                   gap_floor_x=round(wall / gap_floor, 2) if gap_floor else None)
    return row


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
    latencies, in_play, draws = [], [], []
    drawn: float | None = None  # when the last move, a draw, was sent
    moves = 0
    setup_done = 0.0  # when the last peer had the entries before this setup's first move
    shuffled = False
    for entry in entries:
        if isinstance(entry.body, ShuffleDeck):
            shuffled = True
        if not isinstance(entry.body, Move) or type(entry.body.action).__name__ == "TimeOut":
            continue
        if shuffled:
            shuffled = False
            before = [n["accepted"].get(str(entry.seq - 1)) for n in nodes]
            setup_done = max((b for b in before if b is not None), default=0.0)
        moves += 1
        author = by_key.get(entry.author.key.hex())
        if author is None:
            continue
        sent = author["accepted" if author["host"] else "sent"].get(
            str(entry.seq if author["host"] else entry.message.counter))
        if drawn is not None and sent is not None:
            draws.append(sent - drawn)
        drawn = sent if type(entry.body.action).__name__ == "Draw" else None
        done = [n["accepted"].get(str(entry.seq)) for n in nodes]
        if sent is None or any(d is None for d in done):
            continue
        latencies.append(max(d for d in done if d is not None) - sent)
        if sent >= setup_done:
            in_play.append(latencies[-1])
    latencies.sort()
    in_play.sort()
    draws.sort()
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
        "moves_behind_setup": len(latencies) - len(in_play),
        "move_p50_play_ms": round(statistics.median(in_play), 2) if in_play else None,
        "move_p99_play_ms": round(in_play[min(len(in_play) - 1, int(0.99 * len(in_play)))], 2)
        if in_play else None,
        "draw_p50_ms": round(statistics.median(draws), 2) if draws else None,
        "draw_p99_ms": round(draws[min(len(draws) - 1, int(0.99 * len(draws)))], 2)
        if draws else None,
        "bytes_per_move": round(total_bytes / max(1, moves)),
        "host_cpu_ms_per_move": round(host["cpu_s"] * 1000 / max(1, moves), 2),
        # The garbage collector once the table started (uno_p2p/net/heap.py): full
        # collections in every node, and the longest collection any node made.
        "gc_full": sum(n.get("gc_collections", [0, 0, 0])[2] for n in nodes),
        "gc_longest_ms": max(max(n.get("gc_longest_ms", [0.0])) for n in nodes),
        "gc_frozen_min": min(n.get("gc_frozen", 0) for n in nodes),
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
                        help="play the tables beside N busy loops (started and stopped "
                             "here); with --games, whole bot games instead")
    parser.add_argument("--games", type=int, default=None, metavar="G",
                        help="with --load: G whole games one after another, judged by "
                             "their audits (issue 23)")
    parser.add_argument("--game-timeout", type=float, default=600,
                        help="with --load --games: seconds a game may last (default 600)")
    args = parser.parse_args()
    if args.load is not None and args.games is not None:
        loaded = bench_lan_load.run(args.load, args.games, args.target, args.game_timeout)
        if args.json:
            print(json.dumps(loaded, sort_keys=True))
        else:
            bench_lan_load.print_table(loaded)
        return 0
    sizes = [int(p) for p in args.peers.split(",")]
    result: dict[str, Any] = {"loopback_rtt_ms": round(loopback_rtt_ms(), 3),
                              "costs": {k: round(v, 4) for k, v in proof_costs().items()},
                              "cores": os.cpu_count(), "busy_loops": args.load or 0}
    # Every table's bound, and a minute to spare: the loops never outlive the run.
    loops = bench_lan_load.busy_loops(args.load or 0, len(sizes) * args.timeout + 60)
    try:
        for peers in sizes:
            result[str(peers)] = run_table(peers, args.target or 1, args.timeout,
                                           result["costs"])
    finally:
        bench_lan_load.stop(loops)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print_rows(result)
    return 0


def print_rows(result: dict[str, Any]) -> None:
    costs = result["costs"]
    print(f"loopback round trip: {result['loopback_rtt_ms']} ms (the floor); "
          f"{result['busy_loops']} busy loops on {result['cores']} cores; a proof of "
          f"shuffle {costs['prove_s']} s to make, {costs['check_s']} s to check "
          f"({costs['first_check_s']} s a deck's first)")
    print(f"{'peers':>5} {'ready s':>8} {'seated s':>9} {'setup s':>8} {'floor s':>8} "
          f"{'setup/floor':>11} {'gap s':>6} {'gap floor s':>11} {'moves':>6} "
          f"{'p50 ms':>8} {'p99 ms':>8} {'draw p99 ms':>11} {'bytes/move':>11} "
          f"{'host CPU ms/move':>17} {'full GCs':>8} {'GC max ms':>9} {'load':>10}")
    for key, row in result.items():
        if not key.isdigit():
            continue
        print(f"{row['peers']:>5} {row['ready_s']:>8} {row['seated_s']:>9} "
              f"{row['setup_s']:>8} {row['floor_s']:>8} {row['setup_floor_x']!s:>11} "
              f"{row['round_gap_s']!s:>6} {row['gap_floor_s']!s:>11} {row['moves']:>6} "
              f"{row['move_p50_ms']:>8} {row['move_p99_ms']:>8} {row['draw_p99_ms']!s:>11} "
              f"{row['bytes_per_move']:>11} "
              f"{row['host_cpu_ms_per_move']:>17} {row['gc_full']:>8} {row['gc_longest_ms']:>9} "
              f"{row['load'][0]:>4}->{row['load'][1]:<4}")


if __name__ == "__main__":
    sys.exit(main())
