"""Whole games among bots: they end, with a valid winner, and every view agrees."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from uno_p2p.rules import PRESETS, Phase, play_game, preset


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_heuristic_game_ends_with_a_winner_and_views_agree(name: str, players: int) -> None:
    result = play_game(preset(name, ["target=150"]), players, f"{name}{players}", "heuristic",
                       mirror=True)
    state = result.state
    assert state.phase == Phase.GAME_OVER
    assert result.winner is not None
    assert 0 <= result.winner < players
    assert state.scores[result.winner] >= 150
    assert result.violations == []


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_random_game_ends(name: str) -> None:
    result = play_game(preset(name, ["target=100"]), 3, f"r{name}", "random", mirror=True)
    assert result.state.phase == Phase.GAME_OVER
    assert max(result.state.scores) >= 100


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_hundreds_of_games_per_preset_all_end_with_a_valid_winner(name: str) -> None:
    # Issue 2: "A multi-round simulation: hundreds of bot games under every preset".
    # Heuristic bots, 2-6 players, target 150; random bots for one game in ten.
    options = preset(name, ["target=150"])
    wins = [0] * 6
    for i in range(100):
        players = 2 + i % 5
        bots = "random" if i % 10 == 9 else "heuristic"
        result = play_game(options, players, f"sim-{name}-{i}", bots)
        state = result.state
        assert state.phase == Phase.GAME_OVER
        assert result.winner is not None
        assert state.scores[result.winner] >= 150
        assert result.violations == []
        wins[result.winner] += 1
    assert sum(1 for w in wins if w) >= 3  # nobody's seat wins everything


def test_a_bot_never_receives_a_face_it_may_not_know() -> None:
    # Issue 2: "Bots use only the information their seat may see." A spy wraps each bot and
    # checks every view it is handed against the omniscient game.
    from uno_p2p.rules import Driver, HeuristicBot
    from uno_p2p.rules.actions import Action
    from uno_p2p.rules.state import State

    from .invariants import check_view

    driver: Driver | None = None
    handed = 0

    class Spy(HeuristicBot):
        def choose(self, view: State, seat: int, actions: Sequence[Action],
                   must_act: bool) -> Action | None:
            nonlocal handed
            assert driver is not None
            assert view.viewer == seat
            check_view(driver.state, view, seat)
            hidden = {s for other in range(4) if other != seat for s in driver.state.hands[other]}
            assert not hidden & set(view.known) - set(driver.state.seen[seat])
            handed += 1
            return super().choose(view, seat, actions, must_act)

    options = preset("party", ["wild_powers=true", "target=200"])
    driver = Driver(options, 4, "spy", [Spy(i) for i in range(4)])
    result = driver.run()
    assert result.state.phase == Phase.GAME_OVER
    assert handed > 100


def test_the_driver_seats_given_names_and_shows_every_event_batch() -> None:
    from uno_p2p.rules.events import DealerChosen, GameOver
    from uno_p2p.rules.simulate import Driver

    seen: list[object] = []
    driver = Driver(preset("official", ["target=50"]), 3, 11, "heuristic",
                    names=["Ann", "Bob", "Cy"], on_events=seen.extend)
    result = driver.run()
    assert driver.state.players == ("Ann", "Bob", "Cy")
    assert any(isinstance(event, DealerChosen) for event in seen)
    assert isinstance(seen[-1], GameOver)
    assert result.winner in range(3)
