"""find_table and list_tables over the in-memory discovery (discovery.md §5)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from dataclasses import replace

import pytest

from tests.net.test_memdiscovery import ADVERT
from uno_p2p.net import lookup
from uno_p2p.net.discovery import announced, cancel_on_signals
from uno_p2p.net.lookup import (
    AmbiguousTable,
    IncompatibleTable,
    TableNotFound,
    find_table,
    list_tables,
)
from uno_p2p.net.memdiscovery import MemoryDiscovery, MemoryNetwork
from uno_p2p.net.txt import OUR_PROTOCOL_VERSION


async def test_find_by_table_name_or_instance() -> None:
    network = MemoryNetwork()
    await MemoryDiscovery(network).announce(ADVERT)
    await MemoryDiscovery(network).announce(replace(ADVERT, table_name="Other", host_player="bob"))
    guest = MemoryDiscovery(network)
    assert (await find_table(guest, "friday NIGHT", 1)).host_player == "alice"
    assert (await find_table(guest, "Other", 1)).host_player == "bob"


async def test_a_table_announced_while_we_look_is_found() -> None:
    network = MemoryNetwork()

    async def announce_later() -> None:
        await asyncio.sleep(0.2)
        await MemoryDiscovery(network).announce(ADVERT)

    later = asyncio.create_task(announce_later())
    started = time.monotonic()
    found = await find_table(MemoryDiscovery(network), "Friday night", 60)
    await later
    assert found.table_name == "Friday night"
    # Found as it appears, not at the end of the minute it may look (a bound that holds
    # on a machine at load 6: the announcement comes 0.2 s in).
    assert time.monotonic() - started < 30


async def test_no_table_is_one_sentence_after_the_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(TableNotFound) as caught:
        await find_table(MemoryDiscovery(MemoryNetwork()), "Nowhere", 0.3)
    # It looked for its whole time-out, and gave up (the upper bound only says it does not
    # hang: wide enough for a loaded machine).
    assert 0.3 <= time.monotonic() - started < 10
    assert caught.value.code == "table_not_found"
    assert str(caught.value) == lookup.NOT_FOUND.format(name="Nowhere", whose="", seconds=0.3)


BOBS_KEY = "0b0b-0b0b-0b0b-0b0b"


async def test_two_tables_of_one_name_need_a_fingerprint() -> None:
    network = MemoryNetwork()
    await MemoryDiscovery(network).announce(ADVERT)
    await MemoryDiscovery(network).announce(replace(ADVERT, host_player="bob",
                                                    host_fingerprint=BOBS_KEY))
    guest = MemoryDiscovery(network)
    with pytest.raises(AmbiguousTable) as caught:
        await find_table(guest, "Friday night", 1)
    assert caught.value.code == "ambiguous_table"
    each = [lookup.ONE_OF_THEM.format(table="Friday night", host=host, where="127.0.0.1:45123",
                                      fingerprint=key)
            for host, key in (("alice", ADVERT.host_fingerprint), ("bob", BOBS_KEY))]
    assert str(caught.value) == lookup.AMBIGUOUS.format(count=2, name="Friday night",
                                                        which="; ".join(each))
    assert (await find_table(guest, "Friday night-2", 1)).host_player == "bob"
    found = await find_table(guest, "friday night", 1, fingerprint=BOBS_KEY.upper())
    assert found.host_player == "bob"
    with pytest.raises(TableNotFound, match="whose host is 1234-5678-9abc-def0"):
        await find_table(guest, "Friday night", 0.3, fingerprint="1234-5678-9abc-def0")


async def test_a_look_alike_name_is_ambiguous_too() -> None:
    """Issue 24 item 9: a Cyrillic "i" (U+0456) in the other table's name."""
    network = MemoryNetwork()
    await MemoryDiscovery(network).announce(ADVERT)
    await MemoryDiscovery(network).announce(replace(
        ADVERT, table_name="Friday n\u0456ght", host_player="mallory",
        host_fingerprint=BOBS_KEY))
    guest = MemoryDiscovery(network)
    with pytest.raises(AmbiguousTable, match=r"625f-8f5e-3da1-b31c.*0b0b-0b0b-0b0b-0b0b"):
        await find_table(guest, "Friday night", 1)
    found = await find_table(guest, "Friday night", 1, fingerprint="625f-8f5e-3da1-b31c")
    assert found.host_player == "alice"


async def test_a_table_of_another_protocol_version_is_refused() -> None:
    network = MemoryNetwork()
    other = OUR_PROTOCOL_VERSION + 1
    await MemoryDiscovery(network).announce(replace(ADVERT, protocol_version=other))
    with pytest.raises(IncompatibleTable) as caught:
        await find_table(MemoryDiscovery(network), "Friday night", 1)
    assert caught.value.code == "incompatible_table"
    assert str(caught.value) == lookup.OTHER_PROTOCOL.format(
        table="Friday night", theirs=other, ours=OUR_PROTOCOL_VERSION)


async def test_list_tables_returns_what_was_seen_in_name_order() -> None:
    network = MemoryNetwork()
    for name in ("b", "A", "c"):
        await MemoryDiscovery(network).announce(replace(ADVERT, table_name=name))
    tables = await list_tables(MemoryDiscovery(network), 0.1)
    assert [table.table_name for table in tables] == ["A", "b", "c"]


async def test_announced_withdraws_on_error_and_on_cancel() -> None:
    network = MemoryNetwork()
    discovery = MemoryDiscovery(network)
    async def fail() -> None:
        async with announced(discovery, ADVERT):
            assert network.tables
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await fail()
    assert not network.tables

    async def hold() -> None:
        async with announced(discovery, ADVERT):
            await asyncio.sleep(30)

    task = asyncio.create_task(hold())
    await asyncio.sleep(0.05)
    assert network.tables
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not network.tables


async def test_sigterm_cancels_the_task_so_the_table_is_withdrawn() -> None:
    network = MemoryNetwork()

    async def host() -> None:
        with cancel_on_signals():
            async with announced(MemoryDiscovery(network), ADVERT):
                os.kill(os.getpid(), signal.SIGTERM)
                await asyncio.sleep(30)

    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asyncio.create_task(host()), 5)
    assert not network.tables
    # The handler is gone again: the loop has no SIGTERM handler left.
    assert not asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)
