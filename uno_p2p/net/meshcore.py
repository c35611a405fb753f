"""The mesh's decisions, without I/O: what one node knows of where the members listen,
whom it dials, what it passes on, who is in reach, and when the sequencer counts as
lost (docs/protocol/net.md §5.3, §6).

As ``net/handshake.py`` is to ``net/link.py``, this is to ``net/mesh.py``: the
asyncio adapter there tells the core what happened (a link up or down, a mesh
frame, a tick) with the time on the node's injected clock (``now_ms``, the
clock its ``TablePeer`` runs on), and executes the actions the core returns:
send bytes on a member's link, dial a member, tell the peer who is lost or
back, that the sequencer is gone, or to ask around. The core holds no link,
no socket and no timer, so its tests drive it with plain values.

What the core needs of the table comes in as a ``Standing``, read off the
peer's log by the adapter at each call: the core never reaches into the peer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import InvalidMessage, UnoError
from uno_p2p.net.handshake import MAX_PLAINTEXT
from uno_p2p.table.frames import (
    FRAME_CHAT,
    FRAME_ENTRY,
    FRAME_MESSAGE,
    FRAME_RELAY,
    FRAME_VOTE,
)
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.state import TablePhase
from uno_p2p.wire import fields
from uno_p2p.wire.codec import Limits, WireValue, pack, unpack
from uno_p2p.wire.envelope import Message
from uno_p2p.wire.limits import GAP_FILL_AFTER_MS

#: Link-level frames of the mesh (net.md §5.1).
ADDRESSES = b"a"
LINKED = b"k"
FORWARD = b"f"
MESH_FRAMES = (ADDRESSES, LINKED, FORWARD)
#: Table frames a member passes on (``S`` and ``D`` name their sender: never forwarded).
FORWARDABLE = (FRAME_MESSAGE, FRAME_ENTRY, FRAME_RELAY, FRAME_VOTE, FRAME_CHAT)
#: A forwarded frame's wrapping: ``f``, the msgpack array, the key and the bin header.
FORWARD_OVERHEAD = 64
#: At most this many entries in an ``a`` or ``k`` frame (a table seats 10).
MAX_MEMBERS = 16
ADDRESS_LIMITS = Limits(max_frame=8192, max_array=MAX_MEMBERS, max_str=64, max_bin=32,
                        max_depth=3)
#: An address whose stamp is more than this ahead of this node's clock is refused
#: (net.md §5.3): clocks on a LAN differ by seconds, and a stamp far in the future
#: would outrank every honest address to come.
STAMP_AHEAD_MS = 60_000
REDIAL_S = 0.5
#: A link that lived this long was a working link: the next one is dialed at once.
STEADY_S = 10.0
#: The longest wait between links that keep failing soon after they are made.
BACKOFF_MAX_S = 8.0
LIVE = (TablePhase.KEYS, TablePhase.PLAYING, TablePhase.REVEALING)

#: (host, port, stamp): where a member listens, and since when by the teller's clock.
Address = tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class Standing:
    """What the mesh needs of the table now, read off the peer's log by the adapter."""

    me: PeerId
    #: Every member that ever joined, in joining order: who dials whom (§5.3).
    members: tuple[PeerId, ...]
    sequencer: PeerId
    phase: TablePhase
    #: The members this node's sequencer counts lost (empty unless it is the sequencer).
    counted_lost: frozenset[bytes] = frozenset()
    #: The peer stopped the game: nothing more to catch up on.
    stopped: bool = False
    #: The node is done (its game over): it judges no one any more.
    finished: bool = False


# -- what the adapter does for the core -------------------------------------------------
@dataclass(frozen=True, slots=True)
class Send:
    """Send ``data`` on the link to the member ``to`` (dropped if that link is gone)."""

    to: bytes
    data: bytes


@dataclass(frozen=True, slots=True)
class Dial:
    """Keep a link to ``member``, an earlier member of the table (§5.3)."""

    member: PeerId


@dataclass(frozen=True, slots=True)
class Lost:
    """Tell the peer ``member`` is out of reach by every path (``peer_lost``, §14.1)."""

    member: PeerId


@dataclass(frozen=True, slots=True)
class Back:
    """Tell the peer ``member`` is in reach again (``peer_back``)."""

    member: PeerId


@dataclass(frozen=True, slots=True)
class SequencerGone:
    """The sequencer has been out of reach for the hand-over time-out: the peer votes
    (``host_lost``, table.md §13.1)."""

    sequencer: PeerId


