"""Saying and catching UNO (RULES.md "UNO")."""

from __future__ import annotations

from uno_p2p.rules import (
    CatchUno,
    Draw,
    Options,
    Play,
    SayUno,
    UnoCaught,
    UnoSaid,
    apply,
    legal_actions,
)

from .harness import card, started


def test_saying_uno_with_the_play_is_safe() -> None:
    # RULES.md: "Saying it is an action of its own that may go with the play or follow it."
    table = started(Options(), 3, hands=[[], ["R1", "R2"]], starter="R5", exact=True)
    table.play(1, "R1", say_uno=True)
    assert table.state.exposed is None
    assert table.refused(CatchUno(2, 1)).rule == "uno"


def test_saying_uno_after_the_play_is_safe() -> None:
    table = started(Options(), 3, hands=[[], ["R1", "R2"]], starter="R5", exact=True)
    table.play(1, "R1")
    assert CatchUno(0, 1) in legal_actions(table.views[0], 0)
    table.apply(SayUno(1))
    assert table.refused(CatchUno(0, 1)).rule == "uno"


def test_catch_before_next_player_acts_costs_two() -> None:
    # RULES.md: "If another player catches them before the next player begins a turn, the
    # caught player draws 2."
    table = started(Options(), 3, hands=[[], ["R1", "R2"]], starter="R5", exact=True)
    table.play(1, "R1")
    events = table.apply(CatchUno(0, 1))
    assert UnoCaught(0, 1) in events
    assert table.hand_size(1) == 3
    assert table.refused(CatchUno(2, 1)).rule == "uno"  # once only


def test_no_catch_once_the_next_player_has_begun() -> None:
    # RULES.md: "The next player begins a turn by drawing or playing; once they have, no catch."
    table = started(Options(), 3, hands=[[], ["R1", "R2"]], starter="R5", exact=True)
    table.play(1, "R1")
    table.apply(Draw(2))
    assert table.refused(CatchUno(0, 1)).rule == "uno"
    assert CatchUno(0, 1) not in legal_actions(table.views[0], 0)


def test_no_catch_before_second_to_last_card_is_on_the_pile() -> None:
    # RULES.md: "A player cannot be caught before their second-to-last card is on the pile."
    table = started(Options(), 3, hands=[[], ["R1", "R2", "R3"]], starter="R5", exact=True)
    table.play(1, "R1")
    assert table.refused(CatchUno(0, 1)).rule == "uno"


def test_two_players_skip_keeps_window_open_until_same_players_next_action() -> None:
    # RULES.md: "With two players a Skip or Reverse keeps the window open until the same
    # player's next action."
    table = started(Options(), 2, hands=[["R-skip", "R2", "Y9"], []], starter="R5", dealer=1,
                    exact=True)
    table.play(0, "R-skip")
    table.play(0, "R2")          # down to one card, UNO not said; 0 plays again next
    assert table.state.current == 1
    assert table.state.exposed == 0
    table.apply(CatchUno(1, 0))
    assert table.hand_size(0) == 3


def test_false_uno_is_refused_by_default_and_costs_two_with_option() -> None:
    # RULES.md: "Option false_uno_penalty: saying UNO when one does not have one card costs
    # 2 cards (000)."
    table = started(Options(), 3, starter="R5", exact=True)
    assert table.refused(SayUno(1)).rule == "uno"
    table = started(Options(false_uno_penalty=True), 3, starter="R5", exact=True)
    table.apply(SayUno(2))
    assert table.hand_size(2) == 9


def test_grace_period_before_next_player_may_act() -> None:
    # RULES.md "Not software rules": "a short grace period for catching a missed UNO before
    # the next player may act" (catch_grace_ms).
    table = started(Options(catch_grace_ms=1500), 3, hands=[[], ["R1", "R2"]], starter="R5",
                    exact=True)
    table.play(1, "R1", now_ms=10_000)
    assert table.refused(Draw(2), now_ms=11_000).rule == "catch_grace_ms"
    table.apply(Draw(2), now_ms=11_500)
    assert table.state.exposed is None


def test_jump_in_pair_uno_may_be_said_just_before_going_out() -> None:
    # RULES.md jump_in: "A player going out by it must still say UNO first when two identical
    # cards are their last two"; saying UNO "is an action of its own".
    options = Options(jump_in=True)
    table = started(options, 3, hands=[[], ["R3", "R3"]], starter="R5", exact=True)
    assert table.refused(table.play_action(1, "R3", "R3")).rule == "jump_in"
    assert SayUno(1) in legal_actions(table.views[1], 1)
    table.apply(SayUno(1))
    table.play(1, "R3", "R3")
    assert table.state.round == 2 or table.hand_size(1) == 0
    # said early over two different cards: the holder's engine refuses it
    odd = started(options, 3, hands=[[], ["R3", "B3"]], starter="R5", exact=True)
    assert odd.refused(SayUno(1), checked_by=[1]).rule == "jump_in"
    # an early UNO counts only for going out with the pair: after one card it is forgotten
    pair = started(options, 3, hands=[[], ["R3", "R3"]], starter="R5", exact=True)
    pair.apply(SayUno(1))
    pair.play(1, "R3")
    assert CatchUno(0, 1) in legal_actions(pair.views[0], 0)


def test_a_viewer_who_knows_one_of_two_cards_accepts_an_early_uno() -> None:
    table = started(Options(jump_in=True, wild_powers=True), 3,
                    hands=[[], ["W", "R3"], ["G1", "B2"]], starter="R5", exact=True)
    give = (table.slot(1, card("R3")),)
    take = table.state.hands[2][:1]
    play = table.play_action(1, "W", colour=2)
    table.apply(Play(1, play.slots, play.cards, 2, True, 2, "swap", give, take))
    assert set(table.state.hands[2]) == {give[0], table.state.hands[2][0]}
    # Seat 2 holds R3 and B2 (or G1): no pair. It and the omniscient engine refuse...
    assert table.refused(SayUno(2), checked_by=[2]).rule == "jump_in"
    # ...but seat 1 knows only the R3 it gave, and seat 0 neither card: both accept.
    for seat in (0, 1):
        apply(table.views[seat], SayUno(2))


def test_an_early_uno_is_for_a_pair_only() -> None:
    table = started(Options(jump_in=True), 3, hands=[[], ["R7", "G2"]], starter="R5",
                    exact=True)
    name = table.state.players[1]
    refused = table.refused(SayUno(1), checked_by=[1])  # only the holder sees both faces
    assert refused.rule == "jump_in"
    text = str(refused)
    assert name in text, text
    assert "pair" in text, text
    paired = started(Options(jump_in=True), 3, hands=[[], ["R7", "R7"]], starter="R5",
                     exact=True)
    assert UnoSaid(1) in paired.apply(SayUno(1))
