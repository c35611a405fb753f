"""The local table: whole games through ``submit``, the human's view, news and pacing."""

from __future__ import annotations

import re

import pytest

from tests.ui.helpers import human_policy, play_out, table
from uno_p2p.errors import ConfigError, IllegalAction
from uno_p2p.rules import (
    CatchUno,
    Draw,
    Pass,
    Phase,
    Play,
    SayUno,
    TimeOut,
    legal_actions,
    preset,
)
from uno_p2p.ui import words
from uno_p2p.ui.session import LocalTable, Next, player_names


@pytest.mark.parametrize(("name", "players"), [
    ("official", 4), ("house", 3), ("party", 5), ("seeds", 2),
])
def test_scripted_human_plays_a_whole_game_to_a_winner(name: str, players: int) -> None:
    game = table(f"whole-{name}", players, preset(name, ["target=150"]))
    play_out(game, human_policy(f"human-{name}"))
    state = game.state
    assert state.phase == Phase.GAME_OVER
    assert game.next() == Next.OVER
    final = game.summaries[-1]
    assert final.game_winner == state.winner
    assert state.scores[state.winner] >= 150
    assert final.scores == state.scores
    assert any(line.endswith("won the game!") for line in game.news)
    # Every finished round was summarised with every hand revealed.
    assert [s.round for s in game.summaries] == list(range(1, state.round + 1))
    winner = final.winner
    assert final.hands[winner] == ()
    assert final.changes[winner] == sum(final.hand_points)


@pytest.mark.parametrize("extra", [
    ["seat_shuffle_every=1", "draw_until_playable=true", "scoring=losses", "target=60"],
    ["sum_jump_in=true", "number_finish=true", "no_challenge=true", "false_uno_penalty=true"],
    ["catch_grace_ms=2500", "empty_deck=void_round", "scoring=chips", "forced_play=true"],
    ["starter_number_only=true", "dealer_rule=rotate", "deflect_draw_two=true",
     "stack_draw_two=true", "turn_timer=30"],
])
def test_games_under_many_options_end(extra: list[str]) -> None:
    options = preset("official", ["target=120", *extra])
    game = table("-".join(extra), 4, options)
    play_out(game, human_policy("many"))
    assert game.state.phase == Phase.GAME_OVER
    assert game.summaries[-1].game_winner == game.state.winner
    assert not any("broke" in line for line in game.news), "an honest game breaks no claim"


def test_wild_powers_and_teams_game_ends() -> None:
    options = preset("party", ["target=100", "wild_powers=true", "teams=2"])
    game = table("powers", 4, options)
    play_out(game, human_policy("powers"))
    assert game.state.phase == Phase.GAME_OVER
    assert "Team" in game.news[-1]


def test_the_human_sees_only_their_own_hand_and_public_cards() -> None:
    game = table("secrets")
    game.run_until_human()
    view = game.view()
    me = game.seat
    for seat in range(len(view.hands)):
        faces = view.hand_faces(seat)
        if seat == me:
            assert None not in faces
        else:
            assert set(faces) == {None}, f"the view knows {game.names[seat]}'s cards"
    assert view.viewer == me


def test_news_names_a_bot_draw_without_its_face_and_the_human_draw_with_it() -> None:
    game = table("draws")
    play_out(game, human_policy("draws"), until=lambda g: g.state.round >= 2)
    bot_draws = [line for line in game.news if re.match(r"Bot \d drew ", line)]
    assert bot_draws, "bots draw in a whole round"
    for line in bot_draws:
        assert re.fullmatch(r"Bot \d drew (a card|\d+ cards)( for the starter Draw Two and "
                            r"is skipped| as a penalty and loses their turn)?\.", line), line
    mine = [line for line in game.news if line.startswith("You drew ")]
    assert all(re.fullmatch(r"You drew (Red|Yellow|Green|Blue|Wild).*\.", m) for m in mine)
    assert not [m for m in mine if re.search(r"\d+ cards", m)], "your own cards are named"


