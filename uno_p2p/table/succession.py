"""One peer's side of a hand-over: noticing the host is gone, voting, taking over,
and following the new sequencer (docs/protocol/table.md §13.1-§13.4).

A part of the peer that owns its state, as ``Sequencer`` does: the election
under way, the last one, the votes heard before this peer itself doubted, how
far each voter was sent our entries, and when the sequencer last spoke. It
reads the peer through ``Seen``, a frozen view the peer builds per call, and
returns ``Steps`` the peer applies (the frames, the words, the ``handover`` to
log as the new sequencer, the entries to forget); the role switch itself is
the peer's. The rules a ``handover`` entry must meet are
``uno_p2p.table.handover``'s, checked by the ledger like any other entry's.

What this judges is *debt*: the sequencer owes this peer something it can see
and has not delivered (§13.1, ``owed_since``). Whether the sequencer is in
*reach* by any path is the mesh's judgement (``net/meshcore.py``,
``SequencerGone``), told to the peer as ``host_lost``: a different fact, that
alone tells a sleeping host from a thinking one, and one an in-memory table
never has.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import InvalidMessage, RemoteProtocolError
from uno_p2p.rules.state import TIMED_PHASES
from uno_p2p.table.bodies import Handover
from uno_p2p.table.duties import waiting_for
from uno_p2p.table.events import PeerMisbehaved, Progress, TableEvent
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_VOTE, frame
from uno_p2p.table.handover import (
    HOST_LOST_AFTER_MS,
    VOTE_RESEND_MS,
    VOTE_WAIT_MS,
    Election,
    HandoverRefused,
    Vote,
    check_handover,
    decode_vote,
    double_vote,
    handover_successor,
    majority,
    members,
    successor,
)
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.sequencer import RESPONSE_TIMEOUT_MS, WAITING
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.wire.envelope import Entry, Head
from uno_p2p.wire.limits import RELAY_AFTER_MS


class Chain(Protocol):
    """The part of the peer's chain the succession reads (``ChainVerifier`` is one)."""

    @property
    def sequencer(self) -> PeerId: ...

    @property
    def entries(self) -> tuple[Entry, ...]: ...

    def entry(self, seq: int) -> Entry: ...

    def sequencer_at(self, seq: int) -> PeerId: ...


class Log(Protocol):
    """The part of the peer's log the succession reads (``Ledger`` is one): read-only,
    so that what the succession decides about the log comes back as ``Steps``."""

    @property
    def head(self) -> Head: ...

    @property
    def chain(self) -> Chain: ...

    def state_at(self, seen: int) -> TableState | None: ...


@dataclass(frozen=True, slots=True)
class Seen:
    """What the succession reads of its peer at one call, built by the peer each time:
    the part never holds the peer, so it cannot change it."""

    state: TableState
    log: Log
    now_ms: int
    #: This peer is the sequencer now.
    hosting: bool
    #: This peer stopped taking entries (table.md §7.4).
    stopped: bool
    #: Since when our one message in flight waits for the sequencer (§3.1), if one does.
    sent_ms: int | None = None
    #: When each member's message relayed to us, and not logged yet, came (§6.2).
    relayed_ms: tuple[int, ...] = ()


@dataclass(slots=True)
class Steps:
    """What the peer does for the succession, in this order: send ``out``, tell
    ``events``, forget our entries from ``forget_from`` on (§13.4), and log
    ``handover`` as the new sequencer (§13.3)."""

    out: list[Outgoing] = field(default_factory=list)
    events: list[TableEvent] = field(default_factory=list)
    forget_from: int | None = None
    handover: Handover | None = None

    def then(self, more: Steps) -> Steps:
        """These steps, followed by ``more`` (a decision taken after these)."""
        self.out.extend(more.out)
        self.events.extend(more.events)
        self.forget_from = more.forget_from if self.forget_from is None else self.forget_from
        self.handover = more.handover if self.handover is None else self.handover
        return self


