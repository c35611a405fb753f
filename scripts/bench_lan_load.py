"""Whole bot games beside busy processes (issue 23; docs/performance.md).

``scripts/bench-lan --load N --games G`` starts N busy loops (each a Python
process spinning on a core, bounded in time and killed at the end), then plays
G games one after another: ``uno-lan host --autoplay --bots 3`` on 127.0.0.1,
each its own processes, keys and links, each game bounded by ``--game-timeout``
(its whole process group killed past it). Every player audits its own log
at the end of a game and prints the verdict; when all four print ``Audit: OK``
over the same log, that is the game's verdict, else each distinct log is
audited again here, to learn whom it names.

A game *finished* when the host exited 0 and every log audits ``ok``; any other
end (a stop, an abort, a violation, a time-out, a log that differs) *stopped*
it. ``named`` lists every peer an audit named (a violation, or an abort
naming who stopped answering): a loaded machine must never get an honest
player named.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uno_p2p.audit import audit_file
from uno_p2p.audit.report import Status
from uno_p2p.table import bodies  # noqa: F401 (registers the table's body kinds)

ROOT = Path(__file__).resolve().parent.parent
#: A busy loop: one process that keeps one core busy until its deadline, or until the
#: process that started it is gone (a killed test leaves none behind).
BUSY = "import os, sys, time\nend, parent = time.monotonic() + float(sys.argv[1]), os.getppid()\n" \
       "while time.monotonic() < end and os.getppid() == parent:\n" \
       "    for _ in range(100_000):\n        pass\n"


@dataclass
class Game:
    """What one game came to."""

    number: int
    finished: bool
    wall_s: float
    why: str = ""
    named: list[dict[str, Any]] = field(default_factory=list)


def busy_loops(count: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    """``count`` processes each spinning on a core for at most ``seconds``."""
    return [subprocess.Popen([sys.executable, "-c", BUSY, f"{seconds:.0f}"],  # noqa: S603
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(count)]


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def play(number: int, target: int | None, timeout: float) -> Game:
    """One whole game of four bot peers; its processes never outlive ``timeout``."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        env = dict(os.environ, XDG_DATA_HOME=str(data), UNO_LAN_MDNS="off")
        command = [sys.executable, "-m", "uno_p2p", "host", "--autoplay", "--bots", "3",
                   "--bind", "127.0.0.1", "--player", "Host",
                   "--bot-output", str(Path(tmp) / "bots")]
        if target is not None:
            command += ["--option", f"target={target}"]
        out = Path(tmp) / "host.out"
        with out.open("wb") as sink:
            host = subprocess.Popen(command, env=env, cwd=ROOT, stdin=subprocess.DEVNULL,  # noqa: S603
                                    stdout=sink, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        try:
            code: int | None = host.wait(timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            # The bots are the host's children, in its session: none outlives the game.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(host.pid, signal.SIGKILL)
            host.wait(10)
        wall = time.monotonic() - started
        said = [path.read_text(errors="replace")
                for path in (out, *sorted((Path(tmp) / "bots").glob("*.out")))]
        return judge(number, code, wall, sorted((data / "uno-lan" / "games").glob("*.unolog")),
                     said)


def judge(number: int, code: int | None, wall: float, paths: list[Path],
          said: list[str]) -> Game:
    """The game finished only if every log says ``ok``: as the four players printed it
    over one same log, or else as audited here (each distinct log once)."""
    game = Game(number, False, round(wall, 1))
    if code is None:
        game.why = "timed out"
    elif code != 0:
        game.why = f"host exited {code}"
    if len(said) == len(paths) == 4 and all("Audit: OK" in text for text in said) and \
            len({path.read_bytes() for path in paths}) == 1:
        game.finished = not game.why
        return game
    seen: dict[bytes, Status] = {}
    for path in paths:
        data = path.read_bytes()
        if data in seen:
            continue
        report = audit_file(path)
        seen[data] = report.status
        finding = report.violation
        if finding is not None and finding.peer is not None:
            game.named.append({"game": number, "name": finding.peer.name,
                               "code": finding.code, "status": report.status.value})
    if len(paths) < 4:
        game.why = game.why or f"only {len(paths)} logs of 4"
    bad = sorted({status.value for status in seen.values() if status != Status.OK})
    if bad and not game.why:
        game.why = "audit: " + ", ".join(bad)
    game.finished = not game.why
    return game


def run(load: int, games: int, target: int | None, timeout: float) -> dict[str, Any]:
    """G games beside N busy loops; the loops end with the run (or their bound)."""
    loops = busy_loops(load, games * (timeout + 60) + 60)
    played: list[Game] = []
    try:
        for number in range(1, games + 1):
            played.append(play(number, target, timeout))
    finally:
        stop(loops)
    return summary(load, games, played)


def summary(load: int, games: int, played: list[Game]) -> dict[str, Any]:
    finished = sum(game.finished for game in played)
    return {"load": load, "games": games, "finished": finished,
            "stopped": len(played) - finished,
            "named": [named for game in played for named in game.named],
            "per_game": [{"game": g.number, "finished": g.finished, "wall_s": g.wall_s,
                          "why": g.why} for g in played]}


def print_table(result: dict[str, Any]) -> None:
    print(f"load {result['load']} busy loops, {result['games']} games: "
          f"{result['finished']} finished, {result['stopped']} stopped")
    print(f"{'game':>4} {'finished':>8} {'wall s':>7}  why")
    for row in result["per_game"]:
        print(f"{row['game']:>4} {'yes' if row['finished'] else 'no':>8} "
              f"{row['wall_s']:>7}  {row['why']}")
    named = result["named"]
    print("named: " + (", ".join(f"{n['name']} ({n['code']}, game {n['game']})"
                                 for n in named) or "nobody"))
