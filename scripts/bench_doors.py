"""Benchmark of a table's doors against a hostile machine (issue 24; docs/performance.md,
docs/protocol/net.md §6.1).

Each attack runs from this process against live ``uno-lan host`` (and ``join``)
processes on 127.0.0.1, a fresh host for each; the attacker stands at
127.0.0.2 and up (every 127.x.y.z is the loopback, each a source address of its
own to the host), friends at 127.0.0.1. The figures, with the issue's aims:

1. ``guesses_per_min``: join codes an attacker could test (message 2 received),
   16 stalled guesses at a time, from one address and from four; aim: at most
   5 a minute per table. ``friend_in_s``: a friend at another address, while
   one address guesses.
2. ``friend_after_lockout_s``: a friend's time to get in after 5 connections
   that closed after the host's reply.
3. ``honest_handshakes``: of 10 honest handshakes, how many succeed while one
   address holds 100 silent sockets; aim: at least 9.
4. ``host_files`` / ``host_cpu_s``: 300 authenticated links that never join.
5. ``joiner_files``: a joiner's open files under 600 idle connections to its
   peer-link port; aim: under 100.
6. ``host_peak_mb``: a member that asks for the log (``S``) as fast as it can for
   a while and never reads; aim: under 120 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from uno_p2p.crypto.identity import Identity
from uno_p2p.net.handshake import MAX_HANDSHAKE_BYTES, HandshakeFailed, JoinerHandshake
from uno_p2p.net.link import Link, LinkLost, Timings, connect, framed, read_frame
from uno_p2p.table.frames import FRAME_SYNC, frame, sync_request
from uno_p2p.table.peer import TablePeer

ROOT = Path(__file__).resolve().parent.parent
CODE = "4711"
TIMINGS = Timings()


# -- live processes ------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def process(*args: str) -> Iterator[subprocess.Popen[bytes]]:
    """``uno-lan ARGS`` in text mode, mDNS off, its own data directory."""
    with tempfile.TemporaryDirectory() as data:
        env = dict(os.environ, XDG_DATA_HOME=data, UNO_LAN_MDNS="off")
        child = subprocess.Popen([sys.executable, "-m", "uno_p2p", *args, "--text",  # noqa: S603
                                  "--no-mdns"], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            yield child
        finally:
            child.kill()
            child.wait()


@contextlib.contextmanager
def host(code: str | None) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    extra = ("--join-code", code) if code else ()
    with process("host", "--player", "Ann", "--bind", "127.0.0.1", "--port", str(port),
                 "--players", "10", *extra) as child:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        yield child, port


def files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def memory_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def listening_ports(pid: int) -> set[int]:
    """The TCP ports ``pid`` listens on (its sockets' inodes in /proc/net/tcp)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    ports = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        parts = line.split()
        if parts[3] == "0A" and parts[9] in inodes:
            ports.add(int(parts[1].split(":")[1], 16))
    return ports


# -- the attacker's moves ------------------------------------------------------------------
async def dial(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))


async def guess(port: int, source: str, code: str, then: str) -> str:
    """One handshake with ``code`` from ``source``: ``answer`` (message 2: a code it
    can test), ``refused`` or ``closed``; then ``stall``, ``close`` or ``finish``."""
    try:
        reader, writer = await dial(port, source)
    except OSError:
        return "closed"
    shake = JoinerHandshake(Identity(secrets.token_bytes(32)), secrets.token_bytes(32),
                            secrets.token_bytes(32), code)
    try:
        writer.write(framed(shake.hello))
        try:
            answer = await read_frame(reader, MAX_HANDSHAKE_BYTES, TIMINGS, 6.0)
            last, _ = shake.finish(answer)
        except LinkLost:
            return "closed"
        except HandshakeFailed as error:
            if error.code != "wrong_join_code":
                return "refused"
            last = b""
        if then == "finish" and last:
            writer.write(framed(last))
            await writer.drain()
        elif then == "stall":
            with contextlib.suppress(Exception):
                await asyncio.wait_for(reader.read(), 10.0)
        return "answer"
    finally:
        writer.close()


async def friend(port: int, code: str | None, within: float = 90.0) -> float | None:
    """Seconds until a friend at 127.0.0.1 completes a handshake (None: not within)."""
    started = time.monotonic()
    while time.monotonic() - started < within:
        with contextlib.suppress(LinkLost, HandshakeFailed):
            link = await connect(("127.0.0.1", port), Identity(secrets.token_bytes(32)),
                                 code=code, timings=TIMINGS)
            link.abort()
            return round(time.monotonic() - started, 2)
        await asyncio.sleep(0.5)
    return None