class Succession:
    """This peer's part in handing the sequencer role on (table.md §13)."""

    def __init__(self, identity: Identity, table_id: bytes) -> None:
        self.identity = identity
        self.table_id = table_id
        #: The election while the table has no sequencer, and the one before.
        self.election: Election | None = None
        self.past_election: Election | None = None
        #: Votes heard for the next term before this peer itself doubted the host.
        self.heard_votes: dict[bytes, Vote] = {}
        #: How far we sent each voter our entries during this election (§13.3).
        self.supplied: dict[bytes, int] = {}
        #: When (our clock) the sequencer last spoke to us.
        self.heard_host_ms = 0

    @property
    def me(self) -> PeerId:
        return self.identity.peer

    def heard_host(self, now_ms: int) -> None:
        """A frame came from the sequencer (or we only just came back): it spoke now."""
        self.heard_host_ms = now_ms

    def can_vote(self, seen: Seen) -> bool:
        """A member of a table that is not over, and not the sequencer itself."""
        state = seen.state
        return (not seen.hosting and not seen.stopped and state.phase != TablePhase.ENDED
                and self.me in members(state) and state.host is not None
                and self.me != state.host)

    # -- when ------------------------------------------------------------------------------
    def deadline(self, seen: Seen) -> int | None:
        """When ``tick`` has something to do for the succession, if ever."""
        election = self.election
        if election is not None:
            return self._election_deadline(seen, election)
        if not self.can_vote(seen):
            return None
        state = seen.state
        if state.host is None or successor(state, state.host) is None:
            return None  # nobody to vote for: no timer (it would fire for ever)
        owed = self.owed_since(seen)
        # We hold the host lost by ourselves HOST_LOST_AFTER_MS after it owes us something;
        # having heard another member's vote, we join it as soon as we doubt (RELAY_AFTER_MS).
        times = [since + HOST_LOST_AFTER_MS for since in owed]
        if self.heard_votes:
            times.extend(since + RELAY_AFTER_MS for since in owed)
        return min(times) if times else None

    def _election_deadline(self, seen: Seen, election: Election) -> int | None:
        times = []
        if election.new == self.me and seen.now_ms < election.started_ms + VOTE_WAIT_MS:
            times.append(election.started_ms + VOTE_WAIT_MS)
        if election.new != self.me and election.mine is not None:
            times.append(election.sent_ms + VOTE_RESEND_MS)
        if self.heard_host_ms > election.started_ms:
            # The sequencer spoke since: give the election up if no majority came.
            times.append(election.started_ms + HOST_LOST_AFTER_MS)
        return min(times) if times else None

    def owed_since(self, seen: Seen) -> list[int]:
        """Since when (this peer's clock) the sequencer owes something this peer can see
        (table.md §13.1): an answer to our own message, the logging of a member's signed
        message relayed to us, its own seat's work, or the time-out entry it must log when
        the table has waited for another seat (or a timed decision) its full time.

        Silence alone is no evidence: an honest sequencer is silent while the table waits
        for another seat, and that seat's stall must be named by the sequencer's time-out
        (the closing ``abort``, a ``remove``), not turned into a hand-over.
        """
        owed = [] if seen.sent_ms is None else [seen.sent_ms]
        # A relayed message counts while the sequencer has said nothing since it came.
        relayed = [at for at in seen.relayed_ms if at >= self.heard_host_ms]
        if relayed:
            owed.append(min(relayed))
        state = seen.state
        if state.phase in WAITING and state.host is not None:
            waiting = waiting_for(state)
            if _host_owes_work(state, state.host, waiting):
                owed.append(self.heard_host_ms)
            due = _host_timeout_due(state, waiting)
            if due is not None:
                owed.append(self.heard_host_ms + due)
        return owed

    def _doubts_host(self, seen: Seen) -> bool:
        """Whether this peer itself has reason to believe another member's vote (§13.1):
        the sequencer has owed it something for ``RELAY_AFTER_MS`` (``owed_since``). One
        member alone cannot depose a host that others hear, nor one that waits for
        another seat."""
        return any(seen.now_ms >= since + RELAY_AFTER_MS for since in self.owed_since(seen))

    # -- the election ----------------------------------------------------------------------
    def tick(self, seen: Seen) -> Steps:
        """The host has been silent too long: start the election; the successor hands over
        with a bare majority once it has waited ``VOTE_WAIT_MS`` for the rest."""
        election = self.election
        if election is None:
            due = self.deadline(seen)
            return self.host_lost(seen) if due is not None and seen.now_ms >= due else Steps()
        steps = self._vote_again(seen, election).then(self._take_over(seen))
        if steps.handover is None and self.heard_host_ms > election.started_ms and \
                seen.now_ms >= election.started_ms + HOST_LOST_AFTER_MS:
            # §13.1: the others still hear the sequencer, so no majority came: we were
            # wrong (or alone cut off). Play on; our vote stays valid for this term.
            self.election = None
            steps.events.append(Progress("the sequencer is back: no hand-over"))
        return steps

    def host_lost(self, seen: Seen) -> Steps:
        """The sequencer is gone (the shell says so, it stayed silent past the time-out,
        or its clock runs ahead): vote for its successor with our head, to every member
        but the old sequencer."""
        state = seen.state
        old = state.host
        new = None if old is None else successor(state, old)
        if self.election is not None or not self.can_vote(seen) or old is None or new is None:
            return Steps()
        election = self.election = Election(state.term + 1, old, new, seen.now_ms)
        for heard in self.heard_votes.values():
            election.hear(heard)
        self.heard_votes.clear()
        said = Progress(f"{state.name_of(old.key)} (the sequencer) is gone: "
                        f"{state.name_of(new.key)} takes over")
        return Steps(events=[said]).then(self._vote(seen, election))

    def _vote(self, seen: Seen, election: Election) -> Steps:
        """Sign our vote for our head: the first to every member (so they may join), a new
        one after catching up to the successor only (it alone counts them)."""
        again = election.mine is not None
        vote = Vote.sign(self.identity, self.table_id, election.term, election.old,
                         election.new, seen.log.head)
        election.mine, election.sent_ms = vote, seen.now_ms
        election.hear(vote)
        others = tuple(p for p in members(seen.state) if p not in (self.me, election.old)
                       and (not again or p == election.new))
        sent = [Outgoing(others, frame(FRAME_VOTE, vote.encode()))] if others else []
        return Steps(out=sent).then(self._take_over(seen))

    def _vote_again(self, seen: Seen, election: Election) -> Steps:
        """Our vote to the successor once more, ``VOTE_RESEND_MS`` after it last went
        out (§13.3): the link it took may have been down, and the successor counts a
        vote it holds once."""
        mine = election.mine
        if mine is None or election.new == self.me or \
                seen.now_ms < election.sent_ms + VOTE_RESEND_MS:
            return Steps()
        election.sent_ms = seen.now_ms
        return Steps(out=[Outgoing((election.new,), frame(FRAME_VOTE, mine.encode()))])

    def hear_vote(self, seen: Seen, payload: bytes, sender: PeerId | None) -> Steps:
        """A member's vote: join the election, send the voter what it lacks, and count it.

        Raises:
            InvalidMessage: a malformed or unsigned vote (the caller names no one: anyone
                can send bytes).
        """
        vote = decode_vote(payload, self.table_id)
        state = seen.state
        if vote.voter not in members(state) or state.phase == TablePhase.ENDED:
            return Steps()
        heir = None if state.host is None else successor(state, state.host)
        steps = Steps(out=self._supply(seen, vote) if sender is not None and
                      heir in (self.me, vote.voter) else [])
        double = self._double_vote(state, vote)
        if double is not None:
            steps.events.append(double)
            return steps
        return steps.then(self._count(seen, vote))

    def _double_vote(self, state: TableState, vote: Vote) -> PeerMisbehaved | None:
        """§13.5: a second vote of the voter's in this term for another sequencer: the
        two signed votes are the evidence; the peer keeps them."""
        for held in (self.election, self.past_election, None):
            votes = self.heard_votes if held is None else held.votes
            known = votes.get(vote.voter.key)
            if known is not None and double_vote(known, vote, self.table_id):
                return PeerMisbehaved(vote.voter, state.name_of(vote.voter.key), None,
                                      "double_vote",
                                      f"voted for two sequencers in term {vote.term}")
        return None

    def _count(self, seen: Seen, vote: Vote) -> Steps:
        """Keep a vote for the next term until we doubt the host too, or count it in our
        election (and take over if it was the one missing)."""
        state, election = seen.state, self.election
        if election is None and vote.term == state.term + 1 and vote.old == state.host:
            known = self.heard_votes.get(vote.voter.key)
            if known is None or known.head.seen < vote.head.seen:
                self.heard_votes[vote.voter.key] = vote
            return self.host_lost(seen) if self._doubts_host(seen) else Steps()
        if election is not None and election.hear(vote):
            return self._take_over(seen)
        return Steps()

    def _supply(self, seen: Seen, vote: Vote) -> list[Outgoing]:
        """§13.3: the longest chain wins; every entry proves itself (countersigned). The
        successor sends each voter what it lacks, and anyone sends the successor what it
        lacks; each entry goes to a voter once (its next vote may still show an old head)."""
        supplied = max(vote.head.seen, self.supplied.get(vote.voter.key, 0))
        seq = seen.state.seq
        if supplied >= seq:
            return []
        self.supplied[vote.voter.key] = seq
        return [Outgoing((vote.voter,), frame(FRAME_ENTRY, e.encode()))
                for e in seen.log.chain.entries[supplied:]]

    def after_entry(self, seen: Seen) -> Steps:
        """An entry other than a ``handover`` was accepted: during an election, vote again
        with our longer head (the successor first sends every voter what it lacks)."""
        election = self.election
        if election is None or election.mine is None or election.mine.head == seen.log.head:
            return Steps()
        steps = Steps()
        if election.new == self.me:
            for vote in list(election.votes.values()):
                steps.out.extend(self._supply(seen, vote))
        return steps.then(self._vote(seen, election))

    def follow(self, now_ms: int) -> None:
        """A ``handover`` was accepted: a new term, with no election, and a sequencer
        that spoke just now (the role switch is the peer's)."""
        self.past_election, self.election = self.election, None
        self.heard_votes.clear()
        self.supplied.clear()
        self.heard_host_ms = now_ms

    def _take_over(self, seen: Seen) -> Steps:
        """If this peer is the successor and holds enough votes for its own head, the
        ``handover`` entry it logs as the new sequencer (§13.3)."""
        election = self.election
        if election is None or election.new != self.me or seen.stopped:
            return Steps()
        head = seen.log.head
        if any(v.head.seen > head.seen for v in election.votes.values()):
            return Steps()  # a voter holds more: its entries are on their way to us
        votes = election.at(head)
        state = seen.state
        everyone = len(members(state)) - 1
        waited = seen.now_ms >= election.started_ms + VOTE_WAIT_MS
        if len(votes) < majority(state) or (len(votes) < everyone and not waited):
            return Steps()
        body = Handover(election.term, election.old, election.new,
                        tuple((v.voter, v.signature) for v in votes))
        try:
            check_handover(state, self.me, head, body)
        except HandoverRefused as error:  # a bug: the votes were checked on arrival
            return Steps(events=[Progress(f"the hand-over is refused: {error}")])
        return Steps(handover=body)


