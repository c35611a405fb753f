"""A cancelled link or joiner stops at once (Python 3.11's ``wait_for`` returns the
result of an inner await that ends as its task is cancelled, swallowing the cancel:
a joiner cancelled while it redialled a gone host kept redialling for 45 s)."""

from __future__ import annotations

import asyncio
import secrets
import socket

import pytest

from uno_p2p.crypto.identity import Identity
from uno_p2p.net.link import LinkLost, connect


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("steps", range(12))
async def test_a_connect_cancelled_as_it_fails_is_cancelled(steps: int) -> None:
    # The refusal of a closed port arrives within a few loop steps; whichever step the
    # cancel lands on, the caller sees CancelledError, never a LinkLost it would retry.
    port = _closed_port()
    task = asyncio.create_task(connect(("127.0.0.1", port), Identity(secrets.token_bytes(32))))
    for _ in range(steps):
        await asyncio.sleep(0)
    cancelled = task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        assert cancelled
    except LinkLost:
        assert not cancelled, "the cancel was swallowed into a LinkLost"