@dataclass(frozen=True, slots=True)
class GiveUp:
    """The sequencer stayed out of reach past the give-up time too: no hand-over came."""


@dataclass(frozen=True, slots=True)
class AskAround:
    """Ask the members in reach for the entries after our head (``ask_members``)."""


@dataclass(frozen=True, slots=True)
class Rejoin:
    """Back from being cut off: ask every member what we missed (``rejoin``, §13.4)."""


@dataclass(frozen=True, slots=True)
class Resync:
    """A new link to the sequencer: ask it what the broken one lost (``resync``, §9)."""


@dataclass(frozen=True, slots=True)
class Learned:
    """Where a member listens changed: the seat file keeps it (§8)."""


MeshAction = Send | Dial | Lost | Back | SequencerGone | GiveUp | AskAround | Rejoin | \
    Resync | Learned


class Backoff:
    """How long to wait before dialing a member again after its link ended (net.md §6):
    at once after a link that worked for ``STEADY_S``; after one that failed sooner,
    ``REDIAL_S``, doubling with each such failure up to ``BACKOFF_MAX_S``. A fault that
    repeats on every link (a frame the other side refuses) so costs a handshake every
    few seconds, never a loop that spins."""

    def __init__(self) -> None:
        self.failures = 0

    def after(self, lived_s: float) -> float:
        """The wait before the next dial, the ended link having lived ``lived_s``."""
        if lived_s >= STEADY_S:
            self.failures = 0
            return 0.0
        wait = min(BACKOFF_MAX_S, REDIAL_S * 2.0 ** min(self.failures, 16))
        self.failures += 1
        return wait


@dataclass
class AddressBook:
    """Where each member listens, the best we know, and every other address we were
    told, so that a false hint costs one dial, never the way back (net.md §5.3)."""

    #: key -> the best address: its own word (``a`` from its own link) if we heard it,
    #: else the newest hint.
    best: dict[bytes, Address] = field(default_factory=dict)
    #: The members whose best address is their own word: no hint overrides it.
    own_word: set[bytes] = field(default_factory=set)
    #: key -> teller -> address: what each member (or the seat file, b"") said of another.
    hints: dict[bytes, dict[bytes, Address]] = field(default_factory=dict)

    def learn(self, key: bytes, where: Address, *, teller: bytes) -> bool:
        """Take what ``teller`` says about where ``key`` listens; True if our best
        address for ``key`` changed. A member's own word (``teller == key``) wins over any
        hint, whatever its stamp; among hints, and among its own words, the newest wins."""
        known = self.best.get(key)
        if teller == key:
            if key in self.own_word and known is not None and known[2] >= where[2]:
                return False
            self.own_word.add(key)
        else:
            told = self.hints.setdefault(key, {})
            said = told.get(teller)
            if (said is not None and said[2] >= where[2]) or \
                    (said is None and len(told) >= MAX_MEMBERS):
                return False
            told[teller] = where
            if key in self.own_word or (known is not None and known[2] >= where[2]):
                return False
        self.best[key] = where
        return True

    def remember(self, key: bytes, host: str, port: int) -> None:
        """Where the seat file says ``key`` listened: a hint with the oldest stamp, so that
        anything the table says since wins, and kept to be tried on a resume."""
        self.hints.setdefault(key, {})[b""] = (host, port, 0)
        self.best.setdefault(key, (host, port, 0))

    def candidates(self, key: bytes) -> list[tuple[str, int]]:
        """Every address we know for ``key``, best first: its own word (or the newest
        hint), then the other hints, newest first. A resume tries them all (net.md §6)."""
        said = sorted(self.hints.get(key, {}).values(), key=lambda where: -where[2])
        best = self.best.get(key)
        ordered = ([best] if best is not None else []) + said
        return list(dict.fromkeys((host, port) for host, port, _ in ordered))

    def frame(self) -> bytes:
        """Our best entries as an ``a`` frame (§5.1)."""
        return ADDRESSES + pack([[k, h, p, s] for k, (h, p, s) in sorted(self.best.items())])


