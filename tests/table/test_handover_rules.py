"""The rules of a hand-over (table.md §13.2, §13.4-§13.5): every forged or short
hand-over is refused naming its author; a seat that votes for two sequencers in
one term is named with its two votes; a host cut off while it still logs alone
comes back, drops the entries nobody agreed to, and plays on."""

from __future__ import annotations

import copy

import pytest

from tests.table.prose import reads_on
from uno_p2p.audit.core import audit_entries
from uno_p2p.audit.report import Status
from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Handover, Remove
from uno_p2p.table.events import PeerMisbehaved, Progress
from uno_p2p.table.frames import FRAME_VOTE, frame
from uno_p2p.table.handover import Vote
from uno_p2p.table.ledger import apply_entry
from uno_p2p.table.memnet import Network, TableSetup, Tamper, game_over, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.removal import awaited as awaited_seat
from uno_p2p.table.state import Misbehaviour, TablePhase
from uno_p2p.wire.envelope import Entry, Message

pytestmark = pytest.mark.xdist_group("test_handover_rules")

SEED = b"handover rules"


def _table(tamper: Tamper | None = None) -> tuple[Network, list[Identity]]:
    options = preset("official", ["target=30"])
    net = seat_table(TableSetup(3, options, SEED, preset="official"), tamper)
    ids = [Identity(seeded(SEED, f"identity {i}")) for i in range(3)]
    return net, ids


def _peer(net: Network, identity: Identity) -> TablePeer:
    return net.peers[identity.peer.key]


def _forged(peer: TablePeer, author: Identity, body: Handover | Remove) -> Entry:
    head = peer.ledger.head
    counter = peer.ledger.chain.next_counter(author.peer)
    message = Message.sign(author, peer.table_id, counter, head, body)
    return Entry.countersign(author, head.seen, head.hash, message)


def _votes(peer: TablePeer, voters: list[Identity], new: Identity, term: int = 1
           ) -> tuple[tuple[PeerId, bytes], ...]:
    old = peer.state.host
    assert old is not None
    head = peer.ledger.head
    return tuple((v.peer, Vote.sign(v, peer.table_id, term, old, new.peer, head).signature)
                 for v in voters)


@pytest.fixture(scope="module")
def mid_game() -> tuple[Network, list[Identity]]:
    net, ids = _table()
    net.run(until=lambda n: n.host.state.seq > 50, max_steps=200_000)
    return net, ids


def _refused(peer: TablePeer, author: Identity, body: Handover | Remove) -> Misbehaviour:
    with pytest.raises(Misbehaviour) as caught:
        apply_entry(peer.state, _forged(peer, author, body))
    assert caught.value.culprit == author.peer, "the hand-over's author is named"
    return caught.value


def test_only_the_next_seat_may_take_over(mid_game: tuple[Network, list[Identity]]) -> None:
    net, (ann, bob, cy) = mid_game
    peer = _peer(net, cy)
    votes = _votes(peer, [bob, cy], cy)
    error = _refused(peer, cy, Handover(1, ann.peer, cy.peer, votes))
    assert error.code == "bad_handover"


def test_a_handover_must_depose_the_sequencer_itself(
        mid_game: tuple[Network, list[Identity]]) -> None:
    """§13.2: the hand-over names the sequencer it replaces; naming another member (here
    Cy, the seat after the next) deposes nobody, whatever the votes say."""
    net, (_, bob, cy) = mid_game
    peer = _peer(net, cy)
    votes = _votes(peer, [bob, cy], bob)
    error = _refused(peer, bob, Handover(1, cy.peer, bob.peer, votes))
    assert error.code == "bad_handover"
    reason = str(error).split(": ", 1)[1]
    reads_on(reason)
    assert "sequencer" in reason, reason


def test_a_handover_needs_a_majority_of_the_seats(
        mid_game: tuple[Network, list[Identity]]) -> None:
    net, (ann, bob, cy) = mid_game
    peer = _peer(net, cy)
    alone = _votes(peer, [bob], bob)
    error = _refused(peer, bob, Handover(1, ann.peer, bob.peer, alone))
    assert error.code == "bad_vote"
    with_old = _votes(peer, [bob, ann], bob)
    error = _refused(peer, bob, Handover(1, ann.peer, bob.peer, with_old))
    assert error.code == "bad_vote", "the old sequencer's vote does not count"


def test_a_vote_for_another_head_or_term_is_refused(
        mid_game: tuple[Network, list[Identity]]) -> None:
    net, (ann, bob, cy) = mid_game
    peer = _peer(net, cy)
    wrong_term = _votes(peer, [bob, cy], bob, term=2)
    error = _refused(peer, bob, Handover(1, ann.peer, bob.peer, wrong_term))
    assert error.code == "bad_vote"
    error = _refused(peer, bob, Handover(2, ann.peer, bob.peer, wrong_term))
    assert error.code == "bad_handover", "terms go one by one"
    assert "next term is 1" in str(error), "the first hand-over opens term 1 (§13.2)"


