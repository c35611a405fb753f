"""A turn: matching, drawing, the action cards, the empty deck (RULES.md "A turn")."""

from __future__ import annotations

import pytest

from uno_p2p.rules import (
    CardsDrawn,
    Draw,
    Options,
    Pass,
    Phase,
    Play,
    RoundOver,
    ShuffleRequested,
    legal_actions,
)
from uno_p2p.rules.cards import CARD_COUNT

from .harness import card, started


def test_match_by_colour_number_or_symbol_or_wild() -> None:
    # RULES.md: "Play one card that matches the top card by colour, or by number or symbol,
    # or any Wild."
    table = started(Options(), 4, hands=[[], ["R2"], ["Y2"], ["Y-skip", "W"]], starter="R5")
    table.play(1, "R2")             # colour
    table.play(2, "Y2")             # number
    table.play(3, "W", colour=1)    # wild, names yellow
    assert table.state.colour == 1
    assert table.state.current == 0


def test_mismatch_is_refused_in_plain_words() -> None:
    table = started(Options(), 3, hands=[[], ["Y3", "W"]], starter="R5")
    error = table.refused(table.play_action(1, "Y3"))
    assert error.rule == "matching"
    assert "Yellow 3 matches neither" in str(error)
    # a black card must name a colour, and only a black card may
    assert table.refused(table.play_action(1, "W")).rule == "matching"


def test_after_a_wild_the_named_colour_is_matched() -> None:
    # RULES.md: "After a Wild the named colour is the one to match."
    table = started(Options(), 3, hands=[[], ["W"], ["R3", "B3"]], starter="R5")
    table.play(1, "W", colour=3)
    assert table.refused(table.play_action(2, "R3")).rule == "matching"
    table.play(2, "B3")


def test_out_of_turn_play_is_refused() -> None:
    table = started(Options(), 3, hands=[["R7"]], starter="R5")
    error = table.refused(table.play_action(0, "R7"))
    assert error.rule == "turn"
    assert "not P0's turn" in str(error)


def test_draw_even_with_a_playable_card_then_play_only_that_card() -> None:
    # RULES.md: "A player may draw even when holding a playable card. If the drawn card is
    # playable the player may play that card at once (no other)."
    table = started(Options(), 3, hands=[[], ["R2"]], starter="R5", pile=["R9"])
    table.draw(1)
    assert table.state.drawn is not None
    assert table.refused(table.play_action(1, "R2")).rule == "draw"
    assert table.refused(Draw(1)).rule == "draw"
    offered = legal_actions(table.views[1], 1)
    assert Pass(1) in offered
    assert {a.cards for a in offered if isinstance(a, Play)} == {(card("R9"),)}
    table.play(1, "R9")
    assert table.state.current == 2


def test_drawn_card_may_be_kept_and_the_turn_passes() -> None:
    # RULES.md: "otherwise, or if they choose not to, the turn passes."
    table = started(Options(), 3, starter="R5", pile=["R9"])
    table.draw(1)
    table.apply(Pass(1))
    assert table.state.current == 2
    assert table.hand_size(1) == 8


def test_skip() -> None:
    # RULES.md: "Skip: the next player loses their turn."
    table = started(Options(), 3, hands=[[], ["R-skip"]], starter="R5")
    table.play(1, "R-skip")
    assert table.state.current == 0


def test_reverse_flips_direction() -> None:
    # RULES.md: "Reverse: direction flips"
    table = started(Options(), 4, hands=[[], ["R-rev"]], starter="R5")
    table.play(1, "R-rev")
    assert (table.state.direction, table.state.current) == (-1, 0)


def test_two_player_reverse_acts_as_skip() -> None:
    # RULES.md: "Reverse: ... with two players it acts as Skip."
    table = started(Options(), 2, hands=[["R-rev", "R3"], []], starter="R5", dealer=1)
    assert table.state.current == 0
    table.play(0, "R-rev")
    assert table.state.current == 0
    table.play(0, "R3")
    assert table.state.current == 1


def test_draw_two_next_draws_two_and_loses_turn() -> None:
    # RULES.md: "Draw Two: next player draws 2 and loses their turn."
    table = started(Options(), 3, hands=[[], ["R+2"], ["R7"]], starter="R5")
    table.play(1, "R+2")
    assert table.state.pending == 2
    assert table.refused(table.play_action(2, "R7")).rule == "stack_draw_two"
    assert legal_actions(table.views[2], 2) == [Draw(2)]
    table.draw(2)
    assert (table.hand_size(2), table.state.current, table.state.pending) == (9, 0, 0)


def test_wild_draw_four_next_draws_four_and_loses_turn() -> None:
    # RULES.md: "Wild Draw Four: name a colour; the next player draws 4 and loses their turn."
    table = started(Options(), 3, hands=[[], ["W+4"]], starter="R5")
    table.play(1, "W+4", colour=1)
    table.draw(2)
    assert (table.hand_size(2), table.state.current, table.state.colour) == (11, 0, 1)


def test_empty_deck_reshuffles_discard_except_top() -> None:
    # RULES.md: "If the deck runs out, the discard pile except its top card is shuffled into a
    # new deck (a new joint shuffle)."
    table = started(Options(), 2, hands=[["R1"], []], starter="R5", dealer=1)
    table.play(0, "R1")
    pile_size = len(table.state.draw_pile)
    for turn in range(pile_size):  # the players draw the deck dry
        seat = table.turn
        table.draw(seat)
        table.apply(Pass(seat))
        assert turn < CARD_COUNT
    assert table.state.draw_pile == ()
    seat = table.turn
    events = table.draw(seat)
    shuffle = next(e for e in events if isinstance(e, ShuffleRequested))
    assert shuffle.size == 1
    assert shuffle.faces == (card("R5"),)
    assert [c for _, c in table.state.discard] == [card("R1")]
    drawn = next(e for e in events if isinstance(e, CardsDrawn))
    assert drawn.slots == (table.state.drawn,)


@pytest.mark.parametrize("rule", ["pass", "void_round"])
def test_nothing_to_draw(rule: str) -> None:
    # RULES.md: "If there is still nothing to draw, the player passes. Option empty_deck:
    # pass (default) or void_round (the round is abandoned, no score)."
    table = started(Options(empty_deck=rule), 2, starter="R5", dealer=1)
    while table.state.draw_pile or len(table.state.discard) > 1:
        seat = table.turn
        table.draw(seat)
        table.apply(Pass(seat))
    seat = table.turn
    events = table.draw(seat)
    if rule == "pass":
        assert table.state.current != seat
        assert table.phase == Phase.PLAYING
    else:
        over = next(e for e in events if isinstance(e, RoundOver))
        assert over.winner == -1
        assert over.changes == (0, 0)
        assert table.state.round == 2