def read_addresses(payload: bytes, now_ms: int) -> list[tuple[bytes, Address]]:
    """The entries of an ``a`` frame, all checked before any is taken, less those stamped
    more than ``STAMP_AHEAD_MS`` ahead of ``now_ms``.

    Raises:
        InvalidMessage: the frame does not decode (it is then ignored whole).
    """
    latest = now_ms + STAMP_AHEAD_MS
    told = []
    for item in fields.items(unpack(payload, ADDRESS_LIMITS), "addresses", max_len=MAX_MEMBERS):
        key, host, port, stamp = fields.array(item, 4, "an address")
        where = (fields.text(host, "a host", max_chars=64),
                 fields.integer(port, "a port", lo=1, hi=65535),
                 fields.integer(stamp, "a stamp", lo=0, hi=(1 << 62)))
        if where[2] <= latest:
            told.append((fields.blob(key, "a key", size=32), where))
    return told


def signed(data: bytes) -> bool:
    """A message frame carries its author's own signature: a member passes on no
    forgery, so the sequencer may name the link a forgery comes by (table.md §3.1)."""
    if data[:1] not in (FRAME_MESSAGE, FRAME_RELAY):
        return True
    try:
        Message.decode(data[1:]).verify()
    except (InvalidMessage, UnoError):
        return False
    return True


