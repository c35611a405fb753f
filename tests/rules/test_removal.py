"""Removing a vanished player from the engine (docs/rules.md "A player who vanishes")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from uno_p2p.errors import ConfigError
from uno_p2p.rules.engine import new_game
from uno_p2p.rules.events import RoundOver, ShuffleRequested
from uno_p2p.rules.options import Options
from uno_p2p.rules.removal import can_remove, remove_player
from uno_p2p.rules.state import OMNISCIENT, Phase, State


def _game(players: int = 4, viewer: int = 2, teams: int = 0) -> State:
    state, _ = new_game(Options(teams=teams), [f"P{i}" for i in range(players)],
                        viewer=viewer)
    return state


def test_the_round_is_void_and_a_dealer_is_chosen_among_the_rest() -> None:
    state = replace(_game(), scores=(10, 20, 30, 40), round=3, next_shuffle=7)
    new, events = remove_player(state, 1, now_ms=500)
    assert new.players == ("P0", "P2", "P3"), "the others keep their seat order"
    assert new.scores == (10, 30, 40), "the others keep their scores; the removed one's leaves"
    assert new.viewer == 1, "this peer's seat moved down by one"
    assert new.phase == Phase.DEALER_SELECTION
    assert all(hand == () for hand in new.hands), "the void round's hands are gone"
    assert isinstance(events[0], RoundOver)
    assert (events[0].round, events[0].winner, events[0].changes) == (3, -1, (0, 0, 0, 0))
    shuffles = [e for e in events if isinstance(e, ShuffleRequested)]
    assert [s.shuffle for s in shuffles] == [7], "deck numbers go on"


def test_the_removed_seat_sees_nothing_more() -> None:
    new, _ = remove_player(_game(), 2)
    assert new.viewer == OMNISCIENT


@pytest.mark.parametrize(("players", "teams"), [(2, 0), (4, 2)])
def test_a_removal_that_would_break_the_game_is_refused(players: int, teams: int) -> None:
    state = _game(players, viewer=0, teams=teams)
    assert can_remove(state, 1)
    with pytest.raises(ConfigError):
        remove_player(state, 1)
