"""One encrypted link over asyncio streams: framing, limits, time-outs, heartbeats.

docs/protocol/net.md §5. Every record is ``u32be(length) || ciphertext``; the
length is checked against the limit before a byte of the body is read, and
the body must arrive within a time-out that grows with its size, so a peer
that dribbles bytes (slowloris) loses the link. A link with nothing received
for ``idle_s`` is dead (heartbeats keep an idle but healthy link alive).
Sending never blocks the caller: records queue per link and a writer task
awaits ``drain`` (back-pressure); a peer that does not read and lets its
queue overflow loses the link.

Faults are ``LinkLost`` with a code and the peer's name, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import time
from dataclasses import dataclass

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import CryptoError, UnoError
from uno_p2p.net.doors import HELLO_S, SEND_QUEUE_BYTES, CodeGuesses, Guess
from uno_p2p.net.handshake import (
    MAX_HANDSHAKE_BYTES,
    MAX_RECORD,
    TAG_BYTES,
    Established,
    HandshakeFailed,
    HostHandshake,
    JoinerHandshake,
    RecordCipher,
    refusal,
)
from uno_p2p.wire.codec import pack, unpack

#: Control frames (net.md §5.1); table frames keep their own tags (M, E, D, S, R, V),
#: the mesh's are in ``uno_p2p.net.mesh`` (a, k, f).
#: What a joiner reads when the address given does not lead to a table.
UNKNOWN_HOST = "no machine called {host} was found on the network"
NOT_A_TABLE = "something at {address} answered, but it is not an uno-lan table"
SILENT = "something at {address} took the connection but said nothing in {seconds:g} s"

HEARTBEAT = b"h"
BYE = b"b"
PRESENCE = b"p"
LENGTH_BYTES = 4
#: The code of a handshake refused because its address (or the table) guessed too many
#: wrong join codes (net.md §4).
LOCKED_OUT = "locked_out"


@dataclass(frozen=True, slots=True)
class Timings:
    """The link's time-outs, in seconds (net.md §5.3)."""

    handshake_s: float = 5.0
    heartbeat_s: float = 1.5
    idle_s: float = 6.0
    #: A record's body must arrive within ``body_s`` plus its size at ``min_rate`` bytes/s.
    body_s: float = 3.0
    min_rate: int = 256 * 1024
    #: Bytes queued for a peer that does not read before its link is cut (net.md §5.2).
    max_queued_bytes: int = SEND_QUEUE_BYTES


DEFAULT_TIMINGS = Timings()

