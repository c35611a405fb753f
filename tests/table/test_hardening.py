"""Issue 10: each reproduced attack on the table, and the outcome it must have now.

Every test plays the attack through the real protocol objects (the in-memory
network, the real codec) and checks what a player or the audit would see: the
right peer named with the right code, or an unproven stop that blames nobody,
and never an exception out of ``receive``.
"""

from __future__ import annotations

import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest

from tests.audit.test_fault_codes import FIRST_MOVE, PEOPLE
from tests.audit.test_fault_codes import LOG as REFERENCE_LOG
from tests.audit.test_fault_codes import SEED as REFERENCE_SEED
from tests.table import adversaries as adv
from tests.table.prose import reads_on
from uno_p2p.audit.core import audit_entries
from uno_p2p.audit.report import Status
from uno_p2p.crypto.group import G
from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import LocalProtocolError
from uno_p2p.rules.actions import Draw, Play, TimeOut
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.engine import learn
from uno_p2p.rules.events import ShuffleRequested
from uno_p2p.rules.legal import legal_actions
from uno_p2p.rules.options import preset
from uno_p2p.store.unolog import read_log
from uno_p2p.table import game as table_game
from uno_p2p.table.bodies import (
    POINT_BYTES,
    PROOF_BYTES,
    Abort,
    Clock,
    Handover,
    Move,
    PrivateShares,
    RevealSecrets,
    ShareItem,
)
from uno_p2p.table.duties import Owed, make_item, waiting_for
from uno_p2p.table.events import PeerMisbehaved
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_MESSAGE, FRAME_RELAY, frame
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.player import Seat
from uno_p2p.table.replay import replay
from uno_p2p.table.state import Misbehaviour, TablePhase
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.limits import CLOCK_TOLERANCE_MS, MAX_EARLY_BYTES, MAX_EARLY_ENTRIES
from uno_p2p.wire.lobby import Join

pytestmark = pytest.mark.game

OPTIONS = ["target=60", "turn_timer=60"]
WILD_DRAW_FOUR = 104


def table(players: int = 3, seed: bytes = b"harden", custom: dict[int, type[TablePeer]] | None
          = None, options: list[str] | None = None) -> Network:
    setup = TableSetup(players, preset("official", OPTIONS if options is None else options), seed)
    return seat_table(setup, custom=custom)


def named(net: Network, peer: TablePeer, code: str | None = None) -> list[PeerMisbehaved]:
    return [e for e in net.events[peer.peer_id.key] if isinstance(e, PeerMisbehaved)
            and (code is None or e.code == code)]


# -- 1. an honest host that saw a hand judges with public knowledge only ----------------------
class Seer(TablePeer):
    """The host, who has seen Cy's hand (as a challenger does) when her move arrives."""

    cy: TablePeer | None = None
    seen: frozenset[object] = frozenset()
    judged = False

    def receive(self, data: bytes, now_ms: int | None = None, sender: object = None,
                arrived_ms: int | None = None) -> None:
        cy = self.cy
        game = self.state.engine
        if cy is not None and data[:1] == FRAME_MESSAGE and game is not None and \
                cy.state.engine is not None and cy.state.my_seat is not None:
            message = Message.decode(data[1:])
            body = message.body
            if message.author == cy.peer_id and isinstance(body, Move) and not self.judged \
                    and isinstance(body.action, Play) and body.action.cards[0] >= WILD_DRAW_FOUR \
                    and getattr(cy, "bluffed", False):
                self.judged = True
                hand = cy.state.engine.hands[cy.state.my_seat]
                faces = [(s, cy.state.engine.known[s]) for s in hand if s in cy.state.engine.known]
                # As if seen when the move was signed: the host judges it with these faces.
                self.ledger.learned(replace(self.state, engine=learn(game, faces)[0]))
                self.seen = frozenset(s for s, _ in faces)
        super().receive(data, now_ms, sender, arrived_ms)  # type: ignore[arg-type]

    def logged(self, entry: Entry) -> None:
        game = self.state.engine
        if self.seen and game is not None and isinstance(entry.body, Move):
            # Only the judgement of that one move may use what the host saw; its bot
            # then plays on what it may know (it holds no share of Cy's cards).
            public = game.public | {s for s, _ in game.discard}
            known = {s: c for s, c in game.known.items() if s not in self.seen or s in public}
            self.ledger.learned(replace(self.state, engine=replace(game, known=known)))
            self.seen = frozenset()


