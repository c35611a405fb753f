"""The end of the game on the target's boundary and in ties (RULES.md "End of a round").

RULES.md ``scoring``: ``points``: "the first to reach ``target`` wins";
``losses``: "each loser adds the points of their own hand; when anyone reaches
``target``, the player with the fewest points wins". Reaching means at least
the target: exactly on it ends the game, one point short does not. A tie for
the fewest points goes to the round winner, then to the lowest seat (the
engine's documented choice: ``uno_p2p.rules.rounds.game_winner``). Scores from
earlier rounds are laid in the state (public facts, the same in every view)
before seat 1 goes out.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from uno_p2p.rules import GameOver, Options, Phase
from uno_p2p.rules.cards import points

from .harness import Table, started


def go_out_with_scores(options: Options, scores: list[int]) -> tuple[Table, list[int]]:
    """Seat 1 goes out with R3 from a position where the scores are ``scores``; returns the
    hand points every seat held when it did."""
    table = started(options, 3, hands=[[], ["R3"], []], starter="R5", exact=True)
    table.state = replace(table.state, scores=tuple(scores))
    table.views = [replace(v, scores=tuple(scores)) for v in table.views]
    held = [sum(points(c) for c in table.faces(s)) for s in range(3)]
    table.play(1, "R3")
    return table, held


@pytest.mark.parametrize("short", [0, 1])
def test_points_end_the_game_exactly_on_the_target_and_not_one_short(short: int) -> None:
    table, held = go_out_with_scores(Options(target=500), [0, 0, 0])
    reach = held[0] + held[2]
    table, held = go_out_with_scores(Options(target=500), [0, 500 - reach - short, 0])
    assert table.state.scores[1] == 500 - short
    if short:
        assert table.phase != Phase.GAME_OVER
        assert table.state.winner is None
    else:
        assert table.phase == Phase.GAME_OVER
        assert table.state.winner == 1


@pytest.mark.parametrize("short", [0, 1])
def test_losses_end_the_game_exactly_on_the_target_and_not_one_short(short: int) -> None:
    _, held = go_out_with_scores(Options(scoring="losses", target=300), [0, 0, 0])
    start = [300 - held[0] - short, 0, 0]
    table, _ = go_out_with_scores(Options(scoring="losses", target=300), start)
    assert table.state.scores == (300 - short, 0, held[2])
    assert (table.phase == Phase.GAME_OVER) == (short == 0)
    if not short:
        assert table.state.winner == 1  # 0 points: the fewest


def test_losses_tie_for_the_fewest_goes_to_the_round_winner() -> None:
    # Seats 0 and 1 end level on the fewest points; seat 1 went out: seat 1 wins, though
    # seat 0 sits first.
    options = Options(scoring="losses", target=300)
    _, held = go_out_with_scores(options, [0, 0, 0])
    level = held[0] + 10
    table, _ = go_out_with_scores(options, [10, level, 300])
    assert table.state.scores == (level, level, 300 + held[2])
    assert table.phase == Phase.GAME_OVER
    assert table.state.winner == 1
    assert GameOver(1, -1) in table.events


def test_losses_tie_between_two_losers_goes_to_the_lowest_seat() -> None:
    # Seats 0 and 2 end level on the fewest; seat 1 went out but has more: seat 0 wins.
    options = Options(scoring="losses", target=300)
    _, held = go_out_with_scores(options, [0, 0, 0])
    level = max(held) + 10
    table, _ = go_out_with_scores(options, [level - held[0], 300, level - held[2]])
    assert table.state.scores == (level, 300, level)
    assert table.phase == Phase.GAME_OVER
    assert table.state.winner == 0
    assert GameOver(0, -1) in table.events


def test_losses_fewest_alone_wins_even_when_it_is_not_the_round_winner() -> None:
    options = Options(scoring="losses", target=300)
    _, held = go_out_with_scores(options, [0, 0, 0])
    table, _ = go_out_with_scores(options, [300, held[2] + 1, 0])
    assert table.state.scores == (300 + held[0], held[2] + 1, held[2])
    assert table.phase == Phase.GAME_OVER
    assert table.state.winner == 2
