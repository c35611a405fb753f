"""A searching bot: Monte Carlo over determinised hands (information-set sampling).

UNO hides the other hands and the deck, so a bot cannot search the real game
tree. ``SearchBot`` searches the trees it can imagine instead: it deals the
cards it has not seen at random into the slots it cannot see (a
*determinisation*, consistent with everything its own view knows), tries
each candidate move in that world, and plays the round on with fast
heuristic players for a bounded number of actions. The move with the best
average outcome over several worlds wins. It sees only its own view: the
imagined worlds are built from ``view.known`` and the public state, never
from anyone's hidden cards (RULES.md: hidden information is the game).

Decisions that sampling judges badly are left to ``HeuristicBot``: a
challenge (uniform worlds ignore that the Wild Draw Four was chosen, so they
over-estimate guilt; ``guilt_chance`` weighs it), a verdict (the truth), a
starter's colour, and out-of-turn chances.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import Action, Challenge, Draw, Pass, Play
from uno_p2p.rules.bots import BOTS, HeuristicBot
from uno_p2p.rules.cards import CARD_COUNT, CARD_POINTS
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.engine import apply, learn
from uno_p2p.rules.events import Event, ShuffleRequested
from uno_p2p.rules.legal import legal_actions
from uno_p2p.rules.prng import Stream
from uno_p2p.rules.state import OMNISCIENT, Phase, State

#: A time far in the future: rollouts never wait for a grace period.
LATER_MS = 1 << 50


class SearchBot(HeuristicBot):
    """Chooses its turn's move by Monte Carlo over determinised hands.

    ``worlds`` imagined deals per decision, ``depth`` actions played on in
    each (by default to the round's end), at most ``width`` candidate moves
    (the heuristic's favourites); another move replaces the heuristic's own
    choice only when its average outcome is clearly better (``_pick``).
    """

    def __init__(self, seed: bytes | int | str, *, worlds: int = 16, depth: int = 200,
                 width: int = 5, margin: float = 0.05) -> None:
        super().__init__(seed)
        self.worlds = worlds
        self.depth = depth
        self.width = width
        self.margin = margin

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        if not must_act or view.phase != Phase.PLAYING or view.current != seat \
                or any(isinstance(a, Challenge) for a in actions):
            return super().choose(view, seat, actions, must_act)
        candidates = self._candidates(view, seat, actions)
        if len(candidates) < 2:
            return super().choose(view, seat, actions, must_act)
        values: list[list[float]] = [[] for _ in candidates]
        for number in range(self.worlds):
            world = determinise(view, self.rng)
            if world is None:
                return super().choose(view, seat, actions, must_act)
            rng = self.rng.fork(f"world {number}")
            for i, move in enumerate(candidates):
                # Common random numbers: every move meets the same world and the same dice.
                values[i].append(self._value(world, move, seat, rng.fork("rollout")))
        return candidates[self._pick(values)]

    def _pick(self, values: list[list[float]]) -> int:
        """The heuristic's own choice (index 0) unless another move beats it clearly.

        UNO is chaotic: one card changes who wins a round, so outcomes are noisy.
        Another move replaces the heuristic's choice only when its mean outcome,
        paired world by world, is better by ``margin`` and by two standard errors.
        """
        best, best_gain = 0, 0.0
        for i in range(1, len(values)):
            diffs = [a - b for a, b in zip(values[i], values[0], strict=True)]
            mean = sum(diffs) / len(diffs)
            spread = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
            error = (spread / len(diffs)) ** 0.5
            if mean > max(self.margin, 2 * error) and mean > best_gain:
                best, best_gain = i, mean
        return best

    def _candidates(self, view: State, seat: int, actions: Sequence[Action]) -> list[Action]:
        """One play per set of cards (the heuristic's colour and extras), best first, then
        drawing or passing; ``width`` moves at most."""
        score = self.play_score(view, seat)
        plays: dict[tuple[Slot, ...], list[Play]] = {}
        for action in actions:
            if isinstance(action, Play):
                plays.setdefault(action.slots, []).append(action)
        ranked = sorted((max(group, key=score) for group in plays.values()), key=score,
                        reverse=True)
        first = super().choose(view, seat, actions, True)
        ordered: list[Action] = [first] if first is not None else []
        ordered += [p for p in ranked if p != first]
        ordered += [a for a in actions if isinstance(a, Draw | Pass) and a not in ordered]
        return ordered[:self.width]

    def _value(self, world: State, move: Action, seat: int, rng: Stream) -> float:
        try:
            state, events = apply(world, move, LATER_MS)
        except IllegalAction:
            return -1.0
        state = _answer(state, events, rng)
        return evaluate(rollout(state, self.depth, rng), seat)


def determinise(view: State, rng: Stream) -> State | None:
    """An omniscient world consistent with ``view``: every card this view has not seen
    dealt at random into the slots whose faces it does not know. None if the view's
    cards do not add up to one deck (it cannot happen mid-round)."""
    slots = [*view.draw_pile, *(s for hand in view.hands for s in hand)]
    slots += [s for s, _ in view.discard]
    known = view.known
    unknown = [s for s in slots if s not in known]
    seen = [known[s] for s in slots if s in known]
    pool = sorted(set(range(CARD_COUNT)) - set(seen))
    if len(pool) != len(unknown) or len(set(seen)) != len(seen):
        return None
    rng.shuffle(pool)
    faces = dict(known)
    faces.update(zip(unknown, pool, strict=True))
    return replace(view, viewer=OMNISCIENT, known=faces, seen=(frozenset(),) * len(view.players))


def rollout(state: State, depth: int, rng: Stream) -> State:
    """Play on with heuristic players (each given the world as its view: in an imagined
    world there is nothing left to hide) for ``depth`` actions or to the round's end."""
    players = [HeuristicBot(rng.fork(f"p{seat}").seed) for seat in range(len(state.players))]
    for _ in range(depth):
        actor = state.decider()  # None outside TIMED_PHASES
        if actor is None or state.awaiting:
            break
        choice = players[actor].choose(state, actor, legal_actions(state, actor), True)
        if choice is None:
            break
        try:
            state, events = apply(state, choice, LATER_MS)
        except IllegalAction:
            break
        state = _answer(state, events, rng)
    return state


def _answer(state: State, events: list[Event], rng: Stream) -> State:
    """Deal a reshuffled discard pile in a random order (the only work a round needs)."""
    for event in events:
        if isinstance(event, ShuffleRequested) and event.faces:
            order = list(event.faces)
            rng.shuffle(order)
            state, _ = learn(state, [(Slot(event.shuffle, p), c) for p, c in enumerate(order)])
    return state


def evaluate(state: State, seat: int) -> float:
    """How good the world is for ``seat``: winning the round is 1 (with teams, a partner's
    win counts); losing it costs what the hand left gives the winner (RULES.md
    ``scoring``: the winner scores the others' cards), 250 points a whole round. A round
    still going is judged by the hand sizes."""
    mine = sum(CARD_POINTS[state.known[s]] for s in state.hands[seat] if s in state.known)
    if state.round_winner is not None:
        if state.team_of(state.round_winner) == state.team_of(seat):
            return 1.0
        return -mine / 250
    others = [len(state.hands[s]) for s in range(len(state.players)) if s != seat]
    lead = min(others) - len(state.hands[seat])
    return max(-0.5, min(1.0, 0.5 + 0.08 * lead - mine / 500))


BOTS["search"] = SearchBot

__all__ = ["SearchBot", "determinise", "evaluate", "rollout"]