class LinkLost(UnoError):
    """A link ended; ``code`` says why and ``peer`` names who, when known (net.md §6)."""

    code = "link_lost"

    def __init__(self, message: str, *, code: str, peer: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.peer = peer


async def _read_exactly(reader: asyncio.StreamReader, size: int, seconds: float,
                        code: str, what: str) -> bytes:
    # asyncio.timeout, never wait_for: Python 3.11's wait_for returns the result of a
    # read that ends as the task is cancelled, and so swallows the cancellation.
    try:
        async with asyncio.timeout(seconds):
            return await reader.readexactly(size)
    except TimeoutError as error:
        raise LinkLost(f"{what} within {seconds:.1f} s", code=code) from error
    except asyncio.IncompleteReadError as error:
        raise LinkLost("the connection was closed", code="closed") from error
    except OSError as error:
        raise LinkLost(f"the connection failed: {error.strerror or error}", code="closed") \
            from error


async def read_frame(reader: asyncio.StreamReader, limit: int, timings: Timings,
                     idle_s: float) -> bytes:
    """One length-prefixed frame: the length checked before the body is read.

    Raises:
        LinkLost: ``oversized_frame``, ``idle`` (nothing for ``idle_s``),
            ``slow_frame`` (the body dribbles) or ``closed``.
    """
    head = await _read_exactly(reader, LENGTH_BYTES, idle_s, "idle", "no frame arrived")
    size = int.from_bytes(head, "big")
    if size > limit:
        raise LinkLost(f"a frame of {size} bytes is over the {limit}-byte limit",
                       code="oversized_frame")
    timeout = timings.body_s + size / timings.min_rate
    return await _read_exactly(reader, size, timeout, "slow_frame",
                              f"a {size}-byte frame did not arrive")


def framed(data: bytes) -> bytes:
    """``data`` behind its length (net.md §3.2)."""
    return len(data).to_bytes(LENGTH_BYTES, "big") + data


class Link:
    """An established, encrypted link to one authenticated peer."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 established: Established, timings: Timings, address: str) -> None:
        self.peer: PeerId = established.peer
        self.table_id = established.table_id
        self.address = address
        local = writer.get_extra_info("sockname")
        #: The address this end of the link has: a joiner listens for peer links there.
        self.local_host = str(local[0]) if isinstance(local, tuple) else ""
        self.name = established.peer.fingerprint
        self.timings = timings
        self.sent_bytes = 0
        self.received_bytes = 0
        self._reader, self._writer = reader, writer
        self._send = RecordCipher(established.send_key)
        self._receive = RecordCipher(established.receive_key)
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        #: Plaintext bytes in ``_queue`` (net.md §5.2: the bound is in bytes, since one
        #: record may be a heartbeat or a 4 MiB shuffle).
        self.queued_bytes = 0
        self._closing = False
        self.overflowed = False
        self._writer_task = asyncio.create_task(self._write_loop())
        self._heartbeat_task = asyncio.create_task(self._heartbeat_loop())

    # -- sending ----------------------------------------------------------------------
    @property
    def unsent_bytes(self) -> int:
        """What this link holds for its peer: the queue and the socket's own buffer."""
        return self.queued_bytes + self._writer.transport.get_write_buffer_size()

    def send(self, plaintext: bytes) -> None:
        """Queue one record; never blocks. Over the queue limit the link is cut."""
        if self._closing:
            return
        if self.queued_bytes + len(plaintext) > self.timings.max_queued_bytes:
            self.overflowed = True
            # What it would not read is let go now, not when it hangs up: the queue and
            # the socket's own buffer (a plain close would wait to flush it, for ever).
            self.abort()
            self._writer.transport.abort()
            return
        self.queued_bytes += len(plaintext)
        self._queue.put_nowait(plaintext)

    async def _write_loop(self) -> None:
        with contextlib.suppress(OSError, ConnectionError, RuntimeError):
            while (item := await self._queue.get()) is not None:
                self.queued_bytes -= len(item)
                record = framed(self._send.seal(item))
                self.sent_bytes += len(record)
                self._writer.write(record)
                await self._writer.drain()

    async def _heartbeat_loop(self) -> None:
        while not self._closing:
            await asyncio.sleep(self.timings.heartbeat_s)
            self.send(HEARTBEAT)

    # -- receiving --------------------------------------------------------------------
    async def receive(self) -> bytes:
        """The next table or presence frame (heartbeats are consumed here).

        Raises:
            LinkLost: a fault of the link or of the peer (``bad_record``,
                ``oversized_frame``, ``slow_frame``, ``idle``, ``closed``, ``bye``).
        """
        while True:
            try:
                record = await read_frame(self._reader, MAX_RECORD, self.timings,
                                          self.timings.idle_s)
            except LinkLost as error:
                if self.overflowed:
                    raise LinkLost(f"{self.name} stopped reading (over "
                                   f"{self.timings.max_queued_bytes} bytes queued)",
                                   code="not_reading",
                                   peer=self.name) from error
                raise
            if self._closing:  # aborted meanwhile: what was still buffered is void
                raise LinkLost("the link was closed", code="closed", peer=self.name)
            self.received_bytes += len(record) + LENGTH_BYTES
            if len(record) < TAG_BYTES:
                raise LinkLost("a record too short to hold its tag", code="bad_record",
                               peer=self.name)
            try:
                plain = self._receive.open(record)
            except CryptoError as error:
                raise LinkLost(str(error), code="bad_record", peer=self.name) from error
            if plain == HEARTBEAT:
                continue
            if plain[:1] == BYE:
                raise LinkLost(f"{self.name} said goodbye: {_bye_reason(plain[1:])}",
                               code="bye", peer=self.name)
            return plain

    # -- closing ----------------------------------------------------------------------
    async def close(self, reason: str = "", *, flush_s: float = 3.0) -> None:
        """Send what is queued and a goodbye, then close; idempotent."""
        if not self._closing:
            self.send(BYE + pack(["bye", reason[:200]]))
            self._closing = True
            self._queue.put_nowait(None)
        self._heartbeat_task.cancel()
        try:
            async with asyncio.timeout(flush_s):
                await asyncio.shield(self._writer_task)
        except TimeoutError:
            pass
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # our caller is being cancelled, not the writer
        self._writer_task.cancel()
        self._writer.close()
        with contextlib.suppress(OSError, ConnectionError, TimeoutError, RuntimeError):
            async with asyncio.timeout(1.0):
                await self._writer.wait_closed()

    def abort(self) -> None:
        """Drop the connection at once (a faulty peer), and what was queued for it."""
        self._closing = True
        self._heartbeat_task.cancel()
        self._writer_task.cancel()
        self._writer.close()
        self._queue = asyncio.Queue()
        self.queued_bytes = 0


def _bye_reason(payload: bytes) -> str:
    try:
        value = unpack(payload)
    except UnoError:
        return "(unreadable)"
    if isinstance(value, list) and len(value) == 2 and isinstance(value[1], str):
        return value[1] or "no reason given"
    return "(unreadable)"


# -- the handshake over a stream ---------------------------------------------------------
async def connect(address: tuple[str, int], identity: Identity, *, code: str | None = None,
                  expect_host: PeerId | None = None,
                  timings: Timings = DEFAULT_TIMINGS) -> Link:
    """Open a link to a host.

    Raises:
        LinkLost: the host cannot be reached or the handshake timed out.
        HandshakeFailed: the host refused, or did not authenticate (wrong code,
            wrong key, tampering).
    """
    host, port = address
    try:
        async with asyncio.timeout(timings.handshake_s):  # not wait_for: see _read_exactly
            reader, writer = await asyncio.open_connection(host, port)
    except TimeoutError as error:
        raise LinkLost(f"cannot reach {host}:{port}: no answer", code="unreachable") from error
    except socket.gaierror as error:  # the name, not the machine, is what is wrong
        raise LinkLost(UNKNOWN_HOST.format(host=host), code="unknown_host") from error
    except OSError as error:
        why = os.strerror(error.errno) if error.errno else str(error)
        raise LinkLost(f"cannot reach {host}:{port}: {why}", code="unreachable") from error
    try:
        shake = JoinerHandshake(identity, secrets.token_bytes(32), secrets.token_bytes(32),
                                code, expect_host)
        writer.write(framed(shake.hello))
        answer = await _table_answer(reader, f"{host}:{port}", timings)
        last, established = shake.finish(answer)
        writer.write(framed(last))
        await writer.drain()
    except BaseException:
        writer.close()
        raise
    return Link(reader, writer, established, timings, f"{host}:{port}")


async def _table_answer(reader: asyncio.StreamReader, address: str,
                        timings: Timings) -> bytes:
    """The host's message 2, as a frame. Something else listening at the address (a web
    server, say) answers with bytes whose first four, read as a length, are over the
    limit ("HTTP" is a frame of 1213486160 bytes) or with nothing at all: either way
    it is not a table, and the player hears it in those words.

    Raises:
        LinkLost: ``not_a_table`` (something else answered), ``idle`` (no answer),
            or ``closed``.
    """
    try:
        return await read_frame(reader, MAX_HANDSHAKE_BYTES, timings, timings.handshake_s)
    except LinkLost as error:
        if error.code == "oversized_frame":
            raise LinkLost(NOT_A_TABLE.format(address=address), code="not_a_table") from error
        if error.code == "idle":
            raise LinkLost(SILENT.format(address=address, seconds=timings.handshake_s),
                           code="idle") from error
        raise


async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 identity: Identity, table_id: bytes, *, code: str | None,
                 timings: Timings, guesses: CodeGuesses | None = None,
                 source: str = "?") -> Link:
    """Run the host's side of a handshake on a new connection. With a join code, the
    guess ``source`` makes is counted in ``guesses`` as message 2 goes out: from then
    on the joiner can test its code, whether it answers or not (net.md §4).

    Raises:
        HandshakeFailed: the joiner failed it (a refusal is sent when useful);
            ``wrong_join_code`` for any end after message 2 with a code, ``locked_out``
            when ``guesses`` refuses ``source`` another guess now.
        LinkLost: it timed out or the connection closed before message 2.
    """
    shake = HostHandshake(identity, table_id, secrets.token_bytes(32),
                          secrets.token_bytes(32), code)
    peername = writer.get_extra_info("peername")
    address = f"{peername[0]}:{peername[1]}" if isinstance(peername, tuple) else "?"
    attempt: Guess | None = None
    answered = False

    async def run() -> Established:
        nonlocal attempt, answered
        hello = await read_frame(reader, MAX_HANDSHAKE_BYTES, timings,
                                 min(HELLO_S, timings.handshake_s))
        try:
            answer = shake.answer(hello)
            if code is not None and guesses is not None:
                attempt = _count_guess(guesses, source)
            writer.write(framed(answer))
            answered = code is not None
            return shake.finish(await read_frame(reader, MAX_HANDSHAKE_BYTES, timings,
                                                 timings.handshake_s))
        except HandshakeFailed as error:
            writer.write(framed(refusal(error.code, str(error))))
            with contextlib.suppress(OSError, ConnectionError):
                await writer.drain()
            raise

    try:
        async with asyncio.timeout(timings.handshake_s):
            established = await run()
    except (TimeoutError, LinkLost, HandshakeFailed) as error:
        if not answered or (isinstance(error, HandshakeFailed) and
                            error.code == "wrong_join_code"):
            if isinstance(error, TimeoutError):
                raise LinkLost("the handshake did not finish in time",
                               code="slow_handshake") from error
            raise
        # Message 2 went out with a code: whatever happened next, a guess was spent.
        raise HandshakeFailed("the joiner did not finish after message 2: a wrong join "
                              "code?", code="wrong_join_code") from error
    if attempt is not None and guesses is not None:
        guesses.proved(attempt)
    return Link(reader, writer, established, timings, address)


def _count_guess(guesses: CodeGuesses, source: str) -> Guess:
    """Count the guess ``source`` is about to get (message 2 goes out next).

    Raises:
        HandshakeFailed: ``locked_out``, saying for how long.
    """
    now = time.monotonic()
    attempt = guesses.guess(source, now)
    if attempt is None:
        raise HandshakeFailed(guesses.refusal(source, now) or "try again later",
                              code=LOCKED_OUT)
    return attempt


__all__ = ["HandshakeFailed", "Link", "LinkLost", "Timings", "accept", "connect"]
