"""Closed links are freed (issue 24 item 8, net.md §4.1): a stranger that links to the
host and leaves, again and again, leaves nothing behind in the host.

Real handshakes to a host on 127.0.0.1; the count of ``Link`` objects the
process still holds after the cycles is the measure (not memory or time,
which other processes on the machine disturb).
"""

from __future__ import annotations

import asyncio
import gc
import secrets

from tests.net.test_link_faults import FAST, Table
from uno_p2p.crypto.identity import Identity
from uno_p2p.net.link import PRESENCE, Link, connect

CYCLES = 40


def links_alive() -> int:
    gc.collect()
    return sum(1 for thing in gc.get_objects() if isinstance(thing, Link))


async def test_links_that_came_and_went_are_not_kept_but_their_bytes_are_counted() -> None:
    table = Table()
    table.port = await table.node.listen("127.0.0.1", 0)
    try:
        me = Identity(secrets.token_bytes(32))
        for cycle in range(CYCLES):
            link = await connect(("127.0.0.1", table.port), me, timings=FAST)
            if cycle < CYCLES - 1:
                link.send(PRESENCE)  # some bytes the host received (and a cut link)
                await asyncio.sleep(0.02)
            else:  # a stranger hears nothing of the mesh (net.md §6.1): the last one
                await asyncio.sleep(2 * FAST.heartbeat_s)  # stays for the host's heartbeats
            await link.close("bye")
        del link
        for _ in range(100):  # the host's readers see each close
            if not table.node.mesh.links:
                break
            await asyncio.sleep(0.05)
        assert not table.node.mesh.links
        assert table.node.link_bytes.open_links == 0
        assert links_alive() == 0
        # What the closed links carried still counts for the statistics.
        assert table.node.link_bytes.received > 0
        assert table.node.link_bytes.sent > 0
    finally:
        await table.node.shutdown("test over")
