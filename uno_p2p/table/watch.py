"""What every peer watches the sequencer for: a clock that runs ahead, and censorship.

docs/protocol/table.md §6.1-§6.2. The sequencer keeps the table clock and
proposes time-outs; the log alone cannot show that a ``clock`` entry ran
ahead of real time, nor that a move the sequencer timed out had in fact been
sent. Each peer therefore checks both against what only it can see, its own
clock (the times the shell gives it) and the signed messages other peers
relay to it. What one peer alone sees proves nothing to the others, so it
never stops the table: a doubted clock makes the peer vote for another
sequencer (table.md §6.1, §13), censorship is told to its player (§6.2).
Pure and bounded: two clock bounds, one relayed message per author.

``SequencerWatch`` is the part of the peer that owns this watch, as
``Sequencer`` owns the sequencing: both watches, renewed each term, and the
``clock`` entry held back while the peer doubts it. It reads the peer through
``Watched``, a frozen view the peer builds per call, and returns what to do as
values (hold an entry, tell the player and vote, the frames to send, the
censorship to name); the vote itself is the ``Succession``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import RemoteProtocolError
from uno_p2p.rules.actions import TimeOut
from uno_p2p.table.bodies import Abort, Clock, Move
from uno_p2p.table.events import Progress
from uno_p2p.table.frames import FRAME_RELAY, frame
from uno_p2p.table.ledger import Ledger, check_message
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.state import TableState
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.limits import (
    CLOCK_DOUBT_MS,
    CLOCK_TOLERANCE_MS,
    MAX_CLOCK_SAMPLES,
    RELAY_AFTER_MS,
)

#: Codes of the sequencer's entries that say a seat did not answer (table.md §6).
SILENCING_CODES = frozenset({"unresponsive", "missing_reveal"})


class ClockWatch:
    """The table clock's pace against this peer's own clock (table.md §6.1).

    Clocks of different machines have different origins, so what is bounded
    is the offset ``c`` between the table clock and ours. Each ``clock`` entry
    gives two bounds that hold for an honest sequencer *whatever the delays*:

    - a **lower** bound ``table_ms - arrived_ms``: the entry was stamped
      before it reached us (a late arrival, a paused process, a long proof
      queue only make this bound looser);
    - an **upper** bound ``table_ms - sent_ms``, when a message of ours,
      sent at ``sent_ms``, was logged before this entry: the sequencer
      stamped it after our message reached it (a late stamp of ours only
      makes this bound looser).

    The highest lower bound can exceed the lowest upper bound only if the
    table clock ran ahead of ours between the two entries that gave them:
    by more than ``CLOCK_TOLERANCE_MS``, the sequencer's clock is doubted.
    No delay on our side can cause it, so an honest sequencer is never
    doubted (clock *rates* differ by parts per million). Memory is bounded:
    two numbers and at most ``MAX_CLOCK_SAMPLES`` messages of ours in flight.
    """

    def __init__(self) -> None:
        #: Our messages not logged yet (``Message.hash``), with when we sent them.
        self.sent: dict[bytes, int] = {}
        #: When we sent our latest message logged so far (``None``: none yet).
        self.since: int | None = None
        self.lower: int | None = None
        self.upper: int | None = None

    def sending(self, digest: bytes, local_ms: int) -> None:
        """We send the message that hashes to ``digest`` now (our clock)."""
        if len(self.sent) >= MAX_CLOCK_SAMPLES:
            del self.sent[next(iter(self.sent))]  # the oldest: dropped or void by now
        self.sent.setdefault(digest, local_ms)

    def logged(self, entry: Entry) -> None:
        """An entry was accepted: one of ours bounds every ``clock`` after it."""
        sent = self.sent.pop(entry.message.hash, None)
        if sent is not None:
            self.since = sent if self.since is None else max(self.since, sent)

    def bounds(self, table_ms: int, arrived_ms: int | None) -> tuple[int | None, int | None]:
        """The bounds on the offset once a ``clock(table_ms)`` that came at ``arrived_ms``
        (our clock; ``None``: unknown) is counted."""
        lower, upper = self.lower, self.upper
        if arrived_ms is not None:
            sample = table_ms - arrived_ms
            lower = sample if lower is None else max(lower, sample)
        if self.since is not None:
            sample = table_ms - self.since
            upper = sample if upper is None else min(upper, sample)
        return lower, upper

    def ahead_by(self, table_ms: int, arrived_ms: int | None) -> int:
        """How far past the tolerance a ``clock(table_ms)`` shows the table clock gained
        on ours (0: nothing to doubt)."""
        lower, upper = self.bounds(table_ms, arrived_ms)
        if lower is None or upper is None:
            return 0
        return max(0, lower - upper - CLOCK_TOLERANCE_MS)

    def accepted(self, table_ms: int, arrived_ms: int | None) -> None:
        """Count a ``clock`` entry that was accepted."""
        self.lower, self.upper = self.bounds(table_ms, arrived_ms)

    def reanchor(self) -> None:
        """Forget the bounds (not our messages in flight): the table went on with a clock
        we doubted and no majority agreed (§6.1), so its pace is measured afresh."""
        self.lower = self.upper = None

    def judge(self, entry: Entry, host: PeerId, arrived_ms: int | None) -> str | None:
        """Why a ``clock`` entry makes us doubt the sequencer, or None (then it is counted)."""
        body = entry.body
        if not isinstance(body, Clock) or entry.author != host:
            return None
        ahead = self.ahead_by(body.now_ms, arrived_ms)
        if ahead:
            return (f"entry {entry.seq}: the table clock ran {ahead} ms further ahead of ours "
                    "than the tolerance allows: a time-out on it would come too early")
        self.accepted(body.now_ms, arrived_ms)
        return None


@dataclass(frozen=True, slots=True)
class Relayed:
    """A peer's signed message another peer relayed to us, and the log length then."""

    message: Message
    seen_at: int
    #: When it came (this peer's clock): too late to be evidence if the sequencer's
    #: time-out follows within ``RELAY_AFTER_MS`` (it may not have had it yet).
    at_ms: int = 0


