"""What a stranger on the LAN may make a node spend before it holds a seat, bounded
and shared fairly between source addresses (docs/protocol/net.md §4, §6.1; issue 24).

Sans-IO: every decision takes ``now`` (seconds, any monotonic origin) and returns
what the shell does; ``uno_p2p.net.node`` and ``uno_p2p.net.link`` only move the
sockets. Three doors:

- **Join codes** (``CodeGuesses``): SPAKE2 lets a joiner test one code per
  handshake, as soon as it holds the host's message 2, whether it answers or
  not. So a guess is counted when message 2 goes out and is cancelled only by a
  handshake that completes with the code. Each source address gets
  ``SOURCE_GUESSES`` a window, then a lock-out that doubles; the table as a
  whole gets ``TABLE_GUESSES``. An address that has proved it knows the code (a
  friend, a seated player re-dialling) is never locked out.
- **Handshake slots** (``HandshakeSlots``): unfinished handshakes per source
  address, and the oldest of the address holding the most evicted when the node
  is full, so one address holding many silent sockets shuts out only itself.
- **Sync requests** (``SyncAllowance``): a member's ``S`` makes us queue the log
  for it; a bucket per member bounds how often.
"""

from __future__ import annotations

import ipaddress
from collections import deque
from dataclasses import dataclass, field

#: Wrong join codes one source address may try per ``GUESS_WINDOW_S`` before it is
#: locked out. Below ``TABLE_GUESSES``, so that one address alone can never lock
#: the table: the rest of the table's budget is for friends' typos.
SOURCE_GUESSES = 3
#: Wrong join codes the whole table takes per ``GUESS_WINDOW_S`` from addresses that
#: have not proved the code: the rate net.md §4 promises (5 a minute, about 33 hours
#: for every 4-digit code).
TABLE_GUESSES = 5
GUESS_WINDOW_S = 60.0
#: An address's first lock-out lasts a window; each further one twice the last, up
#: to this: a patient single address gets far fewer than 3 guesses a minute.
LOCK_MAX_S = 3600.0
#: Addresses whose guesses (or proof of the code) are remembered. Past this the
#: oldest record without an active lock-out is forgotten: memory stays bounded
#: whatever number of addresses an attacker uses (the table's budget still holds).
MAX_SOURCES = 1024
#: Unfinished handshakes one source address may hold: an honest machine opens one
#: (two players on one machine, a few).
PENDING_PER_SOURCE = 4
#: Unfinished handshakes the node holds at all; past this the oldest one of the
#: address holding the most is closed to make room.
MAX_PENDING = 64
#: Message 1 must arrive this soon after the connection opens: an honest joiner
#: sends it at once, a silent socket gives its slot back quickly.
HELLO_S = 2.0
#: ``S`` requests a member may make at once, and how often one more is allowed: a
#: joiner asks once per new link and at most once a second while its log has a gap
#: (table.md §9, net.md §5.3 "Entries lost with a link"); every answer is the log.
SYNC_BURST = 4
SYNC_EVERY_S = 1.0
#: Bytes queued for one link before a peer that does not read loses it (net.md §5.2).
#: A whole log (a sync answer) must fit: a long 10-seat game's log is a few MB
#: (the 3-seat reference games are under 0.5 MB), and one entry at most 4 MiB. A
#: record count bounded nothing: 20,000 records of a sync answer were ~420 MB.
SEND_QUEUE_BYTES = 32 * 1024 * 1024


#: What a locked-out guesser (or a friend at the same address) reads (net.md §4).
SOURCE_LOCKED = "too many wrong join codes from {source}; try again in {seconds:.0f} s"
TABLE_LOCKED = "too many wrong join codes at this table; try again in {seconds:.0f} s"
#: What the idlest stranger reads when the lobby has too many (net.md §6.1).
LOBBY_FULL = ("the lobby has too many links that have not joined; connect again when you "
              "mean to join")


def source_of(peername: object) -> str:
    """The address a connection counts against: its IPv4 address, or the /64 of an
    IPv6 one (a machine on the LAN may take any address of its prefix)."""
    if not isinstance(peername, tuple) or not peername:
        return "?"
    host = str(peername[0]).split("%")[0]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


@dataclass(slots=True)
class _Guesser:
    wrong: deque[float] = field(default_factory=deque)
    locked_until: float = 0.0
    lockouts: int = 0


@dataclass(frozen=True, slots=True)
class Guess:
    """One code tried: counted when message 2 went out, cancelled by ``proved``."""

    source: str
    at: float