def test_submit_refuses_an_illegal_action_and_changes_nothing() -> None:
    game = table("refuse")
    assert game.run_until_human() == Next.HUMAN
    before = game.state
    with pytest.raises(IllegalAction):
        game.submit(Pass(game.seat), 0)  # nothing drawn yet
    other = (game.seat + 1) % len(game.names)
    with pytest.raises(IllegalAction, match="your own seat"):
        game.submit(Draw(other), 0)
    assert game.state is before


def test_a_play_goes_on_the_pile_and_is_told_in_plain_words() -> None:
    game = table("play")
    game.run_until_human()
    play = next(a for a in game.legal_actions() if isinstance(a, Play))
    game.submit(play, 1000)
    assert game.state.discard[-1][1] == play.cards[-1]
    assert re.match(r"You played (Red|Yellow|Green|Blue|Wild)", game.news[-1])


def test_bots_move_one_at_a_time_and_wait_for_the_human() -> None:
    game = table("pace")
    game.run_until_human()
    draw = Draw(game.seat)
    game.submit(draw, 1000)
    game.submit(Pass(game.seat), 2000)
    moves = 0
    while game.next() != Next.HUMAN:
        before = len(game.news)
        assert game.advance(3000 + moves)
        assert len(game.news) >= before
        moves += 1
        assert moves < 500
    assert not game.advance(9999)  # the human's turn: the table waits


def test_the_human_can_catch_a_bot_that_forgot_uno() -> None:
    for attempt in range(30):
        game = table(f"catch{attempt}")
        play_out(game, human_policy(f"catch{attempt}"),
                 until=lambda g: any(isinstance(a, CatchUno) for a in g.legal_actions())
                 or g.state.round > 2)
        catch = next((a for a in game.legal_actions() if isinstance(a, CatchUno)), None)
        if catch is None:
            continue
        target = catch.target
        cards = len(game.state.hands[target])
        game.submit(catch, 10**9)
        assert len(game.state.hands[target]) == cards + 2
        return
    pytest.fail("no bot forgot UNO in 30 games")


def test_saying_uno_with_the_last_but_one_card() -> None:
    for attempt in range(30):
        game = table(f"uno{attempt}")

        def two_cards_on_my_turn(g: LocalTable) -> bool:
            return g.next() == Next.HUMAN and len(g.view().hands[g.seat]) == 2 and any(
                isinstance(a, Play) and a.say_uno for a in g.legal_actions())

        play_out(game, human_policy(f"uno{attempt}"),
                 until=lambda g: two_cards_on_my_turn(g) or g.state.round > 1)
        if not two_cards_on_my_turn(game):
            continue
        play = next(a for a in game.legal_actions() if isinstance(a, Play) and a.say_uno)
        game.submit(play, 10**9)
        assert game.state.uno_said[game.seat]
        assert SayUno(game.seat) not in game.legal_actions()
        return
    pytest.fail("the human never got down to two cards")


def test_turn_timer_times_the_human_out() -> None:
    game = table("timer", options=preset("official", ["turn_timer=10"]))
    game.run_until_human(now_ms=5000)
    deadline = game.deadline_ms()
    assert deadline is not None
    hand = len(game.state.hands[game.seat])
    assert not game.tick(deadline - 1)
    assert game.tick(deadline)
    assert len(game.state.hands[game.seat]) == hand + 1
    assert game.state.current != game.seat
    assert words.RAN_OUT.format(who=words.YOU) in game.news
    assert TimeOut(game.seat) not in legal_actions(game.view(), game.seat)


def test_same_seed_same_game() -> None:
    one, two = table("again"), table("again")
    play_out(one, human_policy("h"), until=lambda g: g.state.round >= 2)
    play_out(two, human_policy("h"), until=lambda g: g.state.round >= 2)
    assert one.news == two.news
    assert one.seat == two.seat


def test_names_are_checked() -> None:
    assert player_names(3, 1, "Ann") == ("Bot 2", "Ann", "Bot 1")
    with pytest.raises(ConfigError):
        player_names(3, 0, "Bot 1")
    with pytest.raises(ConfigError):
        player_names(3, 0, "   ")
    with pytest.raises(ConfigError):
        LocalTable(preset("official"), 11, b"x")