class CensorshipWatch:
    """Signed messages relayed to us by their authors, kept as evidence (table.md §6.2).

    A peer whose message the sequencer leaves unlogged sends it to every peer
    (frame ``R``). Each keeps the latest one per author that was valid when it
    arrived and is not logged yet. If the sequencer then logs a time-out of
    that author (a ``TimeOut`` of its seat, or an ``abort`` saying it did not
    answer), the sequencer dropped a message it had been shown: censorship,
    with the message and the entry as evidence.
    """

    def __init__(self) -> None:
        self.relayed: dict[bytes, Relayed] = {}

    def consider(self, message: Message, ledger: Ledger, me: PeerId, now_ms: int = 0) -> bool:
        """Keep a relayed message as evidence if it is a seated peer's, signed, not logged
        yet, and valid now (what the sequencer should have logged); ``now_ms``: our clock.
        True if it is kept now and was not before (the peer passes it on once, §13.1)."""
        state, author = ledger.state, message.author
        if message.table_id != state.table_id or author == me or \
                state.seat_of(author.key) is None or \
                message.counter < ledger.chain.next_counter(author):
            return False
        try:
            ledger.chain.check_message(message)
            check_message(state, message, ledger.view)
        except RemoteProtocolError:  # a chain error or a refusal: not evidence of anything
            return False
        return self.keep(message, state.seq, now_ms)

    def keep(self, message: Message, seen_at: int, at_ms: int = 0) -> bool:
        """Keep ``message`` (already checked: signed, for this table, valid now); True if
        it is new evidence."""
        held = self.relayed.get(message.author.key)  # MAX_RELAYED_PER_AUTHOR: the latest
        if held is not None and held.message == message:
            return False  # the same message again (another path): it came when it first came
        if held is None or held.message.counter <= message.counter:
            self.relayed[message.author.key] = Relayed(message, seen_at, at_ms)
            return True
        return False

    def logged(self, entry: Entry, before: TableState, next_counter: int,
               now_ms: int | None = None) -> Relayed | None:
        """After ``entry``: the relayed message it proves was censored, if any.

        ``before`` is the table before the entry; ``next_counter`` the counter
        the silenced author's next message must carry in our log; ``now_ms`` our
        clock. A message that came less than ``RELAY_AFTER_MS`` before the time-out
        proves nothing: the sequencer may not have had it yet (an author could
        otherwise stall to its deadline, then show its message to a peer only, to
        have the honest sequencer named, table.md §6.2).
        """
        author = entry.author
        held = self.relayed.get(author.key)
        if held is not None and held.message.counter < next_counter:
            del self.relayed[author.key]  # logged after all
        victim = silenced(entry, before)
        if victim is None or entry.author != before.host:
            return None
        held = self.relayed.get(victim.key)
        if held is None:
            return None
        del self.relayed[victim.key]
        if now_ms is not None and now_ms - held.at_ms < RELAY_AFTER_MS:
            return None
        return held