async def guessing(port: int, sources: list[str], seconds: float) -> int:
    """16 stalled guesses at a time from each of ``sources`` for ``seconds``: how many
    codes the attacker could test."""
    answered = 0
    until = time.monotonic() + seconds

    async def one_at_a_time(source: str, n: int) -> None:
        nonlocal answered
        while time.monotonic() < until:
            got = await guess(port, source, f"{n:04d}", "stall")
            answered += got == "answer"
            if got != "answer":
                await asyncio.sleep(0.2)

    await asyncio.gather(*(one_at_a_time(s, n) for s in sources for n in range(16)))
    return answered


async def attack_guesses(seconds: float) -> dict[str, Any]:
    result: dict[str, Any] = {}
    with host(CODE) as (_, port):
        attack = asyncio.create_task(guessing(port, ["127.0.0.2"], seconds))
        await asyncio.sleep(1.0)
        result["friend_in_s"] = await friend(port, CODE)
        one = await attack
    with host(CODE) as (_, port):
        four = await guessing(port, [f"127.0.0.{n}" for n in range(2, 6)], seconds)
    result["seconds"] = seconds
    result["one_address_guesses"], result["four_addresses_guesses"] = one, four
    result["one_address_guesses_per_min"] = round(one * 60 / seconds, 1)
    result["four_addresses_guesses_per_min"] = round(four * 60 / seconds, 1)
    return result


async def attack_lockout() -> dict[str, Any]:
    with host(CODE) as (_, port):
        closed = [await guess(port, "127.0.0.2", "0000", "close") for _ in range(5)]
        return {"attacker": closed, "friend_after_lockout_s": await friend(port, CODE)}


async def attack_silent(count: int) -> dict[str, Any]:
    with host(None) as (_, port):
        held: list[asyncio.StreamWriter] = []
        stop = asyncio.Event()

        async def hold() -> None:  # keep ``count`` silent sockets, as the host drops them
            while not stop.is_set():
                while len(held) < count:
                    with contextlib.suppress(OSError):
                        held.append((await dial(port, "127.0.0.2"))[1])
                for writer in [w for w in held if w.transport.is_closing()]:
                    held.remove(writer)
                await asyncio.sleep(0.05)

        holder = asyncio.create_task(hold())
        await asyncio.sleep(1.0)
        ok = 0
        for _ in range(10):  # one try each, as a joiner makes
            ok += await friend(port, None, within=0.1) is not None
        stop.set()
        await holder
        for writer in held:
            writer.close()
        return {"silent_sockets": count, "honest_handshakes": ok, "of": 10}


async def strangers(port: int, count: int) -> AsyncIterator[Link]:
    for n in range(count):
        with contextlib.suppress(LinkLost, HandshakeFailed, OSError):
            yield await connect(("127.0.0.1", port), Identity(secrets.token_bytes(32)),
                                timings=TIMINGS)
        if n % 50 == 49:
            await asyncio.sleep(0.1)


async def attack_strangers(count: int) -> dict[str, Any]:
    with host(None) as (child, port):
        before, cpu = files(child.pid), cpu_s(child.pid)
        links = [link async for link in strangers(port, count)]
        await asyncio.sleep(2.0)
        result = {"links": count, "host_files_before": before,
                  "host_files": files(child.pid),
                  "host_cpu_s": round(cpu_s(child.pid) - cpu, 2),
                  "host_rss_mb": memory_mb(child.pid),
                  "friend_in_s": await friend(port, None, within=10.0)}
        for link in links:
            link.abort()
        return result


async def attack_peer_port(count: int) -> dict[str, Any]:
    with host(None) as (_, port), process("join", "--address", f"127.0.0.1:{port}",
                                          "--player", "Bob") as joiner:
        peer_port = None
        for _ in range(100):
            ports = listening_ports(joiner.pid)
            if ports:
                peer_port = min(ports)
                break
            await asyncio.sleep(0.1)
        if peer_port is None:
            return {"error": "the joiner opened no peer-link port"}
        before = most = files(joiner.pid)
        idle = []
        for n in range(count):  # from 4 addresses: 150 each
            with contextlib.suppress(OSError):
                idle.append((await dial(peer_port, f"127.0.2.{n % 4 + 1}"))[1])
            if n % 20 == 19:
                await asyncio.sleep(0.01)
                most = max(most, files(joiner.pid))
        for _ in range(10):
            await asyncio.sleep(0.1)
            most = max(most, files(joiner.pid))
        for writer in idle:
            writer.close()
        return {"connections": count, "joiner_files_before": before,
                "joiner_files_peak": most}