def _bluff_seen(whole: bool = True) -> tuple[Network, Seer, TablePeer]:
    """One wd4_strict game where Cy bluffs and the host saw her hand (``whole``: to its
    end, where the audit judges it; else until every peer has named Cy). Played afresh
    for each test (not cached): mutmut runs a mutant against the tests that reached it
    when it timed them, and a cached game reaches the code in the first test only."""
    net = table(custom={0: Seer, 2: adv.Bluffer}, seed=b"bluff-seen",
                options=[*OPTIONS, "wd4_strict=true"])
    host = net.host
    assert isinstance(host, Seer)
    cy = list(net.peers.values())[2]
    host.cy = cy
    net.run(until=game_over if whole else lambda n: all(
        any(e.peer == cy.peer_id for e in named(n, p, "wild_draw_four"))
        for p in n.peers.values() if p is not cy))
    assert isinstance(cy, adv.Bluffer)
    assert cy.bluffed, "the seed must give Cy her chance to bluff"
    return net, host, cy



def test_a_host_that_saw_the_bluffers_hand_logs_the_bluff_and_is_never_convicted() -> None:
    # RULES.md: the bluff is legal by default; only under wd4_strict is a Wild Draw Four
    # played holding the colour a cheat, which the host's private sight must not judge.
    net, host, cy = _bluff_seen()
    log = net.entries()
    # The bluff was logged as every other peer judges it, not refused with the host's
    # private knowledge: no abort, and nobody names the host.
    assert not [e for e in log if isinstance(e.body, Abort)]
    for peer in net.peers.values():
        assert peer.stopped is None
        assert not [e for e in named(net, peer) if e.peer == host.peer_id]
    # The host names Cy from what it saw, and the log proves it publicly.
    assert any(e.peer == cy.peer_id for e in named(net, host, "wild_draw_four"))
    report = audit_entries(log)
    assert report.status == Status.VIOLATION
    assert report.violation is not None
    assert report.violation.peer is not None
    assert report.violation.peer.name == cy.name


def test_a_peer_names_a_bluff_it_saw_before_the_reveal_proves_it() -> None:
    """table.md §7: a peer whose own faces prove a claim false names it at once, on its
    word; everyone else names it when the round-end reveal proves it. The host saw Cy's
    hand when her Wild Draw Four came (``Seer``), so it names her before Bob does."""
    net, host, cy = _bluff_seen(whole=False)
    bob = list(net.peers.values())[1]

    def first(peer: TablePeer) -> int:
        found = [e.entry for e in named(net, peer, "wild_draw_four") if e.peer == cy.peer_id]
        assert found, f"{peer.name} never named Cy"
        return min(e for e in found if e is not None)

    assert first(host) < first(bob)


# -- 3. nested abort evidence ------------------------------------------------------------------
def deliver_to(net: Network, peer: TablePeer) -> None:
    """Hand ``peer`` every frame in flight to it (and drop the rest): it is then in step
    with the host's log, and nobody moves on."""
    while net.queue:
        sender, recipient, data = net.queue.popleft()
        if recipient == peer.peer_id.key:
            peer.receive(data, net.now_ms, PeerId(sender))
    peer.data_to_send()


def nested_abort(identity: Identity, table_id: bytes, head: object, depth: int) -> Message:
    evidence = b""
    culprit = identity.peer
    message = None
    for counter in range(depth):
        message = Message.sign(identity, table_id, counter, head,  # type: ignore[arg-type]
                               Abort(culprit, "bad_share", "x", evidence))
        evidence = message.encode()
        if len(evidence) > (1 << 20) - 1024:
            break
    assert message is not None
    return message


def test_nested_abort_evidence_is_a_named_fault_not_a_recursion() -> None:
    net = table(players=2, seed=b"nested")
    guest = next(p for p in net.peers.values() if not p.is_host)
    net.run(until=lambda n: n.host.state.phase == TablePhase.PLAYING)
    deliver_to(net, guest)
    inner = nested_abort(guest.identity, guest.table_id, guest.ledger.head, 400)
    counter = sum(1 for e in net.entries() if e.author == guest.peer_id)
    outer = Message.sign(guest.identity, guest.table_id, counter, guest.ledger.head,
                         Abort(net.host.peer_id, "bad_share", "nested", inner.encode()))
    # A host that skips its checks countersigns it: the peers refuse it, naming the guest.
    log = net.entries()
    bad = Entry.countersign(net.host.identity, len(log), log[-1].hash, outer)
    guest.events()
    guest.receive(frame(FRAME_ENTRY, bad.encode()), net.now_ms, net.host.peer_id)
    found = [e for e in guest.events() if isinstance(e, PeerMisbehaved)]
    assert [(e.code, e.peer) for e in found] == [("bad_evidence", guest.peer_id)]
    report = audit_entries([*log, bad])
    assert report.status == Status.VIOLATION
    assert report.violation is not None
    assert report.violation.code == "bad_evidence"
    assert replay([*log, bad]).violation is not None
    # The honest host refuses the message itself and logs an abort naming the guest
    # (whose accusation does not hold); no RecursionError escapes anywhere.
    net.host.receive(frame(FRAME_MESSAGE, outer.encode()), net.now_ms, guest.peer_id)
    aborts = [e.body for e in net.entries() if isinstance(e.body, Abort)]
    assert [(a.culprit, a.code) for a in aborts] == [(guest.peer_id, "bad_evidence")]
    assert audit_entries(net.entries()).status != Status.OK


