"""The in-memory discovery behaves as discovery.md §2 says a discovery must."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace

import pytest

from uno_p2p.errors import LocalProtocolError
from uno_p2p.net.adverts import TableAdvert
from uno_p2p.net.memdiscovery import MemoryDiscovery, MemoryNetwork
from uno_p2p.net.txt import OUR_PROTOCOL_VERSION

ADVERT = TableAdvert(
    instance="", table_name="Friday night", host_player="alice", addresses=(),
    port=45123, protocol_version=OUR_PROTOCOL_VERSION, seats_taken=1, seats_free=3,
    preset="official",
    phase="lobby", join_code=False, host_fingerprint="625f-8f5e-3da1-b31c",
)


async def next_list(lists: AsyncIterator[Sequence[TableAdvert]]) -> list[TableAdvert]:
    async with asyncio.timeout(2):
        return list(await anext(lists))


def names(tables: Sequence[TableAdvert]) -> list[tuple[str, str]]:
    return [(table.instance, table.table_name) for table in tables]


async def test_a_browser_sees_a_table_appear_change_and_go() -> None:
    network = MemoryNetwork()
    host, guest = MemoryDiscovery(network), MemoryDiscovery(network)
    lists = guest.browse()
    assert await next_list(lists) == []
    announcement = await host.announce(ADVERT)
    (seen,) = await next_list(lists)
    assert (seen.instance, seen.seats_taken, seen.addresses) == ("Friday night", 1, ("127.0.0.1",))
    await announcement.update(replace(ADVERT, seats_taken=4, seats_free=0, phase="playing"))
    (seen,) = await next_list(lists)
    assert (seen.instance, seen.seats_taken, seen.phase) == ("Friday night", 4, "playing")
    await announcement.close()
    assert await next_list(lists) == []
    await guest.close()
    with pytest.raises(StopAsyncIteration):
        await next_list(lists)


async def test_two_tables_of_one_name_are_both_listed() -> None:
    network = MemoryNetwork()
    first, second = MemoryDiscovery(network), MemoryDiscovery(network)
    await first.announce(ADVERT)
    await second.announce(replace(ADVERT, host_player="bob"))
    tables = await next_list(MemoryDiscovery(network).browse())
    assert names(tables) == [("Friday night", "Friday night"), ("Friday night-2", "Friday night")]
    assert {table.host_player for table in tables} == {"alice", "bob"}


async def test_closing_a_discovery_withdraws_its_tables_only() -> None:
    network = MemoryNetwork()
    leaving, staying = MemoryDiscovery(network), MemoryDiscovery(network)
    await leaving.announce(ADVERT)
    await staying.announce(replace(ADVERT, table_name="Other"))
    await leaving.close()
    assert names(await next_list(staying.browse())) == [("Other", "Other")]


async def test_misuse_is_refused() -> None:
    discovery = MemoryDiscovery(MemoryNetwork())
    with pytest.raises(LocalProtocolError):
        await discovery.announce(replace(ADVERT, seats_free=10))
    announcement = await discovery.announce(ADVERT)
    with pytest.raises(LocalProtocolError):
        await announcement.update(replace(ADVERT, host_fingerprint="x"))
    await announcement.close()
    await announcement.close()  # idempotent
    with pytest.raises(LocalProtocolError):
        await announcement.update(ADVERT)
    await discovery.close()
    with pytest.raises(LocalProtocolError):
        await discovery.announce(ADVERT)


async def test_an_abandoned_browser_stops_listening() -> None:
    network = MemoryNetwork()
    lists = MemoryDiscovery(network).browse()
    await next_list(lists)
    with contextlib.suppress(StopAsyncIteration):
        await lists.aclose()  # type: ignore[attr-defined]
    assert not network._listeners


async def test_a_given_instance_name_is_made_dns_safe() -> None:
    network = MemoryNetwork()
    announcement = await MemoryDiscovery(network).announce(replace(ADVERT, instance="v1.2 game"))
    assert announcement.instance == "v1-2 game"
    assert list(network.tables) == ["v1-2 game"]
