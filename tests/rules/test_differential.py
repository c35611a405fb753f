"""Negative tests from the outside: random actions, not only listed ones (issue 16).

``legal_actions`` filters with the very validators ``apply`` uses, so a test
that only ever picks listed moves cannot see a validator that allows too much.
Here a game is played to a random point, then actions are built from the
action constructors with random cards, slots, colours, players and powers,
and four things must hold:

1. A listed action is accepted, by the omniscient engine and by every seat's
   view (time windows aside: ``legal_actions`` does not apply
   ``catch_grace_ms``, so a refusal for that rule alone is allowed).
2. An action the omniscient engine accepts is accepted by every view, which
   then agree on the public digest (a view never refuses a true move).
3. An action the omniscient engine refuses is refused by every view that can
   check it: the acting seat's own view when the action names only cards it
   knows, and any view knowing every face involved.
4. An action that is not listed is refused, up to the choices ``legal_actions``
   documents it lists by one representative (which cards a Wild swap moves,
   which copies make a sum jump-in, the order of the cards of a multi-card
   play) and the words it does not list (a false UNO, priced by
   ``false_uno_penalty``).

On top, a small oracle written from RULES.md's words ("A turn", the house
rules ``deflect_draw_two``, stacking, ``jump_in``, ``sum_jump_in``) decides
the shape and the match of a truthful play: when the words forbid it, the
engine must refuse; when a plain play (one coloured card, nothing owed with it)
fits the words, the engine must accept it. ``TimeOut`` and ``ErrorPenalty``
are judged from ``turn_timer`` and ``error_penalty``'s words likewise.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st

from uno_p2p.errors import IllegalAction
from uno_p2p.rules import (
    Action,
    CatchUno,
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Draw,
    Options,
    Pass,
    Phase,
    Play,
    SayUno,
    State,
    apply,
    legal_actions,
    public_digest,
    view_for,
)
from uno_p2p.rules.actions import ErrorPenalty, TimeOut
from uno_p2p.rules.cards import CARD_COLOUR, CARD_RANK, Rank
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.simulate import Driver

from .test_properties import game_options
from .timed import TimedDriver

pytestmark = pytest.mark.game

NUMBERS = range(0, 10)
D2, W4, SKIP, REVERSE, SEVEN = Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR, Rank.SKIP, Rank.REVERSE, 7


# -- reaching a random position ----------------------------------------------------------------
def position(options: Options, players: int, seed: int, steps: int) -> State | None:
    """The omniscient state after ``steps`` driver steps, settled (no reveal or reseat owed)."""
    driver = TimedDriver(options, players, seed, "random", max_rounds=2)
    for _ in range(steps):
        if not driver.step():
            break
    for _ in range(50):
        state = driver.state
        if state.phase == Phase.GAME_OVER:
            return None
        if not state.awaiting and state.phase != Phase.RESEAT:
            return state
        driver.step()
    return None


# -- random actions ----------------------------------------------------------------------------
@st.composite
def random_action(draw: st.DrawFn, state: State) -> Action:
    n = len(state.players)
    seat = draw(st.integers(0, n - 1) if draw(st.integers(0, 30)) else st.just(n))
    kind = draw(st.sampled_from(["play"] * 6 + ["draw", "pass", "uno", "catch", "challenge",
                                                "verdict", "colour"]))
    if kind == "play":
        return draw(random_play(state, seat))
    if kind == "catch":
        return CatchUno(seat, draw(st.integers(0, n - 1)))
    if kind == "verdict":
        # RULES.md: the verdict shows no card; its truth turns on the challenged hand.
        return ChallengeVerdict(seat, draw(st.booleans()))
    if kind == "colour":
        return ChooseColour(seat, draw(st.integers(0, 3)))
    makers: dict[str, type[Draw | Pass | SayUno | Challenge]] = {
        "draw": Draw, "pass": Pass, "uno": SayUno, "challenge": Challenge}
    return makers[kind](seat)


def face_for(state: State, slot: Slot) -> st.SearchStrategy[int]:
    """Mostly the slot's true face; sometimes a lie."""
    true = state.known.get(slot)
    lie = st.integers(0, 107)
    return lie if true is None else st.one_of(st.just(true), st.just(true), lie)