# -- 5. a weak X25519 channel key ---------------------------------------------------------------
SMALL_ORDER = bytes(32)  # u = 0, a point of order 4 on Curve25519


class WeakKeyJoiner(TablePeer):
    def outgoing(self, body: object) -> object:  # type: ignore[override]
        if isinstance(body, Join):
            return Join(body.name, SMALL_ORDER)
        return body


def test_a_small_order_channel_key_is_refused_at_join_naming_its_owner() -> None:
    net = Network()
    host = net.add(TablePeer.host(Identity(seeded(b"weak", "host")), seeded(b"weak", "e0"),
                                  table_id=seeded(b"weak", "table", 16), name="Ann",
                                  options=preset("official", OPTIONS)))
    weak = WeakKeyJoiner.join(Identity(seeded(b"weak", "identity")), seeded(b"weak", "e1"),
                              table_id=host.table_id, host=host.peer_id, name="Weak")
    net.add(weak)
    net.run(max_steps=1000)
    lobby = host.state.lobby
    assert lobby is not None
    # Refused on arrival: no seal to it can ever be attempted (it crashed the sealer).
    assert weak.peer_id not in lobby.joined
    assert all(not isinstance(e.body, Join) or e.author != weak.peer_id for e in net.entries())
    # A countersigned one (a host that skips its checks) is a fault naming the joiner.
    message = Message.sign(weak.identity, host.table_id, 0, host.ledger.head,
                           Join("Weak", SMALL_ORDER))
    log = net.entries()
    forged = Entry.countersign(host.identity, len(log), log[-1].hash, message)
    report = audit_entries([*log, forged])
    assert report.violation is not None
    assert report.violation.code == "bad_channel_key"
    assert report.violation.peer is not None
    assert report.violation.peer.key == weak.peer_id.key


# -- 6. a reshuffle holding one card twice -----------------------------------------------------
def test_a_reshuffle_of_one_card_twice_is_a_named_fault() -> None:
    net = table(players=2, seed=b"dup")
    net.run(until=lambda n: n.host.state.engine is not None and bool(n.host.state.decks)
            and n.host.state.decks[0].ready)
    ts = net.host.state
    # The discard pile to reshuffle holds one card twice (what a dishonest shuffle that
    # duplicated a card would leave): a named fault, not an exception.
    event = ShuffleRequested(len(ts.decks), 2, (Slot(0, 1), Slot(0, 2)), (7, 7))
    with pytest.raises(Misbehaviour) as caught:
        table_game.follow(ts, [event], ts.seq)
    assert caught.value.code == "duplicate_card"


# -- 8. the early-entry buffer -----------------------------------------------------------------
def test_entries_ahead_of_the_log_are_verified_and_bounded_before_they_are_kept() -> None:
    net = table(players=2, seed=b"early")
    net.run(until=lambda n: n.host.state.phase == TablePhase.PLAYING)
    guest = next(p for p in net.peers.values() if not p.is_host)
    host = net.host
    head = guest.ledger.head
    big = Message.sign(host.identity, host.table_id, 10_000, head, Clock(1))
    forged = Entry(guest.state.seq + 5, bytes(32), big, bytes(64))
    tracemalloc.start()
    for n in range(400):
        entry = replace(forged, seq=guest.state.seq + 5 + n)
        guest.receive(frame(FRAME_ENTRY, entry.encode()), net.now_ms, host.peer_id)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert not guest.early  # forged countersignatures: nothing kept
    assert peak < MAX_EARLY_BYTES
    # Genuine entries ahead are kept, up to the bound.
    seq = host.state.seq
    for n in range(MAX_EARLY_ENTRIES + 10):
        msg = Message.sign(host.identity, host.table_id, 10_000 + n, head, Clock(n))
        entry = Entry.countersign(host.identity, seq + 5 + n, bytes(32), msg)
        guest.receive(frame(FRAME_ENTRY, entry.encode()), net.now_ms, host.peer_id)
    assert len(guest.early) == MAX_EARLY_ENTRIES


