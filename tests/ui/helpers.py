"""Shared helpers for the UI tests: a local table driven with no pauses."""

from __future__ import annotations

from collections.abc import Callable

from uno_p2p.rules import Action, HeuristicBot, Options, preset
from uno_p2p.ui.session import LocalTable, Next

#: Enough for any test game to end (a 4-player game to 500 is a few thousand moves).
STEP_LIMIT = 60_000


def table(seed: str = "ui", players: int = 4, options: Options | None = None,
          name: str = "You") -> LocalTable:
    return LocalTable(options or preset("official"), players, seed.encode(), name)


def human_policy(seed: str) -> Callable[[LocalTable], Action | None]:
    """The heuristic bot playing the human's seat through ``submit``, from its view."""
    bot = HeuristicBot(seed)

    def choose(game: LocalTable) -> Action | None:
        view = game.view()
        return bot.choose(view, game.seat, game.legal_actions(), True)

    return choose


def play_out(game: LocalTable, policy: Callable[[LocalTable], Action | None],
             until: Callable[[LocalTable], bool] = lambda g: False) -> int:
    """Play until the game ends or ``until`` holds; returns the moves made."""
    clock = 0
    for step in range(STEP_LIMIT):
        if until(game):
            return step
        clock += 1000
        nxt = game.next()
        if nxt == Next.OVER:
            return step
        if nxt == Next.HUMAN:
            action = policy(game)
            assert action is not None, "the human always has a move on their turn"
            game.submit(action, clock)
        else:
            game.advance(clock)
    raise AssertionError("the game did not end")
