"""Bots that play from a seat's view only (never an omniscient state).

A bot is given the view of its seat and the list ``legal_actions`` made from
that view, and returns one of those actions (or ``None`` to let an
out-of-turn chance go by). Randomness comes from a seeded ``Stream``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
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
    stacks and jumps in when allowed, bluffs a Wild Draw Four now and then, and
    challenges one with judgement (RULES.md "may bluff", "Challenge").

    Everything it weighs comes from its own view: its hand, the cards it has
    seen played or shown to it, and the hand sizes everyone sees.
    """

    #: How often it bluffs when it could (1 in N), calm and when the next player is
    #: about to go out (a bluff's 4 cards matter most then).
    BLUFF_CALM = 12
    BLUFF_URGENT = 2

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
        if any(isinstance(a, Challenge) for a in actions) and self._should_challenge(view, seat):
            return next(a for a in actions if isinstance(a, Challenge))
        bluffs = [p for p in plays if is_bluff(view, p)]
        if bluffs:
            bluff = self._should_bluff(view, seat, len(plays) > len(bluffs))
            plays = bluffs if bluff else [p for p in plays if p not in bluffs]
        if plays:
            return self._best_play(view, seat, plays)
        passes = [a for a in actions if isinstance(a, Pass | Draw)]
        return min(passes, key=lambda a: isinstance(a, Draw)) if passes else actions[0]

    def _best_play(self, view: State, seat: int, plays: list[Play]) -> Play:
        return max(plays, key=self.play_score(view, seat))

    def play_score(self, view: State, seat: int) -> Callable[[Play], tuple[int, ...]]:
        """The heuristic's ranking of plays (higher first), for this seat's view."""
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
        return score

    def _pick_colour(self, view: State, seat: int, picks: list[ChooseColour]) -> ChooseColour:
        colours = _colour_counts(view, seat)
        return max(picks, key=lambda a: (colours[a.colour], -a.colour))

    def _should_bluff(self, view: State, seat: int, has_other_play: bool) -> bool:
        """Bluff now and then, more when the next player is about to go out.

        A bluff risks 4 cards against a challenge; it pays when the next player
        is close to winning, or when the bot wants to change the colour.
        """
        if not has_other_play:
            return True  # cannot happen while holding the colour, but never stall on it
        urgent = len(view.hands[view.next_seat(seat)]) <= 2
        return self.rng.chance(1, self.BLUFF_URGENT if urgent else self.BLUFF_CALM)

    def _should_challenge(self, view: State, seat: int) -> bool:
        """Challenge when the Wild Draw Four is likely enough to be a bluff.

        ``guilt_chance`` weighs what this seat has seen; a won challenge is worth
        8 cards (4 not drawn, 4 drawn by the bluffer), a lost one costs 2, so a
        chance of 1 in 5 already pays. Like a person, the bot's threshold varies
        from one challenge to the next (1/5 to 2/5).
        """
        chance = guilt_chance(view, seat)
        threshold = 0.2 + self.rng.below(21) / 100
        return chance >= threshold


def is_bluff(view: State, play: Play) -> bool:
    """A Wild Draw Four played while the rest of the hand (as this view knows it) holds
    the colour to match (RULES.md: allowed unless ``wd4_strict``)."""
    if CARD_RANK[play.cards[-1]] != Rank.WILD_DRAW_FOUR or view.pending \
            or view.options.no_challenge:
        return False
    rest = (view.known.get(s) for s in view.hands[play.seat] if s not in play.slots)
    return any(f is not None and CARD_COLOUR[f] == view.colour for f in rest)


def guilt_chance(view: State, seat: int, bluff_rate: float = 0.12) -> float:
    """How likely the Wild Draw Four on ``seat`` is a bluff, from ``seat``'s view alone.

    The cards of the challenged hand this seat has seen decide it when one has
    the colour; the others are drawn from the cards it has not seen (108 minus
    its hand, the discard pile and whatever it was shown), which gives the
    chance the hand holds the colour (hypergeometric). Bayes then weighs that by
    how often players bluff when they could (``bluff_rate``; more when this seat
    is about to go out), against an honest Wild Draw Four.
    """
    if view.challenge is None:
        return 0.0
    _, challenged, colour = view.challenge
    hand = view.hands[challenged]
    faces = [view.known.get(s) for s in hand]
    if any(f is not None and CARD_COLOUR[f] == colour for f in faces):
        return 1.0
    hidden = sum(f is None for f in faces)
    seen = Counter(CARD_COLOUR[c] for c in view.known.values())
    unseen = max(1, 108 - len(view.known))
    unseen_colour = max(0, 25 - seen[colour])
    none = 1.0
    for i in range(hidden):
        none *= max(0, unseen - unseen_colour - i) / max(1, unseen - i)
    holds = 1.0 - none
    if len(view.hands[seat]) <= 2:
        bluff_rate = min(1.0, bluff_rate * 2)  # stopping a player about to go out
    guilty = holds * bluff_rate
    return guilty / (guilty + (1.0 - holds)) if guilty + (1.0 - holds) > 0 else 0.0


def _colour_counts(view: State, seat: int) -> Counter[int]:
    return Counter(CARD_COLOUR[f] for f in view.hand_faces(seat) if f is not None and f < 100)


BOTS: dict[str, type[RandomBot] | type[HeuristicBot]] = {
    "random": RandomBot, "heuristic": HeuristicBot,
}