@st.composite
def random_play(draw: st.DrawFn, state: State, seat: int) -> Play:
    n = len(state.players)
    own: tuple[Slot, ...] = state.hands[seat] if seat < n else ()
    lie_about_whose = draw(st.integers(0, 7)) == 0
    elsewhere = [s for h in state.hands for s in h] + list(state.draw_pile[:5]) + \
        [s for s, _ in state.discard[-2:]]
    pool = list(own) if own and not lie_about_whose else elsewhere
    count: int = draw(st.sampled_from([1, 1, 1, 1, 2, 2, 3]))
    chosen: list[Slot] = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=count,
                                       unique=True))
    slots = tuple(chosen)
    cards = tuple(draw(face_for(state, s)) for s in slots)
    black = cards[-1] >= 100
    colour = draw(st.integers(0, 3)) if (black and draw(st.integers(0, 9))) else \
        draw(st.sampled_from([-1, -1, -1, 0, 1, 2, 3]))
    target = draw(st.sampled_from([-1, -1, *range(n)]))
    power = draw(st.sampled_from(["", "", "", "peek", "swap"]))
    give: tuple[Slot, ...] = ()
    take: tuple[Slot, ...] = ()
    if power == "swap" and 0 <= target < n:
        rest = [s for s in own if s not in slots]
        give = tuple(draw(st.lists(st.sampled_from(rest), max_size=3, unique=True))) if rest \
            else ()
        theirs = state.hands[target]
        take = tuple(draw(st.lists(st.sampled_from(theirs), max_size=3, unique=True))) \
            if theirs else ()
    return Play(seat, slots, cards, colour, draw(st.booleans()), target, power, give, take)


# -- the four properties -------------------------------------------------------------------------
def outcome(state: State, action: Action, now_ms: int) -> State | IllegalAction:
    try:
        return apply(state, action, now_ms)[0]
    except IllegalAction as error:
        refusal = error
    assert refusal.rule  # a refusal names its rule
    return refusal


def truthful(state: State, play: Play) -> bool:
    hand = state.hands[play.seat]
    return all(s in hand and state.known.get(s) == c for s, c in zip(play.slots, play.cards,
                                                                      strict=True))


def representative(state: State, action: Action) -> object:
    """The action up to the choices ``legal_actions`` lists by one representative."""
    if not isinstance(action, Play):
        return action
    left = len(state.hands[action.seat]) - len(action.slots)
    say: bool | None = action.say_uno
    if (state.options.false_uno_penalty and left > 1) or (left == 0 and len(action.slots) == 1):
        say = None  # a priced false UNO, or an UNO said with the last card: both accepted
    cards: object = (action.slots, action.cards)
    if len(action.slots) > 1 and truthful(state, action):
        cards = tuple(sorted(Counter((CARD_COLOUR[c], CARD_RANK[c]) for c in action.cards)
                             .items()))
    moved: object = (action.give, action.take) if action.power != "swap" else None
    return (action.seat, cards, action.colour, say, action.target, action.power, moved)


def knows_everything_about(view: State, state: State, action: Action) -> bool:
    """Whether ``view`` knows every face an action's legality can turn on."""
    seat = getattr(action, "seat", 0)
    if seat >= len(state.players):
        return True
    slots: list[Slot] = list(state.hands[seat])
    if isinstance(action, Play):
        slots += [*action.slots, *action.take]
        if action.target >= 0:
            slots += state.hands[action.target]
    if isinstance(action, ChallengeVerdict) and state.challenge is not None:
        slots += state.hands[state.challenge[1]]
    if isinstance(action, Draw | Pass) and state.drawn is not None:
        slots.append(state.drawn)
    return all(s in view.known for s in slots)


def check_action(state: State, action: Action, now_ms: int) -> None:
    n = len(state.players)
    seat = getattr(action, "seat", 0)
    result = outcome(state, action, now_ms)
    listed = 0 <= seat < n and action in legal_actions(view_for(state, seat), seat)
    views = [view_for(state, s) for s in range(n)]
    if listed and isinstance(result, IllegalAction):
        assert result.rule == "catch_grace_ms", f"listed {action} refused: {result}"
        assert now_ms < state.exposed_ms + state.options.catch_grace_ms
    if isinstance(result, State):
        for s, view in enumerate(views):
            seen = outcome(view, action, now_ms)
            assert isinstance(seen, State), f"seat {s}'s view refused the true {action}: {seen}"
            assert public_digest(seen) == public_digest(result)
        from_a_seat = not isinstance(action, TimeOut | ErrorPenalty)  # the table's, not listed
        if not listed and 0 <= seat < n and from_a_seat and not (
                isinstance(action, SayUno) and state.options.false_uno_penalty):
            wanted = representative(state, action)
            others = [representative(state, a) for a in legal_actions(views[seat], seat)]
            assert wanted in others, f"{action} is accepted but not listed"
    else:
        for s, view in enumerate(views):
            if knows_everything_about(view, state, action):
                seen = outcome(view, action, now_ms)
                assert isinstance(seen, IllegalAction), \
                    f"seat {s}'s view accepted {action}, refused by the omniscient engine"
    check_against_the_words(state, action, now_ms, result)


