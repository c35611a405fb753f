"""Single steps of the succession (table.md §13) and of the removal rules (§14.1).

Whole games recover from a lost host in more than one way, so a step that
misbehaves there is hidden by the next one. Here each step is taken alone, on
a peer of a small in-memory table (or of a recorded log), and held to the
spec's words:

- §13.1-§13.2: the vote a peer counts is a member's (a stranger's signed vote
  counts for nothing), and a table that has ended has no sequencer to replace;
- §13.3: the successor hands over with a bare majority once it has waited
  ``VOTE_WAIT_MS`` for the others; a peer whose sequencer is heard again gives
  its election up ("one member alone cannot depose a host that others hear");
- §13.1 (3): the sequencer owes work when its own seat owes it, or when the
  table waits for no seat at all; a player's decision (a challenge verdict,
  even the sequencer's own player's) is not work;
- §14.1: every refusal of a ``remove`` reads as a sentence and names the
  condition that failed.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from tests.audit.test_fault_codes import FIRST_MOVE, LOG, PEOPLE, START, STRANGER
from tests.audit.test_fault_codes import SEED as LOG_SEED
from tests.table.prose import reads_on
from uno_p2p.audit import walk
from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import Phase
from uno_p2p.table import frames
from uno_p2p.table.bodies import Handover
from uno_p2p.table.duties import waiting_for
from uno_p2p.table.events import Progress
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_RELAY, FRAME_VOTE, frame
from uno_p2p.table.handover import HOST_LOST_AFTER_MS, VOTE_WAIT_MS, Election, Vote
from uno_p2p.table.memnet import Network, TableSetup, seat_table, seeded
from uno_p2p.table.peer import SYNCED, TablePeer
from uno_p2p.table.removal import removable
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.table.succession import Seen, Succession, _host_owes_work
from uno_p2p.wire.envelope import Head, Message

pytestmark = pytest.mark.xdist_group("test_succession_steps")

SEED = b"succession steps"


# -- helpers -------------------------------------------------------------------------------
def _table(players: int) -> tuple[Network, list[TablePeer]]:
    """A started table whose peers all hold the same log (key setup or early play), the
    peers in seat order; nothing more is delivered: each test drives the peers itself."""
    net = seat_table(TableSetup(players, preset("official", ["target=30"]), SEED))
    net.run(until=lambda n: n.host.state.seq > 8 and all(
        p.state.seats and p.state.seq == n.host.state.seq for p in n.peers.values()),
        max_steps=100_000)
    ids = [Identity(seeded(SEED, f"identity {i}")).peer for i in range(players)]
    peers = [net.peers[i.key] for i in ids]
    assert all(p.state.seq == peers[0].state.seq for p in peers), "every peer caught up"
    assert [p.peer_id for p in peers] == list(peers[0].state.seats), "seat order"
    for peer in peers:
        peer.events()
        peer.data_to_send()
    return net, peers


def _vote(voter: Identity, at: TablePeer, new: PeerId, head: Head | None = None) -> bytes:
    """A ``V`` frame as a peer sends it (table.md §13.2): ``voter``'s signed vote for
    ``new`` to follow ``at``'s sequencer in the next term, for ``at``'s head."""
    old = at.state.host
    assert old is not None
    vote = Vote.sign(voter, at.table_id, at.state.term + 1, old, new,
                     head or at.ledger.head)
    return frame(FRAME_VOTE, vote.encode())


def _identity(i: int) -> Identity:
    return Identity(seeded(SEED, f"identity {i}"))


def _sequences(peer: TablePeer) -> bool:
    """Whether ``peer`` is the sequencer now (a call, so a check after a step is not
    taken for one already made before it)."""
    return peer.is_host


def _election_of(peer: TablePeer) -> Election | None:
    """``peer``'s election now (a call, as ``_sequences``)."""
    return peer.succession.election


def _progress(peer: TablePeer) -> list[str]:
    return [e.what for e in peer.events() if isinstance(e, Progress)]


# -- §13.1-§13.2: only a member's vote counts, and only while the table lasts ------------------
def test_a_strangers_vote_does_not_count_towards_a_handover() -> None:
    """§13.2: every vote is by a member. At the successor, in its own election of a
    3-seat table (a majority is 2), a well-signed vote by a stranger is not a second
    vote: no hand-over, nothing refused, and the election holds the successor's only."""
    _, (ann, bob, _cy) = _table(3)
    stranger = Identity(seeded(SEED, "a stranger who never joined"))
    bob.host_lost()
    assert bob.succession.election is not None
    assert bob.succession.election.new == bob.peer_id
    bob.events()
    bob.data_to_send()
    bob.receive(_vote(stranger, bob, bob.peer_id), bob.now_ms + 10, stranger.peer)
    assert set(bob.succession.election.votes) == {bob.peer_id.key}, \
        "the stranger's vote is not held"
    assert not bob.is_host
    assert bob.state.term == 0
    assert bob.state.host == ann.peer_id
    assert not any("refused" in what for what in _progress(bob))
    assert bob.succession.heard_votes == {}
    assert not any(stranger.peer in (out.to or ()) for out in bob.data_to_send()), \
        "nothing is sent to a stranger"


