"""Handing the sequencer role on when the host is gone (docs/protocol/table.md §13).

Three parts, all pure:

- the *vote*: a seated peer's signature over (table, term, old sequencer, new
  sequencer, the head it holds), its bytes in ``vote_digest``;
- the *rule* (``check_handover``) every peer, the sequencer and the audit run on
  a ``handover`` entry: it follows the old sequencer's last entry that the
  voters hold, its author is the deterministic successor, and a strict
  majority of the seats signed a vote for exactly that head. Two hand-overs
  for one term need two majorities, so some seat voted twice: its two votes
  are the evidence (``double_vote``);
- the *election* (``Election``): what one peer remembers while the table has no
  sequencer: its own vote, the votes it heard, and when it started.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import CryptoError, InvalidMessage
from uno_p2p.table.bodies import Handover
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.wire import fields
from uno_p2p.wire.codec import pack, unpack
from uno_p2p.wire.envelope import HASH_BYTES, MAX_POSITION, Entry, Head

VOTE_LABEL = b"uno-lan/v1/handover-vote\x00"
#: A peer that waits this long for something the sequencer owes it (an answer to its own
#: message, the logging of a relayed one, its own seat's work, its time-out entry) holds
#: the host lost (table.md §13.1). Silence alone is no evidence.
HOST_LOST_AFTER_MS = 15_000
#: The successor waits this long for every seat's vote before it hands over with a
#: bare majority (the longest chain may be with a late voter, §13.3).
VOTE_WAIT_MS = 3_000
#: A voter sends its vote to the successor again this often while no hand-over came:
#: a link down at that moment loses a frame, and one vote lost would stall the table
#: for ever when every vote is needed for a majority (§13.3).
VOTE_RESEND_MS = 3_000
#: How many terms a game may have: every hand-over loses one seat's sequencing.
MAX_TERM = 40


def vote_digest(table_id: bytes, term: int, old: PeerId, new: PeerId, head: Head) -> bytes:
    """SHA-256(label || table id || u32be(term) || old key || new key || u64be(seen) || hash).

    What a voter signs (table.md §13.2): it binds the vote to one table, one
    term, both sequencers and the last entry the voter holds.
    """
    return hashlib.sha256(VOTE_LABEL + table_id + term.to_bytes(4, "big") + old.key + new.key
                          + head.seen.to_bytes(8, "big") + head.hash).digest()


@dataclass(frozen=True, slots=True)
class Vote:
    """One seat's signed vote (the ``V`` frame's payload)."""

    term: int
    old: PeerId
    new: PeerId
    head: Head
    voter: PeerId
    signature: bytes

    @classmethod
    def sign(cls, identity: Identity, table_id: bytes, term: int, old: PeerId, new: PeerId,
             head: Head) -> Vote:
        digest = vote_digest(table_id, term, old, new, head)
        return cls(term, old, new, head, identity.peer, identity.sign(digest))

    def verify(self, table_id: bytes) -> None:
        """Raises: CryptoError: ``bad_signature``, naming the voter."""
        digest = vote_digest(table_id, self.term, self.old, self.new, self.head)
        self.voter.verify(digest, self.signature, item="hand-over vote")

    def encode(self) -> bytes:
        return pack([self.term, self.old.key, self.new.key, self.head.seen, self.head.hash,
                     self.voter.key, self.signature])

    @classmethod
    def decode(cls, payload: bytes) -> Vote:
        """Raises: InvalidMessage: malformed."""
        term, old, new, seen, head_hash, voter, signature = fields.array(
            unpack(payload), 7, "a hand-over vote")
        return cls(fields.integer(term, "a term", lo=1, hi=MAX_TERM), PeerId.from_wire(old),
                   PeerId.from_wire(new),
                   Head(fields.integer(seen, "a head", lo=0, hi=MAX_POSITION),
                        fields.blob(head_hash, "a head hash", size=HASH_BYTES)),
                   PeerId.from_wire(voter), fields.blob(signature, "a signature", size=64))


# -- who may vote and who takes over -------------------------------------------------------
def members(ts: TableState) -> tuple[PeerId, ...]:
    """The peers with a say: the seats once the game started, the joined peers before."""
    if ts.seats:
        return ts.seats
    return () if ts.lobby is None else ts.lobby.joined


def successor(ts: TableState, old: PeerId) -> PeerId | None:
    """The next member after ``old`` in seat (or joining) order, round the table.

    Deterministic, so every peer names the same one without talking (§13.1).
    """
    order = members(ts)
    if old not in order or len(order) < 2:
        return None
    return order[(order.index(old) + 1) % len(order)]


def majority(ts: TableState) -> int:
    """Votes a hand-over needs: a strict majority of the members, the old sequencer
    counted (so two disjoint groups can never both hand over)."""
    return len(members(ts)) // 2 + 1


def handover_successor(entry: Entry) -> PeerId | None:
    """For the chain verifier: the peer that countersigns this entry and the later ones."""
    body = entry.message.body
    return body.new if isinstance(body, Handover) else None


class HandoverRefused(Exception):
    """A hand-over breaks a rule of §13.2; ``code`` names which."""

    def __init__(self, code: str, why: str, culprit: PeerId | None = None) -> None:
        super().__init__(why)
        self.code = code
        self.culprit = culprit


def check_handover(ts: TableState, author: PeerId, head: Head, body: Handover) -> None:
    """Every rule of a ``handover`` entry (table.md §13.2), against the state it follows.

    Raises:
        HandoverRefused: ``bad_handover`` (wrong term, old or new sequencer, or a
            head other than the entry's place) or ``bad_vote`` (a vote that is not a
            member's, not signed, twice, or too few), naming the author.
    """
    old = ts.host
    if ts.phase == TablePhase.ENDED or old is None:
        raise HandoverRefused("bad_handover", "there is no table to hand over")
    if body.term != ts.term + 1 or body.term > MAX_TERM:
        raise HandoverRefused("bad_handover", f"the next term is {ts.term + 1}")
    if body.old != old:
        raise HandoverRefused("bad_handover", "it does not take over from the sequencer")
    if author != body.new or body.new != successor(ts, old):
        raise HandoverRefused("bad_handover", "only the next seat after the sequencer takes over")
    if head.seen != ts.seq:
        raise HandoverRefused("bad_handover", "a hand-over follows the last entry its author holds")
    voters: set[bytes] = set()
    order = members(ts)
    for voter, signature in body.votes:
        if voter not in order or voter == old or voter.key in voters:
            raise HandoverRefused("bad_vote", "a vote by a non-member, the old sequencer, "
                                  "or twice by one member")
        try:
            Vote(body.term, old, body.new, head, voter, signature).verify(ts.table_id)
        except CryptoError as error:
            raise HandoverRefused("bad_vote", str(error)) from error
        voters.add(voter.key)
    if body.new.key not in voters or len(voters) < majority(ts):
        raise HandoverRefused("bad_vote", f"a hand-over needs {majority(ts)} votes, "
                              "the new sequencer's among them")


def double_vote(first: Vote, second: Vote, table_id: bytes) -> bool:
    """Two valid votes by one voter in one term for different sequencers or heads
    (evidence, table.md §13.5). A vote for a longer head of the same sequencer is
    not: a voter that catches up votes again."""
    if (first.voter, first.term, first.old) != (second.voter, second.term, second.old):
        return False
    if first.new == second.new:
        return False
    try:
        first.verify(table_id)
        second.verify(table_id)
    except CryptoError:
        return False
    return True


# -- one peer's election --------------------------------------------------------------------
@dataclass(slots=True)
class Election:
    """What a peer holds while its table has no sequencer (§13.3)."""

    term: int
    old: PeerId
    new: PeerId
    started_ms: int
    mine: Vote | None = None
    #: When (our clock) ``mine`` last went out.
    sent_ms: int = 0
    #: The latest vote heard from each member (by key).
    votes: dict[bytes, Vote] = field(default_factory=dict)

    def hear(self, vote: Vote) -> bool:
        """Keep ``vote`` if it is for this election and newer; True if kept."""
        if (vote.term, vote.old, vote.new) != (self.term, self.old, self.new):
            return False
        known = self.votes.get(vote.voter.key)
        if known is not None and known.head.seen >= vote.head.seen:
            return False
        self.votes[vote.voter.key] = vote
        return True

    def at(self, head: Head) -> list[Vote]:
        """The votes for exactly ``head``, in the members' order of arrival."""
        return [v for v in self.votes.values() if v.head == head]


def decode_vote(payload: bytes, table_id: bytes) -> Vote:
    """Decode and verify a ``V`` frame.

    Raises:
        InvalidMessage: malformed, or not signed by its voter.
    """
    vote = Vote.decode(payload)
    try:
        vote.verify(table_id)
    except CryptoError as error:
        raise InvalidMessage(str(error)) from error
    return vote


__all__ = ["HOST_LOST_AFTER_MS", "VOTE_RESEND_MS", "VOTE_WAIT_MS", "Election", "HandoverRefused",
           "Vote", "check_handover", "decode_vote", "double_vote", "handover_successor", "majority",
           "members", "successor", "vote_digest"]