# -- 9. an old entry with a bad countersignature -------------------------------------------------
def test_an_old_entry_with_a_bad_countersignature_is_a_named_fault() -> None:
    net = table(players=2, seed=b"old")
    net.run(until=lambda n: len(n.entries()) > 12)
    guest = next(p for p in net.peers.values() if not p.is_host)
    old = guest.ledger.chain.entries[3]
    other = Message.sign(net.host.identity, old.message.table_id, 999, old.message.head,
                         Clock(1))
    forged = replace(old, message=other, countersignature=bytes(64))
    guest.events()
    guest.receive(frame(FRAME_ENTRY, forged.encode()), net.now_ms, net.host.peer_id)
    found = [e for e in guest.events() if isinstance(e, PeerMisbehaved)]
    assert [e.code for e in found] == ["bad_countersignature"]
    assert guest.stopped is None  # anyone could send those bytes: they stop nothing
    net.run(until=game_over)
    assert guest.state.phase == TablePhase.ENDED


# -- 4. a short private reveal -----------------------------------------------------------------
class ShortReveal(adv.Playing):
    """Leaves the last card out of every private reveal it sends (a hand shown to a
    challenger or a peeker without the card that matters)."""

    shortened = False

    def reveal(self, seat: Seat, shares: PrivateShares) -> PrivateShares:
        if len(shares.items) > 1:
            shares = PrivateShares(shares.items[:-1])
            self.shortened = True
        return super().reveal(seat, shares)


class EagerShort(ShortReveal, adv.Eager):
    """Plays every Wild power (so others owe it private reveals), and cheats in its own."""


def cheated_in_a_private_reveal(cheat_class: type[TablePeer], cheated: str
                                ) -> tuple[Network, TablePeer]:
    """A 3-seat game with every Wild power played, seat 1 the cheat; the first of a few
    fixed seeds where someone asked the cheat for a private reveal it cheated in (its
    ``cheated`` flag set)."""
    options = ["target=60", "turn_timer=60", "wild_powers=true"]
    for attempt in range(3, 9):
        net = table(players=3, seed=b"short%d" % attempt, options=options,
                    custom={0: adv.Eager, 1: cheat_class, 2: adv.Eager})
        net.run(until=game_over)
        cheat = list(net.peers.values())[1]
        if getattr(cheat, cheated, False):
            return net, cheat
    raise AssertionError("nobody asked the cheat for a private reveal it could cheat in")


def test_a_short_private_reveal_is_named_by_its_recipient_and_proven_by_the_audit() -> None:
    net, cheat = cheated_in_a_private_reveal(EagerShort, "shortened")
    accusers = [p for p in net.peers.values()
                if any(e.peer == cheat.peer_id for e in named(net, p, "bad_private_share"))]
    assert accusers, "the recipient of the short reveal names its sender"
    for peer in net.peers.values():  # the game stopped and ended: it did not freeze
        assert peer.state.phase == TablePhase.ENDED
    log = net.entries()
    report = audit_entries(log)
    assert report.status == Status.VIOLATION
    assert report.violation is not None
    assert report.violation.code == "bad_private_reveal"
    assert report.violation.peer is not None
    assert report.violation.peer.name == cheat.name
    assert "leaves out" in report.violation.reason


# -- 7. a log that merely stops, and the closing entry -------------------------------------------
DATA = Path(__file__).resolve().parent.parent / "data"


def test_a_log_cut_before_the_reveals_blames_nobody() -> None:
    entries = read_log(DATA / "honest-3p-house.unolog").entries
    first_reveal = next(e.seq for e in entries if isinstance(e.body, RevealSecrets))
    for cut in (first_reveal, len(entries) - 1):
        report = audit_entries(entries[:cut])
        assert report.status == Status.UNFINISHED, cut
        assert report.violation is None
        assert "nobody is blamed" in report.stopped