def test_a_removed_seats_vote_does_not_count_towards_a_handover() -> None:
    """§14.3: a removed peer has no seat, so it is no member (§13.1) and its vote is no
    member's (§13.2). Di vanishes during key setup and is removed; Bob, the successor,
    then holds Ann lost: with the 3 seats left a majority is 2, and Di's signed vote is
    not Bob's second."""
    setup = TableSetup(4, preset("official", ["target=30"]), SEED)
    net = seat_table(setup)
    ann, bob, di = (net.peers[_identity(i).peer.key] for i in (0, 1, 3))
    net.silent.add(di.peer_id.key)
    ann.peer_lost(di.peer_id)
    net.flush(ann)
    net.run(until=lambda n: bool(bob.state.removed) and bob.state.seq == ann.state.seq,
            max_steps=100_000)
    assert [p for _, p, _ in bob.state.removed] == [di.peer_id], "Di was removed"
    assert di.peer_id not in bob.state.seats
    bob.host_lost()
    election = bob.succession.election
    assert election is not None
    bob.events()
    bob.receive(_vote(_identity(3), bob, bob.peer_id), bob.now_ms + 10, di.peer_id)
    assert set(election.votes) == {bob.peer_id.key}, "Di's vote is not held"
    assert not bob.is_host
    assert bob.state.term == 0
    assert not any("refused" in what for what in _progress(bob))


def test_a_strangers_vote_starts_no_election() -> None:
    """§13.1: a member that hears another *member's* vote joins it; a stranger's vote
    is not kept as one, and starts nothing."""
    _, (ann, bob, cy) = _table(3)
    stranger = Identity(seeded(SEED, "a stranger who never joined"))
    cy.receive(_vote(stranger, cy, bob.peer_id), cy.now_ms + 10, stranger.peer)
    assert cy.succession.election is None
    assert cy.succession.heard_votes == {}, "a stranger's vote is not kept for later"
    assert cy.state.host == ann.peer_id
    assert cy.state.term == 0
    # The same vote by a member is kept (it is what makes the first test mean something).
    cy.receive(_vote(_identity(1), cy, bob.peer_id), cy.now_ms + 20, bob.peer_id)
    assert set(cy.succession.heard_votes) == {bob.peer_id.key}


def test_a_members_vote_after_the_table_ended_is_ignored() -> None:
    """§13.2: a hand-over of a table that has ended is refused ("the table is not
    ended"), so a peer of an ended table counts no vote, keeps none, and sends the
    voter nothing, not even the entries its older head lacks (§13.3)."""
    bob_id, cy_id = PEOPLE[1], PEOPLE[2]
    bob = TablePeer.resume(bob_id, seeded(LOG_SEED, "entropy 1"), LOG, name="Bob",
                           bot="heuristic", nonce=seeded(LOG_SEED, "nonce 1", 16))
    assert bob.state.phase == TablePhase.ENDED
    assert bob.stopped is None
    bob.events()
    bob.data_to_send()
    old_head = Head(FIRST_MOVE, LOG[FIRST_MOVE - 1].hash)
    bob.receive(_vote(cy_id, bob, bob_id.peer, old_head), bob.now_ms + 10, cy_id.peer)
    assert bob.succession.election is None
    assert bob.succession.heard_votes == {}
    assert bob.data_to_send() == [], "no entries are supplied to a voter of an ended table"
    assert bob.state.term == 0
    assert not bob.is_host


