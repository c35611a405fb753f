"""Finding tables through any ``Discovery``: list them once, or find one by name.

docs/protocol/discovery.md §5. ``uno-lan list`` browses for a bounded time
and prints what it saw; ``uno-lan join TABLE`` calls ``find_table``. Both work
on the real mDNS discovery and on the in-memory one alike, and every failure
is a ``UnoError`` whose message is one sentence a player can act on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

from uno_p2p.errors import UnoError
from uno_p2p.net.adverts import Discovery, TableAdvert
from uno_p2p.net.lookalike import skeleton
from uno_p2p.net.txt import OUR_PROTOCOL_VERSION

#: How long ``find_table`` waits for a second table of the same name once the
#: first has answered (responders answer a QM question within 20-120 ms,
#: RFC 6762 §6, so a clash shows up well inside this).
SAME_NAME_SETTLE_S = 0.3

#: Why a table named on the command line cannot be joined, with what to do next (pinned
#: in tests/cli/test_words.py).
NOT_FOUND = ("No table named {name}{whose} found on the network within {seconds:g} s: check "
             "you're on the same network, or use --address HOST:PORT.")
WHOSE_HOST = " whose host is {fingerprint}"
AMBIGUOUS = ("{count} tables are named {name} or look like it ({which}): join one with "
             "--fingerprint and its host's fingerprint, or with --address HOST:PORT.")
ONE_OF_THEM = "'{table}' by {host} at {where}, host {fingerprint}"
OTHER_PROTOCOL = ("Table {table} speaks table protocol {theirs} and this uno-lan speaks "
                  "{ours}: use the same uno-lan version as its host.")


class TableNotFound(UnoError):
    """No table of that name answered in time."""

    code = "table_not_found"


class AmbiguousTable(UnoError):
    """Several tables share the name asked for; the user must pick an instance."""

    code = "ambiguous_table"


class IncompatibleTable(UnoError):
    """The table speaks another version of the table protocol."""

    code = "incompatible_table"


class DiscoveryUnavailable(UnoError):
    """mDNS cannot run here (no multicast interface, port refused...)."""

    code = "discovery_unavailable"


def ordered(adverts: Iterable[TableAdvert]) -> tuple[TableAdvert, ...]:
    """Tables in the order lists show them: by name, then instance."""
    return tuple(sorted(adverts, key=lambda advert: (advert.table_name.casefold(),
                                                      advert.instance)))


def is_compatible(advert: TableAdvert) -> bool:
    """Whether we speak the table's protocol version (discovery.md §4)."""
    return advert.protocol_version == OUR_PROTOCOL_VERSION


