"""The sequencer (host) role: order, check, countersign; nothing more.

docs/protocol/table.md §7. The sequencer checks every message exactly as
every peer will check the entry (the chain's rules, then the table's), so it
never countersigns an invalid entry. What it refuses:

- a *race* (an out-of-turn move the engine now refuses, from an author that
  had not seen the latest entries) is dropped, not logged, and its author
  told (``Drop``), so it can decide again;
- a replay of a logged message is dropped silently;
- a message whose signature does not verify, or (after the start) whose
  author holds no seat, is dropped silently: its author is told nothing
  (a notice would let whoever forged it make the author sign its number
  again, table.md §3.1), and the link it came by is reported (``forged``);
- anything else is cheating: the sequencer logs an ``Abort`` naming the
  author, with the signed message as evidence, which every peer re-checks.

It also keeps the table clock (``Clock`` entries) and proposes time-outs:
a ``TimeOut`` move when the turn timer has run out (peers accept it only if
the engine agrees from the logged times), an ``Abort`` naming a peer that
owes the table work and has not answered for ``response_timeout_ms``: a
``Remove`` when the rules let the seat go (table.md §14), else the closing
``Abort``. Never its own seat: its own work is late only on its own machine.

Its timers are its own private view (table.md §6.3), so they hold back where
that view is the likelier fault: while no other seat is in reach (this
sequencer is the one cut off, and what it logged alone would reach nobody),
and for ``WAKE_GRACE_MS`` after a timer fired ``WOKE_LATE_MS`` late (this
machine was away: a paused process, a closed lid, a starved core). While
alone, and for ``WAKE_GRACE_MS`` after an away as long as the hand-over time-out,
it logs nothing at all (it is *quiet*): the others may have handed the table on
meanwhile, and an entry logged then would fork its own log from the table's.
What comes meanwhile is kept and logged when the quiet ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import IllegalAction, RemoteProtocolError
from uno_p2p.rules.actions import TimeOut
from uno_p2p.rules.state import required
from uno_p2p.table.bodies import Abort, Clock, Move, Remove
from uno_p2p.table.duties import turn_deadline, waiting_for
from uno_p2p.table.events import TableEvent
from uno_p2p.table.handover import HOST_LOST_AFTER_MS
from uno_p2p.table.ledger import Ledger, check_message, refused
from uno_p2p.table.outbox import Outbox
from uno_p2p.table.removal import awaited, removable
from uno_p2p.table.state import Misbehaviour, TablePhase, TableState
from uno_p2p.wire.chain import ChainError
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.lobby import MAX_PLAYERS
from uno_p2p.wire.registry import Body

#: A Clock entry precedes a message when the sequencer's clock moved this much.
CLOCK_STEP_MS = 500
#: How long the table waits for a peer that owes it work before stopping the game.
RESPONSE_TIMEOUT_MS = 60_000
#: A timer that fires this much after it was due: this machine, not a player, was
#: away. Far above a busy machine's timer lateness (tens of milliseconds, at most a
#: few hundred at load 10), far below a closed lid.
WOKE_LATE_MS = 5_000
#: How long a sequencer that was away waits before it times anyone out. The others
#: saw it gone and may have handed the table on (table.md §13.1, after 15 s); their
#: links take a few redials to come back and tell it so. Timing them out first would
#: log, alone, entries the table never sees.
WAKE_GRACE_MS = 15_000
#: An away this long, and the others may have handed the table on (table.md §13.1):
#: the sequencer back from it logs nothing for ``WAKE_GRACE_MS`` (§6.3). A shorter
#: one (a starved core) only holds its time-outs: no member can have voted yet, and
#: holding the table's moves for the grace would make the members vote.
QUIET_AFTER_AWAY_MS = HOST_LOST_AFTER_MS
#: The host's own messages kept while it is quiet: its initiative waits meanwhile
#: (``TablePeer``), so only what its person does at the lobby (kick, options, start)
#: comes; more than this is a person pressing keys at a table that cannot hear them.
HELD_OWN_MAX = 8
LIVE = (TablePhase.KEYS, TablePhase.PLAYING)
#: Phases in which the table waits for a seat's work and times it out (table.md §6).
WAITING = (*LIVE, TablePhase.REVEALING)


@dataclass(frozen=True, slots=True)
class Drop:
    """A message the sequencer did not log, and why (sent back to its author only)."""

    author: bytes
    counter: int
    code: str
    reason: str
    #: ``Message.hash`` of the message not logged: its author acts on the notice only
    #: if it sent that very message (table.md §3.1).
    digest: bytes


#: The host's own message, made when it is logged (it takes the counter then).
Maker: TypeAlias = Callable[[int], Body]


@dataclass(slots=True)
class Outcome:
    """What one submission produced: the entries logged (with their facts), any drop,
    and why the message was not its author's (``forged``: a bad signature), if so."""

    entries: list[tuple[Entry, list[TableEvent]]] = field(default_factory=list)
    drop: Drop | None = None
    forged: str = ""


