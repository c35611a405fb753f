"""Discovery latency between processes, in a throw-away network namespace.

Each round, in a namespace whose only interface is its multicast-enabled lo
(no packet leaves it): a watcher browses; a host announces a table (probing
time); the watcher sees it (announce -> seen); a fresh watcher started after
the announcement sees it (browse start -> seen); the host updates its seats
(update -> seen); the host withdraws it (first goodbye -> gone); and
``uno-lan list --json --timeout 1`` runs as a player would. Every process
prints the machine's monotonic clock, so the delays are across processes.
"announced" is printed once registration returns, just after the first
announcement left, so announce -> seen can be a few milliseconds below 0.

Usage: scripts/bench-discovery [--rounds N] [--json]   (needs root and iproute2)
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

TOOL = [sys.executable, "-m", "uno_p2p.net.discotool", "--interface", "127.0.0.1"]
UNO_LAN = str(Path(sys.executable).with_name("uno-lan"))
STEP_TIMEOUT_S = 15.0
#: iproute2, by full path; every command of this script runs through it.
IP = shutil.which("ip") or "/usr/sbin/ip"
FIGURES = ("probe_s", "announce_to_seen_s", "fresh_browse_to_seen_s", "update_to_seen_s",
           "goodbye_to_gone_s", "list_wall_s")


def ip(*argv: str, check: bool = True) -> None:
    subprocess.run([IP, *argv], check=check, capture_output=True, timeout=30)  # noqa: S603


def event(stream: IO[str] | None, name: str, tables: int | None = None) -> dict[str, Any]:
    if stream is None:
        raise RuntimeError("no output to read")
    give_up = time.monotonic() + STEP_TIMEOUT_S
    while time.monotonic() < give_up:
        line = stream.readline()
        if not line:
            raise RuntimeError(f"a process ended before its {name!r} event")
        record: dict[str, Any] = json.loads(line)
        if record["event"] == name and (tables is None or len(record["tables"]) == tables):
            return record
    raise RuntimeError(f"no {name!r} event within {STEP_TIMEOUT_S} s")


def one_round(namespace: str, number: int) -> dict[str, float]:
    def start(argv: Sequence[str], stdin: bool = False) -> subprocess.Popen[str]:
        process = subprocess.Popen(  # noqa: S603 (our own commands)
            [IP, "netns", "exec", namespace, *argv], text=True, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
        started.append(process)
        return process

    started: list[subprocess.Popen[str]] = []
    try:
        watcher = start([*TOOL, "watch", "--timeout", "30"])
        event(watcher.stdout, "tables", 0)
        host = start([*TOOL, "announce", "--table", f"Bench {number}", "--stdin"], stdin=True)
        announced = event(host.stdout, "announced")
        seen = event(watcher.stdout, "tables", 1)
        fresh = start([*TOOL, "watch", "--timeout", "10"])
        fresh_start = event(fresh.stdout, "tables", 0)
        fresh_seen = event(fresh.stdout, "tables", 1)
        if host.stdin is None:
            raise RuntimeError("the host has no stdin")
        host.stdin.write(json.dumps({"seats_taken": 3, "seats_free": 1}) + "\n")
        host.stdin.flush()
        updated = event(host.stdout, "updated")
        changed = event(watcher.stdout, "tables", 1)
        listed_at = time.monotonic()
        listed = subprocess.run(  # noqa: S603 (our own command)
            [IP, "netns", "exec", namespace, UNO_LAN, "list", "--json", "--timeout", "1",
             "--interface", "127.0.0.1"], capture_output=True, text=True, timeout=30, check=True)
        list_wall = time.monotonic() - listed_at
        if not json.loads(listed.stdout):
            raise RuntimeError("uno-lan list did not list the table")
        host.stdin.close()
        closing = event(host.stdout, "closing")
        gone = event(watcher.stdout, "tables", 0)
        return {
            "probe_s": announced["t"] - announced["started"],
            "announce_to_seen_s": seen["t"] - announced["t"],
            "fresh_browse_to_seen_s": fresh_seen["t"] - fresh_start["t"],
            "update_to_seen_s": changed["t"] - updated["t"],
            "goodbye_to_gone_s": gone["t"] - closing["t"],
            "list_wall_s": list_wall,
        }
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)


def measure(rounds: int) -> dict[str, dict[str, float]]:
    namespace = f"uno-bench-{os.getpid()}-{secrets.token_hex(3)}"
    ip("netns", "add", namespace)
    try:
        ip("-n", namespace, "link", "set", "lo", "up", "multicast", "on")
        ip("-n", namespace, "route", "add", "224.0.0.0/4", "dev", "lo")
        results = [one_round(namespace, number) for number in range(rounds)]
    finally:
        ip("netns", "del", namespace, check=False)
    return {
        figure: {"median": statistics.median(row[figure] for row in results),
                 "max": max(row[figure] for row in results)}
        for figure in FIGURES
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if os.geteuid() != 0 or shutil.which("ip") is None:
        print("bench-discovery: needs root and iproute2 to make a network namespace.",
              file=sys.stderr)
        return 2
    if not 1 <= args.rounds <= 50:
        print("bench-discovery: --rounds must be 1 to 50.", file=sys.stderr)
        return 2
    figures = measure(args.rounds)
    if args.json:
        print(json.dumps({"rounds": args.rounds, **figures}))
        return 0
    print(f"discovery over mDNS between processes, {args.rounds} rounds (seconds)")
    print(f"{'figure':<26}{'median':>9}{'max':>9}")
    for figure, values in figures.items():
        print(f"{figure:<26}{values['median']:>9.3f}{values['max']:>9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