# -- §13.3: the election goes on by the clock -----------------------------------------------
def test_the_successor_takes_over_with_a_bare_majority_once_it_has_waited() -> None:
    """§13.3: with a majority of the members' votes for its head but not every member's,
    the successor waits ``VOTE_WAIT_MS`` (3 000 ms) for the others, then logs the
    ``handover`` with the votes it holds. Five seats: a majority is 3 of them; the old
    host and Di stay silent."""
    _, (ann, bob, _cy, _di, _ed) = _table(5)
    bob.host_lost()
    election = bob.succession.election
    assert election is not None
    started = election.started_ms
    for seat in (2, 4):
        voter = _identity(seat)
        bob.receive(_vote(voter, bob, bob.peer_id), started + 100 * seat, voter.peer)
    assert len(election.votes) == 3, "Bob's, Cy's and Ed's votes"
    assert not bob.is_host, "a bare majority waits for the others first"
    wake = bob.next_timer()
    assert wake is not None
    assert wake <= started + VOTE_WAIT_MS
    bob.handle_timer(started + VOTE_WAIT_MS - 1)
    assert not bob.is_host, "not before VOTE_WAIT_MS"
    bob.handle_timer(started + VOTE_WAIT_MS)
    assert _sequences(bob), "Bob takes over when VOTE_WAIT_MS has passed"
    assert bob.state.term == 1
    assert bob.state.host == bob.peer_id
    handed_at = bob.state.handovers[0][0]
    body = bob.ledger.chain.entry(handed_at).body
    assert isinstance(body, Handover)
    assert (body.old, body.new) == (ann.peer_id, bob.peer_id)
    assert {v.key for v, _ in body.votes} == {_identity(i).peer.key for i in (1, 2, 4)}


def test_a_peer_that_hears_the_sequencer_again_gives_its_election_up() -> None:
    """§13.1: one member alone cannot depose a sequencer the others hear. A peer that
    held it lost and then heard it again gives the election up once no majority came
    in ``HOST_LOST_AFTER_MS`` (15 000 ms), and says so; it plays on under the same
    sequencer."""
    _, (ann, _bob, cy) = _table(3)
    cy.host_lost()
    election = cy.succession.election
    assert election is not None
    started = election.started_ms
    cy.events()
    cy.data_to_send()
    # The sequencer speaks again: an entry Cy holds already, sent again.
    again = frame(FRAME_ENTRY, cy.ledger.chain.entries[-1].encode())
    cy.receive(again, started + 1_000, ann.peer_id)
    assert cy.succession.heard_host_ms > started
    cy.handle_timer(started + HOST_LOST_AFTER_MS - 1)
    assert cy.succession.election is election, "not given up before HOST_LOST_AFTER_MS"
    cy.events()
    cy.handle_timer(started + HOST_LOST_AFTER_MS)
    assert _election_of(cy) is None
    assert "the sequencer is back: no hand-over" in _progress(cy)
    assert cy.state.host == ann.peer_id
    assert cy.state.term == 0
    assert not cy.is_host


def test_the_succession_decides_the_handover_and_the_peer_logs_it() -> None:
    """§13.2-§13.3, as a part of its own: the succession reads a frozen view of its peer
    and returns steps; it changes no log. Bob's part (a fresh one, not his peer's) holds
    Ann lost: it says so and sends its vote to Cy alone (every member but Ann and
    itself); Cy's vote for Bob's head is the majority of 3, and every member but Ann
    has voted, so it returns the ``handover`` of term 1 from Ann to Bob with both votes.
    Bob's log and role are what they were: logging it is the peer's."""
    _, (ann, bob, cy) = _table(3)
    seq = bob.state.seq
    part = Succession(_identity(1), bob.table_id)
    seen = Seen(bob.state, bob.ledger, bob.now_ms, hosting=False, stopped=False)
    lost = part.host_lost(seen)
    assert [e.what for e in lost.events if isinstance(e, Progress)] == \
        ["Ann (the sequencer) is gone: Bob takes over"]
    assert [(out.to, out.data[:1]) for out in lost.out] == [((cy.peer_id,), FRAME_VOTE)]
    assert lost.handover is None, "one vote of the two a hand-over needs"
    counted = part.hear_vote(seen, _vote(_identity(2), bob, bob.peer_id)[1:], cy.peer_id)
    body = counted.handover
    assert body is not None
    assert (body.term, body.old, body.new) == (1, ann.peer_id, bob.peer_id)
    assert {voter for voter, _ in body.votes} == {bob.peer_id, cy.peer_id}
    assert (bob.state.seq, bob.state.term, bob.is_host) == (seq, 0, False)


