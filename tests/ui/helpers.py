"""Shared helpers for the UI tests: a local table driven with no pauses."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from uno_p2p.errors import IllegalAction
from uno_p2p.rules import CARD_COUNT, Action, HeuristicBot, Options, Phase, preset
from uno_p2p.rules.cards import card_ids, parse_card_name
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
            try:
                game.submit(action, clock)
            except IllegalAction as error:
                # RULES.md catch_grace_ms: the next player waits; the clock moves on.
                if error.rule != "catch_grace_ms":
                    raise
        else:
            game.advance(clock)
    raise AssertionError("the game did not end")


class _StackedDeck:
    """Stands in for the driver's deck stream: the first round's deck is laid out."""

    def __init__(self, game: LocalTable, mine: Sequence[int], starter: int,
                 dealer: Sequence[int] = ()) -> None:
        self.game, self.mine, self.starter = game, list(mine), starter
        self.dealer = list(dealer)
        self.fallback = game.driver.deck_rng
        self.used = False

    def shuffle(self, order: list[int]) -> None:
        state = self.game.driver.state
        if self.used or len(order) != CARD_COUNT or state.dealer is None:
            self.fallback.shuffle(order)
            return
        self.used = True
        n = len(state.players)
        taken = {*self.mine, *self.dealer, self.starter}
        spare = [c for c in FILLER if c not in taken]
        hands = [list(self.mine) if s == self.game.seat else
                 list(self.dealer) if s == state.dealer else [] for s in range(n)]
        for hand in hands:
            while len(hand) < 7:
                hand.append(spare.pop())
        dealt = [hands[(state.dealer + 1 + k) % n][k // n] for k in range(7 * n)]
        rest = [c for c in range(CARD_COUNT) if c not in dealt and c != self.starter]
        order[:] = [*dealt, self.starter, *rest]


#: Cards the bots get in a stacked deal: green and blue 2-9 (tests use red and yellow).
FILLER = [c for c in range(50, 100) if 3 <= c % 25 <= 18]


def names_to_cards(*names: str) -> list[int]:
    """Ids for names like ``R7``, ``W+4``, the next copy when a name repeats."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        out.append(card_ids(*parse_card_name(name))[seen.get(name, 0)])
        seen[name] = seen.get(name, 0) + 1
    return out


def stacked(mine: Sequence[str], starter: str = "R1", players: int = 3,
            options: Options | None = None, dealer: Sequence[str] = ()) -> LocalTable:
    """A game where the human plays first, holding ``mine`` (the first cards of the
    hand, in order) on ``starter``; the dealer (who plays just before the human)
    holds ``dealer`` and the bots fill up with green and blue numbers."""
    hand, (top,) = names_to_cards(*mine), names_to_cards(starter)
    theirs = names_to_cards(*dealer)
    for attempt in range(200):
        game = table(f"stacked{attempt}", players, options)
        deck = _StackedDeck(game, hand, top, theirs)
        game.driver.deck_rng = deck  # type: ignore[assignment]
        while game.state.phase in (Phase.DEALER_SELECTION, Phase.STARTER):
            game.advance(0)
        if deck.used and game.state.current == game.seat:
            return game
    raise AssertionError("no seed seats the human first")