def silenced(entry: Entry, before: TableState) -> PeerId | None:
    """The peer an entry says did not answer: a ``TimeOut``'s seat, or the culprit of an
    ``abort`` for silence."""
    body = entry.body
    if isinstance(body, Move) and isinstance(body.action, TimeOut):
        seat = body.action.seat
        return before.seats[seat] if 0 <= seat < len(before.seats) else None
    if isinstance(body, Abort) and body.code in SILENCING_CODES and not body.evidence:
        return body.culprit
    return None


@dataclass(frozen=True, slots=True)
class Watched:
    """What the watch reads of its peer at one call, built by the peer each time: the
    part never holds the peer, so it cannot change it."""

    state: TableState
    #: The sequencer this peer follows.
    host: PeerId
    me: PeerId
    now_ms: int
    #: This peer is the sequencer now.
    hosting: bool = False
    #: This peer stopped taking entries (table.md §7.4).
    stopped: bool = False


@dataclass(frozen=True, slots=True)
class Doubted:
    """A ``clock`` entry held back because it made us doubt the sequencer, and since
    when (our clock): our vote stands meanwhile (table.md §6.1)."""

    entry: Entry
    since_ms: int


@dataclass(frozen=True, slots=True)
class Held:
    """Do not apply this entry, nor any after it, yet (table.md §6.1). ``said``: the
    sequencer is newly doubted; the peer tells its player and votes for the next one."""

    said: Progress | None = None


@dataclass(frozen=True, slots=True)
class Censored:
    """The sequencer timed out a member whose valid signed message we had been shown
    in time (table.md §6.2): the peer names the sequencer to its player, with the
    message and the time-out entry as evidence, and stops nothing."""

    entry: Entry
    message: Message
    reason: str

    @property
    def evidence(self) -> tuple[Message, Entry]:
        return (self.message, self.entry)