class MeshCore:
    """One node's mesh, on the node's injected clock: it decides, the adapter acts.

    ``dials``: whether this node dials the members that joined before it (a joiner;
    the host joined first). ``give_up_ms``: how long past the hand-over time-out a
    sequencer out of reach makes the node give up (None: never).
    """

    def __init__(self, *, dials: bool, give_up_ms: int | None = None,
                 host_lost_after_ms: int = HOST_LOST_AFTER_MS) -> None:
        self.dials = dials
        self.give_up_ms = give_up_ms
        self.host_lost_after_ms = host_lost_after_ms
        self.book = AddressBook()
        #: The members this node has a link to now.
        self.linked: set[bytes] = set()
        #: For each linked member, the members it says it has a link to (its last ``k``).
        self.reports: dict[bytes, frozenset[bytes]] = {}
        #: The members this node told its peer are lost (for the sequencer it judged for).
        self.lost: set[bytes] = set()
        self.judged_for: PeerId | None = None
        #: The members this node keeps a dialer for.
        self.dialing: set[bytes] = set()
        #: The sequencer out of reach, and since when (``now_ms``); whether we voted.
        self.out_of_reach: tuple[bytes, int] | None = None
        self.voted = False
        #: This node the sequencer with no other member in reach: since when (``now_ms``).
        self.alone_since_ms: int | None = None
        #: When we last asked the members for entries, our link to the sequencer down.
        self.asked_at_ms: int | None = None
        #: Whether this node ever had a link (a node resumed from disk had one).
        self.ever_linked = False

    # -- links ------------------------------------------------------------------------------
    def link_up(self, key: bytes, table: Standing | None) -> tuple[bool, list[MeshAction]]:
        """A new authenticated link to ``key``: our addresses to it, our links to all.
        The flag is True when this node had no link at all before: it was cut off, and
        asks what it missed (``catch_up``)."""
        cut_off = not self.linked and self.ever_linked
        self.ever_linked = True
        self.linked.add(key)
        actions: list[MeshAction] = [Send(key, self.book.frame())]
        return cut_off, [*actions, *self._tell_linked(), *self.judge(table)]

    def link_down(self, key: bytes, table: Standing | None) -> list[MeshAction]:
        """The link to ``key`` ended: forget it and what its member said."""
        self.linked.discard(key)
        self.reports.pop(key, None)
        return [*self._tell_linked(), *self.judge(table)]

    def catch_up(self, key: bytes, cut_off: bool, table: Standing | None) -> list[MeshAction]:
        """A new link to ``key``: what the broken one may have lost. Cut off from
        everyone, ask every member (the table may have handed the sequencer on, table.md
        §13.4); a new link to the sequencer, ask it (§9)."""
        if table is None or table.phase not in LIVE or table.stopped:
            return []
        if cut_off:
            return [Rejoin()]
        return [Resync()] if key == table.sequencer.key else []

    def listening(self, host: str, port: int, table: Standing | None,
                  now_ms: int) -> list[MeshAction]:
        """This node opened its port for peer links: its own word, stamped now, to all."""
        actions: list[MeshAction] = []
        if table is not None:
            me = table.me.key
            if self.book.learn(me, (host, port, now_ms), teller=me):
                actions.append(Learned())
            book = self.book.frame()
            actions.extend(Send(k, book) for k in sorted(self.linked))
        return actions

    def _tell_linked(self) -> list[MeshAction]:
        linked: list[WireValue] = [*sorted(self.linked)]
        frame = LINKED + pack(linked)
        return [Send(k, frame) for k in sorted(self.linked)]

    def address_to_try(self, key: bytes, attempt: int) -> tuple[str, int] | None:
        """The address of ``key`` to dial at the ``attempt``-th try: every one we know in
        turn, so a false hint costs one try (§5.3)."""
        known = self.book.candidates(key)
        return known[attempt % len(known)] if known else None

    def member_addresses(self, table: Standing | None) -> dict[bytes, tuple[str, int]]:
        """Where the other members of the table listen, as far as this node knows: the
        entries of its book that the log names, itself left out."""
        if table is None:
            return {}
        best = self.book.best
        return {m.key: best[m.key][:2] for m in table.members
                if m.key in best and m != table.me}

    # -- frames -----------------------------------------------------------------------------
    def hear(self, key: bytes, data: bytes, table: Standing | None,
             now_ms: int) -> list[MeshAction] | None:
        """A frame from ``key``'s link: None if it is no mesh frame (it is the peer's),
        else what to do; a mesh frame that does not decode is ignored (§5.1)."""
        tag = data[:1]
        if tag not in MESH_FRAMES:
            return None
        try:
            if tag == ADDRESSES:
                return self._addresses(key, data[1:], now_ms)
            if tag == LINKED:
                return self._linked(key, data[1:], table)
            return self._forward(key, data[1:], table)
        except (InvalidMessage, UnoError):
            return []  # a malformed hint: addresses and paths are hints, keys are pinned

    def _addresses(self, teller: bytes, payload: bytes, now_ms: int) -> list[MeshAction]:
        """An ``a`` frame from ``teller``'s link: its own entry is its word, the others
        hints; news is passed on to every link (a stamp only grows, so this ends)."""
        changed = False
        for key, where in read_addresses(payload, now_ms):
            changed |= self.book.learn(key, where, teller=teller)
        if not changed:
            return []
        book = self.book.frame()
        return [Learned(), *(Send(k, book) for k in sorted(self.linked))]

    def _linked(self, key: bytes, payload: bytes, table: Standing | None) -> list[MeshAction]:
        keys = fields.items(unpack(payload, ADDRESS_LIMITS), "linked members",
                            max_len=MAX_MEMBERS)
        self.reports[key] = frozenset(fields.blob(k, "a key", size=32) for k in keys)
        return self.judge(table)

    def _forward(self, key: bytes, payload: bytes, table: Standing | None) -> list[MeshAction]:
        """Pass a forwarded frame on, one hop, if it is a table frame a member may pass on,
        from a member, to a member we hold a link to, and not a forgery (§5.3)."""
        target, data = fields.array(unpack(payload), 2, "a forwarded frame")
        target = fields.blob(target, "a member's key", size=32)
        data = fields.blob(data, "a table frame")
        if target not in self.linked or table is None or data[:1] not in FORWARDABLE or \
                all(key != m.key for m in table.members) or not signed(data):
            return []
        return [Send(target, data)]

    def route(self, out: Outgoing, table: Standing | None) -> list[MeshAction]:
        """What the peer sends: to the sequencer (``to`` None) or the listed members, on
        their own links, else through a member that says it holds one."""
        if table is None:
            return []
        targets = (table.sequencer,) if out.to is None else out.to
        sends: list[MeshAction] = []
        for target in targets:
            if target.key in self.linked:
                sends.append(Send(target.key, out.data))
            elif target != table.me:
                sends.extend(self._send_through(target.key, out.data))
        return sends

    def _send_through(self, target: bytes, data: bytes) -> list[MeshAction]:
        if data[:1] not in FORWARDABLE or len(data) + FORWARD_OVERHEAD > MAX_PLAINTEXT:
            return []
        for key in sorted(self.reports):
            if target in self.reports[key] and key in self.linked:
                return [Send(key, FORWARD + pack([target, data]))]
        return []

    # -- who is in reach (table.md §13.1, §14.1) ----------------------------------------
    def reachable(self, key: bytes) -> bool:
        """A direct link, or a linked member that holds one."""
        return key in self.linked or any(key in r for k, r in self.reports.items()
                                         if k in self.linked)

    def judge(self, table: Standing | None) -> list[MeshAction]:
        """Who to dial, and who is lost and who is back, by every path the mesh knows."""
        if table is None or table.finished:
            return []
        actions = self._dialers(table)
        if table.phase not in LIVE:
            return actions
        if self.judged_for != table.sequencer:
            # A new sequencer (table.md §13): it learns afresh who is out of reach.
            self.judged_for, self.lost = table.sequencer, set()
        for member in table.members:
            key = member.key
            if member in (table.me, table.sequencer):
                continue
            if self.reachable(key):
                if key in self.lost or key in table.counted_lost:
                    self.lost.discard(key)
                    actions.append(Back(member))
            elif key not in self.lost:
                self.lost.add(key)
                actions.append(Lost(member))
        return actions

    def _dialers(self, table: Standing) -> list[MeshAction]:
        """Of every two members the later dials the earlier; the host's link (the first
        member's) is the node's own."""
        order = table.members
        if not self.dials or table.me not in order:
            return []
        dials: list[MeshAction] = []
        for member in order[1:order.index(table.me)]:
            if member.key not in self.dialing:
                self.dialing.add(member.key)
                dials.append(Dial(member))
        return dials

    def tick(self, table: Standing | None, now_ms: int) -> list[MeshAction]:
        """Now and then (the adapter's ticker): judge, watch the sequencer, ask around."""
        if table is None:
            return []
        return [*self.judge(table), *self._watch_sequencer(table, now_ms),
                *self._watch_alone(table, now_ms), *self._ask_around(table, now_ms)]

    def _watch_sequencer(self, table: Standing, now_ms: int) -> list[MeshAction]:
        """The one judge of "is the sequencer gone?" by reach (net.md §6): out of reach
        by every path for ``host_lost_after_ms``, it is gone (once per absence); past
        ``give_up_ms`` more, the node gives up (no hand-over came)."""
        sequencer = table.sequencer.key
        if sequencer == table.me.key or self.reachable(sequencer) or \
                table.phase == TablePhase.ENDED:
            self.out_of_reach, self.voted = None, False
            return []
        if self.out_of_reach is None or self.out_of_reach[0] != sequencer:
            self.out_of_reach, self.voted = (sequencer, now_ms), False
            return []
        gone_ms = now_ms - self.out_of_reach[1]
        actions: list[MeshAction] = []
        # A lobby whose host is gone closes: only a started game is worth a hand-over
        # (and only the host's node starts a game).
        if table.phase != TablePhase.LOBBY and gone_ms >= self.host_lost_after_ms and \
                not self.voted:
            self.voted = True
            actions.append(SequencerGone(table.sequencer))
        if self.give_up_ms is not None and gone_ms >= self.host_lost_after_ms + self.give_up_ms:
            actions.append(GiveUp())
        return actions

    def _watch_alone(self, table: Standing, now_ms: int) -> list[MeshAction]:
        """This node the sequencer, no other member in reach: its peer holds its time-outs
        (table.md §6.3). Past the time the others take to hand the table on and then give
        up on a hand-over, nobody comes back to this table: the node gives up (net.md §6),
        its log a prefix of the table's, never a fork it logged alone."""
        others = [m.key for m in table.members if m != table.me]
        if self.give_up_ms is None or table.sequencer != table.me or \
                table.phase not in LIVE or not others or \
                any(self.reachable(key) for key in others):
            self.alone_since_ms = None
            return []
        if self.alone_since_ms is None:
            self.alone_since_ms = now_ms
            return []
        if now_ms - self.alone_since_ms >= self.host_lost_after_ms + self.give_up_ms:
            return [GiveUp()]
        return []

    def _ask_around(self, table: Standing, now_ms: int) -> list[MeshAction]:
        """No link to the sequencer, links to other members: ask them for the entries
        after our head every ``GAP_FILL_AFTER_MS``. The broken link may have lost the last
        entries, and a table waiting on us for them sends no later one to show the gap."""
        sequencer = table.sequencer.key
        if sequencer == table.me.key or sequencer in self.linked or not self.linked or \
                table.phase not in LIVE:
            return []
        if self.asked_at_ms is not None and now_ms - self.asked_at_ms < GAP_FILL_AFTER_MS:
            return []
        self.asked_at_ms = now_ms
        return [AskAround()]


__all__ = [
    "ADDRESSES", "FORWARD", "LINKED", "MESH_FRAMES", "STAMP_AHEAD_MS", "AddressBook",
    "AskAround", "Back", "Backoff", "Dial", "GiveUp", "Learned", "Lost", "MeshAction",
    "MeshCore", "Rejoin", "Resync", "Send", "SequencerGone", "Standing",
]
