"""The host announces its table through the ``Discovery`` interface; ``join TABLE``
finds it there. A small in-test discovery double stands in for mDNS (the real
one, python-zeroconf, is tested with its own module)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace

import pytest

from uno_p2p.cli.lan import find_table
from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import ConfigError
from uno_p2p.net.adverts import TableAdvert
from uno_p2p.net.handshake import HandshakeFailed
from uno_p2p.net.link import Link, Timings
from uno_p2p.net.node import HostNode, JoinNode
from uno_p2p.net.seats import LogSaver
from uno_p2p.rules.options import preset
from uno_p2p.table.events import PlayerJoined, TableEvent
from uno_p2p.table.peer import TablePeer

FAST = Timings(handshake_s=2.0, heartbeat_s=0.3, idle_s=2.0)


class Board:
    """A shared notice board: what was announced, and every version of it."""

    def __init__(self) -> None:
        self.tables: dict[str, TableAdvert] = {}
        self.changed = asyncio.Event()
        self.history: list[TableAdvert] = []


class Announced:
    def __init__(self, board: Board, advert: TableAdvert) -> None:
        self.board, self.instance = board, advert.instance
        self._put(advert)

    def _put(self, advert: TableAdvert) -> None:
        # A real discovery fills in the addresses of a host listening on every interface.
        advert = replace(advert, addresses=advert.addresses or ("127.0.0.1",))
        self.board.tables[self.instance] = advert
        self.board.history.append(advert)
        self.board.changed.set()

    async def update(self, advert: TableAdvert) -> None:
        self._put(advert)

    async def close(self) -> None:
        self.board.tables.pop(self.instance, None)
        self.board.changed.set()


class BoardDiscovery:
    def __init__(self, board: Board) -> None:
        self.board = board

    async def announce(self, advert: TableAdvert) -> Announced:
        return Announced(self.board, advert)

    async def browse(self) -> AsyncIterator[Sequence[TableAdvert]]:
        while True:
            yield list(self.board.tables.values())
            self.board.changed.clear()
            await self.board.changed.wait()

    async def close(self) -> None:
        return None


@pytest.fixture
async def hosted() -> AsyncIterator[tuple[Board, HostNode, list[TableEvent]]]:
    board, events = Board(), list[TableEvent]()
    peer = TablePeer.host(Identity(secrets.token_bytes(32)), secrets.token_bytes(32),
                          table_id=secrets.token_bytes(16), name="Ann",
                          options=preset("official"), preset="official")
    node = HostNode(peer, None, on_event=events.append, on_note=lambda _: None,
                    code="tulip-42", timings=FAST, discovery=BoardDiscovery(board))
    await node.listen("127.0.0.1", 0)
    yield board, node, events
    await node.shutdown("test over")


async def test_the_host_announces_its_table(hosted: tuple[Board, HostNode, list[TableEvent]]
                                            ) -> None:
    board, node, _ = hosted
    advert = await find_table(BoardDiscovery(board), "Ann's table", seconds=2)
    assert advert.port == node.port
    assert advert.host_player == "Ann"
    assert advert.host_fingerprint == node.peer.peer_id.fingerprint
    assert advert.join_code
    assert advert.phase == "lobby"
    assert advert.seats_taken == 1
    assert advert.preset == "official"


async def _join_by_advert(board: Board, fingerprint: str | None) -> JoinNode:
    advert = await find_table(BoardDiscovery(board), None, seconds=2)
    identity = Identity(secrets.token_bytes(32))

    def make_peer(link: Link) -> tuple[TablePeer, LogSaver | None]:
        return TablePeer.join(identity, secrets.token_bytes(32), table_id=link.table_id,
                              host=link.peer, name="Bob"), None

    return JoinNode(identity, (advert.addresses[0], advert.port), make_peer=make_peer,
                    on_event=lambda _: None, on_note=lambda _: None, code="tulip-42",
                    timings=FAST, expect_fingerprint=fingerprint or advert.host_fingerprint)


async def test_a_joiner_finds_the_table_and_the_advert_follows(
        hosted: tuple[Board, HostNode, list[TableEvent]]) -> None:
    board, _, events = hosted
    joiner = await _join_by_advert(board, None)
    task = asyncio.create_task(joiner.run())
    try:
        for _ in range(100):
            if any(isinstance(e, PlayerJoined) and e.name == "Bob" for e in events) and \
                    board.history[-1].seats_taken == 2:
                break
            await asyncio.sleep(0.05)
        assert board.history[-1].seats_taken == 2
    finally:
        task.cancel()


async def test_a_host_that_is_not_the_announced_one_is_refused(
        hosted: tuple[Board, HostNode, list[TableEvent]]) -> None:
    board, _, _ = hosted
    joiner = await _join_by_advert(board, "0000-0000-0000-0000")
    with pytest.raises(HandshakeFailed) as caught:
        await joiner.run()
    assert caught.value.code == "wrong_host"


async def test_no_table_is_a_plain_sentence() -> None:
    with pytest.raises(ConfigError, match="no open table called 'Nobody' was found"):
        await find_table(BoardDiscovery(Board()), "Nobody", seconds=0.3)


async def test_the_table_is_unregistered_on_shutdown(
        hosted: tuple[Board, HostNode, list[TableEvent]]) -> None:
    board, node, _ = hosted
    await node.shutdown("closing")
    assert board.tables == {}
