"""What one peer alone sees never ends the game, and never gets an honest player named
(docs/protocol/table.md §3.1, §6, §6.1, §7.5).

Each test plays the situation through the real protocol objects (the in-memory
network, the real codec): a joiner that takes its frames late, a sequencer whose
clock creeps ahead, a member forging messages in another's name, a stranger
with a key of its own, a silent seat, the sequencer's own late work.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from uno_p2p.audit.core import audit_entries
from uno_p2p.audit.report import Status
from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.rules.actions import Draw, TimeOut
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Abort, Clock, Handover, Move, Remove
from uno_p2p.table.duties import waiting_for
from uno_p2p.table.events import PeerMisbehaved
from uno_p2p.table.frames import FRAME_DROP, FRAME_MESSAGE, FRAME_VOTE, decode_drop, frame
from uno_p2p.table.ledger import Ledger
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.sequencer import RESPONSE_TIMEOUT_MS, Sequencer
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.limits import CLOCK_TOLERANCE_MS
from uno_p2p.wire.lobby import Start

pytestmark = pytest.mark.game

OPTIONS = ["target=60", "turn_timer=60"]
#: Bots think a second a move, so the table clock moves and the sequencer logs clocks.
THINK_MS = 1_000


def thinking_table(players: int, seed: bytes,
                   custom: dict[int, type[TablePeer]] | None = None) -> Network:
    net = seat_table(TableSetup(players, preset("official", OPTIONS), seed), custom=custom)
    for peer in net.peers.values():
        peer.initiative.think_ms = THINK_MS
    return net


def seat(net: Network, number: int) -> TablePeer:
    return list(net.peers.values())[number]


def named(net: Network, code: str) -> list[tuple[bytes, PeerMisbehaved]]:
    return [(key, e) for key, e in net.all_events()
            if isinstance(e, PeerMisbehaved) and e.code == code]


def clocks_by(entries: tuple[Entry, ...], author: PeerId) -> list[Entry]:
    return [e for e in entries if isinstance(e.body, Clock) and e.author == author]


def assert_finished_and_ok(net: Network) -> None:
    for peer in net.peers.values():
        assert peer.stopped is None, (peer.name, peer.stopped)
        assert peer.state.phase == TablePhase.ENDED, peer.name
    log = net.entries()
    assert not [e for e in log if isinstance(e.body, Abort)]
    assert audit_entries(log).status == Status.OK


def assert_so_far_ok(net: Network) -> None:
    """The game stopped at a test's point: every log agrees so far, nobody stopped, no
    abort, and the audit finds no fault in what there is (the game's end, where it is
    one, is ``test_a_joiner_that_takes_a_clock_entry_twenty_seconds_late_doubts_nobody``'s
    to check)."""
    logs = [tuple(e.hash for e in n) for n in (net.entries(p) for p in net.peers.values())]
    shortest = min(logs, key=len)
    assert all(log[:len(shortest)] == shortest for log in logs), "every log agrees so far"
    for peer in net.peers.values():
        assert peer.stopped is None, (peer.name, peer.stopped)
    log = net.entries()
    assert not [e for e in log if isinstance(e.body, Abort)]
    report = audit_entries(log)
    assert report.status == Status.UNFINISHED, report.lines()
    assert report.violation is None


# -- the clock (§6.1) -----------------------------------------------------------------------
def test_a_joiner_that_takes_a_clock_entry_twenty_seconds_late_doubts_nobody() -> None:
    """Its frames held 20 s (a paused process, a long proof queue), then prompt ones: only
    its own lateness, which never lowers what it knows of the table clock."""
    net = thinking_table(4, b"late joiner")
    bob = seat(net, 1)
    held: list[tuple[bytes, bytes, bytes]] = []
    holding = False

    votes: list[bytes] = []

    def hold(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        if sender == bob.peer_id.key and data[:1] == FRAME_VOTE:
            votes.append(data)
        if holding and recipient == bob.peer_id.key:
            held.append((sender, recipient, data))
            return []
        return [data]

    net.tamper = hold
    net.run(until=lambda n: len(clocks_by(n.entries(), n.host.peer_id)) >= 4)
    holding = True
    net.run(until=lambda n: any(isinstance(Entry.decode(d[1:]).body, Clock)
                                for _, _, d in held if d[:1] == b"E"))
    holding = False
    net.now_ms += 20_000
    net.queue.extendleft(reversed(held))
    net.run(until=game_over)
    assert_finished_and_ok(net)
    assert bob.watch.doubted is None
    assert votes == [], "Bob never asked the others to move the table on"
    assert not [e for e in net.entries() if isinstance(e.body, Handover)]


class Creeper(TablePeer):
    """A host whose clock gains 60% of the tolerance at every ``clock`` entry it logs:
    each step alone is within the tolerance, together they would time players out early."""

    def _skew(self) -> int:
        if self.sequencer is None:
            return 0
        logged = clocks_by(self.ledger.chain.entries, self.peer_id)
        return len(logged) * CLOCK_TOLERANCE_MS * 6 // 10

    def receive(self, data: bytes, now_ms: int | None = None, sender: PeerId | None = None,
                arrived_ms: int | None = None) -> None:
        super().receive(data, None if now_ms is None else now_ms + self._skew(), sender,
                        arrived_ms)

    def handle_timer(self, now_ms: int) -> None:
        super().handle_timer(now_ms + self._skew())

    def next_timer(self) -> int | None:
        when = super().next_timer()
        return None if when is None else when - self._skew()


def test_a_sequencer_whose_clock_creeps_ahead_is_voted_out_within_the_bound() -> None:
    """table.md §6.1's bound: each joiner doubts at the second clock entry after the first
    one that follows a message of its own; the majority hands the table over. The start
    clock precedes every message, so the creeper's clock entries 0 to 2 are the most any
    log keeps before the hand-over."""
    net = thinking_table(4, b"creeper", custom={0: Creeper})
    creeper = seat(net, 0)
    # Until every peer, the creeper too, holds the hand-over.
    net.run(until=lambda n: all(p.state.term >= 1 for p in n.peers.values()))
    log = net.entries(seat(net, 1))
    handover = next(e for e in log if isinstance(e.body, Handover))
    assert isinstance(handover.body, Handover)
    assert handover.body.old == creeper.peer_id
    assert len(clocks_by(log[:handover.seq], creeper.peer_id)) <= 3
    assert not named(net, "clock_ahead")
    assert_so_far_ok(net)


# -- drop notices and forgeries (§3.1) ------------------------------------------------------
def forged(message: Message, by: Identity) -> Message:
    """``message`` as a forger makes it: its author's name, another body, a signature the
    author never made."""
    other = Message.sign(by, message.table_id, message.counter, message.head,
                         Move(Draw(0)))
    return replace(other, author=message.author)


def test_forged_messages_in_a_players_name_never_get_it_convicted() -> None:
    """Every time Bob sends the sequencer a message, Cy sends one first in Bob's name at
    Bob's number, with a bad signature. Before, the sequencer's drop notice made Bob sign
    that number twice, and the table convicted him of equivocation."""
    net = thinking_table(4, b"forger")
    ann, bob, cy = seat(net, 0), seat(net, 1), seat(net, 2)
    forgeries = 0

    def forge(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        nonlocal forgeries
        if sender == bob.peer_id.key and recipient == ann.peer_id.key and \
                data[:1] == FRAME_MESSAGE and forgeries < 200:
            fake = forged(Message.decode(data[1:]), cy.identity)
            net.queue.append((cy.peer_id.key, ann.peer_id.key,
                              frame(FRAME_MESSAGE, fake.encode())))
            forgeries += 1
        return [data]

    notices: list[bytes] = []
    plain = net.send

    def send(sender: bytes, recipient: bytes, data: bytes) -> None:
        if data[:1] == FRAME_DROP and recipient == bob.peer_id.key:
            notices.append(data)
        plain(sender, recipient, data)

    net.send = send  # type: ignore[method-assign]
    net.tamper = forge
    # Until twenty forgeries went before Bob's messages and Bob's last one is logged.
    net.run(until=lambda n: forgeries >= 20 and bob.outstanding is None)
    assert forgeries >= 20
    assert_so_far_ok(net)
    assert not named(net, "equivocation")
    # Bob was told of none of them, and the sequencer named the link they came by.
    assert not [n for n in notices if decode_drop(n[1:]).code != "synced"]
    blamed = {e.peer for _, e in named(net, "forged_message")}
    assert blamed == {cy.peer_id}
    # Each names the link by its seat's name, at no entry, with the forgery in Bob's
    # name as its evidence.
    assert {(e.name, e.entry, len(e.evidence), e.evidence[0].author)
            for _, e in named(net, "forged_message")} == {(cy.name, None, 1, bob.peer_id)}


def test_receive_says_which_link_to_cut_and_only_for_its_sender_s_own_fault() -> None:
    """The shell cuts a link on what ``receive`` returns (net.md §5.3), not by reading the
    events: a forgery in another's name, and bytes that are no frame, from a member who
    is not the sequencer; never for a malformed entry the sequencer itself sent (that
    names the sequencer, whose link no other shell should cut on one peer's word)."""
    net = thinking_table(3, b"cut the link")
    ann, bob, cy = seat(net, 0), seat(net, 1), seat(net, 2)
    net.run(until=lambda n: ann.state.phase == TablePhase.PLAYING, max_steps=10_000)
    honest = Message.sign(bob.identity, bob.table_id, bob.outbox.counter, bob.ledger.head,
                          Move(Draw(0)))
    fake = forged(honest, cy.identity)
    cut = ann.receive(frame(FRAME_MESSAGE, fake.encode()), net.now_ms, cy.peer_id)
    told = [e for _, e in named(net, "forged_message")] + \
        [e for e in ann.events() if isinstance(e, PeerMisbehaved)]
    assert cut, "a forgery cuts the link it came by"
    assert [(e.peer, e.reason) for e in told if e.code == "forged_message"] == [(cy.peer_id, cut)]
    garbage = ann.receive(b"Mnot a message", net.now_ms, cy.peer_id)
    assert garbage, "bytes that are no message cut the link"
    relayed = ann.receive(b"E\x90", net.now_ms, cy.peer_id)
    assert relayed, "nor is an entry from a member"
    from_host = bob.receive(b"E\x90", net.now_ms, ann.peer_id)
    assert from_host is None, "a bad entry from the sequencer names it, and cuts nothing"
    assert [(e.code, e.peer) for e in bob.events() if isinstance(e, PeerMisbehaved)] == \
        [("invalid_frame", ann.peer_id)]


def test_a_drop_notice_that_names_another_message_changes_nothing() -> None:
    """A notice for our number but not our message (a forgery earned it, or it is stale):
    we keep waiting for ours, and never sign that number twice."""
    net = thinking_table(3, b"stale notice")
    bob = seat(net, 1)
    net.run(until=lambda n: bob.outstanding is not None and bob.state.engine is not None)
    counter = bob.outstanding
    assert counter is not None
    from uno_p2p.table.frames import drop_notice
    bob.receive(frame(FRAME_DROP, drop_notice(counter, "race", "not yours", bytes(32))),
                net.now_ms, bob.host_id)
    assert bob.outstanding == counter
    assert bob.counter == counter + 1


# -- strangers (§3.1, §7.2) -----------------------------------------------------------------
def test_a_message_from_a_key_with_no_seat_after_the_start_is_dropped_unanswered() -> None:
    net = thinking_table(3, b"stranger")
    ann = seat(net, 0)
    net.run(until=lambda n: n.host.state.engine is not None)
    stranger = Identity(seeded(b"stranger", "identity"))
    first = net.entries()[0]
    message = Message.sign(stranger, ann.table_id, 0, replace(ann.ledger.head, seen=1,
                                                              hash=first.hash),
                           Move(Draw(0)))
    answers: list[bytes] = []

    def to_the_stranger(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        if recipient != stranger.peer.key:
            return [data]
        answers.append(data)
        return []

    net.tamper = to_the_stranger
    net.send(stranger.peer.key, ann.peer_id.key, frame(FRAME_MESSAGE, message.encode()))
    # Until the host took it and logged ten entries more.
    after = net.host.state.seq + 10
    net.run(until=lambda n: n.host.state.seq >= after)
    assert net.host.state.seq >= after
    assert_so_far_ok(net)
    assert not named(net, "forged_message")
    assert answers == [], "nobody answered the stranger"


# -- a silent seat and the sequencer's own work (§6, §14) -----------------------------------
def clock_at(log: tuple[Entry, ...], seq: int) -> int:
    """The table clock when entry ``seq`` was logged: the last ``clock`` before it."""
    return max(e.body.now_ms for e in log[:seq + 1] if isinstance(e.body, Clock))


def test_a_silent_player_is_removed_a_full_response_time_after_the_last_progress() -> None:
    """Its turns time out (a ``TimeOut`` is progress: the table goes on); once the table
    needs its shares it gets the whole response time since the last entry that was not a
    clock, then it is removed; nobody is accused. (That the others then finish the game
    is tests/table/test_removal.py's.)"""
    net = thinking_table(4, b"silent seat")
    cy = seat(net, 2)
    net.run(until=lambda n: (game := n.host.state.engine) is not None and game.current == 2
            and game.phase.name == "PLAYING" and not waiting_for(n.host.state))
    net.silent.add(cy.peer_id.key)
    # Until the others all hold the removal (that they then finish the game is
    # tests/table/test_removal.py's).
    live = [p for p in net.peers.values() if p is not cy]
    net.run(until=lambda n: all(any(isinstance(e.body, Remove) for e in n.entries(p))
                                for p in live))
    log = net.entries()
    assert [e for e in log if isinstance(e.body, Move) and isinstance(e.body.action, TimeOut)
            and e.body.action.seat == 2]
    removal = next(e for e in log if isinstance(e.body, Remove))
    assert isinstance(removal.body, Remove)
    assert removal.body.peer == cy.peer_id
    progress = [e for e in log[:removal.seq] if not isinstance(e.body, Clock)][-1]
    assert clock_at(log, removal.seq) - clock_at(log, progress.seq) >= RESPONSE_TIMEOUT_MS
    net.silent.discard(cy.peer_id.key)  # only for the check: its log is a prefix of theirs
    assert_so_far_ok(net)
    assert not [e for _, e in net.all_events() if isinstance(e, PeerMisbehaved)]


def test_the_sequencer_never_times_out_its_own_seat() -> None:
    """Right after the start every seat owes its key, the sequencer's included (its work
    can lag on a busy machine). Past the response time it removes another seat, never
    names itself."""
    net = thinking_table(3, b"own seat")
    host = seat(net, 0)
    entries = net.entries()
    start = next(e for e in entries if isinstance(e.body, Start))
    ledger = Ledger(host.table_id, host.peer_id, host.peer_id.key)
    for entry in entries[:start.seq + 1]:
        ledger.accept(entry)
    assert 0 in waiting_for(ledger.state)
    identity = Identity(seeded(b"own seat", "identity 0"))
    assert identity.peer == host.peer_id
    sequencer = Sequencer(identity, ledger)
    sequencer.outbox.counter = ledger.chain.next_counter(host.peer_id)
    late = sequencer.next_timer()
    assert late == RESPONSE_TIMEOUT_MS
    outcome = sequencer.tick(late)  # on time: a far later tick is the sequencer away (§6.3)
    bodies = [entry.body for entry, _ in outcome.entries]
    assert not [b for b in bodies if isinstance(b, Abort)]
    removed = [b.peer for b in bodies if isinstance(b, Remove)]
    assert removed == [list(net.peers.values())[1].peer_id]
    assert sequencer.removal_due() is None or sequencer.removal_due() != (0, late)