async def attack_sync(seconds: float) -> dict[str, Any]:
    with host(None) as (child, port):
        me = Identity(secrets.token_bytes(32))
        link = await connect(("127.0.0.1", port), me, timings=TIMINGS)
        peer = TablePeer.join(me, secrets.token_bytes(32), table_id=link.table_id,
                              host=link.peer, name="Mallory")
        for out in peer.data_to_send():
            link.send(out.data)
        await asyncio.sleep(1.0)  # logged; from now on it never reads
        before = memory_mb(child.pid)
        asks = frame(FRAME_SYNC, sync_request(0))
        sent = 0
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            for _ in range(50):
                link.send(asks)
            sent += 50
            await asyncio.sleep(0.01)
        peak = memory_mb(child.pid, "VmHWM")
        link.abort()
        await asyncio.sleep(2.0)
        return {"sync_requests": sent, "seconds": seconds, "host_rss_before_mb": before,
                "host_peak_mb": peak, "host_rss_after_mb": memory_mb(child.pid)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    attacks: dict[str, Callable[[], Awaitable[dict[str, Any]]]] = {
        "1_guesses": lambda: attack_guesses(args.seconds),
        "2_lockout": attack_lockout,
        "3_silent": lambda: attack_silent(100),
        "4_strangers": lambda: attack_strangers(300),
        "5_peer_port": lambda: attack_peer_port(600),
        "6_sync": lambda: attack_sync(args.seconds / 2),
    }
    return {name: await attack() for name, attack in attacks.items()
            if args.only is None or name.startswith(args.only)}


def print_table(result: dict[str, Any]) -> None:
    one, lock, silent = result["1_guesses"], result["2_lockout"], result["3_silent"]
    crowd, port, sync = result["4_strangers"], result["5_peer_port"], result["6_sync"]
    rows = [
        ("1 stalled guesses, 1 address", f"{one['one_address_guesses']} in {one['seconds']:g} s"
         f" ({one['one_address_guesses_per_min']} a minute); a friend in "
         f"{one['friend_in_s']} s", "<= 5 a minute"),
        ("1 stalled guesses, 4 addresses", f"{one['four_addresses_guesses']} in "
         f"{one['seconds']:g} s ({one['four_addresses_guesses_per_min']} a minute)",
         "<= 5 a minute"),
        ("2 5 closed after the reply", f"a friend in {lock['friend_after_lockout_s']} s",
         "seconds"),
        ("3 100 silent sockets", f"{silent['honest_handshakes']} of 10 honest handshakes",
         ">= 9 of 10"),
        ("4 300 strangers", f"host files {crowd['host_files_before']} -> "
         f"{crowd['host_files']}, {crowd['host_cpu_s']} s CPU, {crowd['host_rss_mb']} MB; "
         f"a friend in {crowd['friend_in_s']} s", "bounded"),
        ("5 600 idle at a peer port", f"joiner files {port.get('joiner_files_before')} -> "
         f"peak {port.get('joiner_files_peak')}", "< 100"),
        ("6 S flood, never reading", f"{sync['sync_requests']} S: host "
         f"{sync['host_rss_before_mb']} -> peak {sync['host_peak_mb']} -> "
         f"{sync['host_rss_after_mb']} MB", "peak < 120 MB"),
    ]
    print(f"{'attack':<32} {'measured':<70} aim")
    for attack, measured, aim in rows:
        print(f"{attack:<32} {measured:<70} {aim}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seconds", type=float, default=120.0,
                        help="how long the guessing runs, per host; the sync flood half "
                             "of it (default 120: two windows of the join-code count)")
    parser.add_argument("--only", default=None, metavar="N",
                        help="run attack N alone (1-6); the figures as one JSON object")
    args = parser.parse_args()
    # A time-out's SIGTERM unwinds like an exception, so every process started is killed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    result = asyncio.run(run(args))
    if args.json or args.only:
        print(json.dumps(result, sort_keys=True))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