class Sequencer:
    """Orders the table's messages into the host's ledger (which every peer mirrors)."""

    def __init__(self, identity: Identity, ledger: Ledger,
                 response_timeout_ms: int = RESPONSE_TIMEOUT_MS, *,
                 outbox: Outbox | None = None, progress_ms: int = 0) -> None:
        self.identity = identity
        self.ledger = ledger
        #: The host's own message numbers: its peer's outbox (table.md §3.1), so the
        #: host keeps one count, whichever of the two signs.
        self.outbox = Outbox() if outbox is None else outbox
        self.response_timeout_ms = response_timeout_ms
        #: When the table last progressed as far as this sequencer knows (its response
        #: time-out runs from it): a seat that finds itself the sequencer in its log counts
        #: from when it did (table.md §9, §13.3), a new table from 0.
        self.last_progress_ms = progress_ms
        #: Peers the shell reported gone (links down past its time-out), table.md §14.
        self.lost: set[bytes] = set()
        #: The old host after a hand-over: a majority already held it gone (§13.1), so
        #: the table does not wait the response time-out for it again (§14.1).
        self.gone: set[bytes] = set()
        #: No time-out before this (``WAKE_GRACE_MS`` after this machine was away, or
        #: after it was alone).
        self.hold_until_ms = 0
        #: When the shell last said this machine runs (``awake``); 0: it never says.
        self.awake_ms = 0
        #: Whether the last look at the timers found this sequencer alone.
        self.was_alone = False
        #: Nothing logged before this (``WAKE_GRACE_MS`` after this machine was away
        #: ``QUIET_AFTER_AWAY_MS``, table.md §6.3); 0 once that quiet is over.
        self.quiet_until_ms = 0
        #: What came while quiet: each seat's latest message (one in flight each,
        #: §3.1), in the order they came, then the host's own, logged when it ends.
        self.held: dict[bytes, Message] = {}
        self.held_own: list[Maker] = []

    @property
    def counter(self) -> int:
        """The number the host's next own message takes (its outbox's)."""
        return self.outbox.counter

    def awake(self, now_ms: int) -> None:
        """The shell runs, now (it says so every fraction of a second while it does):
        a gap of ``WOKE_LATE_MS`` since it last said so means this machine was away,
        however on time the next timer looks (table.md §6.3)."""
        away_ms = now_ms - self.awake_ms if self.awake_ms else 0
        if away_ms >= WOKE_LATE_MS:
            self.hold_until_ms = max(self.hold_until_ms, now_ms + WAKE_GRACE_MS)
        if away_ms >= QUIET_AFTER_AWAY_MS:
            self.quiet_until_ms = max(self.quiet_until_ms, now_ms + WAKE_GRACE_MS)
        self.awake_ms = max(self.awake_ms, now_ms)

    def heard(self, now_ms: int) -> None:
        """The shell handed on input, now (a frame, our own move, a timer): once the shell
        says it runs at all, any input is such a word (``awake``). The frames that waited
        in the socket while this machine was away come before the shell's next
        ``awake``, and must not be logged on the old view of the table (table.md §6.3):
        each path that may log one hears the shell first, then asks ``quiet``."""
        if self.awake_ms:
            self.awake(now_ms)

    def quiet(self, now_ms: int) -> bool:
        """Whether this sequencer logs nothing now (table.md §6.3): alone, or within the
        grace after a long away (as the shell's words so far, ``heard``, say)."""
        return self.alone() or now_ms < self.quiet_until_ms

    def release(self, now_ms: int) -> list[Outcome]:
        """Log what came while this sequencer was quiet, in the order it came, once it
        is no longer: each message checked as if it came now (one outcome each, for
        its entries and its drop)."""
        self.heard(now_ms)
        if self.quiet(now_ms):
            return []
        self.quiet_until_ms = 0
        held, self.held = list(self.held.values()), {}
        own, self.held_own = self.held_own, []
        return [*(self.submit(message, now_ms) for message in held),
                *(self.submit_own(make, now_ms) for make in own)]

    def lose(self, key: bytes) -> None:
        """The shell says ``key``'s links are down past its time-out (table.md §14); the
        last one lost leaves this sequencer alone (§6.3)."""
        self.lost.add(key)
        if self.alone():
            self.was_alone = True

    def depose(self, key: bytes) -> None:
        """``key`` was the sequencer before this one took over (table.md §14.1): a
        majority held it gone already, so the table does not wait the response time-out
        for it again. It is lost as any seat the shell reports (``lose``: the last one
        lost leaves this sequencer alone, §6.3), and gone until it is ``back``."""
        self.lose(key)
        self.gone.add(key)

    def back(self, key: bytes) -> None:
        """A frame came from ``key``, or the shell reaches it again: no longer gone."""
        self.lost.discard(key)
        self.gone.discard(key)

    # -- ordering -----------------------------------------------------------------------
    def submit(self, message: Message, now_ms: int) -> Outcome:
        """Check a peer's message and log it, or drop it, or stop the game naming its author."""
        outcome = Outcome()
        state = self.ledger.state
        if state.handovers and message.head.seen <= state.handovers[-1][0]:
            # table.md §13.3: signed before the hand-over, void; its author signs anew.
            return outcome
        if state.phase != TablePhase.LOBBY and state.seat_of(message.author.key) is None:
            # table.md §7.2: after the start only the seats speak. A key with no seat
            # (a stranger on the LAN, a removed seat) is not worth an entry, a notice
            # or an abort: anyone can make a key.
            return outcome
        try:
            message.verify()
        except RemoteProtocolError as error:
            outcome.forged = str(error)
            return outcome
        self.heard(now_ms)
        if self.quiet(now_ms):
            self._hold(message)
            return outcome
        self._clock(outcome, now_ms, message)
        try:
            checked = self._check(message)
        except ChainError as error:
            self._refuse_chain(outcome, message, error)
            return outcome
        except Misbehaviour as error:
            if self._grace(error, now_ms):
                self._log(outcome, self._sign(Clock(now_ms)), now_ms)
                return self._retry(outcome, message, now_ms)
            self._refuse(outcome, message, error)
            return outcome
        self._log(outcome, message, now_ms, checked)
        return outcome

    def _hold(self, message: Message) -> None:
        """Keep ``message`` for when the quiet ends: its author's latest only (one in
        flight, table.md §3.1), and in the lobby, where keys without a seat may speak,
        no more authors than a table has seats (the others join again, §3.2)."""
        key = message.author.key
        if key in self.held or len(self.held) < MAX_PLAYERS:
            self.held.pop(key, None)
            self.held[key] = message

    def _retry(self, outcome: Outcome, message: Message, now_ms: int) -> Outcome:
        more = self.submit(message, now_ms)
        outcome.entries.extend(more.entries)
        outcome.drop = more.drop
        return outcome

    def submit_own(self, make: Maker, now_ms: int) -> Outcome:
        """Sign and log one of the host's own bodies (``make`` gets its counter); kept,
        and logged later, while the sequencer is quiet.

        Raises:
            Misbehaviour / ChainError: the host's own message is invalid (a bug:
                the host checks its moves first).
        """
        outcome = Outcome()
        self.heard(now_ms)
        if self.quiet(now_ms):
            if len(self.held_own) < HELD_OWN_MAX:
                self.held_own.append(make)
            return outcome
        self._clock(outcome, now_ms, None)
        message = self._sign_with(make)
        try:
            checked = self._check(message)
        except Misbehaviour as error:
            if not self._grace(error, now_ms):
                raise
            # The host's own move at the end of the UNO grace period: its clock has passed
            # the deadline, the log's not yet (a step under CLOCK_STEP_MS). Log the time,
            # then the move, as for a peer's (table.md §6).
            self._log(outcome, self._sign(Clock(now_ms)), now_ms)
            message = self._sign_with(make)
            checked = self._check(message)
        self._log(outcome, message, now_ms, checked)
        return outcome

    def take_over(self, body: Body, now_ms: int) -> Outcome:
        """Log the ``handover`` entry that makes this peer the sequencer (table.md §13.3):
        its own message, countersigned by itself, right after the head the votes hold.

        Raises:
            Misbehaviour / ChainError: the hand-over is refused (a bug: the election
                checks the votes first).
        """
        outcome = Outcome()
        message = self._sign(body)
        self._log(outcome, message, now_ms, self._check(message))
        self.last_progress_ms = now_ms
        return outcome

    def _check(self, message: Message) -> tuple[TableState, list[TableEvent]]:
        self.ledger.chain.check_message(message)
        return check_message(self.ledger.state, message, self.ledger.view)

    def _sign(self, body: Body) -> Message:
        return self._sign_with(lambda _: body)

    def _sign_with(self, make: Callable[[int], Body]) -> Message:
        state = self.ledger.state
        return self.outbox.sign_logged(self.identity, state.table_id, self.ledger.head, make,
                                       version=state.version)

    def _log(self, outcome: Outcome, message: Message, now_ms: int,
             checked: tuple[TableState, list[TableEvent]] | None = None) -> None:
        head = self.ledger.head
        entry = Entry.countersign(self.identity, head.seen, head.hash, message)
        if checked is None:
            events = self.ledger.accept(entry)
        else:
            events = self.ledger.accept_checked(entry, *checked)
        if message.author == self.identity.peer:
            self.outbox.logged(message.counter)
        if not isinstance(message.body, Clock):
            # A time-out is progress too (table.md §6): the table waits afresh, and the
            # seat that owes the next work gets its full time from here.
            self.last_progress_ms = max(self.last_progress_ms, now_ms)
        outcome.entries.append((entry, events))

    def _clock(self, outcome: Outcome, now_ms: int, message: Message | None) -> None:
        state = self.ledger.state
        if state.phase in LIVE and not state.clock_started:
            # The start clock (table.md §6.1): the first entry after the start, before
            # anything is timed, so that every peer can measure the clock from it.
            self._log(outcome, self._sign(Clock(max(now_ms, state.clock_ms))), now_ms)
        elif state.phase in LIVE and now_ms >= state.clock_ms + CLOCK_STEP_MS and (
                message is None or isinstance(message.body, Move)):
            self._log(outcome, self._sign(Clock(now_ms)), now_ms)

    @staticmethod
    def _grace_rule(error: Misbehaviour) -> bool:
        """A move the engine held back only for the UNO grace period (a race, not a cheat)."""
        cause = error.__cause__
        return (error.code == "illegal_move" and isinstance(cause, IllegalAction)
                and cause.rule == "catch_grace_ms")

    def _grace(self, error: Misbehaviour, now_ms: int) -> bool:
        return self._grace_rule(error) and now_ms > self.ledger.state.clock_ms

    # -- refusals (table.md §7.2) ---------------------------------------------------------
    def _refuse_chain(self, outcome: Outcome, message: Message, error: ChainError) -> None:
        if error.code == "replayed_message":
            return  # a copy of a logged message: nothing to do
        if error.code == "equivocation" and self.ledger.state.phase in LIVE:
            if not self.ledger.chain.holds(message.head):
                # table.md §7.2: signed on a chain this log does not hold (the table
                # handed the sequencer on while this one was away, §13.3: its author
                # signed that number anew there). It proves nothing and is set aside.
                return
            self._abort(outcome, message, error.code, "signed two messages with one number")
            return
        outcome.drop = _drop(message, error.code, str(error))

    def _refuse(self, outcome: Outcome, message: Message, error: Misbehaviour) -> None:
        state = self.ledger.state
        if state.phase not in LIVE or self._grace_rule(error) or \
                not refused(state, message, self.ledger.view):
            outcome.drop = _drop(message, error.code, str(error))
            return
        self._abort(outcome, message, error.code, str(error))

    def _abort(self, outcome: Outcome, message: Message, code: str, reason: str) -> None:
        body = Abort(message.author, code, reason[:200], message.encode())
        self._log(outcome, self._sign(body), self.last_progress_ms)
        outcome.drop = _drop(message, code, reason)

    # -- timers (table.md §6) -------------------------------------------------------------
    def next_timer(self) -> int | None:
        """When ``tick`` has something to do, if ever: never while this sequencer is
        alone, and not before a wake-up's grace has run out; at its end, the quiet
        is over (``release``)."""
        if self.alone():
            return None
        quiet = [self.quiet_until_ms] if self.quiet_until_ms else []
        deadlines = []
        turn = self._turn_deadline()
        if turn is not None:
            deadlines.append(turn)
        if self._late():
            deadlines.append(self.last_progress_ms + self.response_timeout_ms)
        if self._gone_awaited():
            deadlines.append(self.last_progress_ms)
        timeouts = [max(min(deadlines), self.hold_until_ms)] if deadlines else []
        return min(quiet + timeouts, default=None)

    def alone(self) -> bool:
        """Every other seat out of reach, as the shell reports: as far as this sequencer
        can tell, it is the one cut off (table.md §6.3)."""
        me, removed = self.identity.peer, {peer for _, peer, _ in self.ledger.state.removed}
        others = [p.key for p in self.ledger.state.seats if p != me and p not in removed]
        return bool(others) and all(key in self.lost for key in others)

    def _turn_deadline(self) -> int | None:
        state = self.ledger.state
        # The game waits for a peer's work, not for the player (duties.turn_deadline).
        return None if waiting_for(state) else turn_deadline(state)

    def _lost_awaited(self) -> list[int]:
        """Seats the shell reported gone whose decision the table waits for."""
        state = self.ledger.state
        return [s for s, p in enumerate(state.seats) if p.key in self.lost and awaited(state, s)
                and p != self.identity.peer]

    def _late(self) -> list[int]:
        """The seats the table waits for, other than ours, in seat order: the ones the
        response time-out runs for. Our own seat's work is on its way (computed on this
        machine, however busy), never a reason to stop or name anyone."""
        state = self.ledger.state
        if state.phase not in WAITING:
            return []
        mine = state.seat_of(self.identity.peer.key)
        return sorted({*waiting_for(state), *self._lost_awaited()} - {mine})

    def removal_due(self) -> tuple[int, int] | None:
        """The first seat the response time-out runs for, and when it runs out (for the
        shell's words: "waiting for Bo's cards, removed in 45 s"), if any."""
        late = self._late()
        if not late:
            return None
        return late[0], self.last_progress_ms + self.response_timeout_ms

    def _gone_awaited(self) -> list[int]:
        """The old host's seat, out of reach, when the table waits for it and the rules
        let it go: removed at once (table.md §14.1)."""
        state = self.ledger.state
        if state.phase not in WAITING:
            return []
        # ``gone`` is a part of ``lost``: both are set at the hand-over, and ``back``
        # clears both.
        return [s for s in self._late() if state.seats[s].key in self.gone
                and not removable(state, state.seats[s], self.identity.peer)]

    def tick(self, now_ms: int) -> Outcome:
        """Time out the player whose turn ran out, or stop a game a peer stalls."""
        outcome = Outcome()
        if self.alone():
            return outcome
        due = self.next_timer()
        if due is None or now_ms < due:
            return outcome
        away = now_ms - due >= WOKE_LATE_MS or \
            (self.awake_ms > 0 and now_ms - self.awake_ms >= WOKE_LATE_MS)
        if away or self.was_alone:
            # This machine was away, or alone (table.md §6.3): whoever looks late may be
            # waiting for us, or may have handed the table on. Give their links, and
            # the entries they bring, time first.
            self.was_alone = False
            self.hold_until_ms = max(self.hold_until_ms, now_ms + WAKE_GRACE_MS)
            return outcome
        turn = self._turn_deadline()
        state = self.ledger.state
        if turn is not None and now_ms >= turn:
            seat = required(state.game.current, "player with the turn")  # a deadline: one has
            if now_ms > state.clock_ms:
                self._log(outcome, self._sign(Clock(now_ms)), now_ms)
            self._log(outcome, self._sign(Move(TimeOut(seat))), now_ms)
            return outcome
        late = self._late()
        gone = self._gone_awaited()
        if gone or (late and now_ms >= self.last_progress_ms + self.response_timeout_ms):
            culprit = state.seats[(gone or late)[0]]
            if not removable(state, culprit, self.identity.peer):
                # table.md §14: a seat that vanished is removed; the game goes on.
                if now_ms > state.clock_ms:
                    self._log(outcome, self._sign(Clock(now_ms)), now_ms)
                self._log(outcome, self._sign(Remove(culprit, "did not answer in time")),
                          now_ms)
                return outcome
            if state.phase == TablePhase.REVEALING:
                # The closing entry (table.md §8): the log ends here, and says why.
                body = Abort(culprit, "missing_reveal", "did not reveal in time")
            else:
                body = Abort(culprit, "unresponsive", "did not answer in time")
            self._log(outcome, self._sign(body), now_ms)
        return outcome


def _drop(message: Message, code: str, reason: str) -> Drop:
    return Drop(message.author.key, message.counter, code, reason, message.hash)


__all__ = ["Drop", "Outcome", "Sequencer"]