def test_an_unproven_accusation_names_its_accuser_and_excuses_nobody() -> None:
    # Two players: the silent one cannot be removed (table.md §14.1), so it is accused.
    net = table(players=2, seed=b"mute")
    net.run(until=lambda n: n.host.state.engine is not None and
            n.host.state.engine.phase.value == "playing")
    quiet = net.host.state.seats[1]
    net.silent.add(quiet.key)
    net.run(until=game_over)
    log = net.entries()
    accusation = next(e for e in log if isinstance(e.body, Abort))
    assert isinstance(accusation.body, Abort)
    assert accusation.body.code == "unresponsive"
    stopped = replay(log[:accusation.seq + 1]).state
    # The accused still owes its reveal: the accusation proves nothing.
    assert stopped.stop is not None
    assert stopped.stop.culprit is None
    assert stopped.stop.accuser == net.host.peer_id
    assert stopped.reveals_expected == frozenset({0, 1})
    assert "Ann stopped the game" in stopped.stop.reason
    # It never came: the sequencer's closing entry ends the log, and names Bob, unproven.
    closing = log[-1]
    assert isinstance(closing.body, Abort)
    assert closing.body.code == "missing_reveal"
    assert closing.body.culprit == quiet
    report = audit_entries(log)
    assert report.status == Status.ABORTED
    assert report.violation is not None
    assert not report.violation.proven
    assert "Ann stopped the game, accusing Bob" in report.stopped
    # Cut before the closing entry, the same log blames nobody.
    cut = audit_entries(log[:-1])
    assert cut.status == Status.UNFINISHED
    assert cut.violation is None


# -- 2. a host that races its clock or censors a player ------------------------------------------
class ClockRacer(adv.EvilHost):
    """Drops seat 1's first move, logs a clock 450 s ahead with no time passing, and
    times seat 1 out on it (what let a host replace 15 turns unseen)."""

    done = False

    def receive(self, data: bytes, now_ms: int | None = None,
                sender: PeerId | None = None, arrived_ms: int | None = None) -> None:
        if not self.done and data[:1] == FRAME_MESSAGE and self.state.engine is not None:
            message = Message.decode(data[1:])
            if isinstance(message.body, Move) and self.state.seat_of(message.author.key) == 1 \
                    and self.state.engine.current == 1:
                self.done = True
                ahead = max(self.now_ms, self.state.clock_ms) + 450_000
                for body in (Clock(ahead), Move(TimeOut(1))):
                    entry = self.inject(body)
                    self.ledger.accept(entry)
                    self.outbox.logged(entry.message.counter)  # as the sequencer would
                return
        super().receive(data, now_ms, sender, arrived_ms)


def test_a_clock_far_ahead_of_real_time_is_voted_out_and_its_time_out_never_applied() -> None:
    """table.md §6.1, §7.5: every joiner doubts the racing clock on its own, holds it back
    and votes; the majority hands the table over, nobody is named, the game goes on."""
    net = table(players=3, seed=b"racer", custom={0: ClockRacer})
    racer = next(iter(net.peers.values()))
    assert isinstance(racer, ClockRacer)
    net.run(until=game_over)
    assert racer.done
    final = net.entries(net.peers[racer.peer_id.key])
    handovers = [e.body for e in final if isinstance(e.body, Handover)]
    assert [h.old for h in handovers if isinstance(h, Handover)][:1] == [racer.peer_id]
    assert not [e for e in final if isinstance(e.body, Abort)]
    for peer in net.peers.values():
        assert not named(net, peer, "clock_ahead"), peer.name
        assert peer.stopped is None, peer.name
        assert peer.state.phase == TablePhase.ENDED, peer.name
    # The time-out the racing clock was logged for is in no log the table kept.
    early = [e for e in final if isinstance(e.body, Clock) and e.author == racer.peer_id
             and e.body.now_ms >= 450_000]
    assert not early
    assert audit_entries(final).status == Status.OK


class Censor(TablePeer):
    """An honest-looking host that never logs seat 1's moves (nor their relays): its
    own turn timer then times seat 1 out, blaming the victim."""

    #: The frames of seat 1's moves this host does not hear.
    unheard: tuple[bytes, ...] = (FRAME_MESSAGE, FRAME_RELAY)

    def receive(self, data: bytes, now_ms: int | None = None,
                sender: PeerId | None = None, arrived_ms: int | None = None) -> None:
        if data[:1] in self.unheard and self.state.engine is not None:
            message = Message.decode(data[1:])
            if isinstance(message.body, Move) and self.state.seat_of(message.author.key) == 1:
                return
        super().receive(data, now_ms, sender, arrived_ms)


def test_a_dropped_move_relayed_to_the_peers_is_evidence_of_censorship() -> None:
    # The turn timer runs out before the victim holds the host lost (15 s, table.md
    # §13.1): the censoring host logs its time-out; later it would be handed over.
    net = table(players=3, seed=b"censor", custom={0: Censor},
                options=["target=60", "turn_timer=10"])
    victim = list(net.peers.values())[1]
    witness = list(net.peers.values())[2]
    net.run(until=lambda n: bool(named(n, witness, "censorship")), max_steps=200_000)
    found = named(net, witness, "censorship")
    assert found
    event = found[0]
    assert event.peer == net.host.peer_id
    relayed, timeout = event.evidence
    assert isinstance(relayed, Message)
    assert relayed.author == victim.peer_id
    relayed.verify()  # the victim's own signature: anyone can check it
    assert isinstance(timeout, Entry)
    assert isinstance(timeout.body, Move)
    assert isinstance(timeout.body.action, TimeOut)
    assert timeout.body.action.seat == 1