def test_a_first_vote_goes_to_every_member_and_a_vote_again_to_the_successor_only() -> None:
    """§13.2-§13.3: a member's first vote goes to every member but the old sequencer
    (and itself), so they may join the election; after it accepts an entry it lacked,
    it votes again with its longer head, and that vote goes to the successor alone,
    who counts the votes. Four seats: Ann the sequencer, Bob its successor; Di was cut
    off and holds the sequencer lost one entry behind the others."""
    net, (ann, bob, cy, di) = _table(4)
    late = copy.deepcopy(di)
    behind = late.state.seq
    net.run(until=lambda n: n.host.state.seq > behind, max_steps=100_000)
    late.host_lost()
    first = [out for out in late.data_to_send() if out.data[:1] == FRAME_VOTE]
    assert len(first) == 1
    assert set(first[0].to or ()) == {bob.peer_id, cy.peer_id}, "every member but Ann and Di"
    lacked = ann.ledger.chain.entry(behind)
    late.receive(frame(FRAME_ENTRY, lacked.encode()), late.now_ms + 10, bob.peer_id)
    assert late.state.seq == behind + 1, "the entry it lacked is accepted"
    again = [out for out in late.data_to_send() if out.data[:1] == FRAME_VOTE]
    assert len(again) == 1, "a new vote with the longer head"
    assert again[0].to == (bob.peer_id,), "to the successor only"
    election = late.succession.election
    assert election is not None
    assert election.mine is not None
    assert election.mine.head == late.ledger.head


def test_a_relayed_message_kept_as_evidence_is_passed_on_to_the_sequencer_once() -> None:
    """§6.2 and §13.1 (2): a peer that newly keeps a relayed message passes it on to the
    sequencer once, so that a message shown to some peers only still reaches it. Bob's
    shuffle is signed and sent but not logged yet; Cy hears it relayed (``R``) by Bob:
    she passes it on to Ann, the sequencer, and to nobody else; the same relay again,
    by Bob or by anyone, is not passed on a second time."""
    _, (ann, bob, cy) = _table(3)
    sent = bob.outbox.in_flight
    assert sent is not None, "Bob's message is on its way, not logged"
    message = sent.message
    assert message.counter >= cy.ledger.chain.next_counter(bob.peer_id)
    relay = frame(FRAME_RELAY, message.encode())
    cy.receive(relay, cy.now_ms + 10, bob.peer_id)
    passed = [out for out in cy.data_to_send() if out.data[:1] == FRAME_RELAY]
    assert [(out.to, out.data) for out in passed] == [((ann.peer_id,), relay)], \
        "passed on to the sequencer, as it came"
    assert cy.watch.censorship.relayed[bob.peer_id.key].message == message, "kept as evidence"
    for sender in (bob.peer_id, ann.peer_id):
        cy.receive(relay, cy.now_ms + 20, sender)
        assert not [out for out in cy.data_to_send() if out.data[:1] == FRAME_RELAY], \
            "once only"


# -- §13.1 (3): a decision is not work ---------------------------------------------------------
def _challenge_states() -> list[TableState]:
    """The honest log's states in a Wild Draw Four challenge (the host's player, Ann,
    challenges Cy): while Cy's hand is shown to Ann, and while Ann decides."""
    found = []
    for step in walk(LOG[:40]):
        game = step.after.engine
        if game is not None and game.phase == Phase.CHALLENGE:
            found.append(step.after)
    return found


def test_the_sequencers_verdict_is_a_decision_not_work() -> None:
    """§13.1 (3): while another seat owes work (Cy's private reveal) the sequencer owes
    none; once the table waits for the challenge verdict of the sequencer's own player,
    it still owes none: a decision is not work."""
    host = LOG[0].author
    states = _challenge_states()
    assert [s.engine.challenge and s.engine.challenge[:2] for s in states if s.engine] == \
        [(0, 2), (0, 2)], \
        "Ann (seat 0, the host) challenges Cy (seat 2)"
    showing, deciding = states
    assert waiting_for(showing) == [2], "Cy owes the private reveal of its hand"
    assert not _host_owes_work(showing, host, waiting_for(showing)), \
        "another seat's work is not the sequencer's"
    assert waiting_for(deciding) == []
    assert not _host_owes_work(deciding, host, []), \
        "the verdict of the sequencer's own player is a decision: a player may think"


def test_a_challenge_nobody_is_to_judge_is_the_sequencers_to_move_on() -> None:
    """The rules never leave a challenge without a challenger (or a challenged player);
    if a state did, no seat's work or decision would be awaited, and a table that waits
    for no seat waits for its sequencer (§13.1 (3)). The converse: a challenger's
    verdict is awaited even if the challenged seat were unknown."""
    host = LOG[0].author
    deciding = _challenge_states()[1]
    game = deciding.engine
    assert game is not None
    assert game.challenge is not None
    challenger, challenged, colour = game.challenge
    nobody = replace(deciding, engine=replace(game, challenge=(None, challenged, colour)))
    assert _host_owes_work(nobody, host, [])
    unknown = replace(deciding, engine=replace(game, challenge=(challenger, -1, colour)))
    assert not _host_owes_work(unknown, host, [])