# -- what any member judges of an entry (§13.3-§13.4) ------------------------------------------
def relayed_ok(seen: Seen, entry: Entry) -> bool:
    """An entry from a peer other than the sequencer is kept only if it proves itself:
    countersigned by the sequencer of its place (§13.3). Anything else is dropped
    unnamed: anyone can send bytes, and they prove nothing."""
    seq, chain = seen.state.seq, seen.log.chain
    if entry.seq > seq:
        return True  # judged by the early-entry buffer, which verifies it
    signer = handover_successor(entry) or (
        chain.sequencer if entry.seq >= seq else chain.sequencer_at(entry.seq))
    try:
        entry.verify_countersignature(signer)
    except RemoteProtocolError:
        return False
    return True


def supersede(seen: Seen, entry: Entry) -> Steps:
    """A ``handover`` at a number where our log holds another entry (we are the old
    host, or we held entries only it had): if it holds a majority's votes for our entry
    before it, our later entries were never agreed: forget them, so that it is taken as
    the next entry (§13.4). Anything else leaves our log as it is."""
    body, log, seq = entry.body, seen.log, seen.state.seq
    if not isinstance(body, Handover) or entry.seq >= seq:
        return Steps()
    before = log.state_at(entry.seq)
    mine = log.chain.entry(entry.seq)
    if before is None or mine.hash == entry.hash or entry.prev_hash != (
            log.chain.entry(entry.seq - 1).hash if entry.seq else b""):
        return Steps()
    try:
        entry.verify_countersignature(body.new)
        entry.message.verify(entry=entry.seq)
        check_handover(before, entry.author, entry.message.head, body)
    except (HandoverRefused, RemoteProtocolError, InvalidMessage):
        return Steps()
    return Steps(events=[Progress(f"{seq - entry.seq} entries of ours were never agreed: the "
                                  f"table went on from entry {entry.seq} without them")],
                 forget_from=entry.seq)


