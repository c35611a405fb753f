"""Faults on real loopback sockets, in one process: each named, the table goes on.

A host node listens on 127.0.0.1; attackers send garbage, an oversized
length, a dribbled frame (slowloris) or a forged record, before and after a
real handshake. Each loses its link and the host names it (its address
before authentication, its key after); an honest joiner still sits down.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
import socket
from collections.abc import AsyncIterator, Callable

import pytest

from uno_p2p.crypto.identity import Identity
from uno_p2p.net.doors import SOURCE_GUESSES
from uno_p2p.net.handshake import MAX_RECORD, HandshakeFailed
from uno_p2p.net.link import (
    LOCKED_OUT,
    NOT_A_TABLE,
    SILENT,
    UNKNOWN_HOST,
    Link,
    LinkLost,
    Timings,
    connect,
)
from uno_p2p.net.node import HostNode, JoinNode
from uno_p2p.net.seats import LogSaver
from uno_p2p.rules.options import preset
from uno_p2p.table.events import PlayerJoined, TableEvent
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_MESSAGE
from uno_p2p.table.peer import TablePeer
from uno_p2p.wire.envelope import Head, Message
from uno_p2p.wire.lobby import Ready

FAST = Timings(handshake_s=1.0, heartbeat_s=0.2, idle_s=1.0, body_s=0.5, min_rate=1 << 20)
HOST = Identity(hashlib.sha256(b"faults host").digest())


class Table:
    """A host node in a lobby, with what it said."""

    def __init__(self, code: str | None = None) -> None:
        self.notes: list[str] = []
        self.events: list[TableEvent] = []
        peer = TablePeer.host(HOST, secrets.token_bytes(32), table_id=secrets.token_bytes(16),
                              name="Ann", options=preset("official"))
        self.node = HostNode(peer, None, on_event=self.events.append,
                             on_note=self.notes.append, code=code, timings=FAST)
        self.port = 0
        self.background: asyncio.Task[None] | None = None

    async def close(self) -> None:
        if self.background is not None:
            self.background.cancel()
        await self.node.shutdown("test over")

    async def noted(self, *words: str, within: float = 5.0) -> str:
        for _ in range(int(within / 0.05)):
            for note in self.notes:
                if all(w in note for w in words):
                    return note
            await asyncio.sleep(0.05)
        raise AssertionError(f"no note with {words}: {self.notes}")


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    t = Table()
    t.port = await t.node.listen("127.0.0.1", 0)
    yield t
    await t.node.shutdown("test over")


async def honest_joiner(table: Table, name: str = "Bob",
                        code: str | None = None) -> list[TableEvent]:
    """A real joiner sits down; returns its events once the host logged its join."""
    events: list[TableEvent] = []
    identity = Identity(secrets.token_bytes(32))

    def make_peer(link: Link) -> tuple[TablePeer, LogSaver | None]:
        return TablePeer.join(identity, secrets.token_bytes(32), table_id=link.table_id,
                              host=link.peer, name=name), None

    node = JoinNode(identity, ("127.0.0.1", table.port), make_peer=make_peer,
                    on_event=events.append, on_note=lambda _: None, code=code, timings=FAST)
    task = asyncio.create_task(node.run())
    try:
        for _ in range(100):
            if any(isinstance(e, PlayerJoined) and e.name == name for e in table.events):
                return events
            if task.done():
                task.result()
            await asyncio.sleep(0.05)
        raise AssertionError("the honest joiner did not sit down")
    finally:
        task.cancel()


async def raw(table: Table, data: bytes) -> None:
    _, writer = await asyncio.open_connection("127.0.0.1", table.port)
    writer.write(data)
    await writer.drain()
    await asyncio.sleep(0.1)
    writer.close()


async def test_garbage_before_the_handshake_is_refused_by_address(table: Table) -> None:
    await raw(table, b"\x00\x00\x00\x05hello")
    note = await table.noted("refused", "bad_handshake", "127.0.0.1")
    assert "127.0.0.1" in note
    await honest_joiner(table)


async def test_an_http_request_is_an_oversized_frame(table: Table) -> None:
    await raw(table, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    await table.noted("refused", "oversized_frame")
    await honest_joiner(table)


async def _authenticated(table: Table) -> tuple[Link, str]:
    me = Identity(secrets.token_bytes(32))
    link = await connect(("127.0.0.1", table.port), me, timings=FAST)
    return link, me.peer.fingerprint


async def test_an_oversized_record_cuts_the_link_and_names_the_peer(table: Table) -> None:
    link, fingerprint = await _authenticated(table)
    link._writer.write((MAX_RECORD + 1).to_bytes(4, "big"))
    note = await table.noted("oversized_frame", fingerprint)
    assert "lost its link" in note
    link.abort()
    await honest_joiner(table)


async def test_slowloris_cuts_the_link_and_names_the_peer(table: Table) -> None:
    link, fingerprint = await _authenticated(table)
    link._writer.write((1000).to_bytes(4, "big"))
    for _ in range(20):  # 1 byte every 0.1 s: 1000 bytes would take 100 s
        link._writer.write(b"x")
        await asyncio.sleep(0.1)
        if any("slow_frame" in n for n in table.notes):
            break
    await table.noted("slow_frame", fingerprint)
    link.abort()
    await honest_joiner(table)


async def test_a_forged_record_cuts_the_link(table: Table) -> None:
    link, fingerprint = await _authenticated(table)
    link._writer.write((40).to_bytes(4, "big") + secrets.token_bytes(40))
    await table.noted("bad_record", fingerprint)
    link.abort()


async def test_a_silent_peer_times_out(table: Table) -> None:
    link, fingerprint = await _authenticated(table)
    link._heartbeat_task.cancel()
    await table.noted("idle", fingerprint, within=4.0)
    link.abort()


async def test_a_private_table_needs_the_code() -> None:
    table = Table(code="tulip-42")
    table.port = await table.node.listen("127.0.0.1", 0)
    try:
        me = Identity(secrets.token_bytes(32))
        with pytest.raises(HandshakeFailed) as caught:
            await connect(("127.0.0.1", table.port), me, code="tulip-41", timings=FAST)
        assert caught.value.code == "wrong_join_code"
        with pytest.raises(HandshakeFailed) as refused:
            await connect(("127.0.0.1", table.port), me, timings=FAST)
        assert refused.value.code == "join_code_needed"
        await honest_joiner(table, code="tulip-42")
    finally:
        await table.node.shutdown("test over")


async def test_nothing_listening_is_a_plain_fault() -> None:
    with pytest.raises(LinkLost) as caught:
        await connect(("127.0.0.1", 1), Identity(secrets.token_bytes(32)), timings=FAST)
    assert caught.value.code == "unreachable"


async def test_a_name_no_machine_has_is_said_so(monkeypatch: pytest.MonkeyPatch) -> None:
    # The resolver is stubbed: a test resolves no name (it would ask the LAN's DNS).
    async def unknown(*_args: object, **_kwargs: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(asyncio, "open_connection", unknown)
    with pytest.raises(LinkLost) as caught:
        await connect(("annslaptop", 7777), Identity(secrets.token_bytes(32)), timings=FAST)
    assert caught.value.code == "unknown_host"
    assert str(caught.value) == UNKNOWN_HOST.format(host="annslaptop")


@pytest.mark.parametrize(("answer", "code", "said"), [
    (b"HTTP/1.0 400 Bad Request\r\n\r\n", "not_a_table", NOT_A_TABLE),  # a web server
    (b"", "idle", SILENT),  # a server that waits for a request line
])
async def test_something_else_at_the_address_is_not_a_table(answer: bytes, code: str,
                                                            said: str) -> None:
    async def other(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        writer.write(answer)
        await asyncio.sleep(FAST.handshake_s * 2)  # silent, or its answer stands alone
        writer.close()

    server = await asyncio.start_server(other, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(LinkLost) as caught:
            await connect(("127.0.0.1", port), Identity(secrets.token_bytes(32)), timings=FAST)
    finally:
        server.close()
    assert caught.value.code == code
    assert str(caught.value) == said.format(address=f"127.0.0.1:{port}",
                                            seconds=FAST.handshake_s)


async def test_a_stranger_is_turned_away_once_the_game_has_started() -> None:
    """A late ``join`` would be refused as cheating and stop the game: the link layer
    keeps strangers away from the sequencer during a game (net.md §6)."""
    table = Table()
    table.node.autostart = 2
    table.node.peer.bot_kind = "heuristic"
    table.port = await table.node.listen("127.0.0.1", 0)
    try:
        await honest_joiner_playing(table)
        stranger = await connect(("127.0.0.1", table.port), Identity(secrets.token_bytes(32)),
                                 timings=FAST)
        with pytest.raises(LinkLost) as caught:
            await stranger.receive()
        assert caught.value.code == "bye"
        assert "game has started" in str(caught.value)
        await table.noted("turned away")
        assert table.node.peer.stopped is None
    finally:
        await table.close()


async def test_a_stranger_linked_in_the_lobby_is_closed_when_the_game_starts() -> None:
    """A stranger that completed the handshake in the lobby and never joined is no seat:
    the start closes its link (net.md §6), and one message it signs with its own key
    after the start (counter 0, over entry 0) does not stop the game."""
    table = Table()
    table.node.autostart = 2
    table.node.peer.bot_kind = "heuristic"
    table.port = await table.node.listen("127.0.0.1", 0)
    me = Identity(secrets.token_bytes(32))
    stranger = await connect(("127.0.0.1", table.port), me, timings=FAST)

    async def listen() -> LinkLost:
        try:
            while True:
                await stranger.receive()
        except LinkLost as error:
            return error

    listening = asyncio.create_task(listen())
    try:
        await honest_joiner_playing(table)
        started = table.node.peer.state.seq
        entry0 = table.node.peer.ledger.chain.entry(0)
        stranger.send(FRAME_MESSAGE + Message.sign(me, table.node.peer.table_id, 0,
                                                   Head(1, entry0.hash), Ready()).encode())
        goodbye = await asyncio.wait_for(listening, 5.0)
        assert goodbye.code == "bye"
        assert "the game has started" in str(goodbye)
        for _ in range(200):
            if table.node.peer.state.seq > started + 20:
                break
            await asyncio.sleep(0.05)
        peer = table.node.peer
        assert peer.stopped is None
        assert peer.state.seq > started + 20, "the game went on"
        assert me.peer.key not in table.node.links
        assert all(e.author != me.peer for e in peer.ledger.chain.entries)
        await table.noted("never joined", me.peer.fingerprint)
    finally:
        listening.cancel()
        stranger.abort()
        await table.close()


async def honest_joiner_playing(table: Table) -> None:
    """A joiner sits down, and the game (autostarted) is under way."""
    identity = Identity(secrets.token_bytes(32))

    def make_peer(link: Link) -> tuple[TablePeer, LogSaver | None]:
        return TablePeer.join(identity, secrets.token_bytes(32), table_id=link.table_id,
                              host=link.peer, name="Bob"), None

    node = JoinNode(identity, ("127.0.0.1", table.port), make_peer=make_peer,
                    on_event=lambda _: None, on_note=lambda _: None, timings=FAST)
    table.background = asyncio.create_task(node.run())
    for _ in range(200):
        if table.node.peer.state.phase.value == "playing":
            break
        await asyncio.sleep(0.05)


async def test_guessing_join_codes_is_throttled() -> None:
    """SPAKE2 gives one guess per handshake; after ``SOURCE_GUESSES`` wrong codes a
    minute the host refuses that address any handshake for a while, with a sentence
    saying how long (net.md §4), so guesses cannot be run fast."""
    table = Table(code="tulip-42")
    table.port = await table.node.listen("127.0.0.1", 0)
    me = Identity(secrets.token_bytes(32))
    try:
        for guess in range(SOURCE_GUESSES):
            with pytest.raises(HandshakeFailed) as wrong:
                await connect(("127.0.0.1", table.port), me, code=f"guess-{guess}",
                              timings=FAST)
            assert wrong.value.code == "wrong_join_code"
        with pytest.raises(HandshakeFailed) as locked:
            await connect(("127.0.0.1", table.port), me, code="tulip-42", timings=FAST)
        assert locked.value.code == LOCKED_OUT
        assert "try again in" in str(locked.value)
    finally:
        await table.node.shutdown("test over")


@pytest.mark.parametrize(("plaintext", "code"), [
    (b"Mnot a message", "invalid_frame"),
    (b"E\x90", "invalid_frame"),  # any member may send entries (table.md §3.1)
    (b"zz", "unexpected_frame"),
])
async def test_a_well_encrypted_bad_frame_cuts_the_link(table: Table, plaintext: bytes,
                                                      code: str) -> None:
    link, fingerprint = await _authenticated(table)
    link.send(plaintext)
    await table.noted(code, fingerprint)
    link.abort()
    await honest_joiner(table)


async def test_random_bytes_are_always_a_named_refusal(table: Table) -> None:
    """Whatever a stranger sends, the host answers with a refusal note, never a traceback."""
    rng = random.Random(11)
    blobs = [rng.randbytes(rng.randrange(1, 300)) for _ in range(25)]
    blobs += [len(b).to_bytes(4, "big") + b for b in blobs[:10]]  # well framed, still junk
    for blob in blobs:
        await raw(table, blob)
    for _ in range(100):
        if len([n for n in table.notes if "refused" in n]) >= len(blobs):
            break
        await asyncio.sleep(0.05)
    refusals = [n for n in table.notes if "refused" in n]
    assert len(refusals) == len(blobs), table.notes
    await honest_joiner(table)


class CutOnce(JoinNode):
    """A joiner whose first link breaks as the host's reply to its join comes: the first
    entry the host sends it (once it logged the join) is lost with the link. It plugs in
    at ``take_frame``, the public step every frame a link brings passes; a link whose
    frame fails so is lost, as when its bytes stop."""

    cut = False

    async def take_frame(self, data: bytes, deliver: Callable[[], None]) -> None:
        if not self.cut and data[:1] == FRAME_ENTRY:
            self.cut = True
            raise LinkLost("cut by the test", code="closed")
        await super().take_frame(data, deliver)


async def test_a_join_whose_reply_was_lost_is_recovered(table: Table) -> None:
    identity = Identity(secrets.token_bytes(32))
    entropy = secrets.token_bytes(32)

    def make_peer(link: Link) -> tuple[TablePeer, LogSaver | None]:
        return TablePeer.join(identity, entropy, table_id=link.table_id, host=link.peer,
                              name="Bob"), None

    node = CutOnce(identity, ("127.0.0.1", table.port), make_peer=make_peer,
                   on_event=lambda _: None, on_note=lambda _: None, timings=FAST)
    task = asyncio.create_task(node.run())
    try:
        for _ in range(100):
            if node.cut and node.seated is not None and len(node.peer.ledger.chain) >= 2:
                break
            await asyncio.sleep(0.05)
        assert len(node.peer.ledger.chain) >= 2  # entry 0 and our join reached us after all
        joins = [e for e in table.events if isinstance(e, PlayerJoined) and e.name == "Bob"]
        assert len(joins) == 1
    finally:
        task.cancel()
