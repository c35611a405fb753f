"""Throw-away network namespaces for tests of real multicast.

Every mDNS packet of the tests stays inside a namespace the test made (COMMON
rules, issue 11): its only interface is its own ``lo``, with multicast turned
on and a route for 224.0.0.0/4, so the mDNS group is reachable there and
nowhere else. Needs root and iproute2; otherwise the tests skip and say why.
Each namespace gets a unique name and is deleted, with any process still in
it killed, when the test ends.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

#: The ``uno-lan`` command of this environment (the venv's entry point).
UNO_LAN = str(Path(sys.executable).with_name("uno-lan"))
#: Every command in a namespace is bounded by this many seconds.
COMMAND_TIMEOUT_S = 60


def why_no_namespaces() -> str | None:
    """Why these tests cannot run here, or None if they can."""
    if sys.platform != "linux":
        return "network namespaces are Linux only"
    if os.geteuid() != 0:
        return "creating network namespaces needs root"
    if shutil.which("ip") is None:
        return "iproute2's 'ip' is not installed"
    if not Path(UNO_LAN).exists():
        return f"{UNO_LAN} is not installed (run scripts/bootstrap.sh)"
    return None


class Namespace:
    """One network namespace: run commands in it, and read their JSON lines."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.processes: list[subprocess.Popen[str]] = []

    def command(self, argv: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", self.name, *argv]

    def run(self, argv: Sequence[str], timeout: float = COMMAND_TIMEOUT_S,
            ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(argv), capture_output=True, text=True,
                              timeout=timeout, check=False)

    def start(self, argv: Sequence[str], *, stdin: bool = False) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            self.command(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        )
        self.processes.append(process)
        return process

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)
            for stream in (process.stdout, process.stderr, process.stdin):
                if stream is not None:
                    stream.close()


def read_event(stream: IO[str] | None, event: str, deadline_s: float = 15.0,
               ) -> dict[str, object]:
    """The next JSON line of ``stream`` whose "event" is ``event`` (bounded in time).

    Raises:
        AssertionError: the stream ended, or nothing came in time.
    """
    assert stream is not None
    give_up = time.monotonic() + deadline_s
    while time.monotonic() < give_up:
        line = stream.readline()
        if not line:
            raise AssertionError(f"the process ended before a {event!r} event")
        record: dict[str, object] = json.loads(line)
        if record.get("event") == event:
            return record
    raise AssertionError(f"no {event!r} event within {deadline_s} s")


def _ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True, timeout=COMMAND_TIMEOUT_S)


@contextmanager
def network_namespace(prefix: str = "uno-test") -> Iterator[Namespace]:
    """A fresh namespace whose ``lo`` carries multicast; deleted on exit.

    Raises:
        subprocess.CalledProcessError: the namespace could not be set up.
    """
    namespace = Namespace(f"{prefix}-{os.getpid()}-{secrets.token_hex(3)}")
    _ip("netns", "add", namespace.name)
    try:
        _ip("-n", namespace.name, "link", "set", "lo", "up", "multicast", "on")
        _ip("-n", namespace.name, "route", "add", "224.0.0.0/4", "dev", "lo")
        yield namespace
    finally:
        namespace.stop_all()
        _kill_leftovers(namespace.name)
        subprocess.run(["ip", "netns", "del", namespace.name], capture_output=True,
                       timeout=COMMAND_TIMEOUT_S, check=False)


def _kill_leftovers(name: str) -> None:
    """Kill what is still inside the namespace: only processes this test started."""
    listed = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True,
                            timeout=COMMAND_TIMEOUT_S, check=False)
    for pid in listed.stdout.split():
        if pid.isdigit():
            with suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
