"""Every adversary of issue 5 is caught, attributed, and the honest logs stay valid.

Each test seats one cheater among honest bot peers on the in-memory network
and checks what an honest player would: the right peer is named with the
right code, with evidence; the honest peers hold one log; that log replays
without a violation (the cheat never entered it, or entered only as the
evidence of a valid ``Abort``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.table import adversaries as adv
from uno_p2p.crypto.identity import PeerId
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Abort, Move, Shares, ShuffleDeck
from uno_p2p.table.events import PeerMisbehaved
from uno_p2p.table.frames import FRAME_DROP, decode_drop
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.replay import replay
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Message

OPTIONS = ["target=60", "turn_timer=60"]


def seat(custom: dict[int, type[TablePeer]], players: int = 3, seed: bytes = b"adv",
         options: list[str] | None = None, bots: tuple[str, ...] = (),
         until: Callable[[Network], bool] = game_over) -> Network:
    """The table played until ``until`` (by default, the game's end)."""
    setup = TableSetup(players, preset("official", OPTIONS if options is None else options),
                       seed, bots=bots)
    net = seat_table(setup, custom=custom)
    net.run(until=until)
    return net


def honest(net: Network, cheater: int) -> list[TablePeer]:
    return [p for p in net.peers.values() if p.state.my_seat != cheater]


def named(net: Network, peer: TablePeer, code: str | None = None) -> list[PeerMisbehaved]:
    return [e for e in net.events[peer.peer_id.key] if isinstance(e, PeerMisbehaved)
            and (code is None or e.code == code)]


def cheater_id(net: Network, seat: int) -> PeerId:
    return net.host.state.seats[seat]


def assert_stopped_by_abort(net: Network, seat: int, codes: set[str]) -> None:
    """The sequencer refused the cheat, logged an Abort naming it; every honest peer agrees."""
    culprit = cheater_id(net, seat)
    peers = honest(net, seat)
    for peer in peers:
        found = [e for e in named(net, peer) if e.code in codes]
        assert found, f"{peer.name} did not name the cheater"
        assert found[0].peer == culprit
        assert peer.stopped is None
        assert peer.state.phase == TablePhase.ENDED
    assert len({p.ledger.chain.entries for p in peers}) == 1
    log = net.entries(peers[0])
    aborts = [e.body for e in log if isinstance(e.body, Abort)]
    assert len(aborts) == 1
    assert aborts[0].culprit == culprit
    result = replay(log)
    assert result.violation is None
    assert result.misbehaviour[0].peer == culprit
    assert result.stopped


@pytest.mark.game
@pytest.mark.parametrize(("cheat", "codes"), [
    (adv.PlaysCardNotHeld, {"illegal_move"}),
    (adv.PlaysOutOfTurn, {"illegal_move"}),
    # The host refuses it by the rules when it knows the card, else by opening it.
    (adv.ClaimsWrongFace, {"wrong_face", "illegal_move"}),
    (adv.BadShare, {"bad_share"}),
    (adv.Equivocates, {"equivocation"}),
])
def test_a_cheating_message_is_refused_and_its_author_named(
        cheat: type[TablePeer], codes: set[str]) -> None:
    net = seat({1: cheat})
    assert getattr(net.peers[cheater_id(net, 1).key], "cheated", False)
    assert_stopped_by_abort(net, 1, codes)


def test_the_author_of_a_cheating_message_is_told_it_was_dropped() -> None:
    """table.md §3.1 and §7.2: the sequencer that stops the game on a cheating message
    also tells its author, in a ``D`` frame, which message (its counter) and why."""
    carried: list[tuple[bytes, bytes, bytes]] = []

    def record(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        carried.append((sender, recipient, data))
        return [data]

    setup = TableSetup(3, preset("official", OPTIONS), b"adv")
    net = seat_table(setup, record, custom={1: adv.PlaysOutOfTurn})
    net.run(until=game_over)
    cheat = cheater_id(net, 1)
    abort = next(e.body for e in net.entries() if isinstance(e.body, Abort))
    refused = Message.decode(abort.evidence)
    drops = [decode_drop(data[1:]) for sender, recipient, data in carried
             if sender == net.host.peer_id.key and recipient == cheat.key
             and data[:1] == FRAME_DROP]
    assert (refused.counter, abort.code) in [(d.counter, d.code) for d in drops]


def test_a_replayed_message_is_not_logged_and_the_game_goes_on() -> None:
    net = seat({1: adv.ReplaysOldMessage}, players=2, options=["target=30"])
    assert getattr(net.peers[cheater_id(net, 1).key], "cheated", False)
    for peer in net.peers.values():
        assert peer.state.phase == TablePhase.ENDED
        assert not named(net, peer)
    log = net.entries()
    keys = [e for e in log if type(e.body).__name__ == "KeySetup"]
    assert len(keys) == 2, "the replayed key setup was logged once only"
    assert replay(log).violation is None


def test_a_dishonest_shuffle_is_proven_at_the_end_of_game_reveal() -> None:
    net = seat({1: adv.DishonestShuffler}, players=2, options=["target=30"])
    culprit = cheater_id(net, 1)
    for peer in honest(net, 1):
        found = named(net, peer, "dishonest_shuffle")
        assert found, "the re-execution of the shuffles names the cheat"
        assert found[0].peer == culprit
        assert peer.state.phase == TablePhase.ENDED
        assert peer.state.audit_error
    result = replay(net.entries())
    assert result.violation is None
    assert result.audit
    assert [e.peer for e in result.misbehaviour] == [culprit]


@pytest.mark.parametrize("cheat", [adv.StacksTheDeck, adv.StacksWithoutProof])
def test_a_stacked_deck_is_refused_on_arrival_and_no_card_of_it_opens(
        cheat: type[TablePeer]) -> None:
    """Issue 9: the last shuffler substitutes a deck of its own; its proof of shuffle
    fails (or is missing), the round stops before any share of that deck is given, and
    the shuffler is named with its signed message as evidence."""
    net = seat({2: cheat}, players=3, options=["target=30"])
    assert getattr(net.peers[cheater_id(net, 2).key], "cheated", False)
    assert_stopped_by_abort(net, 2, {"bad_shuffle"})
    log = net.entries()
    abort = next(e.body for e in log if isinstance(e.body, Abort))
    assert abort.code == "bad_shuffle"
    assert abort.evidence, "the signed shuffle is the evidence"
    stacked = Message.decode(abort.evidence).body
    assert isinstance(stacked, ShuffleDeck)
    shared = {item.shuffle for e in log if isinstance(e.body, Shares) for item in e.body.items}
    shared |= {item.shuffle for e in log if isinstance(e.body, Move) for item in e.body.shares}
    assert stacked.shuffle not in shared, "no honest peer released a share of the deck"
    for peer in honest(net, 2):
        deck = peer.state.decks[stacked.shuffle]
        assert deck.done == (0, 1), "the stacked deck never entered"
        assert not deck.ready
        assert not any(slot.shuffle == stacked.shuffle for slot in peer.state.opened)


def test_a_lying_challenger_is_caught_at_the_round_end_and_by_the_audit() -> None:
    # RULES.md: "The challenged hand is shown to the challenger alone"; everyone else learns
    # only the verdict, and a false one is still caught: by the challenged player at once,
    # by everyone when the round's hands are revealed, and by the audit at the verdict.
    from uno_p2p.audit.core import audit_entries
    from uno_p2p.rules.actions import ChallengeVerdict

    # Games of one round (target 1): the lie, its round-end reveal and the audit's
    # verdict all fall in the round of the challenge.
    for attempt in range(12):
        net = seat({1: adv.LyingChallenger}, players=2, seed=b"liar %d" % attempt,
                   options=["target=1", "turn_timer=60"])
        if not getattr(net.peers[cheater_id(net, 1).key], "cheated", False):
            continue
        liar = cheater_id(net, 1)
        for peer in honest(net, 1):
            found = named(net, peer, "challenge")
            assert found
            assert found[0].peer == liar
            assert peer.stopped is None
        entries = net.entries()
        verdict = next(e.seq for e in entries if isinstance(e.body, Move)
                       and isinstance(e.body.action, ChallengeVerdict))
        finding = audit_entries(entries).violation
        assert finding is not None
        assert (finding.code, finding.entry, finding.rule) == ("illegal_move", verdict,
                                                               "challenge")
        assert finding.peer is not None
        assert finding.peer.key == liar.key
        return
    pytest.fail("no Wild Draw Four was challenged in twelve games")


@pytest.mark.parametrize(("host", "victims", "codes"), [
    (adv.UncheckingHost, None, {"illegal_move", "wrong_face", "unproven_face"}),
    (adv.SkipsTurn, None, {"illegal_move"}),
    (adv.Forks, [1], {"sequencer_fork", "bad_prev_hash"}),
    (adv.Reorders, None, {"sequencer_fork", "head_ahead", "bad_prev_hash"}),
])
def test_a_misbehaving_sequencer_is_caught_by_the_honest_peers(
        host: type[TablePeer], victims: list[int] | None, codes: set[str]) -> None:
    custom: dict[int, type[TablePeer]] = {0: host}
    if host is adv.UncheckingHost:
        custom[1] = adv.PlaysCardNotHeld

    def hurt_of(net: Network) -> list[TablePeer]:
        # Victims by their seat at the start (the peers in seat order): a victim that
        # stopped is removed by the sequencer (table.md §14) and the seats after it move up.
        seated = list(net.peers.values())
        return [p for p in seated[1:] if victims is None or seated.index(p) in victims]

    # Until every victim has stopped: the others' game after that is no victim's.
    net = seat(custom, until=lambda n: all(p.stopped is not None for p in hurt_of(n)))
    hurt = hurt_of(net)
    for peer in hurt:
        assert peer.stopped is not None, f"{peer.name} went on"
        found = named(net, peer)
        assert found
        assert found[0].code in codes
        if host is adv.UncheckingHost:
            assert found[0].peer == cheater_id(net, 1)  # the author of the bad move
        else:
            assert found[0].peer == net.host.peer_id
        prefix = net.entries(peer)
        assert replay(prefix).violation is None, "what the peer accepted is a valid log"


def test_a_silent_peer_is_timed_out_then_named_unresponsive() -> None:
    def silence_after_start(net: Network) -> Callable[[Network], bool]:
        return lambda n: n.host.state.engine is not None and \
            n.host.state.engine.phase.value == "playing"

    # Two players: removing one would leave too few (table.md §14.1), so the table
    # stops and names it (with three, the silent seat is removed and play goes on).
    setup = TableSetup(2, preset("official", ["target=60", "turn_timer=30"]), b"mute")
    net = seat_table(setup)
    net.run(until=silence_after_start(net))
    quiet = cheater_id(net, 1)
    net.silent.add(quiet.key)
    net.run(until=game_over)
    peers = honest(net, 1)
    for peer in peers:
        found = named(net, peer, "unresponsive")
        assert found
        assert found[0].peer == quiet
        assert peer.state.phase == TablePhase.ENDED
    log = net.entries()
    timeouts = [e for e in log if isinstance(e.body, Move) and e.body.action.TAG == "timeout"]
    aborts = [e for e in log if isinstance(e.body, Abort)]
    assert aborts
    assert all(e.author == net.host.peer_id for e in timeouts)
    result = replay(log)
    assert result.violation is None
    assert "missing" in result.audit or "never revealed" in result.audit


def test_entries_and_drop_notices_from_a_non_host_peer_are_ignored() -> None:
    """Only the sequencer sends ``E`` and ``D`` frames (table.md §3.1): a seated peer
    that forges them cannot stop another peer's game nor make it reuse a counter."""
    from dataclasses import replace

    from uno_p2p.table.frames import FRAME_DROP, FRAME_ENTRY, drop_notice, frame

    setup = TableSetup(3, preset("official", OPTIONS), b"forged frames")
    net = seat_table(setup)
    host, bob, cy = (net.peers[k] for k in list(net.peers))
    net.run(until=lambda n: bob.outstanding is not None and host.state.seq > bob.state.seq)
    counter = bob.outstanding
    assert counter is not None
    real = host.ledger.chain.entries[bob.state.seq]
    forged = replace(real, countersignature=bytes(len(real.countersignature)))
    bob.receive(frame(FRAME_ENTRY, forged.encode()), net.now_ms, cy.peer_id)
    bob.receive(frame(FRAME_DROP, drop_notice(counter, "race", "forged")), net.now_ms,
                cy.peer_id)
    assert bob.stopped is None
    assert bob.outstanding == counter
    # Until Bob's message under that number is logged and every peer holds twenty entries
    # more, nobody named (the rounds after that add nothing).
    after = host.state.seq + 20
    net.run(until=lambda n: all(p.state.seq >= after for p in n.peers.values()))
    assert all(p.state.seq >= after for p in net.peers.values())
    logged = [e.message for e in net.entries(bob) if e.author == bob.peer_id]
    assert counter in [m.counter for m in logged], "his message under that number logged"
    assert net.entries(bob) == net.entries(host)[:len(net.entries(bob))]
    assert all(p.stopped is None for p in net.peers.values())
    assert not [e for _, e in net.all_events() if isinstance(e, PeerMisbehaved)]
