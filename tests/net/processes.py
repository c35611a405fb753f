"""Helpers for tests that run ``uno-lan`` as real processes on 127.0.0.1.

Every process gets ``XDG_DATA_HOME`` in the test's tmp dir, its output in a
file the test reads, and a bounded wait; nothing listens beyond loopback.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from uno_p2p.store.unolog import read_log
from uno_p2p.table import bodies  # noqa: F401 (registers the table's body kinds)

UNO = [sys.executable, "-m", "uno_p2p"]


class Uno:
    """One ``uno-lan`` process, its output in ``out``."""

    def __init__(self, args: list[str], xdg: Path, out: Path, *, nice: int = 0,
                 env: dict[str, str] | None = None) -> None:
        self.out = out
        env = dict(os.environ, XDG_DATA_HOME=str(xdg), PYTHONUNBUFFERED="1", **(env or {}))
        # ``nice`` as a slow laptop: its loop gets what the busy processes leave.
        lower = ["nice", "-n", str(nice)] if nice else []
        with out.open("wb") as sink:
            # Its own process group: a host's bot processes go with it when a test ends.
            self.process = subprocess.Popen([*lower, *UNO, *args], stdin=subprocess.DEVNULL,
                                            stdout=sink, stderr=subprocess.STDOUT, env=env,
                                            start_new_session=True)

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text())
            if found:
                return found
            if self.process.poll() is not None:
                found = re.search(pattern, self.text())
                if found:
                    return found
                raise AssertionError(f"exited {self.process.returncode} before "
                                     f"{pattern!r}:\n{self.text()[-3000:]}")
            time.sleep(0.1)
        raise AssertionError(f"no {pattern!r} within {timeout} s:\n{self.text()[-3000:]}")

    def wait(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill_all()
            raise

    def wait_cpu(self, timeout: float) -> tuple[int, float]:
        """Wait for the exit like ``wait``; also return the CPU seconds it used."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.returncode is not None:
                raise AssertionError("the process was reaped already: its CPU time is lost")
            pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            if pid:
                self.process.returncode = os.waitstatus_to_exitcode(status)
                return self.process.returncode, usage.ru_utime + usage.ru_stime
            time.sleep(0.1)
        self.kill_all()
        raise subprocess.TimeoutExpired(self.process.args, timeout)

    def kill9(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def kill_all(self) -> None:
        """SIGKILL the process and every process it started (its bots): nothing a test
        started outlives it. ``kill9`` alone is a crash, which leaves the bots running."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def stop(self) -> None:
        """End the test's processes: this one and whatever it started."""
        running = self.process.poll() is None
        self.kill_all()
        if running:
            self.process.wait(10)


#: A busy loop: one process that keeps one core busy until its deadline, or until the
#: process that started it is gone (a killed test leaves none behind).
BUSY = "import os, sys, time\nend, parent = time.monotonic() + float(sys.argv[1]), os.getppid()\n" \
       "while time.monotonic() < end and os.getppid() == parent:\n" \
       "    for _ in range(100_000):\n        pass\n"


@contextlib.contextmanager
def busy_loops(count: int, seconds: float) -> Iterator[None]:
    """``count`` processes each spinning on a core, each for at most ``seconds``, and
    killed when the block ends, whatever happened in it."""
    loops = [subprocess.Popen([sys.executable, "-c", BUSY, f"{seconds:.0f}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait(10)


def host_port(host: Uno) -> int:
    return int(host.wait_for(r"open on port (\d+)").group(1))


def logs(xdg: Path, name: str = "") -> list[Path]:
    pattern = f"*-{name}-*.unolog" if name else "*.unolog"
    return sorted((xdg / "uno-lan" / "games").glob(pattern))


def entry_bytes(path: Path) -> list[bytes]:
    return [e.encode() for e in read_log(path).entries]


def wait_entries(path_glob: tuple[Path, str], count: int, timeout: float = 120.0) -> Path:
    """Wait until the log of player ``name`` holds ``count`` entries."""
    xdg, name = path_glob
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in logs(xdg, name):
            with contextlib.suppress(Exception):
                if len(read_log(path).entries) >= count:
                    return path
        time.sleep(0.2)
    raise AssertionError(f"{name}'s log never reached {count} entries")


def audit(path: Path, xdg: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(xdg))
    return subprocess.run([*UNO, "audit", "--json", str(path)], capture_output=True, text=True,
                          env=env, timeout=300, check=False)


def verdicts(paths: Iterable[Path], xdg: Path) -> dict[Path, dict[str, Any]]:
    """The ``audit --json`` verdict of each log, one audit per distinct file: the same
    bytes audit the same (the verdict names no path), and each audit re-executes every
    shuffle of the game (15 CPU-s for a game to 500 of two players)."""
    by_bytes: dict[bytes, dict[str, Any]] = {}
    found = {}
    for path in paths:
        saved = path.read_bytes()
        if saved not in by_bytes:
            by_bytes[saved] = json.loads(audit(path, xdg).stdout)
        found[path] = by_bytes[saved]
    return found


class Proxy:
    """A loopback TCP proxy whose wire can be cut (bytes dropped both ways) and restored."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.cut = threading.Event()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                if not self.cut.is_set():
                    dst.sendall(data)
        except OSError:
            pass
        finally:
            # While cut, a close does not cross either (a pulled cable carries nothing):
            # the far side finds out by its own idle time-out.
            for s in (src,) if self.cut.is_set() else (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def close(self) -> None:
        self.closed = True
        self.server.close()