# -- the oracle: RULES.md's words ---------------------------------------------------------------
def words_allow_shape(state: State, play: Play) -> bool | None:
    """Whether RULES.md allows a truthful play's cards now (shape, turn and match).

    None where the words leave it to checks outside this oracle.
    """
    opts, top = state.options, state.discard[-1][1]
    cards = play.cards
    ranks = [CARD_RANK[c] for c in cards]
    # "identical (colour and face)": two Wilds (or two Wild Draw Fours) have the same face
    # and no colour of their own, so they pair on their holder's own turn: the frozen
    # reference log honest-3p-house holds such a pair at entry 24. (A jump-in onto a
    # Wild never is: its colour is named, below.)
    identical = all(CARD_COLOUR[c] == CARD_COLOUR[cards[0]] and ranks[i] == ranks[0]
                    for i, c in enumerate(cards))
    if state.phase != Phase.PLAYING:
        return False
    if play.seat == state.current:
        if state.drawn is not None and play.slots != (state.drawn,):
            return False  # "may play that card at once (no other)"
        if len(cards) > 2 or (len(cards) == 2 and not (opts.jump_in and identical)):
            return False  # one card; two identical ones only with jump_in
        card, rank = cards[0], ranks[0]
        if state.pending:
            if state.pending_rank == D2:
                return bool((rank == D2 and opts.stack_draw_two)
                            or (rank == W4 and opts.stack_four_on_two)
                            or (opts.deflect_draw_two and rank in (SKIP, REVERSE)
                                and CARD_COLOUR[card] == state.colour))
            return rank == W4 and opts.stack_draw_four
        if card >= 100:
            return None if rank == W4 else True  # W+4's own condition is a claim
        return CARD_COLOUR[card] == state.colour or (top < 100 and ranks[0] == CARD_RANK[top])
    # Out of turn: only a jump-in, only right after a play, never by who just played.
    if state.last_player is None or play.seat == state.last_player:
        return False
    if opts.jump_in and top < 100 and len(cards) <= 2 and all(
            c < 100 and CARD_COLOUR[c] == CARD_COLOUR[top] and CARD_RANK[c] == CARD_RANK[top]
            for c in cards):
        # docs/rules.md says nothing of a jump-in onto a pending penalty: the stacking
        # options decide that, outside these words.
        return None if state.pending else True
    # sum_jump_in: "number cards of one colour whose sum equals the number card just played"
    return bool(opts.sum_jump_in and not state.pending and top < 100
                and CARD_RANK[top] in NUMBERS and len(cards) >= 2
                and all(c < 100 and CARD_COLOUR[c] == CARD_COLOUR[top]
                        and CARD_RANK[c] in NUMBERS for c in cards)
                and sum(int(r) for r in ranks) == int(CARD_RANK[top]))


def plain(state: State, play: Play) -> bool:
    """One coloured card that owes nothing else: no colour, target, power, UNO or finish."""
    rank = CARD_RANK[play.cards[0]]
    return (len(play.cards) == 1 and play.cards[0] < 100 and play.colour == -1
            and not play.say_uno and play.target == -1 and not play.power
            and not (state.options.seven_zero and rank == SEVEN)
            and len(state.hands[play.seat]) >= 3)


def check_against_the_words(state: State, action: Action, now_ms: int,
                            result: State | IllegalAction) -> None:
    accepted = isinstance(result, State)
    opts = state.options
    if isinstance(action, Play) and action.seat < len(state.players) \
            and truthful(state, action):
        allowed = words_allow_shape(state, action)
        if allowed is False:
            assert not accepted, f"RULES.md forbids {action}, yet it was accepted"
        grace_over = not (state.exposed is not None and state.exposed != action.seat
                          and now_ms < state.exposed_ms + opts.catch_grace_ms)
        if allowed and plain(state, action) and grace_over:
            assert accepted, f"RULES.md allows {action}, yet it was refused: {result}"
    if isinstance(action, TimeOut):
        # turn_timer covers "every decision a player owes": a turn, a challenge verdict and a
        # starter Wild's colour; "when it runs out the player draws a penalty card and the
        # turn passes" (only the pending penalty if one waits: a lapsed challenge draws 4)
        owes = state.phase in (Phase.PLAYING, Phase.CHALLENGE, Phase.STARTER_COLOUR)
        due = (opts.turn_timer > 0 and owes and action.seat == state.current
               and now_ms >= state.turn_started_ms + opts.turn_timer * 1000)
        assert accepted == due, (action, now_ms, state.turn_started_ms, result)
        if isinstance(result, State):
            grown = len(result.hands[action.seat]) - len(state.hands[action.seat])
            owed = 1 if state.phase == Phase.STARTER_COLOUR else max(state.pending, 1)
            assert 0 <= grown <= owed  # fewer only when the deck runs dry
            assert result.current != action.seat or len(state.players) == 1
    if isinstance(action, ErrorPenalty):
        # error_penalty: a refused play "costs" error_penalty cards; off, it is refused
        due = opts.error_penalty > 0 and state.phase in (Phase.PLAYING, Phase.CHALLENGE) \
            and action.seat < len(state.players)
        assert accepted == due
        if isinstance(result, State):
            grown = len(result.hands[action.seat]) - len(state.hands[action.seat])
            assert 0 <= grown <= opts.error_penalty  # fewer only when the deck runs dry


