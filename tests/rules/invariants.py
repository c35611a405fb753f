"""Checks that must hold in every reachable state (used by the property tests)."""

from __future__ import annotations

from collections import Counter

from uno_p2p.rules import OMNISCIENT, Phase, State
from uno_p2p.rules.cards import CARD_COUNT

IN_ROUND = (Phase.PLAYING, Phase.CHALLENGE, Phase.STARTER_COLOUR, Phase.ROUND_OVER,
            Phase.STARTER)


def check_invariants(state: State) -> None:
    """All 108 cards accounted for, one current player, sane counters (omniscient state)."""
    assert state.viewer == OMNISCIENT
    n = len(state.players)
    assert sorted(state.order) == list(range(n))
    if state.phase in IN_ROUND:
        slots = [s for hand in state.hands for s in hand]
        slots += list(state.draw_pile) + [s for s, _ in state.discard]
        if state.phase == Phase.STARTER:
            slots += list(state.awaiting)
        assert len(slots) == len(set(slots)) == CARD_COUNT, "a card is missing or doubled"
        faces = Counter(state.known[s] for s in slots)
        assert faces == Counter(range(CARD_COUNT)), "the faces are not the 108 cards"
        for slot, card in state.discard:
            assert state.known[slot] == card
    if state.phase in (Phase.PLAYING, Phase.CHALLENGE):
        assert state.current is not None
        assert 0 <= state.current < n
        assert state.colour is not None
        assert 0 <= state.colour <= 3
        assert state.discard, "no starter card"
        assert state.pending >= 0
        assert (state.pending == 0) == (state.pending_rank is None)
        if state.drawn is not None:
            assert state.drawn in state.hands[state.current]
            assert state.pending == 0
        if state.exposed is not None:
            assert 0 <= state.exposed < n
            assert len(state.hands[state.exposed]) == 1
            assert not state.uno_said[state.exposed]
    if state.phase == Phase.CHALLENGE:
        assert state.challenge is not None
        challenger, challenged, colour = state.challenge
        assert challenger == state.current
        assert challenged != challenger
        assert 0 <= colour <= 3
    if state.phase == Phase.GAME_OVER:
        assert state.winner is not None
        assert 0 <= state.winner < n
    if state.options.scoring == "chips":
        assert sum(state.scores) == 0
    else:
        assert min(state.scores) >= 0


def allowed_slots(state: State, seat: int) -> set[object]:
    """What ``seat`` may know, from the omniscient state."""
    allowed: set[object] = set(state.hands[seat]) | set(state.public) | set(state.seen[seat])
    allowed.update(s for s, _ in state.discard)
    return allowed


def check_view(omniscient: State, view: State, seat: int) -> None:
    """A seat's view knows only what it may, and only true faces."""
    allowed = allowed_slots(omniscient, seat)
    for slot, card in view.known.items():
        if slot in omniscient.known:
            assert omniscient.known[slot] == card, "a view believes a wrong face"
            assert slot in allowed, f"seat {seat} knows {slot} it may not"
