"""A join by name leaves nothing on stderr (issue 24 item 9, discovery.md §5).

The discovery closes while a resolve is still asking (a join found its table
and went on): the resolve is cancelled, never left to fail on a stopped
zeroconf and print ``Task exception was never retrieved`` later. Real
python-zeroconf on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from zeroconf import ServiceStateChange

from uno_p2p.net.adverts import SERVICE_TYPE
from uno_p2p.net.discovery import ZeroconfDiscovery


async def test_closing_the_discovery_cancels_a_resolve_still_asking() -> None:
    loop = asyncio.get_running_loop()
    unretrieved: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: unretrieved.append(context))
    discovery = ZeroconfDiscovery(["127.0.0.1"])
    snapshots = discovery.browse()
    await anext(snapshots)  # browsing, nothing announced
    (tables,) = discovery._browsing
    # A table nobody answers for: its resolve asks for a second (RESOLVE_TIMEOUT_MS).
    tables.on_change(discovery.running(), SERVICE_TYPE, f"Nobody.{SERVICE_TYPE}",
                     ServiceStateChange.Added)
    (resolving,) = tables._resolving.values()
    zeroconf = discovery.running()
    await asyncio.sleep(0.05)
    await discovery.close()  # the browse is not closed first: as a join that returns
    await asyncio.wait({resolving}, timeout=3)
    assert resolving.cancelled()
    # The browser, not yet told, reports one more change: its resolve finds zeroconf
    # stopped, and says nothing.
    tables.on_change(zeroconf,
                     SERVICE_TYPE, f"Late.{SERVICE_TYPE}", ServiceStateChange.Added)
    late = list(tables._resolving.values())
    await asyncio.wait(late, timeout=3)
    assert all(task.done() and not task.cancelled() and task.exception() is None
               for task in late)
    del resolving, tables, snapshots, late
    gc.collect()
    await asyncio.sleep(0)
    assert unretrieved == []