#: No "explain" phase: it traces every line of a failing example again, which took a
#: failing run past the 300 s time-out before the falsifying example was printed.
SETTINGS = settings(max_examples=60, deadline=None,
                    phases=[Stage.explicit, Stage.reuse, Stage.generate, Stage.target,
                            Stage.shrink],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


@SETTINGS
@given(game_options(), st.integers(0, 2**32), st.integers(0, 160), st.data())
def test_random_actions_are_judged_like_the_listed_ones(
        setup: tuple[Options, int], seed: int, steps: int, data: st.DataObject) -> None:
    options, players = setup
    state = position(options, players, seed, steps)
    assume(state is not None)
    assert state is not None
    grace = options.catch_grace_ms
    for _ in range(25):
        action = data.draw(random_action(state))
        now = data.draw(st.sampled_from([
            state.turn_started_ms, state.exposed_ms + grace - 1, state.exposed_ms + grace,
            state.turn_started_ms + options.turn_timer * 1000 - 1,
            state.turn_started_ms + options.turn_timer * 1000, 10**9]))
        check_action(state, action, max(now, 0))
    # Every listed action too, at a time past every window.
    for seat in range(players):
        for action in legal_actions(view_for(state, seat), seat)[:20]:
            check_action(state, action, 10**9)


@settings(SETTINGS, max_examples=30)
@given(game_options(), st.integers(0, 2**32), st.integers(0, 100), st.integers(0, 2),
       st.sampled_from([-1, 0, 1, 2]), st.data())
def test_time_outs_and_error_penalties_follow_the_options(
        setup: tuple[Options, int], seed: int, steps: int, penalty: int, offset: int,
        data: st.DataObject) -> None:
    options, players = setup
    state = position(options, players, seed, steps)
    assume(state is not None)
    assert state is not None
    seat = data.draw(st.integers(0, players - 1))
    limit = options.turn_timer * 1000
    check_action(state, TimeOut(seat), max(0, state.turn_started_ms + limit + offset))
    check_action(state, ErrorPenalty(seat), state.turn_started_ms)


def every_own_play(state: State, seat: int) -> list[Play]:
    """Each card of the hand alone, and each pair and triple of number cards: all truthful."""
    hand = [(s, state.known[s]) for s in state.hands[seat] if s in state.known]
    plays = [Play(seat, (s,), (c,), 0 if c >= 100 else -1) for s, c in hand]
    numbers = [(s, c) for s, c in hand if CARD_RANK[c] in NUMBERS or CARD_RANK[c] == SKIP]
    for i, (s1, c1) in enumerate(numbers):
        for j, (s2, c2) in enumerate(numbers[i + 1:], i + 1):
            plays.append(Play(seat, (s1, s2), (c1, c2)))
            plays.extend(Play(seat, (s1, s2, s3), (c1, c2, c3)) for s3, c3 in numbers[j + 1:])
    return plays


HOUSE = Options(deflect_draw_two=True, stack_draw_two=True, stack_draw_four=True,
                stack_four_on_two=True, jump_in=True, sum_jump_in=True, target=60)


@settings(SETTINGS, max_examples=6)
@given(st.sampled_from([HOUSE, Options(jump_in=True, target=60),
                        Options(deflect_draw_two=True, target=60),
                        Options(sum_jump_in=True, stack_draw_two=True, target=60)]),
       st.integers(2, 4), st.integers(0, 2**32))
def test_every_card_of_every_hand_is_judged_by_the_words(options: Options, players: int,
                                                         seed: int) -> None:
    # Exhaustive where the random test samples: at every position of whole games, every
    # card (and small set of cards) of every hand, on turn and out of turn.
    judged = Counter[str]()

    def check(d: Driver) -> None:
        state = d.state
        if state.phase != Phase.PLAYING or state.awaiting:
            return
        for seat in range(players):
            for play in every_own_play(state, seat):
                result = outcome(state, play, 10**9)
                check_against_the_words(state, play, 10**9, result)
                judged["accepted" if isinstance(result, State) else "refused"] += 1

    TimedDriver(options, players, seed, "random", max_rounds=2).run(check)
    assert judged["accepted"]
    assert judged["refused"]