def test_only_the_sequencer_removes_and_only_a_seat_the_table_waits_for(
        mid_game: tuple[Network, list[Identity]]) -> None:
    net, (ann, bob, cy) = mid_game
    peer = _peer(net, cy)
    error = _refused(peer, bob, Remove(cy.peer, "gone"))
    assert error.code == "bad_remove", "a seat is not the sequencer"
    awaited = {peer.state.seats[s] for s in range(3) if awaited_seat(peer.state, s)}
    idle = next(p for p in (bob.peer, cy.peer) if p not in awaited)
    error = _refused(peer, ann, Remove(idle, "gone"))
    assert error.code == "bad_remove", "the table does not wait for that seat"
    error = _refused(peer, ann, Remove(ann.peer, "gone"))
    assert error.code == "bad_remove", "the sequencer cannot remove itself"


def test_a_seat_that_votes_for_two_sequencers_is_named(
        mid_game: tuple[Network, list[Identity]]) -> None:
    net, (ann, bob, cy) = copy.deepcopy(mid_game)  # a game of its own from here
    net.silent.add(ann.peer.key)
    peer = _peer(net, bob)
    peer.host_lost()
    head = peer.ledger.head
    honest = Vote.sign(cy, peer.table_id, 1, ann.peer, bob.peer, head)
    rival = Vote.sign(cy, peer.table_id, 1, ann.peer, cy.peer, head)
    peer.events()
    peer.receive(frame(FRAME_VOTE, honest.encode()), net.now_ms, cy.peer)
    peer.receive(frame(FRAME_VOTE, rival.encode()), net.now_ms, cy.peer)
    named = [e for e in peer.events() if isinstance(e, PeerMisbehaved)]
    assert [(e.peer, e.code) for e in named] == [(cy.peer, "double_vote")]


def test_a_host_that_logged_alone_comes_back_and_drops_what_nobody_agreed() -> None:
    cut: set[bytes] = set()

    def tamper(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        return [] if sender in cut else [data]

    net, (ann, bob, _) = _table(tamper)
    host = _peer(net, ann)
    net.run(until=lambda n: host.state.seq > 60, max_steps=200_000)
    # The host still hears everyone and logs their moves, but nothing it sends arrives.
    cut.add(ann.peer.key)
    net.run(until=lambda n: _peer(n, bob).state.term == 1, max_steps=200_000)
    handed_at = _peer(net, bob).state.handovers[0][0]
    alone = host.ledger.chain.entries[handed_at:]
    cut.clear()  # the link heals: the old host hears the hand-over and gives way
    net.run(until=game_over, max_steps=400_000)
    assert len({tuple(e.hash for e in net.entries(p)) for p in net.peers.values()}) == 1
    assert all(p.state.phase == TablePhase.ENDED for p in net.peers.values())
    assert not host.is_host
    final = net.entries(host)
    assert alone, "the host logged entries nobody received"
    assert all(e not in final for e in alone), "what it logged alone is gone"
    dropped = [e for e in net.events[ann.peer.key] if isinstance(e, Progress)
               and "never agreed" in e.what]
    assert dropped, "and it says so"
    # "N entries of ours were never agreed: the table went on from entry E without them":
    # N is what it logged alone, counted from the hand-over's place (at least what it
    # held when the link healed; it may have logged more before the hand-over reached it).
    count, words = dropped[0].what.split(" ", 1)
    assert len(alone) <= int(count) < len(alone) + 20, dropped[0].what
    assert words.endswith(f"from entry {handed_at} without them"), dropped[0].what
    assert audit_entries(final).status == Status.OK


def test_one_member_alone_cannot_depose_a_host_the_others_hear(
        mid_game: tuple[Network, list[Identity]]) -> None:
    net, (ann, _bob, cy) = copy.deepcopy(mid_game)  # a game of its own from here
    doubter = _peer(net, cy)
    doubter.host_lost()  # its shell was wrong, or only its own link flapped
    net.flush(doubter)
    net.run(until=game_over, max_steps=400_000)
    peers = list(net.peers.values())
    assert all(p.state.term == 0 for p in peers), "no hand-over without a majority"
    assert _peer(net, ann).is_host
    assert all(p.state.phase == TablePhase.ENDED for p in peers)
    assert len({tuple(e.hash for e in net.entries(p)) for p in peers}) == 1
    assert not any(isinstance(e.body, Handover) for e in net.entries(doubter))


def test_a_vote_that_does_not_verify_is_refused_naming_the_vote(
        mid_game: tuple[Network, list[Identity]]) -> None:
    """table.md §13.2: a vote signed over another term does not verify for this one:
    ``bad_vote``, and the reason says it is a hand-over vote's signature that failed."""
    net, (ann, bob, cy) = mid_game
    peer = _peer(net, cy)
    wrong_term = _votes(peer, [bob, cy], bob, term=2)
    error = _refused(peer, bob, Handover(1, ann.peer, bob.peer, wrong_term))
    assert error.code == "bad_vote"
    text = str(error)
    assert "hand-over vote" in text, text
    assert "None" not in text, text
