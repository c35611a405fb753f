"""What a table says about itself on the network, and how discovery is reached.

The host announces a ``TableAdvert`` (mDNS service ``_uno-lan._tcp.local.``
with TXT records, docs/protocol/net.md); joiners browse for them. The game
code depends only on the two protocols below, so tests can use an in-memory
discovery and the real one (python-zeroconf) stays behind one module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

#: The DNS-SD service type every uno-lan table registers.
SERVICE_TYPE = "_uno-lan._tcp.local."

TablePhaseName = Literal["lobby", "playing"]


@dataclass(frozen=True, slots=True)
class TableAdvert:
    """One table as the network sees it (the TXT records plus where it listens).

    ``instance`` is the unique DNS-SD instance name; two tables may share a
    ``table_name`` and still both be found.
    """

    instance: str
    table_name: str
    host_player: str
    addresses: tuple[str, ...]
    port: int
    protocol_version: int
    seats_taken: int
    seats_free: int
    preset: str
    phase: TablePhaseName
    join_code: bool
    host_fingerprint: str


class Announcement(Protocol):
    """A table registered on the network until ``close``."""

    async def update(self, advert: TableAdvert) -> None:
        """Publish new seat counts or phase."""

    async def close(self) -> None:
        """Unregister (goodbye packets), idempotent."""


class Discovery(Protocol):
    """Announce our table, browse for others."""

    async def announce(self, advert: TableAdvert) -> Announcement:
        """Register ``advert``; a clashing instance name gets a fresh one."""

    def browse(self) -> AsyncIterator[Sequence[TableAdvert]]:
        """Yield the full list of visible tables each time it changes."""

    async def close(self) -> None:
        """Stop browsing and unregister everything, idempotent."""