class SequencerWatch:
    """This peer's watch on the sequencer (table.md §6.1-§6.2): the table clock's pace
    against ours, the ``clock`` entry held back while we doubt it, and the relayed
    messages kept as evidence. Each term is watched afresh (``new_term``)."""

    def __init__(self) -> None:
        self.clock = ClockWatch()
        self.censorship = CensorshipWatch()
        self.doubted: Doubted | None = None

    # -- the clock (§6.1) ------------------------------------------------------------------
    def sending(self, message: Message, now_ms: int) -> None:
        """We send ``message`` now (our clock): once logged, it bounds later clocks."""
        self.clock.sending(message.hash, now_ms)

    def hold(self, entry: Entry, arrived_ms: int | None, seen: Watched) -> Held | None:
        """Whether to hold ``entry`` back: the ``clock`` we doubt (again), or a ``clock``
        that shows the table clock gaining on ours. Only we see it, so it names nobody
        and stops nothing: if no majority agrees within ``CLOCK_DOUBT_MS``, we follow
        the table (``trust_due``). None: judge and apply it."""
        held = self.doubted
        if held is not None:
            return Held() if held.entry.hash == entry.hash else None
        why = self.clock.judge(entry, seen.host, arrived_ms)
        if why is None:
            return None
        self.doubted = Doubted(entry, seen.now_ms)
        return Held(Progress(f"{seen.state.name_of(seen.host.key)}'s clock runs ahead of this "
                             "machine's: asking the other players to move the table on "
                             f"({why})"))

    def deadline(self, seen: Watched) -> int | None:
        """When ``trust_due`` gives the doubted entry back, if one is held."""
        held = self.doubted
        return None if held is None or seen.stopped else held.since_ms + CLOCK_DOUBT_MS

    def trust_due(self, seen: Watched) -> Entry | None:
        """The doubted entry, once no hand-over came for it in ``CLOCK_DOUBT_MS``: the
        others trust the clock, so the peer takes it, and the pace is measured afresh."""
        due = self.deadline(seen)
        if self.doubted is None or due is None or seen.now_ms < due:
            return None
        entry, self.doubted = self.doubted.entry, None
        self.clock.reanchor()
        return entry

    def logged(self, entry: Entry) -> None:
        """``entry`` was accepted: one of ours bounds later clocks; a hand-over at or
        after the doubted entry's number took its place."""
        self.clock.logged(entry)
        if self.doubted is not None and entry.seq >= self.doubted.entry.seq:
            self.doubted = None

    def new_term(self) -> None:
        """A hand-over: the new sequencer's clock and conduct are watched afresh."""
        self.clock = ClockWatch()
        self.censorship = CensorshipWatch()

    # -- censorship (§6.2) -----------------------------------------------------------------
    def show(self, message: Message, seen: Watched) -> list[Outgoing]:
        """Our message the sequencer has sat on: show it to every seated peer, who keep
        it as evidence (and the sequencer may get it this way if its path lost it)."""
        others = tuple(p for p in seen.state.seats if p != seen.me)
        return [Outgoing(others, frame(FRAME_RELAY, message.encode()))] if others else []

    def hear_relay(self, message: Message, ledger: Ledger, seen: Watched) -> list[Outgoing]:
        """A member's signed message relayed to us (frame ``R``, §6.2, §13.1): keep it as
        evidence, and pass it on to the sequencer once, so that a message shown to some
        peers only still reaches the sequencer. Unlogged while the sequencer stays
        silent, it is work the sequencer owes (``Succession``, through ``relayed_ms``)."""
        kept = self.censorship.consider(message, ledger, seen.me, seen.now_ms)
        if kept and not seen.hosting and seen.host != message.author:
            return [Outgoing((seen.host,), frame(FRAME_RELAY, message.encode()))]
        return []

    def censored(self, entry: Entry, before: TableState, next_counter: int,
                 now_ms: int) -> Censored | None:
        """After ``entry`` (``before``: the table before it; ``next_counter``: its author's
        next number in our log): the relayed message it proves was censored, if any."""
        held = self.censorship.logged(entry, before, next_counter, now_ms)
        if held is None:
            return None
        name = before.name_of(held.message.author.key)
        return Censored(entry, held.message,
                        f"the sequencer says {name} did not answer, but {name}'s signed "
                        f"message had been shown to us at entry {held.seen_at}")

    def relayed_ms(self, next_counter: Callable[[PeerId], int]) -> tuple[int, ...]:
        """When each member's relayed message that is not logged yet came (our clock)."""
        return tuple(held.at_ms for held in self.censorship.relayed.values()
                     if held.message.counter >= next_counter(held.message.author))
