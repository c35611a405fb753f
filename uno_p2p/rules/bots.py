"""Bots that play from a seat's view only (never an omniscient state).

A bot is given the view of its seat and the list ``legal_actions`` made from
that view, and returns one of those actions (or ``None`` to let an
out-of-turn chance go by). Randomness comes from a seeded ``Stream``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from uno_p2p.rules.actions import (
    Action,
    CatchUno,
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Draw,
    Pass,
    Play,
    SayUno,
)
from uno_p2p.rules.cards import CARD_COLOUR, CARD_POINTS, CARD_RANK, Rank
from uno_p2p.rules.prng import Stream
from uno_p2p.rules.state import State


class Bot(Protocol):
    """What the driver (and later the table) asks of a bot."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        """One of ``actions``; ``None`` only when ``must_act`` is False."""


class RandomBot:
    """Picks a random legal action; takes out-of-turn chances half the time.

    On its turn it plays a card (uniformly among the legal plays) three times
    in four when it can, else picks uniformly among every legal action: purely
    uniform choice draws so often that rounds last thousands of moves.
    """

    def __init__(self, seed: bytes | int | str) -> None:
        self.rng = Stream(seed)

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        if not actions:
            return None
        if not must_act and self.rng.chance(1, 2):
            return None
        plays = [a for a in actions if isinstance(a, Play)]
        if must_act and plays and self.rng.chance(3, 4):
            return self.rng.choice(plays)
        return self.rng.choice(actions)


class HeuristicBot:
    """Plays to win: sheds high points, keeps wilds for later, says UNO, catches,
    stacks and jumps in when allowed, and challenges when the odds favour it."""

    def __init__(self, seed: bytes | int | str) -> None:
        self.rng = Stream(seed)

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        if not actions:
            return None
        for action in actions:
            if isinstance(action, SayUno | CatchUno):
                return action
        plays = [a for a in actions if isinstance(a, Play)]
        if not must_act:
            return self._best_play(view, seat, plays) if plays else None
        colours = [a for a in actions if isinstance(a, ChooseColour)]
        if colours:
            return self._pick_colour(view, seat, colours)
        verdicts = [a for a in actions if isinstance(a, ChallengeVerdict)]
        if verdicts:
            return verdicts[0]
        if any(isinstance(a, Challenge) for a in actions) and self._should_challenge(view):
            return next(a for a in actions if isinstance(a, Challenge))
        if plays:
            return self._best_play(view, seat, plays)
        passes = [a for a in actions if isinstance(a, Pass | Draw)]
        return min(passes, key=lambda a: isinstance(a, Draw)) if passes else actions[0]

    def _best_play(self, view: State, seat: int, plays: list[Play]) -> Play:
        colours = _colour_counts(view, seat)
        best_colour = max(range(4), key=lambda c: (colours[c], -c))
        next_seat = view.next_seat(seat)
        threat = len(view.hands[next_seat]) <= 2

        def score(play: Play) -> tuple[int, ...]:
            top = play.cards[-1]
            rank = CARD_RANK[top]
            black = top >= 100
            attack = rank in (Rank.SKIP, Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR, Rank.REVERSE)
            target_cards = len(view.hands[play.target]) if play.target >= 0 else 0
            return (
                len(play.cards),                          # shed more cards at once
                int(play.say_uno),                        # always say UNO
                int(threat and attack),                   # hit a player about to win
                -int(black) if not threat else 0,         # keep wilds for later
                int(play.colour == best_colour),          # name the colour we hold most
                sum(CARD_POINTS[c] for c in play.cards),  # shed high points
                -target_cards,                            # 7-swap with the smallest hand
                int(play.power == "peek"),
            )
        return max(plays, key=score)

    def _pick_colour(self, view: State, seat: int, picks: list[ChooseColour]) -> ChooseColour:
        colours = _colour_counts(view, seat)
        return max(picks, key=lambda a: (colours[a.colour], -a.colour))

    def _should_challenge(self, view: State) -> bool:
        """Challenge when the W+4 player more likely than not held the colour to match.

        The chance a hand of k unseen cards has none of the colour is estimated
        from the unseen cards: (1 - share)^k; challenge when that is below 1/3.
        """
        _, challenged, colour = view.challenge
        hand_size = len(view.hands[challenged])
        seen = Counter(CARD_COLOUR[c] for c in view.known.values())
        unseen_colour = max(0, 25 - seen[colour])
        unseen = max(1, 108 - len(view.known))
        share = unseen_colour / unseen
        return (1 - share) ** hand_size < 1 / 3


def _colour_counts(view: State, seat: int) -> Counter[int]:
    return Counter(CARD_COLOUR[f] for f in view.hand_faces(seat) if f is not None and f < 100)


BOTS: dict[str, type[RandomBot] | type[HeuristicBot]] = {
    "random": RandomBot, "heuristic": HeuristicBot,
}
