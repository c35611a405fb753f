"""An in-memory ``Discovery`` for fast tests: a shared registry is the "LAN".

It behaves as the mDNS one does where the game can tell (docs/protocol/
discovery.md §2): a clashing instance name is renamed "Name-2", "Name-3"
(RFC 6762 §9), an advert that would not survive its TXT encoding is refused,
browsers see every table appear, change and go away, and closing a discovery
withdraws its tables. Everything happens in one event loop, with no sockets.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace

from uno_p2p.errors import LocalProtocolError
from uno_p2p.net.adverts import TableAdvert
from uno_p2p.net.lookup import ordered
from uno_p2p.net.txt import encode_txt, instance_label

#: Where a table with no addresses of its own is said to listen.
LOOPBACK = ("127.0.0.1",)


class MemoryNetwork:
    """The registry every ``MemoryDiscovery`` of one test shares."""

    def __init__(self) -> None:
        self.tables: dict[str, TableAdvert] = {}
        self._listeners: set[asyncio.Event] = set()

    def free_instance(self, wanted: str) -> str:
        """``wanted``, or the first of ``wanted-2``, ``wanted-3``... not in use."""
        taken = {instance.casefold() for instance in self.tables}
        candidate, number = wanted, 2
        while candidate.casefold() in taken:
            candidate, number = f"{wanted}-{number}", number + 1
        return candidate

    def publish(self, advert: TableAdvert) -> None:
        self.tables[advert.instance] = advert
        self._wake()

    def withdraw(self, instance: str) -> None:
        if self.tables.pop(instance, None) is not None:
            self._wake()

    def listen(self) -> asyncio.Event:
        event = asyncio.Event()
        self._listeners.add(event)
        return event

    def unlisten(self, event: asyncio.Event) -> None:
        self._listeners.discard(event)

    def _wake(self) -> None:
        for event in self._listeners:
            event.set()


class MemoryAnnouncement:
    """One table published on a ``MemoryNetwork`` until ``close``."""

    def __init__(self, network: MemoryNetwork, advert: TableAdvert) -> None:
        self._network = network
        self.instance = advert.instance
        self._closed = False
        network.publish(advert)

    async def update(self, advert: TableAdvert) -> None:
        """Publish new seat counts or phase (the registered instance name is kept).

        Raises:
            LocalProtocolError: the announcement is closed, or the advert is invalid.
        """
        if self._closed:
            raise LocalProtocolError("cannot update a table that is no longer announced")
        encode_txt(advert)
        self._network.publish(_with_defaults(replace(advert, instance=self.instance)))

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._network.withdraw(self.instance)


class MemoryDiscovery:
    """A ``Discovery`` over a shared ``MemoryNetwork``."""

    def __init__(self, network: MemoryNetwork) -> None:
        self._network = network
        self._announcements: list[MemoryAnnouncement] = []
        self._closed = asyncio.Event()

    async def announce(self, advert: TableAdvert) -> MemoryAnnouncement:
        """Register ``advert``; a clashing instance name gets a fresh one.

        Raises:
            LocalProtocolError: the advert is invalid, or this discovery is closed.
        """
        if self._closed.is_set():
            raise LocalProtocolError("cannot announce on a closed discovery")
        encode_txt(advert)
        wanted = instance_label(advert.instance or advert.table_name)
        instance = self._network.free_instance(wanted)
        announcement = MemoryAnnouncement(
            self._network, _with_defaults(replace(advert, instance=instance)))
        self._announcements.append(announcement)
        return announcement

    async def browse(self) -> AsyncIterator[Sequence[TableAdvert]]:
        """The current list at once, then the whole list again at every change."""
        changed = self._network.listen()
        try:
            last: tuple[TableAdvert, ...] | None = None
            while not self._closed.is_set():
                changed.clear()  # before the snapshot: a change while we yield wakes us
                tables = ordered(self._network.tables.values())
                if tables != last:
                    last = tables
                    yield tables
                await _first_of(changed, self._closed)
        finally:
            self._network.unlisten(changed)

    async def close(self) -> None:
        self._closed.set()
        for announcement in self._announcements:
            await announcement.close()


def _with_defaults(advert: TableAdvert) -> TableAdvert:
    return advert if advert.addresses else replace(advert, addresses=LOOPBACK)


async def _first_of(*events: asyncio.Event) -> None:
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
