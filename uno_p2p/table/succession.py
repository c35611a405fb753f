"""One peer's side of a hand-over: noticing the host is gone, voting, taking over,
and following the new sequencer (docs/protocol/table.md §13.1-§13.4).

Functions over a ``TablePeer`` (kept apart so the peer stays readable); the
rules a ``handover`` entry must meet are ``uno_p2p.table.handover``'s, checked by
the ledger like any other entry's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import InvalidMessage, RemoteProtocolError
from uno_p2p.rules.state import TIMED_PHASES
from uno_p2p.table.bodies import Handover, Remove
from uno_p2p.table.duties import waiting_for
from uno_p2p.table.events import PeerMisbehaved, Progress
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_RELAY, FRAME_VOTE, frame
from uno_p2p.table.handover import (
    HOST_LOST_AFTER_MS,
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
from uno_p2p.table.sequencer import RESPONSE_TIMEOUT_MS, WAITING, Sequencer
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.table.watch import CensorshipWatch, ClockWatch
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.limits import RELAY_AFTER_MS

if TYPE_CHECKING:
    from uno_p2p.table.peer import TablePeer


def can_vote(peer: TablePeer) -> bool:
    """A member of a table that is not over, and not the sequencer itself."""
    state = peer.state
    return (peer.sequencer is None and peer.stopped is None
            and state.phase != TablePhase.ENDED and peer.peer_id in members(state)
            and state.host is not None and peer.peer_id != state.host)


def deadline(peer: TablePeer) -> int | None:
    """When ``tick`` has something to do for the succession, if ever."""
    if not can_vote(peer) and peer.election is None:
        return None
    election = peer.election
    if election is not None:
        times = []
        if election.new == peer.peer_id and peer.now_ms < election.started_ms + VOTE_WAIT_MS:
            times.append(election.started_ms + VOTE_WAIT_MS)
        if peer.heard_host_ms > election.started_ms:
            # The sequencer spoke since: give the election up if no majority came.
            times.append(election.started_ms + HOST_LOST_AFTER_MS)
        return min(times) if times else None
    state = peer.state
    if state.host is None or successor(state, state.host) is None:
        return None  # nobody to vote for: no timer (it would fire for ever)
    owed = owed_since(peer)
    # We hold the host lost by ourselves HOST_LOST_AFTER_MS after it owes us something;
    # having heard another member's vote, we join it as soon as we doubt (RELAY_AFTER_MS).
    times = [since + HOST_LOST_AFTER_MS for since in owed]
    if peer.heard_votes:
        times.extend(since + RELAY_AFTER_MS for since in owed)
    return min(times) if times else None


def owed_since(peer: TablePeer) -> list[int]:
    """Since when (this peer's clock) the sequencer owes something this peer can see
    (table.md §13.1): an answer to our own message, the logging of a member's signed
    message relayed to us, its own seat's work, or the time-out entry it must log when
    the table has waited for another seat (or a timed decision) its full time.

    Silence alone is no evidence: an honest sequencer is silent while the table waits
    for another seat, and that seat's stall must be named by the sequencer's time-out
    (the closing ``abort``, a ``remove``), not turned into a hand-over.
    """
    owed = []
    sent = peer.outbox.in_flight
    if sent is not None:
        owed.append(sent.at_ms)
    relayed = _relayed_since(peer)
    if relayed is not None:
        owed.append(relayed)
    state = peer.state
    if state.phase in WAITING and state.host is not None:
        waiting = waiting_for(state)
        if _host_owes_work(state, state.host, waiting):
            owed.append(peer.heard_host_ms)
        due = _host_timeout_due(state, waiting)
        if due is not None:
            owed.append(peer.heard_host_ms + due)
    return owed


def _doubts_host(peer: TablePeer) -> bool:
    """Whether this peer itself has reason to believe another member's vote (§13.1): the
    sequencer has owed it something for ``RELAY_AFTER_MS`` (``owed_since``). One member
    alone cannot depose a host that others hear, nor one that waits for another seat."""
    return any(peer.now_ms >= since + RELAY_AFTER_MS for since in owed_since(peer))


def _host_owes_work(state: TableState, host: PeerId, waiting: list[int]) -> bool:
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


def _host_timeout_due(state: TableState, waiting: list[int]) -> int | None:
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


def _relayed_since(peer: TablePeer) -> int | None:
    """When the oldest member's message that was relayed to us, passed on to the
    sequencer and not logged came, if the sequencer has said nothing since (§13.1)."""
    times = [held.at_ms for held in peer.censorship.relayed.values()
             if held.at_ms >= peer.heard_host_ms and
             held.message.counter >= peer.ledger.chain.next_counter(held.message.author)]
    return min(times) if times else None


def hear_relay(peer: TablePeer, message: Message) -> None:
    """A member's signed message relayed to us (frame ``R``, table.md §6.2, §13.1): keep it
    as evidence, and pass it on to the sequencer once, so that a message shown to some
    peers only still reaches the sequencer. Unlogged while the sequencer stays silent,
    it is work the sequencer owes (``owed_since``)."""
    key = message.author.key
    before = peer.censorship.relayed.get(key)
    peer.censorship.consider(message, peer.ledger, peer.peer_id, peer.now_ms)
    held = peer.censorship.relayed.get(key)
    if held is None or held is before:
        return  # not evidence, or a message we already passed on
    if peer.sequencer is None and peer.host_id != message.author:
        peer._out.append(Outgoing((peer.host_id,), frame(FRAME_RELAY, message.encode())))


def tick(peer: TablePeer) -> None:
    """The host has been silent too long: start the election; the successor hands over
    with a bare majority once it has waited ``VOTE_WAIT_MS`` for the rest."""
    election = peer.election
    if election is not None:
        take_over(peer)
        if peer.election is election and peer.heard_host_ms > election.started_ms and \
                peer.now_ms >= election.started_ms + HOST_LOST_AFTER_MS:
            # §13.1: the others still hear the sequencer, so no majority came: we were
            # wrong (or alone cut off). Play on; our vote stays valid for this term.
            peer.election = None
            peer._events.append(Progress("the sequencer is back: no hand-over"))
        return
    due = deadline(peer)
    if due is not None and peer.now_ms >= due:
        host_lost(peer)


def host_lost(peer: TablePeer) -> None:
    """The sequencer is gone (the shell says so, or it stayed silent past the time-out):
    vote for its successor with our head, to every member but the old sequencer."""
    if peer.election is not None or not can_vote(peer):
        return
    state = peer.state
    old = state.host
    new = None if old is None else successor(state, old)
    if old is None or new is None:
        return
    peer.election = Election(state.term + 1, old, new, peer.now_ms)
    for heard in peer.heard_votes.values():
        peer.election.hear(heard)
    peer.heard_votes.clear()
    peer._events.append(Progress(f"{state.name_of(old.key)} (the sequencer) is gone: "
                                 f"{state.name_of(new.key)} takes over"))
    _vote(peer)


def _vote(peer: TablePeer) -> None:
    """Sign our vote for our head: the first to every member (so they may join), a new
    one after catching up to the successor only (it alone counts them)."""
    election = peer.election
    if election is None:
        return
    again = election.mine is not None
    vote = Vote.sign(peer.identity, peer.table_id, election.term, election.old, election.new,
                     peer.ledger.head)
    election.mine = vote
    election.hear(vote)
    others = tuple(p for p in members(peer.state) if p not in (peer.peer_id, election.old)
                   and (not again or p == election.new))
    if others:
        peer._out.append(Outgoing(others, frame(FRAME_VOTE, vote.encode())))
    take_over(peer)


def hear_vote(peer: TablePeer, payload: bytes, sender: PeerId | None) -> None:
    """A member's vote: join the election, send the voter what it lacks, and count it.

    Raises:
        InvalidMessage: a malformed or unsigned vote (the caller names no one: anyone
            can send bytes).
    """
    vote = decode_vote(payload, peer.table_id)
    state = peer.state
    if vote.voter not in members(state) or state.phase == TablePhase.ENDED:
        return
    heir = None if state.host is None else successor(state, state.host)
    if sender is not None and heir in (peer.peer_id, vote.voter):
        _supply(peer, vote)
    for held in (peer.election, peer.past_election, None):
        votes = peer.heard_votes if held is None else held.votes
        known = votes.get(vote.voter.key)
        if known is not None and double_vote(known, vote, peer.table_id):
            # §13.5: the two signed votes are the evidence; the peer keeps them.
            peer._events.append(PeerMisbehaved(
                vote.voter, state.name_of(vote.voter.key), None, "double_vote",
                f"voted for two sequencers in term {vote.term}"))
            return
    if peer.election is None and vote.term == state.term + 1 and vote.old == state.host:
        known = peer.heard_votes.get(vote.voter.key)
        if known is None or known.head.seen < vote.head.seen:
            peer.heard_votes[vote.voter.key] = vote
        if _doubts_host(peer):
            host_lost(peer)
        return
    election = peer.election
    if election is not None and election.hear(vote):
        take_over(peer)


def _supply(peer: TablePeer, vote: Vote) -> None:
    """§13.3: the longest chain wins; every entry proves itself (countersigned). The
    successor sends each voter what it lacks, and anyone sends the successor what it
    lacks; each entry goes to a voter once (its next vote may still show an old head)."""
    supplied = max(vote.head.seen, peer.supplied.get(vote.voter.key, 0))
    if supplied < peer.state.seq:
        entries = peer.ledger.chain.entries[supplied:]
        peer.supplied[vote.voter.key] = peer.state.seq
        peer._out.extend(Outgoing((vote.voter,), frame(FRAME_ENTRY, e.encode()))
                         for e in entries)


def after_entry(peer: TablePeer, entry: Entry) -> None:
    """Follow a ``handover`` entry; during an election, vote again with a longer head."""
    body = entry.body
    if isinstance(body, Handover):
        _follow(peer, body)
        return
    if isinstance(body, Remove):
        # table.md §14: seat numbers changed and the void round's cards stay shut:
        # what we held of them is of no use any more.
        peer.sight.forget()
        if peer.sequencer is not None:
            peer.sequencer.back(body.peer.key)
    election = peer.election
    if election is not None and election.mine is not None and \
            election.mine.head != peer.ledger.head:
        if election.new == peer.peer_id:
            for vote in list(election.votes.values()):
                _supply(peer, vote)
        _vote(peer)


def _follow(peer: TablePeer, body: Handover) -> None:
    """The new term: send to the new sequencer, start afresh what depended on the old."""
    peer.host_id = body.new
    peer.past_election, peer.election = peer.election, None
    peer.heard_votes.clear()
    peer.supplied.clear()
    if body.new != peer.peer_id and peer.sequencer is not None:
        peer.sequencer = None  # a returning old host plays on as an ordinary peer (§13.4)
    if body.new == peer.peer_id and peer.sequencer is None:
        peer.sequencer = Sequencer(peer.identity, peer.ledger, outbox=peer.outbox)
        peer.sequencer.last_progress_ms = peer.now_ms
    if peer.sequencer is not None and body.new == peer.peer_id:
        # The old host is gone until it shows up again: a majority held it gone already,
        # so if the table waits for it, it is removed at once (§14.1).
        peer.sequencer.lost.add(body.old.key)
        peer.sequencer.gone.add(body.old.key)
    # Messages signed before the hand-over are void (§13.3): sign our work again.
    peer.outbox.new_term(peer.ledger.chain.next_counter(peer.peer_id))
    peer.clock_watch = ClockWatch()
    peer.censorship = CensorshipWatch()
    peer.heard_host_ms = peer.now_ms


def take_over(peer: TablePeer) -> None:
    """If this peer is the successor and holds enough votes for its own head, log the
    ``handover`` entry and become the sequencer (§13.3)."""
    election = peer.election
    if election is None or election.new != peer.peer_id or peer.stopped is not None:
        return
    head = peer.ledger.head
    if any(v.head.seen > head.seen for v in election.votes.values()):
        return  # a voter holds more: its entries are on their way to us
    votes = election.at(head)
    state = peer.state
    everyone = len(members(state)) - 1
    waited = peer.now_ms >= election.started_ms + VOTE_WAIT_MS
    if len(votes) < majority(state) or (len(votes) < everyone and not waited):
        return
    body = Handover(election.term, election.old, election.new,
                    tuple((v.voter, v.signature) for v in votes))
    try:
        check_handover(state, peer.peer_id, head, body)
    except HandoverRefused as error:  # a bug: the votes were checked on arrival
        peer._events.append(Progress(f"the hand-over is refused: {error}"))
        return
    peer.sequencer = Sequencer(peer.identity, peer.ledger, outbox=peer.outbox)
    peer.outbox.counter = peer.ledger.chain.next_counter(peer.peer_id)
    peer._order(peer.sequencer.take_over(body, peer.now_ms))


def relayed_ok(peer: TablePeer, entry: Entry) -> bool:
    """An entry from a peer other than the sequencer is kept only if it proves itself:
    countersigned by the sequencer of its place (§13.3). Anything else is dropped
    unnamed: anyone can send bytes, and they prove nothing."""
    if entry.seq > peer.state.seq:
        return True  # judged by the early-entry buffer, which verifies it
    signer = handover_successor(entry) or (
        peer.ledger.chain.sequencer if entry.seq >= peer.state.seq else
        peer.ledger.chain.sequencer_at(entry.seq))
    try:
        entry.verify_countersignature(signer)
    except RemoteProtocolError:
        return False
    return True


def supersede(peer: TablePeer, entry: Entry) -> None:
    """A ``handover`` at a number where our log holds another entry (we are the old
    host, or we held entries only it had): if it holds a majority's votes for our entry
    before it, our later entries were never agreed: forget them, so that it is taken as
    the next entry (§13.4). Anything else leaves our log as it is."""
    body = entry.body
    if not isinstance(body, Handover) or entry.seq >= peer.state.seq:
        return
    before = peer.ledger.state_at(entry.seq)
    mine = peer.ledger.chain.entry(entry.seq)
    if before is None or mine.hash == entry.hash or entry.prev_hash != (
            peer.ledger.chain.entry(entry.seq - 1).hash if entry.seq else b""):
        return
    try:
        entry.verify_countersignature(body.new)
        entry.message.verify(entry=entry.seq)
        check_handover(before, entry.author, entry.message.head, body)
    except (HandoverRefused, RemoteProtocolError, InvalidMessage):
        return
    lost = peer.state.seq - entry.seq
    peer.ledger.truncate(entry.seq)
    peer._events.append(Progress(f"{lost} entries of ours were never agreed: the table "
                                 f"went on from entry {entry.seq} without them"))


def rejoin(peer: TablePeer) -> None:
    """Back after being cut off (the shell calls this): ask every member for the entries
    after our head (``S``); any of them answers, the sequencer last (§13.4)."""
    from uno_p2p.table.frames import FRAME_SYNC, sync_request
    others = tuple(p for p in members(peer.state) if p != peer.peer_id)
    if others:
        if peer.sequencer is None:
            peer.outbox.start_sync()
        peer._out.append(Outgoing(others, frame(FRAME_SYNC, sync_request(peer.state.seq))))