class CodeGuesses:
    """The host's count of join codes tried, per source address and for the table."""

    def __init__(self) -> None:
        self._guessers: dict[str, _Guesser] = {}
        self._table: deque[Guess] = deque()
        self._friends: dict[str, None] = {}

    def __len__(self) -> int:
        """Addresses whose guesses are remembered (at most ``MAX_SOURCES``)."""
        return len(self._guessers)

    def refusal(self, source: str, now: float) -> str | None:
        """Why ``source`` may not try a code now (one sentence), or None."""
        if source in self._friends:
            return None
        guesser = self._guessers.get(source)
        if guesser is not None and now < guesser.locked_until:
            return SOURCE_LOCKED.format(source=source, seconds=guesser.locked_until - now)
        self._forget_old(now)
        if len(self._table) >= TABLE_GUESSES:
            return TABLE_LOCKED.format(seconds=self._table[0].at + GUESS_WINDOW_S - now)
        return None

    def guess(self, source: str, now: float) -> Guess | None:
        """Message 2 is about to go to ``source``: count its guess, or None if it may not
        guess now (``refusal`` says why)."""
        if self.refusal(source, now) is not None:
            return None
        attempt = Guess(source, now)
        if source in self._friends:
            return attempt  # it knows the code: nothing to count
        guesser = self._guessers.pop(source, None) or _Guesser()
        self._guessers[source] = guesser  # most recent last
        guesser.wrong.append(now)
        self._table.append(attempt)
        while guesser.wrong and now - guesser.wrong[0] > GUESS_WINDOW_S:
            guesser.wrong.popleft()
        if len(guesser.wrong) >= SOURCE_GUESSES:
            guesser.lockouts += 1
            guesser.locked_until = now + min(LOCK_MAX_S,
                                             GUESS_WINDOW_S * 2.0 ** (guesser.lockouts - 1))
            guesser.wrong.clear()
        self._bound(now)
        return attempt

    def proved(self, attempt: Guess) -> None:
        """The handshake of ``attempt`` completed with the code: it was no guess, and its
        address belongs to a friend (never locked out from now on)."""
        if attempt in self._table:
            self._table.remove(attempt)
        self._guessers.pop(attempt.source, None)
        self._friends.pop(attempt.source, None)
        self._friends[attempt.source] = None
        while len(self._friends) > MAX_SOURCES:
            del self._friends[next(iter(self._friends))]

    def table_guesses(self, now: float) -> int:
        """Codes tried at the table in the current window by addresses not proved."""
        self._forget_old(now)
        return len(self._table)

    def _forget_old(self, now: float) -> None:
        while self._table and now - self._table[0].at > GUESS_WINDOW_S:
            self._table.popleft()

    def _bound(self, now: float) -> None:
        for source in list(self._guessers):
            if len(self._guessers) <= MAX_SOURCES:
                return
            if self._guessers[source].locked_until <= now:
                del self._guessers[source]
        while len(self._guessers) > MAX_SOURCES:
            del self._guessers[next(iter(self._guessers))]


@dataclass(frozen=True, slots=True)
class Slot:
    """One unfinished handshake, taken at ``at`` by ``source``."""

    source: str
    at: float
    number: int


@dataclass(frozen=True, slots=True)
class Admission:
    """What ``HandshakeSlots.take`` decided: the new handshake's slot (None: close the
    new connection at once) and a slot whose handshake to close to make room."""

    slot: Slot | None
    evict: Slot | None = None


class HandshakeSlots:
    """Unfinished handshakes, per source address and in all (net.md §6.1)."""

    def __init__(self, per_source: int = PENDING_PER_SOURCE, most: int = MAX_PENDING) -> None:
        self.per_source = per_source
        self.most = most
        self._slots: dict[str, deque[Slot]] = {}
        self._count = 0
        self._numbers = 0

    def __len__(self) -> int:
        return self._count

    def take(self, source: str, now: float) -> Admission:
        """A connection from ``source`` wants a handshake."""
        held = self._slots.get(source)
        if held is not None and len(held) >= self.per_source:
            return Admission(None)
        evict = None
        if self._count >= self.most:
            greediest = max(self._slots.values(), key=len)
            if held is not None and len(held) >= len(greediest):
                return Admission(None)
            evict = greediest[0]
            self.give_back(evict)
        self._numbers += 1
        slot = Slot(source, now, self._numbers)
        self._slots.setdefault(source, deque()).append(slot)
        self._count += 1
        return Admission(slot, evict)

    def give_back(self, slot: Slot) -> None:
        """The handshake of ``slot`` ended (either way); idempotent."""
        held = self._slots.get(slot.source)
        if held is None or slot not in held:
            return
        held.remove(slot)
        self._count -= 1
        if not held:
            del self._slots[slot.source]


class SyncAllowance:
    """A token bucket per member for its ``S`` requests (``SYNC_BURST``, one more every
    ``SYNC_EVERY_S``); one the bucket refuses is ignored, and the member asks again."""

    def __init__(self) -> None:
        self._buckets: dict[bytes, tuple[float, float]] = {}

    def allows(self, key: bytes, now: float) -> bool:
        """Whether ``key``'s ``S`` at ``now`` is answered (it spends a token if so)."""
        tokens, then = self._buckets.get(key, (float(SYNC_BURST), now))
        tokens = min(float(SYNC_BURST), tokens + max(0.0, now - then) / SYNC_EVERY_S)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1.0, now)
        return True

    def forget(self, key: bytes) -> None:
        """``key``'s link ended: its bucket goes with it (a new link starts full)."""
        self._buckets.pop(key, None)


#: Links in the lobby whose peer has not joined (yet): an honest joiner sends its
#: ``join`` at once, so only a crowd of strangers fills this; past it the one that
#: has said nothing for longest is closed. 32 is three tables' worth of seats.
MAX_STRANGERS = 32


class Strangers:
    """The lobby's links whose peer holds no seat, by when each last said something."""

    def __init__(self, most: int = MAX_STRANGERS) -> None:
        self.most = most
        self._heard: dict[bytes, float] = {}

    def __len__(self) -> int:
        return len(self._heard)

    def linked(self, key: bytes, now: float, members: frozenset[bytes]) -> list[bytes]:
        """``key`` linked (``members``: who holds a seat now): the strangers to close."""
        for seated in [k for k in self._heard if k in members]:
            del self._heard[seated]
        if key not in members:
            self._heard[key] = now
        evicted: list[bytes] = []
        while len(self._heard) > self.most:
            idlest = min(self._heard, key=self._heard.__getitem__)
            del self._heard[idlest]
            evicted.append(idlest)
        return evicted

    def heard(self, key: bytes, now: float) -> None:
        """A frame from ``key``'s link: it is not idle."""
        if key in self._heard:
            self._heard[key] = now

    def gone(self, key: bytes) -> None:
        """``key``'s link ended, or its peer joined."""
        self._heard.pop(key, None)