class Deaf(Censor):
    """A host that misses seat 1's moves sent to it, and logs them once relayed to all."""

    unheard = (FRAME_MESSAGE,)


def test_a_relayed_move_the_host_logs_after_all_is_no_evidence() -> None:
    # table.md §6.2: a witness keeps a relayed message only while it is unlogged. Once
    # the sequencer logs it, it is dropped; a later time-out of its author, with no
    # message shown since, is no censorship. Seat 1 relays each of its moves here.
    net = table(players=3, seed=b"deaf", custom={0: Deaf},
                options=["target=60", "turn_timer=10"])
    victim, witness = list(net.peers.values())[1:]
    kept: list[int] = []

    def relayed_then_logged(n: Network) -> bool:
        held = witness.watch.censorship.relayed.get(victim.peer_id.key)
        if held is not None:
            kept.append(held.message.counter)
        logged = witness.ledger.chain.next_counter(victim.peer_id)
        return bool(kept) and logged > kept[0] and witness.state.seq > 0

    net.run(until=relayed_then_logged, max_steps=200_000)
    assert kept, "seat 1's move went round as a relay"
    assert victim.peer_id.key not in witness.watch.censorship.relayed, "logged: no longer held"
    # A whole round of seat 1's moves, each relayed then logged, names nobody (the
    # later rounds only repeat it).
    net.run(until=lambda n: _round_won(witness), max_steps=400_000)
    assert _round_won(witness)
    relays = sum(isinstance(e.body, Move) and e.author == victim.peer_id
                 for e in net.entries(witness))
    assert relays > 3, "seat 1 moved, relayed, more than a few times"
    assert all(p.stopped is None for p in net.peers.values())
    assert not named(net, witness)
    assert not named(net, victim)


def _round_won(peer: TablePeer) -> bool:
    game = peer.state.engine
    return game is not None and game.round_winner is not None