# -- §14.1: a refused removal says why, in words ---------------------------------------------
def _reads_as_a_sentence(text: str) -> None:
    reads_on(text)
    assert len(text.split()) >= 3, text


def _anothers_turn(state: TableState) -> bool:
    """In play, the turn of a player other than the host's, with no work owed."""
    game = state.engine
    return state.phase == TablePhase.PLAYING and game is not None and \
        game.phase == Phase.PLAYING and game.current != 0 and not waiting_for(state)


def _states() -> dict[str, TableState]:
    """Recorded states of the honest 3-seat log (Ann the host, Bob, Cy)."""
    states = {}
    for step in walk(LOG):
        seq = step.entry.seq
        if seq == START - 1:
            states["lobby"] = step.after
        elif seq == START:
            states["keys"] = step.after  # nobody has announced a key yet
        elif seq >= FIRST_MOVE and "playing" not in states and _anothers_turn(step.after):
            states["playing"] = step.after
    states["ended"] = step.after
    return states


@pytest.fixture(scope="module")
def recorded() -> dict[str, TableState]:
    return _states()


def test_every_refused_removal_reads_as_a_sentence_naming_what_failed(
        recorded: dict[str, TableState]) -> None:
    """table.md §14.1: "the phase is keys or playing; the author is the sequencer; the
    seat is another seat the table waits for; the game ... keeps at least 2 players"."""
    host, bob, cy = (p.peer for p in PEOPLE[:3])
    keys, playing = recorded["keys"], recorded["playing"]
    game = playing.engine
    assert game is not None
    assert game.current is not None
    waited = playing.seats[game.current]
    idle = next(p for p in (bob, cy) if p != waited)
    cases = {
        "lobby": (recorded["lobby"], cy, host, ["key setup", "play"]),
        "ended": (recorded["ended"], cy, host, ["key setup", "play"]),
        "by a seat": (keys, cy, bob, ["only", "sequencer"]),
        "by a stranger": (keys, cy, STRANGER, ["only", "sequencer"]),
        "itself": (keys, host, host, ["another seat"]),
        "a stranger": (keys, STRANGER, host, ["another seat"]),
        "not awaited": (playing, idle, host, ["not waiting"]),
    }
    for case, (state, peer, by, words) in cases.items():
        why = removable(state, peer, by)
        _reads_as_a_sentence(why)
        assert all(w in why for w in words), (case, why)
    # The same seat the table does wait for may go (the refusals above are the rule's).
    assert removable(keys, cy, host) == ""
    assert removable(playing, waited, host) == ""


def test_a_removal_that_would_leave_one_player_is_refused_in_words(
        recorded: dict[str, TableState]) -> None:
    """§14.1: the game keeps at least 2 players, and a team game loses none."""
    keys, playing = recorded["keys"], recorded["playing"]
    host, _bob, cy = (p.peer for p in PEOPLE[:3])
    two = replace(keys, seats=keys.seats[:2], keys=keys.keys[:2])
    why = removable(two, two.seats[1], host)
    _reads_as_a_sentence(why)
    assert "2" in why, why
    assert "players" in why, why
    game = playing.engine
    assert game is not None
    assert game.current is not None
    waited = playing.seats[game.current]
    teams = replace(playing, engine=replace(game, options=replace(game.options, teams=3)))
    why = removable(teams, waited, host)
    _reads_as_a_sentence(why)
    assert "team" in why, why
    why = removable(replace(keys, options=replace(keys.rules, teams=3)), cy, host)
    _reads_as_a_sentence(why)
    assert "team" in why, why


def test_a_member_back_from_a_cut_waits_for_synced_and_takes_its_count() -> None:
    """§13.4 and table.md §9: a member back from being cut off asks every member for
    what it missed (``S``) and sends nothing of its own until the sequencer's "synced",
    whose counter is then its next number: its message the sequencer never logged is
    void, and its number is used again."""
    _, (ann, bob, _cy) = _table(3)
    unlogged = bob.outstanding
    assert unlogged is not None, "Bob's last message is not logged yet (the seed's moment)"
    bob.rejoin()
    asked = bob.data_to_send()
    assert asked, "it asks"
    assert all(out.data[:1] == frames.FRAME_SYNC for out in asked), "and sends nothing else"
    synced = frames.drop_notice(unlogged, SYNCED, "these are all the entries")
    bob.receive(frame(frames.FRAME_DROP, synced), bob.now_ms + 10, ann.peer_id)
    again = [Message.decode(out.data[1:]) for out in bob.data_to_send()
             if out.data[:1] == frames.FRAME_MESSAGE]
    assert [m.counter for m in again] == [unlogged], "the void number, used again"
