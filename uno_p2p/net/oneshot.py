"""A one-shot (legacy unicast) mDNS question that feeds a zeroconf cache.

docs/protocol/discovery.md §2.2. A responder that multicast an answer in the
last second must wait a second before multicasting it again (RFC 6762 §6),
so a browser started just after another one (two ``uno-lan list`` runs in a
row) would hear nothing for about a second. A question sent from a port other
than 5353 is a "one-shot" query (RFC 6762 §5.1, §6.7): responders answer it
at once, by unicast, to that port, and that answer is not rate-limited. The
browser asks this way as well as by multicast; the answers go into the same
python-zeroconf cache, so the browser sees them as any other answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket

# Public names of python-zeroconf (its own tests and examples use them), kept
# out of its __all__ for backward compatibility only.
from zeroconf import (  # type: ignore[attr-defined]
    DNSIncoming,
    DNSOutgoing,
    DNSQuestion,
    Zeroconf,
)

from uno_p2p.net.adverts import SERVICE_TYPE

MDNS_GROUP = ("224.0.0.251", 5353)
#: RFC 6762 §17: an mDNS packet is at most 9000 bytes.
MAX_PACKET_BYTES = 9000
#: Ask twice, in case the first question or its answer is lost.
ASK_AT_S = (0.0, 0.3)
_TYPE_PTR = 12
_CLASS_IN = 1
_FLAGS_QUERY = 0x0000


class _Answers(asyncio.DatagramProtocol):
    """Hands every well-formed DNS response to the zeroconf record manager."""

    def __init__(self, zeroconf: Zeroconf) -> None:
        self._zeroconf = zeroconf

    def datagram_received(self, data: bytes, addr: tuple[str | int, ...]) -> None:
        if len(data) > MAX_PACKET_BYTES or self._zeroconf.done:
            return
        message = DNSIncoming(data, (str(addr[0]), int(addr[1])))
        if message.valid and message.is_response():
            self._zeroconf.record_manager.async_updates_from_response(message)


def _question() -> bytes:
    out = DNSOutgoing(_FLAGS_QUERY, multicast=False, id_=secrets.randbelow(0xFFFF) + 1)
    out.add_question(DNSQuestion(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN))
    packet: bytes = out.packets()[0]
    return packet


def _socket_on(address: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.bind((address, 0))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(address))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


async def ask_once(zeroconf: Zeroconf, addresses: tuple[str, ...]) -> None:
    """Ask for every table from each IPv4 ``address``, feeding the answers to ``zeroconf``.

    Runs until cancelled (answers may come at any time while the browser
    lives). An interface that refuses the socket is skipped: the multicast
    browser still covers it.
    """
    loop = asyncio.get_running_loop()
    transports: list[asyncio.DatagramTransport] = []
    try:
        for address in addresses:
            with contextlib.suppress(OSError):
                transport, _ = await loop.create_datagram_endpoint(
                    lambda: _Answers(zeroconf), sock=_socket_on(address))
                transports.append(transport)
        started = loop.time()
        for when in ASK_AT_S:
            await asyncio.sleep(max(0.0, started + when - loop.time()))
            packet = _question()
            for transport in transports:
                transport.sendto(packet, MDNS_GROUP)
        await asyncio.Event().wait()
    finally:
        for transport in transports:
            transport.close()


def sender_addresses(zeroconf: Zeroconf) -> tuple[str, ...]:
    """The IPv4 addresses zeroconf's multicast senders are bound to (one per interface)."""
    names = (wrapped.sock_name for wrapped in zeroconf.engine.senders if not wrapped.is_ipv6)
    return tuple(dict.fromkeys(str(name[0]) for name in names if name and name[0]))