def test_a_peer_catching_up_after_a_long_cut_does_not_judge_the_old_clocks() -> None:
    """table.md §6.1 and §9: the clock watch compares a *live* clock entry with our own
    clock. The entries a peer catches up on after a lost link are old: their table
    times lie far behind our clock now. Taken as live, they would set the watch's
    smallest offset back by the whole cut, and the host's next honest clock would be
    refused as running ahead. Cy's link is cut on her turn; the table times her out
    (a ``clock`` and a time-out she misses), and she comes back four tolerances later,
    resyncs, and plays on to the end, blaming nobody."""
    cut = {"on": False}
    victim: list[bytes] = []

    def tamper(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        return [] if cut["on"] and victim[0] in (sender, recipient) else [data]

    setup = TableSetup(3, preset("official", ["target=60", "turn_timer=5"]), b"long cut")
    net = seat_table(setup, tamper)
    cy = list(net.peers.values())[2]
    victim.append(cy.peer_id.key)

    def cys_turn(n: Network) -> bool:
        state = n.host.state
        return state.phase == TablePhase.PLAYING and state.engine is not None \
            and state.engine.current == state.seat_of(cy.peer_id.key) and not waiting_for(state)

    net.run(until=cys_turn, max_steps=100_000)
    cut["on"] = True
    missed = net.host.state.seq
    net.run(until=lambda n: any(isinstance(e.body, Clock) for e in n.entries()[missed:]),
            max_steps=100_000)
    assert cy.state.seq == missed, "Cy missed the clock"
    net.now_ms += 4 * CLOCK_TOLERANCE_MS  # she is away for longer than the tolerance
    cut["on"] = False
    cy.resync()
    net.run(until=game_over, max_steps=300_000)
    assert named(net, cy) == [], "nobody is blamed"
    assert cy.stopped is None
    assert cy.state.phase == TablePhase.ENDED
    assert cy.ledger.digests == net.host.ledger.digests

# -- 11. secrets bound to the peer's own fresh nonce ---------------------------------------------
def test_a_reused_table_id_and_entropy_give_fresh_secrets_with_a_fresh_nonce() -> None:
    identity = Identity(seeded(b"reuse", "identity"))
    entropy = seeded(b"reuse", "entropy")  # reused by mistake, game after game
    table_id = seeded(b"reuse", "table", 16)  # and the host reuses an old table id
    host = Identity(seeded(b"reuse", "host")).peer

    def secrets(nonce: bytes) -> tuple[bytes, bytes]:
        peer = TablePeer(identity, entropy, table_id=table_id, host=host, name="Bo", nonce=nonce)
        return peer.secrets.announce().public_key.to_wire(), peer.channel.public

    old, new = secrets(seeded(b"reuse", "nonce 1", 16)), secrets(seeded(b"reuse", "nonce 2", 16))
    assert old[0] != new[0], "the key share published last game is not used again"
    assert old[1] != new[1]
    # The same nonce (kept by the shell with the entropy) rebuilds the same peer: resume.
    assert secrets(seeded(b"reuse", "nonce 1", 16)) == old
    with pytest.raises(LocalProtocolError):
        TablePeer(identity, entropy, table_id=table_id, host=host, name="Bo", nonce=b"short")


# -- 12. a private reveal goes to a known channel or nowhere -----------------------------------
def test_a_private_reveal_to_a_peer_without_a_channel_is_never_signed() -> None:
    """table.md §4.3: private shares travel sealed to the recipient's channel key from
    the lobby. A peer asked to reveal to someone with no channel there (a stranger)
    stops before it signs: no message number is spent, nothing is sent, and the error
    says what was missing, in words."""
    net = table()
    net.run(until=lambda n: n.host.state.phase == TablePhase.PLAYING, max_steps=100_000)
    guest = next(p for p in net.peers.values() if p.state.my_seat == 1)
    guest.data_to_send()
    counter = guest.counter
    share = ShareItem(0, 1, "private", 0, 0, bytes(POINT_BYTES), bytes(PROOF_BYTES))
    stranger = Identity(seeded(b"harden", "a stranger")).peer
    with pytest.raises(LocalProtocolError) as refused:
        guest.send(private=PrivateShares((share,)), to=stranger)
    reads_on(str(refused.value))
    assert "channel" in str(refused.value)
    assert guest.counter == counter, "no message number spent"
    assert guest.data_to_send() == [], "nothing sent"


def test_a_peer_following_a_table_it_has_no_seat_at_may_not_move() -> None:
    # A stranger that follows a reference log (every entry proves itself) sees whose turn
    # it is, and the engine would take the move for that seat (the very play the log
    # holds next); the peer holds no seat's secrets to prove it with, and says so rather
    # than send another seat's move.
    stranger = TablePeer.resume(PEOPLE[3], seeded(REFERENCE_SEED, "entropy x"),
                                REFERENCE_LOG[:FIRST_MOVE], name="Eve", bot=None,
                                nonce=seeded(REFERENCE_SEED, "nonce x", 16))
    game, logged = stranger.state.engine, REFERENCE_LOG[FIRST_MOVE].body
    assert game is not None
    assert isinstance(logged, Move)
    assert (stranger.state.phase, stranger.state.my_seat) == (TablePhase.PLAYING, None)
    stranger.data_to_send()  # its request for what it missed (resume, table.md §9)
    with pytest.raises(LocalProtocolError, match=r"^this peer has no seat$"):
        stranger.act(logged.action)
    seat = game.decider()
    assert seat is not None
    with pytest.raises(LocalProtocolError, match=r"^this peer has no seat$"):
        stranger.act(Draw(seat))
    assert stranger.data_to_send() == [], "nothing sent"


def test_a_second_move_before_the_first_is_logged_is_refused_in_words() -> None:
    """table.md §3: a peer has one message on its way at a time (the next would need
    the first's number settled). A move meanwhile is refused before anything is
    signed, and the player reads why: wait until the first is logged."""
    net = table()

    def on_its_way(peer: TablePeer) -> bool:
        game = peer.state.engine
        return not peer.is_host and peer.outstanding is not None and game is not None \
            and game.current == peer.state.my_seat

    net.run(until=lambda n: any(on_its_way(p) for p in n.peers.values()), max_steps=100_000)
    mover = next(p for p in net.peers.values() if on_its_way(p))
    game, seat = mover.state.game, mover.state.my_seat
    assert seat is not None
    counter = mover.counter
    mover.data_to_send()
    with pytest.raises(LocalProtocolError) as refused:
        mover.act(legal_actions(game, seat)[0])
    reads_on(str(refused.value))
    assert "wait until" in str(refused.value)
    assert mover.counter == counter, "nothing signed"
    assert mover.data_to_send() == [], "nothing sent"


# -- 13. a private reveal addressed to another seat --------------------------------------------
class MisaddressedReveal(adv.Playing):
    """Sends every private reveal to its recipient with the first share labelled for
    another seat (its own share, well proven, of the right card)."""

    misaddressed = False

    def reveal(self, seat: Seat, shares: PrivateShares) -> PrivateShares:
        first, *rest = shares.items
        other = next(s for s in range(len(seat.state.seats))
                     if s not in (first.recipient, first.prover))
        self.misaddressed = True
        return super().reveal(seat, PrivateShares((replace(first, recipient=other), *rest)))


class EagerMisaddressed(MisaddressedReveal, adv.Eager):
    """Plays every Wild power (so others owe it private reveals), and cheats in its own."""


def test_a_private_share_labelled_for_another_seat_is_named_by_its_recipient() -> None:
    """table.md §4.3: a private reveal holds the author's shares for its recipient only.
    A share labelled for another seat is refused by the recipient, who names the sender
    (``bad_private_share``) and says why: a private share for someone else."""
    net, cheat = cheated_in_a_private_reveal(EagerMisaddressed, "misaddressed")
    found = [e for p in net.peers.values() for e in named(net, p, "bad_private_share")
             if e.peer == cheat.peer_id]
    assert found, "the recipient names the sender"
    assert all(e.reason == "a private share for someone else" for e in found), \
        [e.reason for e in found]


class OverReveal(adv.Playing):
    """Adds to every private reveal its own well-proven share of a card nobody asked to
    see: the top of the draw pile."""

    over_revealed = False

    def reveal(self, seat: Seat, shares: PrivateShares) -> PrivateShares:
        game, me = seat.state.engine, seat.state.my_seat
        if game is not None and me is not None and game.draw_pile:
            top = game.draw_pile[0]
            extra = make_item(seat.state, seat.secrets, me,
                              Owed(top, "private", shares.items[0].recipient))
            shares = PrivateShares((*shares.items, extra))
            self.over_revealed = True
        return super().reveal(seat, shares)


class EagerOverReveal(OverReveal, adv.Eager):
    """Plays every Wild power (so others owe it private reveals), and cheats in its own."""


def test_a_private_reveal_of_a_card_not_owed_is_named_by_its_recipient_and_the_audit() -> None:
    """table.md §4.3: a private reveal gives no card no reveal asked for (else a player
    could show a friend the draw pile). The recipient names the sender and says which
    card was not owed; the audit proves it from the log."""
    net, cheat = cheated_in_a_private_reveal(EagerOverReveal, "over_revealed")
    found = [e for p in net.peers.values() for e in named(net, p, "bad_private_share")
             if e.peer == cheat.peer_id]
    assert found, "the recipient names the sender"
    for event in found:
        assert event.reason.startswith("a private share of ("), event.reason
        assert event.reason.endswith(") that was not owed"), event.reason
    report = audit_entries(net.entries())
    assert report.violation is not None
    assert (report.violation.code, report.violation.peer and report.violation.peer.name) == \
        ("bad_private_reveal", cheat.name)
    assert "that was not owed" in report.violation.reason


# -- 14. a card of ours that opens to no card ---------------------------------------------------
def test_a_card_that_opens_to_no_card_stops_the_peer_in_words() -> None:
    """deck.md §7: a card a peer opens must be one of the 108; a point that is none
    can only come from a dishonest shuffle, named at the end-of-game reveal. The peer
    stops on it (``unknown_card``, nobody named yet) and says so in words, never a
    crash. Bob is given shares of a card in the pile that add up to no card."""
    net = table()

    bob = list(net.peers.values())[1]

    def dealt(n: Network) -> bool:  # Bob holds his first hand, every card of it known
        game = bob.state.engine
        return game is not None and bob.state.my_seat == 1 and len(game.hands[1]) == 7 \
            and all(s in bob.state.game.known for s in game.hands[1])

    net.run(until=dealt, max_steps=100_000)
    state = bob.state
    assert state.engine is not None
    deck = state.engine.hands[1][0].shuffle  # the round's deck: shuffled, dealt from
    assert state.slot_ready(Slot(deck, 0))
    slot = next(Slot(deck, p) for p in range(108)
                if Slot(deck, p) not in state.shares and Slot(deck, p) not in state.game.known)
    bob.sight.private[slot] = {seat: G for seat in range(len(state.seats)) if seat != 1}
    bob.sight.wanted.add(slot)
    key = bob.peer_id.key
    net.events[key].clear()
    net.run(until=lambda n: bob.stopped is not None, max_steps=10_000)  # its next entry
    assert bob.stopped is not None, "the peer takes no further entry"
    assert bob.stopped.code == "unknown_card"
    told = [e for e in net.events[key] if isinstance(e, PeerMisbehaved)]
    assert [(e.peer, e.code) for e in told] == [(None, "unknown_card")]
    reads_on(told[0].reason.removeprefix(f"entry {told[0].entry}: "))
    assert str(bob.stopped) == told[0].reason
