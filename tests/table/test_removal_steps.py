"""A removal, up to the new round's first turn (table.md §14.2-§14.3), on its own.

``test_removal.py`` plays whole games around a vanished player, which is what a
player sees, but too slow to run for every mutant. Here a game goes only as far
as the round dealt after the removal: a step that misbehaves shows at once,
not as a stall found a game later.

What the spec asks of that moment:

- the void round's decks are shut for good: no seat owes them a shuffle any
  more, even one the removal interrupted (the seat numbers changed, and a
  shuffle now would be under the new joint key);
- a new round is dealt among the players left, from new decks (the first for
  choosing the dealer, rules.md), and each of them opens its own new hand;
- the table waits for nobody once that hand is dealt, and blames nobody.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.table.test_duties import playing_state
from tests.table.test_handover import MAX_STEPS, PHASES
from tests.table.test_removal import VICTIM, _table, _vanish
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.state import Phase
from uno_p2p.table.bodies import Remove
from uno_p2p.table.duties import private_shares_owed, shuffle_due, waiting_for
from uno_p2p.table.events import PeerMisbehaved
from uno_p2p.table.memnet import Network
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.removal import apply_remove
from uno_p2p.table.state import PrivateDue, TablePhase, TableState

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("test_removal_steps")]

#: A bound on the in-memory network's steps from the removal to the new round's first
#: turn (measured: about 50). A table that stalls stops sooner, with nothing to deliver.
STEPS_TO_NEW_ROUND = 5_000


def _removed_at(net: Network) -> int:
    """The number of the ``remove`` entry the sequencer logged."""
    found = [e.seq for e in net.entries(net.host) if isinstance(e.body, Remove)]
    assert len(found) == 1, "one removal"
    return found[0]


def _hand_known(peer: TablePeer) -> bool:
    """Whether ``peer`` plays in the new round and knows every card of its own hand."""
    state = peer.state
    game, seat = state.engine, state.my_seat
    if game is None or seat is None or game.phase != Phase.PLAYING:
        return False
    return bool(game.hands[seat]) and all(s in state.game.known for s in game.hands[seat])


def _after_removal(phase: str) -> tuple[Network, list[TablePeer], TableState, int]:
    """A 4-seat table reaches ``phase``; seat 2 vanishes; the others go on until every
    one of them holds its new hand. Returns the network, the live peers, the host's
    state just before the removal, and the removal's entry number."""
    net = _table(b"removal " + phase.encode(), 4, 30)
    host = net.host
    net.run(until=lambda n: PHASES[phase](host.state), max_steps=MAX_STEPS)
    assert PHASES[phase](host.state), f"the game reached {phase}"
    victim = list(net.peers.values())[VICTIM]
    _vanish(net, victim)
    live = [p for p in net.peers.values() if p is not victim]
    net.run(until=lambda n: any(isinstance(e.body, Remove) for e in n.entries(host)),
            max_steps=STEPS_TO_NEW_ROUND)
    removed_at = _removed_at(net)
    before = host.ledger.state_at(removed_at)
    assert before is not None, "the state before the removal is still remembered"
    net.run(until=lambda n: all(_hand_known(p) for p in live), max_steps=STEPS_TO_NEW_ROUND)
    assert all(_hand_known(p) for p in live), "every player left holds a known new hand"
    return net, live, before, removed_at


@pytest.fixture(scope="module")
def removed_at_shuffle() -> tuple[Network, list[TablePeer], TableState, int]:
    """``_after_removal("shuffle")``, played once for the two tests that read it."""
    return _after_removal("shuffle")


@pytest.mark.parametrize("phase", ["shuffle", "mid-round"])
def test_after_a_removal_the_players_left_open_their_new_hands(
        phase: str, request: pytest.FixtureRequest) -> None:
    net, live, before, removed_at = request.getfixturevalue("removed_at_shuffle") \
        if phase == "shuffle" else _after_removal(phase)
    state = live[0].state
    assert state.void_decks == len(before.decks), "every deck before the removal is void"
    assert len(state.decks) > state.void_decks, "the new round has a deck of its own"
    game = state.engine
    assert game is not None
    assert game.round == before.game.round + 1
    for peer in live:
        seat = peer.state.my_seat
        assert seat is not None
        assert peer.state.engine is not None
        hand = peer.state.engine.hands[seat]
        assert all(s.shuffle >= state.void_decks for s in hand), \
            "the new hand comes from a deck after the removal"
    assert not any(isinstance(e, PeerMisbehaved) for _, e in net.all_events())
    assert all(p.state.seq > removed_at and p.stopped is None for p in live)


def test_a_shuffle_the_removal_interrupted_is_owed_by_nobody(
        removed_at_shuffle: tuple[Network, list[TablePeer], TableState, int]) -> None:
    """The removal came while a deck was being shuffled (seats still owed it their
    turns). That deck is void: the seat that was next is not waited for."""
    _, live, before, _ = removed_at_shuffle
    interrupted = [d for d in before.decks if d.shufflers]
    assert interrupted, "the removal came mid-shuffle"
    state = live[0].state
    assert state.phase == TablePhase.PLAYING
    for seat in range(len(state.seats)):
        due = shuffle_due(state, seat)
        assert due is None or due >= state.void_decks, f"seat {seat} owes a void deck"
    assert all(not d.shufflers for d in state.decks[:state.void_decks])
    assert waiting_for(state) == [], "the table waits for nobody once the hands are dealt"


def test_a_removal_drops_the_private_reveals_owed_of_the_void_round() -> None:
    """§14.2: the round under way is void and its cards stay shut, so a private reveal
    asked in it is owed by nobody any more (else the table would wait for shares of
    cards that will never open). Seat 2 owes one and vanishes."""
    state = playing_state()
    deck = state.decks[-1].number
    slot = next(Slot(deck, p) for p in range(108) if Slot(deck, p) not in state.shares)
    due = PrivateDue(0, (slot,), frozenset({1, 2}), "peek")
    owing = replace(state, privates=(due,))
    assert 2 in waiting_for(owing), "the table waits for seat 2's private share"
    host, gone = owing.host, owing.seats[2]
    assert host is not None
    after, _ = apply_remove(owing, None, owing.seq, host, Remove(gone, "did not answer in time"))
    assert after.privates == ()
    assert gone not in after.seats
    assert private_shares_owed(after, 1) == {}
