"""The simulator's defaults, the bots' candidates and judgement, and edges of the state.

``play_game`` plays a whole game to ``target`` among random bots unless told
otherwise (its signature's promise); the searching bot considers "one play
per set of cards (the heuristic's colour and extras), best first, then
drawing or passing; ``width`` moves at most" (``SearchBot._candidates``),
with the heuristic's own choice first. Expected values are the legal moves
the rules list (``legal_actions``) and the game's end (RULES.md: a game is
won at the target).
"""

from __future__ import annotations

import pytest

from uno_p2p.errors import IllegalAction
from uno_p2p.rules import Draw, Options, Play, apply, legal_actions
from uno_p2p.rules.bots import HeuristicBot, guilt_chance
from uno_p2p.rules.engine import new_game
from uno_p2p.rules.options import preset
from uno_p2p.rules.search import SearchBot
from uno_p2p.rules.simulate import Driver, play_game
from uno_p2p.rules.state import Phase

from .harness import started


def test_a_game_with_the_default_bots_is_played_to_its_end() -> None:
    result = play_game(preset("official", ["target=30"]), 2, "defaults")
    assert result.state.phase == Phase.GAME_OVER
    assert result.winner in (0, 1)
    assert max(result.state.scores) >= 30


def test_the_searching_bot_weighs_every_set_of_cards_once() -> None:
    table = started(Options(), 3, hands=[[], ["R9", "R2", "B5", "G5", "Y7"]], starter="R5",
                    exact=True)
    view = table.views[1]
    actions = legal_actions(view, 1)
    card_sets = {a.slots for a in actions if isinstance(a, Play)}
    assert len(card_sets) == 4, "R9, R2, B5, G5 match the Red 5"
    bot = SearchBot("cands", worlds=1, depth=1, width=10)
    candidates = bot._candidates(view, 1, actions)
    plays = [c for c in candidates if isinstance(c, Play)]
    assert len({p.slots for p in plays}) == len(plays), "one play per set of cards"
    assert {p.slots for p in plays} == card_sets
    assert candidates[0] == HeuristicBot("cands").choose(view, 1, actions, True)
    assert isinstance(candidates[-1], Draw), "drawing comes last"
    assert len(SearchBot("cands", width=2)._candidates(view, 1, actions)) == 2


def test_every_round_starts_with_no_challenge_and_a_two_card_play_names_jump_in() -> None:
    """verdicts.md §5 (field 23 of the public state): ``challenge`` is
    ``[challenger, challenged, colour]``, ``[-1, -1, -1]`` when none is under way, as at
    the start of every round. RULES.md: two cards at once only as identical cards under
    ``jump_in``; any other two-card play on one's turn is refused under that rule."""
    driver = Driver(preset("official", ["target=200"]), 3, "round starts", "random")
    seen_round = -1
    rounds = 0
    for _ in range(20_000):
        state = driver.state
        if state.round != seen_round and state.phase == Phase.PLAYING:
            seen_round = state.round
            rounds += 1
            assert state.challenge is None, state.round
        if not driver.step():
            break
    assert rounds >= 2, "more than one round started"
    table = started(Options(), 3, hands=[[], ["R9", "R2"]], starter="R5", exact=True)
    view = table.views[1]
    slots = tuple(view.hands[1])
    cards = tuple(table.state.known[s] for s in slots)
    with pytest.raises(IllegalAction) as caught:
        apply(table.state, Play(1, slots, cards), 0)
    assert caught.value.rule == "jump_in"


def test_a_bluff_by_seat_0_is_weighed_like_any_other() -> None:
    """The searching and heuristic bots judge a Wild Draw Four from their own view: seat 0
    is a seat like the others (RULES.md "Challenge")."""
    table = started(Options(), 3, dealer=2, hands=[["W+4", "R9"]], starter="R5")
    assert table.state.current == 0
    table.play(0, "W+4", colour=1)
    assert 0.0 < guilt_chance(table.views[1], 1) < 1.0


def test_a_new_game_starts_its_clock_at_the_time_given() -> None:
    """verdicts.md §5: the public state holds ``turn_started_ms``, the table time of the
    turn's start; a game started at a time starts its clock there."""
    state, _ = new_game(Options(), ["Ann", "Bob"], now_ms=12_345)
    assert state.turn_started_ms == 12_345


def test_a_move_inside_the_grace_period_is_refused_naming_the_wait() -> None:
    """RULES.md: with ``catch_grace_ms``, the next player waits that long after a missed
    UNO so that it can be caught; a move before is refused under that rule."""
    table = started(Options(catch_grace_ms=1000), 3,
                    hands=[[], ["R9", "R2"], ["G1", "G2", "B4"]], starter="R5", exact=True)
    table.play(1, "R9")  # one card left, UNO not said
    state = table.state
    assert state.exposed == 1
    with pytest.raises(IllegalAction) as caught:
        apply(state, Draw(2), state.exposed_ms + 10)
    error = caught.value
    assert error.rule == "catch_grace_ms"
    assert "1000 ms" in str(error)
    assert str(error).endswith("missed UNO can be caught")
