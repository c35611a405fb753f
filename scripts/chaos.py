"""Bot games over real sockets while a driver kills, pauses and cuts peers (issue 14).

Each game is ``uno-lan host --autoplay --bots N`` on 127.0.0.1 (every bot its own
process), with its own data directory. A while into the game the driver injects
one fault, chosen by the seed:

- ``stop``: SIGSTOP a bot for a few seconds, then SIGCONT (a laptop that sleeps);
- ``kill``: SIGKILL a bot, then bring it back with ``uno-lan join --resume``;
- ``vanish``: SIGKILL a bot for good (the table removes it, table.md §14);
- ``host``: SIGKILL the host: the joiners, linked to each other (net.md §5.3),
  vote, the next seat takes over (table.md §13), the host's seat is removed
  when the table waits for it, and the others finish the game.

Then it waits for the game to end, audits every peer's log and compares the
logs. It prints games played, faults injected, games finished, logs audited
OK and entries lost (entries a peer held that are not in the game's longest
log), as a table or ``--json``. Every process it signals is one it started or
a bot its own host started (found by parent pid); nothing leaves loopback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from uno_p2p.store.unolog import read_log
from uno_p2p.table import bodies  # noqa: F401 (registers the table's body kinds)

UNO = [sys.executable, "-m", "uno_p2p"]
FAULTS = ("stop", "kill", "vanish", "host")
#: A host-kill game takes the hand-over (15 s) and the removal (60 s) on top.
GAME_TIMEOUT_S = 300


@dataclass
class Game:
    """One game's outcome."""

    fault: str
    finished: bool = False
    logs: int = 0
    audited_ok: int = 0
    entries_lost: int = 0
    statuses: list[str] = field(default_factory=list)
    note: str = ""


def children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def player_of(pid: int) -> str:
    with contextlib.suppress(OSError):
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if b"--player" in args:
            return args[args.index(b"--player") + 1].decode()
    return ""


def wait_entries(xdg: Path, count: int, host: subprocess.Popen[bytes]) -> None:
    """Until the host's log holds ``count`` entries (or the host is done), 60 s at most."""
    until = time.monotonic() + 60
    while time.monotonic() < until and host.poll() is None:
        for path in (xdg / "uno-lan" / "games").glob("*-Ann-*.unolog"):
            with contextlib.suppress(Exception):
                if len(read_log(path).entries) >= count:
                    return
        time.sleep(0.2)


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a bot whose parent, the host, was killed included)."""
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return False


def signal_pid(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def play(index: int, fault: str, rng: random.Random, args: argparse.Namespace,
         root: Path) -> Game:
    game = Game(fault)
    work = root / f"game{index}"
    xdg = work / "data"
    work.mkdir(parents=True)
    env = dict(os.environ, XDG_DATA_HOME=str(xdg), PYTHONUNBUFFERED="1")
    options = ["--option", f"target={args.target}", "--option", "turn_timer=2"]
    started: list[subprocess.Popen[bytes]] = []

    def run(argv: list[str], name: str) -> subprocess.Popen[bytes]:
        with (work / f"{name}.out").open("wb") as sink:
            process = subprocess.Popen([*UNO, *argv], stdin=subprocess.DEVNULL, stdout=sink,  # noqa: S603 (our own CLI)
                                       stderr=subprocess.STDOUT, env=env)
        started.append(process)
        return process

    host = run(["host", "--autoplay", "--bots", str(args.players - 1), "--player", "Ann",
                "--bind", "127.0.0.1", "--bot-output", str(work / "bots"), *options], "host")
    bots: list[int] = []
    deadline = time.monotonic() + 30
    while len(bots) < args.players - 1 and time.monotonic() < deadline:
        bots = [p for p in children(host.pid) if player_of(p).startswith("Bot")]
        time.sleep(0.2)
    try:
        # Faults come once the game is under way (a lobby waits for its players): when
        # the host's log holds a random number of entries, past the keys and the deal.
        wait_entries(xdg, rng.randint(40, 160), host)
        victim = rng.choice(bots) if bots else None
        if fault == "host" or victim is None:
            host.send_signal(signal.SIGKILL)
        elif fault == "stop":
            signal_pid(victim, signal.SIGSTOP)
            time.sleep(rng.uniform(2.0, 5.0))
            signal_pid(victim, signal.SIGCONT)
        else:
            name = player_of(victim)
            signal_pid(victim, signal.SIGKILL)
            if fault == "kill":
                time.sleep(1.0)
                run(["join", "--resume", "--player", name], "resumed")
        end = time.monotonic() + GAME_TIMEOUT_S
        while time.monotonic() < end and (host.poll() is None or any(
                p.poll() is None for p in started[1:]) or any(alive(b) for b in bots)):
            time.sleep(0.3)
        running = host.poll() is None or any(alive(b) for b in bots)
        game.note = "timed out" if running else ""
    finally:
        for pid in [*bots, *(p.pid for p in started)]:
            signal_pid(pid, signal.SIGCONT)
            signal_pid(pid, signal.SIGKILL)
        for process in started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(10)
    judge(game, xdg, env)
    return game


def judge(game: Game, xdg: Path, env: dict[str, str]) -> None:
    """Audit every log and count the entries no longer in the longest one."""
    paths = sorted((xdg / "uno-lan" / "games").glob("*.unolog"))
    game.logs = len(paths)
    logs = []
    for path in paths:
        with contextlib.suppress(Exception):
            logs.append([e.hash for e in read_log(path).entries])
        done = subprocess.run([*UNO, "audit", "--json", str(path)], capture_output=True,  # noqa: S603
                              text=True, env=env, timeout=300, check=False)
        try:
            status = str(json.loads(done.stdout)["status"])
        except (ValueError, KeyError):
            status = "unreadable"
        game.statuses.append(status)
        game.audited_ok += status in ("ok", "stopped", "aborted", "unfinished")
    longest = max(logs, key=len, default=[])
    for log in logs:
        common = 0
        while common < len(log) and common < len(longest) and log[common] == longest[common]:
            common += 1
        game.entries_lost += len(log) - common
    game.finished = "ok" in game.statuses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--target", type=int, default=200)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--faults", default=",".join(FAULTS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", default="", help="keep every process's output and log here")
    args = parser.parse_args(argv)
    faults = [f for f in args.faults.split(",") if f in FAULTS]
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="uno-chaos-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        games = [play(i, faults[i % len(faults)], rng, args, root)
                 for i in range(args.games)]
    summary = {
        "games_played": len(games),
        "faults_injected": {f: sum(g.fault == f for g in games) for f in faults},
        "games_finished": sum(g.finished for g in games),
        "logs": sum(g.logs for g in games),
        "logs_audited_ok": sum(g.audited_ok for g in games),
        "entries_lost": sum(g.entries_lost for g in games),
        "games": [{"fault": g.fault, "finished": g.finished, "statuses": g.statuses,
                   "entries_lost": g.entries_lost, "note": g.note} for g in games],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"{'game':>4}  {'fault':<7} {'finished':<8} {'lost':>4}  audit statuses")
    for i, g in enumerate(games):
        print(f"{i:>4}  {g.fault:<7} {'yes' if g.finished else 'no':<8} {g.entries_lost:>4}  "
              f"{', '.join(g.statuses)} {g.note}")
    print(f"games played {summary['games_played']}; faults injected "
          f"{summary['faults_injected']}; games finished {summary['games_finished']}; "
          f"logs audited OK {summary['logs_audited_ok']}/{summary['logs']} (a verdict, not a "
          f"traceback); entries lost {summary['entries_lost']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