# -- what the sequencer owes (§13.1 (3), (4)) --------------------------------------------------
def _host_owes_work(state: TableState, host: PeerId, waiting: Sequence[int]) -> bool:
    """The sequencer's own seat owes the table work it can do now (a key, a shuffle turn,
    shares, its reveal: ``waiting``, §4), or the table waits for no seat at all.

    A seat's duty is computed only once it can be done (a shuffle turn once the seat
    before has shuffled, a share once its card is ready), so another seat's stall never
    puts the sequencer's seat in ``waiting_for``. A decision of the sequencer's player
    (its turn, its verdict) is not work: a player may think (§13.1).
    """
    seat = state.seat_of(host.key)
    if seat is not None and seat in waiting:
        return True
    # No seat owes work: the table waits for a player's decision (removal.awaited), if any.
    game = state.engine
    if waiting or state.phase != TablePhase.PLAYING or game is None:
        return not waiting
    return game.decider() is None


def _host_timeout_due(state: TableState, waiting: Sequence[int]) -> int | None:
    """How long after it last spoke the sequencer must have logged its time-out entry,
    if the table waits for a seat's work or a timed decision: ``RESPONSE_TIMEOUT_MS``
    for a seat's work (then the closing ``abort``, an ``abort … unresponsive`` or a
    ``remove``, §6, §8, §14), the turn timer for a decision (a ``TimeOut``). Both run
    from an entry we received, so from no later than the last time we heard it."""
    if waiting:
        return RESPONSE_TIMEOUT_MS
    game = state.engine
    if state.phase == TablePhase.PLAYING and game is not None and \
            game.phase in TIMED_PHASES and game.options.turn_timer:
        return game.options.turn_timer * 1000
    return None


__all__ = ["Chain", "Log", "Seen", "Steps", "Succession", "relayed_ok", "supersede"]