class _Watch:
    """The latest list a browse produced, with a wake-up on every change."""

    def __init__(self) -> None:
        self.tables: tuple[TableAdvert, ...] = ()
        self.changed = asyncio.Event()

    async def follow(self, discovery: Discovery) -> None:
        snapshots = discovery.browse()
        try:
            async for tables in snapshots:
                self.tables = tuple(tables)
                self.changed.set()
        finally:
            # An async generator's own clean-up (stop the mDNS browser) runs now,
            # not whenever the garbage collector gets to it.
            close = getattr(snapshots, "aclose", None)
            if close is not None:
                await close()

    async def wait_change(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for a new list; False on time-out."""
        if seconds <= 0:
            return False
        try:
            async with asyncio.timeout(seconds):
                await self.changed.wait()
        except TimeoutError:
            return False
        self.changed.clear()
        return True


async def list_tables(discovery: Discovery, timeout: float) -> tuple[TableAdvert, ...]:  # noqa: ASYNC109
    """Browse for ``timeout`` seconds and return the tables seen at the end.

    Raises:
        DiscoveryUnavailable: mDNS cannot run on this machine.
    """
    watch = _Watch()
    task = asyncio.create_task(watch.follow(discovery))
    try:
        await asyncio.wait({task}, timeout=max(0.0, timeout))
        if task.done():
            task.result()  # a browse that stops early only ever does so by raising
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return ordered(watch.tables)


async def find_table(
    discovery: Discovery, name: str, timeout: float = 2.0,  # noqa: ASYNC109 (a browse window)
    *, fingerprint: str | None = None,
) -> TableAdvert:
    """The one table named ``name``, or whose instance name is ``name``; with
    ``fingerprint``, the one of those whose host key has that fingerprint.

    An instance name that is not also a table's name ("Friday night-2", the
    second table of that name) is answered at once. A table name is answered
    once no second table of a look-alike name (``lookalike.skeleton``: case,
    NFKC and confusable letters) shows up within ``SAME_NAME_SETTLE_S``; a
    fingerprint picks one of them at once.

    Raises:
        TableNotFound: nothing matching answered within ``timeout`` seconds.
        AmbiguousTable: several tables carry that name (or look-alikes) and no
            fingerprint picks one.
        IncompatibleTable: the table speaks another protocol version.
        DiscoveryUnavailable: mDNS cannot run on this machine.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    watch = _Watch()
    task = asyncio.create_task(watch.follow(discovery))
    settle_until: float | None = None
    try:
        while True:
            exact, named = _matches(watch.tables, name, fingerprint)
            if fingerprint is not None and named:
                return _usable(named[0])  # a host key names one table
            if exact is not None and exact not in named:
                return _usable(exact)  # an instance like "Friday night-2" names one table
            if named and settle_until is None:
                settle_until = min(deadline, loop.time() + SAME_NAME_SETTLE_S)
            if settle_until is not None and loop.time() >= settle_until:
                return _one_of(named, name)
            until = deadline if settle_until is None else settle_until
            if task.done():
                task.result()
                until = loop.time()
            changed = await watch.wait_change(until - loop.time())
            if not changed and settle_until is None:
                whose = "" if fingerprint is None else WHOSE_HOST.format(fingerprint=fingerprint)
                raise TableNotFound(NOT_FOUND.format(name=name, whose=whose, seconds=timeout))
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def _matches(tables: tuple[TableAdvert, ...], name: str, fingerprint: str | None,
             ) -> tuple[TableAdvert | None, list[TableAdvert]]:
    """The table whose instance is ``name``, and those whose names look like it; only
    those of the host ``fingerprint`` when one is given."""
    if fingerprint is not None:
        wanted = fingerprint.strip().casefold()
        tables = tuple(t for t in tables if t.host_fingerprint.casefold() == wanted)
    exact = next((advert for advert in tables if advert.instance == name), None)
    alike = skeleton(name)
    return exact, [advert for advert in tables if skeleton(advert.table_name) == alike or
                   (fingerprint is not None and advert is exact)]


def _one_of(named: list[TableAdvert], name: str) -> TableAdvert:
    if len(named) == 1:
        return _usable(named[0])
    which = "; ".join(
        ONE_OF_THEM.format(table=advert.table_name, host=advert.host_player,
                           where=_where(advert), fingerprint=advert.host_fingerprint)
        for advert in ordered(named)
    )
    raise AmbiguousTable(AMBIGUOUS.format(count=len(named), name=name, which=which))


def _where(advert: TableAdvert) -> str:
    address = advert.addresses[0] if advert.addresses else "?"
    return f"[{address}]:{advert.port}" if ":" in address else f"{address}:{advert.port}"


def _usable(advert: TableAdvert) -> TableAdvert:
    if not is_compatible(advert):
        raise IncompatibleTable(OTHER_PROTOCOL.format(
            table=advert.table_name, theirs=advert.protocol_version, ours=OUR_PROTOCOL_VERSION))
    return advert


def advert_as_json(advert: TableAdvert) -> dict[str, object]:
    """One table as ``uno-lan list --json`` prints it (docs/protocol/discovery.md §5)."""
    return {
        "instance": advert.instance, "table": advert.table_name, "host": advert.host_player,
        "addresses": list(advert.addresses), "port": advert.port,
        "protocol_version": advert.protocol_version, "compatible": is_compatible(advert),
        "seats_taken": advert.seats_taken, "seats_free": advert.seats_free,
        "preset": advert.preset, "phase": advert.phase, "join_code": advert.join_code,
        "host_fingerprint": advert.host_fingerprint,
    }
