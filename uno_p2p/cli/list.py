"""``uno-lan list [--json] [--timeout S]``: the tables on the network, once.

Browses mDNS for ``--timeout`` seconds (default 1.5: tables answer the first
question within a few hundred milliseconds, and the browser asks again at
1 s) and prints each table seen: its name, host, seats, preset, phase,
whether it needs a join code, where it listens and the host's key
fingerprint. ``--json`` prints one JSON array of objects, nothing else on
stdout. Finding no table is not an error (exit 0); mDNS being unusable here
is one sentence and exit 1. docs/protocol/discovery.md §5.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from uno_p2p.cli import EXIT_OK
from uno_p2p.errors import ConfigError
from uno_p2p.net.adverts import Discovery, TableAdvert
from uno_p2p.net.discovery import ZeroconfDiscovery, interfaces_from_environment, parse_interfaces
from uno_p2p.net.lookup import advert_as_json, is_compatible, list_tables

DEFAULT_TIMEOUT_S = 1.5
#: ``--timeout`` is a browse window, not a wait for a server: keep it short.
MAX_TIMEOUT_S = 60.0

#: What ``uno-lan list`` prints (pinned in tests/cli/test_words.py).
TABLES_SEEN = "{count} table{s} on the network:"
TABLE_LINE = ("  {label}: hosted by {host}, {taken}/{seats} seats taken, {notes}; at {where}; "
              "host key {fingerprint}")
CODE_NEEDED = "join code needed"
CANNOT_JOIN = "protocol {version}: cannot join"
NO_TABLES = "No tables found on the network within {seconds:g} s."


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("list", help="list the tables on the network",
                                   description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON array")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S",
                        help=f"seconds to listen (default {DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--interface", action="append", default=[], metavar="ADDR",
                        help="use mDNS only on the interface with this address (repeatable; "
                             "default: every IPv4 interface)")
    parser.set_defaults(func=list_command)


def make_discovery(args: argparse.Namespace) -> Discovery:
    """The discovery ``list`` browses with (tests replace it with an in-memory one).

    Raises:
        DiscoveryUnavailable: an ``--interface`` value is not an IP address.
    """
    pinned = parse_interfaces(args.interface) if args.interface else interfaces_from_environment()
    return ZeroconfDiscovery(pinned)


def list_command(args: argparse.Namespace) -> int:
    """Print the tables seen within ``args.timeout`` seconds.

    Raises:
        ConfigError: the time-out is not a number of seconds from 0 to 60.
        DiscoveryUnavailable: mDNS cannot run here.
    """
    if not 0 < args.timeout <= MAX_TIMEOUT_S:
        raise ConfigError(f"--timeout must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds")
    tables = asyncio.run(_browse(make_discovery(args), args.timeout))
    if args.json:
        print(json.dumps([advert_as_json(advert) for advert in tables]))
    elif tables:
        print(TABLES_SEEN.format(count=len(tables), s="s" if len(tables) != 1 else ""))
        for advert in tables:
            print(describe(advert))
    else:
        print(NO_TABLES.format(seconds=args.timeout), file=sys.stderr)
    return EXIT_OK


async def _browse(discovery: Discovery, seconds: float) -> tuple[TableAdvert, ...]:
    try:
        return await list_tables(discovery, seconds)
    finally:
        await discovery.close()


def describe(advert: TableAdvert) -> str:
    """One line per table: what a player needs to choose one and join it."""
    seats = advert.seats_taken + advert.seats_free
    where = ", ".join(_host_port(address, advert.port) for address in advert.addresses)
    notes = [advert.phase, advert.preset]
    if advert.join_code:
        notes.append(CODE_NEEDED)
    if not is_compatible(advert):
        notes.append(CANNOT_JOIN.format(version=advert.protocol_version))
    label = advert.table_name
    if advert.instance != advert.table_name:
        label += f" [{advert.instance}]"
    return TABLE_LINE.format(label=label, host=advert.host_player, taken=advert.seats_taken,
                             seats=seats, notes=", ".join(notes), where=where,
                             fingerprint=advert.host_fingerprint)


def _host_port(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
