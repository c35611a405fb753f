"""Discovery over mDNS/DNS-SD with python-zeroconf's asyncio API.

docs/protocol/discovery.md. A host registers ``_uno-lan._tcp.local.`` with
the TXT record of ``uno_p2p.net.txt``; browsers follow the service type and
rebuild their list from the records each time one appears, changes or says
goodbye. Choices, and why:

- Every browse question is a multicast QM question (RFC 6762 §5.4).
  python-zeroconf asks its first question QU by default; the unicast answer
  reaches only one of the sockets sharing port 5353 on a machine, so another
  process on the same host often missed it and waited for the 1 s repeat.
  A QM answer is multicast and reaches every browser (0.1-0.2 s).
- The host probes its instance name (RFC 6762 §8.1) and takes "Name-2" when
  another table holds it, so two tables of one name both work.
- All IPv4 interfaces by default; ``interfaces`` (or the environment variable
  ``UNO_LAN_MDNS_INTERFACES``) pins it to given addresses, e.g. 127.0.0.1 in
  tests, which run inside a network namespace whose ``lo`` takes multicast.
- A record from the network is untrusted: its TXT is decoded strictly and a
  bad advert is left out of the list, never raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import secrets
import signal
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import replace

import ifaddr
from zeroconf import (
    BadTypeInNameException,
    DNSQuestionType,
    InterfaceChoice,
    IPVersion,
    NonUniqueNameException,
    NotRunningException,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.net.adverts import SERVICE_TYPE, Announcement, Discovery, TableAdvert
from uno_p2p.net.lookup import DiscoveryUnavailable, ordered
from uno_p2p.net.oneshot import ask_once, sender_addresses
from uno_p2p.net.txt import decode_txt, encode_txt, instance_label, instance_of

log = logging.getLogger(__name__)

#: Pins discovery to these comma-separated interface addresses.
INTERFACES_VARIABLE = "UNO_LAN_MDNS_INTERFACES"
#: TTL of every record we publish (RFC 6762 §10 suggests 120 s for host
#: records); a host killed without goodbyes leaves fresh browsers at once and
#: long-running ones when this runs out.
RECORD_TTL_S = 120
#: How long resolving one advert's SRV/TXT/A records may take.
RESOLVE_TIMEOUT_MS = 1000
#: How often a browser drops tables whose records expired without a goodbye.
EXPIRY_SWEEP_S = 5.0
#: Most tables one browser keeps: a hostile LAN cannot grow our memory.
MAX_TABLES = 256
#: Longest a goodbye may take on close (three packets 125 ms apart).
GOODBYE_TIMEOUT_S = 2.0


def interfaces_from_environment() -> tuple[str, ...] | None:
    """The addresses ``UNO_LAN_MDNS_INTERFACES`` pins discovery to, if set.

    Raises:
        DiscoveryUnavailable: the variable holds something that is not an IP address.
    """
    value = os.environ.get(INTERFACES_VARIABLE, "").strip()
    if not value:
        return None
    return parse_interfaces(value.split(","))


def parse_interfaces(values: Sequence[str]) -> tuple[str, ...]:
    """Check interface addresses given by the user.

    Raises:
        DiscoveryUnavailable: one of them is not an IP address.
    """
    addresses = []
    for value in values:
        try:
            addresses.append(str(ipaddress.ip_address(value.strip())))
        except ValueError as error:
            raise DiscoveryUnavailable(
                f"'{value.strip()}' is not an interface IP address (like 192.168.1.20)."
            ) from error
    return tuple(addresses)


def local_addresses() -> tuple[str, ...]:
    """The IPv4 addresses a joiner on the LAN could reach us at (not loopback)."""
    found = [
        str(ip.ip) for adapter in ifaddr.get_adapters() for ip in adapter.ips
        if ip.is_IPv4 and not ipaddress.ip_address(str(ip.ip)).is_loopback
    ]
    return tuple(dict.fromkeys(found)) or ("127.0.0.1",)


class ZeroconfAnnouncement:
    """A table registered with python-zeroconf until ``close``."""

    def __init__(self, owner: ZeroconfDiscovery, info: AsyncServiceInfo) -> None:
        self._owner = owner
        self._info = info
        self._closed = False

    @property
    def instance(self) -> str:
        """The instance name the network knows us by (after any rename)."""
        return instance_of(self._info.name) or self._info.name

    async def update(self, advert: TableAdvert) -> None:
        """Publish new seat counts or phase (instance, addresses and port are kept).

        Raises:
            LocalProtocolError: the announcement is closed, or the advert is invalid.
        """
        if self._closed:
            raise LocalProtocolError("cannot update a table that is no longer announced")
        # ServiceInfo caches its DNS records; a fresh one carries the new TXT.
        self._info = _service_info(self._info.name, advert, self._info, self._owner.server,
                                   self._owner.record_ttl)
        await self._owner.running().async_update_service(self._info)

    async def close(self) -> None:
        """Send goodbyes (TTL 0, RFC 6762 §10.1) and forget the table; idempotent."""
        if self._closed:
            return
        self._closed = True
        zeroconf = self._owner.zeroconf_if_running()
        if zeroconf is None:
            return
        with contextlib.suppress(TimeoutError, OSError, RuntimeError):
            async with asyncio.timeout(GOODBYE_TIMEOUT_S):
                await (await zeroconf.async_unregister_service(self._info))


class ZeroconfDiscovery:
    """The real ``Discovery``: mDNS on the LAN through python-zeroconf."""

    def __init__(self, interfaces: Sequence[str] | None = None, *,
                 record_ttl: int = RECORD_TTL_S) -> None:
        self._interfaces = tuple(interfaces) if interfaces else None
        #: TTL of our records, seconds (tests shorten it to watch expiry).
        self.record_ttl = record_ttl
        self._zeroconf: AsyncZeroconf | None = None
        self._announcements: list[ZeroconfAnnouncement] = []
        self._browsing: set[_TableList] = set()
        self._closed = False
        #: Our A/SRV target; random so two hosts never share one (RFC 6762 §9).
        self.server = f"uno-lan-{secrets.token_hex(4)}.local."

    @classmethod
    def from_environment(cls) -> ZeroconfDiscovery:
        """Discovery on the interfaces ``UNO_LAN_MDNS_INTERFACES`` names, else all.

        Raises:
            DiscoveryUnavailable: the variable is not a list of IP addresses.
        """
        return cls(interfaces_from_environment())

    def running(self) -> Zeroconf:
        """The live python-zeroconf instance (started by ``start``).

        Raises:
            LocalProtocolError: not started, or closed.
        """
        if self._zeroconf is None or self._closed:
            raise LocalProtocolError("discovery is not running")
        return self._zeroconf.zeroconf

    def zeroconf_if_running(self) -> AsyncZeroconf | None:
        return None if self._closed else self._zeroconf

    async def start(self) -> None:
        """Open the mDNS sockets (done by ``announce`` and ``browse`` when needed).

        Raises:
            DiscoveryUnavailable: no socket could be opened, or no interface
                takes multicast.
            LocalProtocolError: this discovery was closed.
        """
        if self._closed:
            raise LocalProtocolError("discovery is closed")
        if self._zeroconf is not None:
            return
        try:
            self._zeroconf = (
                AsyncZeroconf(interfaces=list(self._interfaces))
                if self._interfaces else
                AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only)
            )
            await self._zeroconf.zeroconf.async_wait_for_start()
        except (OSError, RuntimeError, ValueError) as error:
            await self.close()
            raise DiscoveryUnavailable(
                f"mDNS cannot start here ({error}): use --address HOST:PORT."
            ) from error
        if not self._zeroconf.zeroconf.engine.senders:
            await self.close()
            where = ", ".join(self._interfaces or ()) or "any interface"
            raise DiscoveryUnavailable(
                f"no multicast-capable network on {where}: use --address HOST:PORT."
            )

    async def announce(self, advert: TableAdvert) -> ZeroconfAnnouncement:
        """Register ``advert`` (probing first); a clashing instance name gets "-2".

        Empty ``advert.addresses`` means "the addresses of our interfaces".
        Probing takes about a second (three probes, RFC 6762 §8.1).

        Raises:
            LocalProtocolError: the advert is invalid, or this discovery is closed.
            DiscoveryUnavailable: mDNS cannot run here.
        """
        encode_txt(advert)
        await self.start()
        name = f"{instance_label(advert.instance or advert.table_name)}.{SERVICE_TYPE}"
        addresses = advert.addresses or self._interfaces or local_addresses()
        info = _service_info(name, replace(advert, addresses=tuple(addresses)), None, self.server,
                             self.record_ttl)
        zeroconf = self.running()
        # Ask who is out there while probing waits its first 150-250 ms: the
        # one-shot answers (at once, unicast) put every table's PTR in the
        # cache, where the probe's check finds a clashing name
        # (discovery.md §2.1). Probe answers alone came too late under load.
        asking = asyncio.create_task(ask_once(zeroconf, sender_addresses(zeroconf)))
        try:
            await zeroconf.async_register_service(info, allow_name_change=True)
        except (NonUniqueNameException, BadTypeInNameException) as error:
            raise LocalProtocolError(f"could not register table '{name}': {error!r}") from error
        except NotRunningException as error:
            raise DiscoveryUnavailable(
                "mDNS did not start within 9 s: use --address HOST:PORT.") from error
        finally:
            asking.cancel()
            await asyncio.gather(asking, return_exceptions=True)
        announcement = ZeroconfAnnouncement(self, info)
        self._announcements.append(announcement)
        return announcement

    async def browse(self) -> AsyncIterator[Sequence[TableAdvert]]:
        """The current list at once, then the whole list again at every change.

        Raises:
            DiscoveryUnavailable: mDNS cannot run here.
        """
        await self.start()
        tables = _TableList(self.running())
        self._browsing.add(tables)
        browser = AsyncServiceBrowser(
            self.running(), SERVICE_TYPE, handlers=[tables.on_change],
            question_type=DNSQuestionType.QM,
        )
        # Also ask by one-shot query: answered at once even when a responder
        # multicast its answer in the last second (discovery.md §2.2).
        asking = asyncio.create_task(ask_once(self.running(), sender_addresses(self.running())))
        try:
            last: tuple[TableAdvert, ...] | None = None
            while not self._closed:
                current = ordered(tables.adverts.values())
                if current != last:
                    last = current
                    yield current
                await tables.wait(EXPIRY_SWEEP_S)
        finally:
            self._browsing.discard(tables)
            asking.cancel()
            await asyncio.gather(asking, return_exceptions=True)
            await browser.async_cancel()
            await tables.close()

    async def close(self) -> None:
        """Unregister our tables (goodbyes), stop browsing, close the sockets."""
        if self._closed:
            return
        for announcement in self._announcements:
            await announcement.close()
        self._closed = True
        for tables in self._browsing:
            tables.wake()  # a browse in progress ends now, not at its next sweep
            tables.stop_resolving()  # before zeroconf stops under them (issue 24)
        zeroconf, self._zeroconf = self._zeroconf, None
        if zeroconf is not None:
            with contextlib.suppress(TimeoutError, OSError, RuntimeError):
                async with asyncio.timeout(GOODBYE_TIMEOUT_S):
                    await zeroconf.async_close()


class _TableList:
    """One browser's view: instance -> advert, kept from zeroconf's cache."""

    def __init__(self, zeroconf: Zeroconf) -> None:
        self._zeroconf = zeroconf
        self.adverts: dict[str, TableAdvert] = {}
        self._changed = asyncio.Event()
        self._resolving: dict[str, asyncio.Task[None]] = {}
        #: Instances that changed again while being resolved.
        self._stale: set[str] = set()

    def on_change(self, zeroconf: Zeroconf, service_type: str, name: str,
                  state_change: ServiceStateChange) -> None:
        """python-zeroconf's handler: called in the event loop for each change."""
        instance = instance_of(name)
        if instance is None:
            return
        if state_change is ServiceStateChange.Removed:
            self._drop(instance)
            return
        if instance in self._resolving:
            self._stale.add(instance)
        else:
            self._resolving[instance] = asyncio.create_task(self._resolve(name, instance))

    async def _resolve(self, name: str, instance: str) -> None:
        try:
            for _ in range(2):  # once more if the records changed meanwhile
                self._stale.discard(instance)
                info = AsyncServiceInfo(SERVICE_TYPE, name)
                if await info.async_request(self._zeroconf, RESOLVE_TIMEOUT_MS,
                                            question_type=DNSQuestionType.QM):
                    self._take(instance, info)
                else:
                    self._drop(instance)  # nobody answers for it any more
                if instance not in self._stale:
                    break
        except (BadTypeInNameException, ValueError, OSError) as error:
            log.debug("ignoring unresolvable table %r: %r", name, error)
        except NotRunningException:
            pass  # the discovery closed while we asked: nobody waits for the answer
        finally:
            self._resolving.pop(instance, None)

    def _take(self, instance: str, info: AsyncServiceInfo) -> None:
        advert = _advert_of(instance, info)
        if advert is None:
            self._drop(instance)
        elif instance in self.adverts or len(self.adverts) < MAX_TABLES:
            self.adverts[instance] = advert
            self._changed.set()

    def _drop(self, instance: str) -> None:
        if self.adverts.pop(instance, None) is not None:
            self._changed.set()

    def wake(self) -> None:
        self._changed.set()

    def sweep(self) -> None:
        """Ask again for tables whose records expired: a live host answers and
        stays listed, a host killed without goodbyes does not and is dropped.

        (Browsers only refresh the PTR record, so the SRV and TXT records of a
        live table also expire after their TTL; discovery.md §2.2.)
        """
        for instance in list(self.adverts):
            name = f"{instance}.{SERVICE_TYPE}"
            if not AsyncServiceInfo(SERVICE_TYPE, name).load_from_cache(self._zeroconf):
                self.on_change(self._zeroconf, SERVICE_TYPE, name, ServiceStateChange.Updated)

    async def wait(self, seconds: float) -> None:
        """Until the list changes, or ``seconds`` pass (then sweep expired tables)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._changed.wait()
        if not self._changed.is_set():
            self.sweep()
        self._changed.clear()

    def stop_resolving(self) -> None:
        """Cancel the questions still in flight (the discovery is closing)."""
        for task in self._resolving.values():
            task.cancel()

    async def close(self) -> None:
        tasks = list(self._resolving.values())
        self.stop_resolving()
        await asyncio.gather(*tasks, return_exceptions=True)


def _advert_of(instance: str, info: AsyncServiceInfo) -> TableAdvert | None:
    """The advert of resolved records, or None if they break discovery.md §3."""
    addresses = tuple(info.parsed_scoped_addresses())[:8]
    if not addresses or info.port is None or not 0 < info.port < 65536:
        return None
    try:
        return decode_txt(info.text or b"").advert(instance, addresses, info.port)
    except InvalidMessage as error:
        log.debug("ignoring table %r with a bad TXT record: %s", instance, error)
        return None


def _service_info(name: str, advert: TableAdvert, previous: AsyncServiceInfo | None,
                  server: str, ttl: int) -> AsyncServiceInfo:
    """The records of ``advert`` under ``name``: SRV to ``server``, TXT, A/AAAA.

    An update (``previous`` given) keeps the port and addresses first announced.
    """
    return AsyncServiceInfo(
        SERVICE_TYPE, name, port=advert.port if previous is None else previous.port,
        properties=encode_txt(advert), server=server,
        host_ttl=ttl, other_ttl=ttl,
        parsed_addresses=list(advert.addresses) if previous is None
        else previous.parsed_addresses(),
    )


@contextlib.asynccontextmanager
async def announced(discovery: Discovery, advert: TableAdvert) -> AsyncIterator[Announcement]:
    """Announce ``advert`` for the body of an ``async with``, and always withdraw it.

    The goodbyes go out however the body ends: normally, by an exception, or
    by cancellation (Ctrl-C under ``asyncio.run``, or a signal routed through
    ``cancel_on_signals``).

    Raises:
        LocalProtocolError: the advert is invalid.
        DiscoveryUnavailable: mDNS cannot run here.
    """
    announcement = await discovery.announce(advert)
    try:
        yield announcement
    finally:
        await announcement.close()


@contextlib.contextmanager
def cancel_on_signals(
    signals: Sequence[signal.Signals] = (signal.SIGTERM, signal.SIGHUP),
) -> Iterator[None]:
    """Turn ``signals`` into a cancellation of the current task, as asyncio.run does
    for Ctrl-C, so ``finally`` blocks (goodbyes, log flushes) run on SIGTERM too.

    Use inside the main coroutine: ``with cancel_on_signals(): await serve()``.
    Where the loop cannot take signal handlers (not the main thread, Windows)
    it does nothing.

    Raises:
        RuntimeError: not called from inside a running task.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    if task is None:
        raise RuntimeError("cancel_on_signals needs a running task")
    installed = []
    for number in signals:
        try:
            loop.add_signal_handler(number, task.cancel)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(number)
    try:
        yield
    finally:
        for number in installed:
            loop.remove_signal_handler(number)
