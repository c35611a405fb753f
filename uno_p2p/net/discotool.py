"""A small mDNS tool for tests and ``scripts/lan-sim``: announce a table, or watch.

``python -m uno_p2p.net.discotool announce --table NAME [...]`` registers a
table and prints one JSON line per event (``announced``, ``updated``,
``closing`` as the goodbyes start, ``closed`` once they are sent) with the
monotonic clock, which every process on the machine shares, so a test can
time how long another process takes to see it.
With ``--stdin`` it reads JSON objects of advert fields to publish as
updates, one per line, until end of input; otherwise it holds the table for
``--hold`` seconds. SIGTERM, SIGHUP and Ctrl-C withdraw the table (goodbyes).

``python -m uno_p2p.net.discotool watch [--timeout S]`` prints every list a
browser sees, as ``{"t": ..., "tables": [...]}`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import replace

from uno_p2p.errors import UnoError
from uno_p2p.net.adverts import Announcement, TableAdvert
from uno_p2p.net.discovery import (
    RECORD_TTL_S,
    ZeroconfDiscovery,
    announced,
    cancel_on_signals,
    parse_interfaces,
)
from uno_p2p.net.lookup import advert_as_json
from uno_p2p.net.txt import OUR_PROTOCOL_VERSION

#: Longest any one run of this tool lasts, whatever it is asked.
MAX_RUN_S = 600.0
#: Advert fields an update line may set.
UPDATABLE = {"seats_taken": int, "seats_free": int, "phase": str, "preset": str,
             "host_player": str, "join_code": bool}


def emit(event: str, **fields: object) -> None:
    print(json.dumps({"event": event, "t": time.monotonic(), **fields}), flush=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m uno_p2p.net.discotool")
    parser.add_argument("--interface", action="append", default=[],
                        help="pin mDNS to this address (repeatable; default: all IPv4)")
    actions = parser.add_subparsers(dest="action", required=True)
    announce = actions.add_parser("announce", help="announce one table")
    announce.add_argument("--table", required=True)
    announce.add_argument("--instance", default="")
    announce.add_argument("--host-player", default="host")
    announce.add_argument("--port", type=int, default=45123)
    announce.add_argument("--address", action="append", default=[])
    announce.add_argument("--seats-taken", type=int, default=1)
    announce.add_argument("--seats-free", type=int, default=3)
    announce.add_argument("--preset", default="official")
    announce.add_argument("--phase", default="lobby", choices=("lobby", "playing"))
    announce.add_argument("--join-code", action="store_true")
    announce.add_argument("--fingerprint", default="0000-0000-0000-0000")
    announce.add_argument("--protocol-version", type=int, default=OUR_PROTOCOL_VERSION)
    announce.add_argument("--stdin", action="store_true", help="read update lines from stdin")
    announce.add_argument("--hold", type=float, default=30.0, help="seconds to stay announced")
    announce.add_argument("--ttl", type=int, default=RECORD_TTL_S, help="record TTL, seconds")
    watch = actions.add_parser("watch", help="print every list a browser sees")
    watch.add_argument("--timeout", type=float, default=5.0)
    return parser


def advert_of(args: argparse.Namespace) -> TableAdvert:
    return TableAdvert(
        instance=args.instance, table_name=args.table, host_player=args.host_player,
        addresses=tuple(args.address), port=args.port, protocol_version=args.protocol_version,
        seats_taken=args.seats_taken, seats_free=args.seats_free, preset=args.preset,
        phase=args.phase, join_code=args.join_code, host_fingerprint=args.fingerprint,
    )


async def announce(discovery: ZeroconfDiscovery, args: argparse.Namespace) -> None:
    advert = advert_of(args)
    started = time.monotonic()
    with cancel_on_signals():
        try:
            async with announced(discovery, advert) as announcement:
                emit("announced", started=started, instance=getattr(announcement, "instance", ""))
                try:
                    if args.stdin:
                        await follow_updates(announcement, advert)
                    else:
                        await asyncio.sleep(min(args.hold, MAX_RUN_S))
                finally:
                    emit("closing")  # the first goodbye goes out now
        finally:
            emit("closed")


async def follow_updates(announcement: Announcement, advert: TableAdvert) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with asyncio.timeout(MAX_RUN_S):
        while line := await reader.readline():
            changes = {key: kind(value) for key, value in json.loads(line).items()
                       for name, kind in UPDATABLE.items() if key == name}
            advert = replace(advert, **changes)
            await announcement.update(advert)
            emit("updated", **changes)


async def watch(discovery: ZeroconfDiscovery, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(min(seconds, MAX_RUN_S)):
            async for tables in discovery.browse():
                emit("tables", tables=[advert_as_json(advert) for advert in tables])


async def run(args: argparse.Namespace) -> None:
    ttl = getattr(args, "ttl", RECORD_TTL_S)
    discovery = ZeroconfDiscovery(parse_interfaces(args.interface) or None, record_ttl=ttl)
    try:
        if args.action == "announce":
            await announce(discovery, args)
        else:
            await watch(discovery, args.timeout)
    finally:
        await discovery.close()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        asyncio.run(run(args))
    except UnoError as error:
        print(f"discotool: {error}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
