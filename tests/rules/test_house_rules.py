"""House rules from the seeds and beyond (RULES.md "House rules", "Beyond the seeds")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.rules import (
    CardsDrawn,
    Challenge,
    ChallengeVerdict,
    Draw,
    ErrorPenalty,
    Options,
    Pass,
    Phase,
    Play,
    RevealRequested,
    TimeOut,
    apply,
    legal_actions,
    long_name,
)
from uno_p2p.rules.engine import view_for

from .harness import card, started


def test_stack_draw_two_totals_add_up() -> None:
    # RULES.md stack_draw_two: "penalties add up and the first player who cannot answer draws
    # the total and loses the turn"
    table = started(Options(stack_draw_two=True), 4,
                    hands=[[], ["R+2"], ["Y+2"], ["G7"]], starter="R5")
    table.play(1, "R+2")
    table.play(2, "Y+2")
    assert table.state.pending == 4
    assert table.refused(table.play_action(3, "G7")).rule == "stack_draw_two"
    table.draw(3)
    assert (table.hand_size(3), table.state.current) == (11, 0)


def test_draw_two_cannot_stack_without_the_option() -> None:
    table = started(Options(), 3, hands=[[], ["R+2"], ["Y+2"]], starter="R5")
    table.play(1, "R+2")
    assert table.refused(table.play_action(2, "Y+2")).rule == "stack_draw_two"


def test_stack_draw_four_four_in_a_row_makes_sixteen() -> None:
    # RULES.md stack_draw_four: "four in a row: the fifth player draws 16"; "The last player
    # to play one names the colour."
    hands = [["W+4", "B1"], ["W+4", "B2"], ["W+4", "B3"], ["W+4", "B4"], ["B5"]]
    table = started(Options(stack_draw_four=True), 5, dealer=4, hands=hands, starter="R5")
    for seat, colour in enumerate((1, 0, 1, 0)):  # nobody holds red or yellow
        table.play(seat, "W+4", colour=colour)
    assert table.state.pending == 16
    table.draw(4)
    assert (table.hand_size(4), table.state.colour, table.state.current) == (23, 0, 0)


def test_stack_four_on_two() -> None:
    # RULES.md stack_four_on_two: "a Wild Draw Four may answer a Draw Two stack, adding 4"
    table = started(Options(stack_draw_two=True, stack_four_on_two=True), 3,
                    hands=[["Y+2"], ["R+2"], ["W+4", "B1"]], starter="R5")
    table.play(1, "R+2")
    table.play(2, "W+4", colour=1)
    assert table.state.pending == 6
    assert table.refused(table.play_action(0, "Y+2")).rule == "stack_draw_four"
    table.draw(0)
    assert table.hand_size(0) == 13


def test_deflect_skip_passes_penalty_on_and_reverse_sends_it_back() -> None:
    # RULES.md deflect_draw_two: "a Skip of its colour (passes the penalty on to the player
    # after) or a Reverse of its colour (sends it back)"; "no number or black card may be
    # played while a penalty is pending".
    table = started(Options(deflect_draw_two=True), 4,
                    hands=[["R-rev"], ["R+2"], ["R-skip", "R7", "W"], []], starter="R5")
    table.play(1, "R+2")
    assert table.refused(table.play_action(2, "R7")).rule == "stack_draw_two"
    assert table.refused(table.play_action(2, "W", colour=0)).rule == "stack_draw_two"
    table.play(2, "R-skip")
    assert (table.state.current, table.state.pending) == (3, 2)
    table.draw(3)
    assert table.hand_size(3) == 9
    table2 = started(Options(deflect_draw_two=True), 4,
                     hands=[[], ["R+2"], ["R-rev"], []], starter="R5")
    table2.play(1, "R+2")
    table2.play(2, "R-rev")
    assert (table2.state.current, table2.state.pending, table2.state.direction) == (1, 2, -1)


def test_jump_in_with_identical_card_play_goes_on_from_jumper() -> None:
    # RULES.md jump_in: "a player holding a card identical (colour and face) to the card just
    # played may play it out of turn; play goes on from them"
    table = started(Options(jump_in=True), 4, hands=[["R7"], ["R7"], [], []], starter="R5")
    table.play(1, "R7")
    jump = table.play_action(0, "R7")
    assert jump in legal_actions(table.views[0], 0)
    table.apply(jump)
    assert table.state.current == 1  # seats 2 and 3 lost their turns


def test_jump_in_needs_identical_colour_and_face() -> None:
    table = started(Options(jump_in=True), 4, hands=[["Y7"], ["R7"]], starter="R5")
    table.play(1, "R7")
    assert table.refused(table.play_action(0, "Y7")).rule == "jump_in"
    table = started(Options(), 4, hands=[["R7"], ["R7"]], starter="R5")
    table.play(1, "R7")
    assert table.refused(table.play_action(0, "R7")).rule == "turn"


def test_doubles_two_skips_skip_one_player() -> None:
    # RULES.md jump_in: "two Skips skip one player"
    table = started(Options(jump_in=True), 4, hands=[[], ["R-skip", "R-skip"]], starter="R5")
    table.play(1, "R-skip", "R-skip")
    assert table.state.current == 3


def test_doubles_two_reverses_keep_direction() -> None:
    # RULES.md jump_in: "two Reverses leave the direction as it was"
    table = started(Options(jump_in=True), 4, hands=[[], ["R-rev", "R-rev"]], starter="R5")
    table.play(1, "R-rev", "R-rev")
    assert (table.state.direction, table.state.current) == (1, 2)


def test_doubles_two_draw_twos_make_next_draw_four() -> None:
    # RULES.md jump_in: "two Draw Twos make the next player draw 4"
    table = started(Options(jump_in=True), 3, hands=[[], ["R+2", "R+2"]], starter="R5")
    table.play(1, "R+2", "R+2")
    table.draw(2)
    assert table.hand_size(2) == 11


# RULES.md jump_in: "Black cards pair too: two Wilds name one colour; two Wild Draw
# Fours make the next player draw 8, and one challenge covers the pair (guilty: the
# player who played them draws 8; not guilty: the challenger draws 10)."
def test_two_wilds_name_one_colour() -> None:
    table = started(Options(jump_in=True), 3, hands=[[], ["W", "W"]], starter="R5")
    assert any(isinstance(a, Play) and len(a.cards) == 2
               for a in legal_actions(table.views[1], 1)), "the pair is offered"
    table.play(1, "W", "W", colour=2)
    assert (table.state.colour, table.state.current, table.hand_size(1)) == (2, 2, 5)
    assert [long_name(c) for _, c in table.state.discard[-2:]] == ["Wild", "Wild"]


def test_two_wild_draw_fours_make_the_next_player_draw_eight() -> None:
    table = started(Options(jump_in=True), 3, hands=[[], ["W+4", "W+4"]], starter="R5")
    table.play(1, "W+4", "W+4", colour=1)
    assert table.state.pending == 8
    table.draw(2)
    assert (table.hand_size(2), table.state.current) == (7 + 8, 0)


def test_without_jump_in_black_cards_do_not_pair() -> None:
    table = started(Options(), 3, hands=[[], ["W+4", "W+4"]], starter="R5")
    assert table.refused(table.play_action(1, "W+4", "W+4", colour=1)).rule == "jump_in"
    assert not any(isinstance(a, Play) and len(a.cards) == 2
                   for a in legal_actions(table.views[1], 1))


def test_one_challenge_covers_the_pair_guilty_draws_eight() -> None:
    # Seat 1 holds a red 9 under a red 5: the pair was a bluff.
    table = started(Options(jump_in=True), 3, hands=[["Y7"], ["W+4", "W+4", "R9"], ["Y2"]],
                    starter="R5", exact=True)
    table.play(1, "W+4", "W+4", colour=1)
    table.apply(Challenge(2))
    table.apply(ChallengeVerdict(2, True))
    assert (table.hand_size(1), table.hand_size(2), table.state.current) == (1 + 8, 1, 2)
    assert table.state.pending == 0


def test_one_challenge_covers_the_pair_not_guilty_the_challenger_draws_ten() -> None:
    table = started(Options(jump_in=True), 3, hands=[["Y7"], ["W+4", "W+4", "Y9"], ["Y2"]],
                    starter="R5", exact=True)
    table.play(1, "W+4", "W+4", colour=1)
    table.apply(Challenge(2))
    table.apply(ChallengeVerdict(2, False))
    assert (table.hand_size(1), table.hand_size(2), table.state.current) == (1, 1 + 10, 0)


def test_going_out_with_two_wild_draw_fours_still_makes_the_next_player_draw_eight() -> None:
    # RULES.md "End of a round": the next player still draws after a last Wild Draw Four.
    table = started(Options(jump_in=True), 3, hands=[[], ["W+4", "W+4"], ["Y2"]],
                    starter="R5", exact=True)
    events = table.play(1, "W+4", "W+4", colour=1, say_uno=True)
    drawn = [e for e in events if isinstance(e, CardsDrawn) and e.reason == "penalty"]
    assert [(e.seat, len(e.slots)) for e in drawn] == [(2, 8)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["R+2", "W+4"]), st.integers(2, 6), st.booleans(), st.booleans())
def test_an_identical_pair_of_draw_cards_costs_twice_one(face: str, players: int,
                                                         stack_two: bool,
                                                         stack_four: bool) -> None:
    # RULES.md jump_in: two Draw Twos "draw 4", two Wild Draw Fours "draw 8": a pair costs
    # the next player twice what one card does, whatever the table's size and stacking.
    options = Options(jump_in=True, stack_draw_two=stack_two, stack_draw_four=stack_four)
    colour = {"colour": 1} if face == "W+4" else {}
    one = started(options, players, hands=[[], [face]], starter="R5")
    one.play(1, face, **colour)
    pair = started(options, players, hands=[[], [face, face]], starter="R5")
    pair.play(1, face, face, **colour)
    assert pair.state.pending == 2 * one.state.pending > 0
    assert pair.state.current == one.state.current


def test_going_out_with_doubles_needs_uno_first() -> None:
    # RULES.md jump_in: "A player going out by it must still say UNO first when two identical
    # cards are their last two."
    table = started(Options(jump_in=True), 3, hands=[[], ["R3", "R3"]], starter="R5",
                    exact=True)
    assert table.refused(table.play_action(1, "R3", "R3")).rule == "jump_in"
    table.play(1, "R3", "R3", say_uno=True)
    assert table.phase == Phase.ROUND_OVER or table.state.round == 2


def test_sum_jump_in() -> None:
    # RULES.md sum_jump_in: "number cards of one colour whose sum equals the number card just
    # played (same colour) may be played together out of turn"
    table = started(Options(sum_jump_in=True), 4,
                    hands=[["R3", "R4", "Y3"], ["R7"], [], []], starter="R5")
    table.play(1, "R7")
    assert table.refused(table.play_action(0, "R3", "Y3")).rule == "turn"
    sums = [a for a in legal_actions(table.views[0], 0) if isinstance(a, Play)]
    assert [sorted(a.cards) for a in sums] == [sorted([card("R3"), card("R4")])]
    table.apply(sums[0])
    assert (table.state.current, table.hand_size(0)) == (1, 5)


def test_sum_jump_in_of_five_cards_is_offered_and_accepted() -> None:
    # RULES.md sets no limit on the number of cards: 1+1+2+2+3 make 9.
    table = started(Options(sum_jump_in=True), 3,
                    hands=[["R1", "R1", "R2", "R2", "R3", "G5"], ["R9", "G7", "G8"], []],
                    exact=True)
    table.play(1, "R9")
    sums = [a for a in legal_actions(table.views[0], 0) if isinstance(a, Play)]
    assert sorted((len(a.cards), a.say_uno) for a in sums) == [(5, False), (5, True)]
    table.apply(next(a for a in sums if a.say_uno))
    assert (table.state.current, table.hand_size(0)) == (1, 1)  # play goes on from seat 0


def test_number_finish() -> None:
    # RULES.md number_finish: "the last card played to go out must be a number card"
    table = started(Options(number_finish=True), 3, hands=[[], ["R-skip"]], starter="R5",
                    exact=True)
    assert table.refused(table.play_action(1, "R-skip")).rule == "number_finish"
    assert not any(isinstance(a, Play) for a in legal_actions(table.views[1], 1))


def test_number_or_draw_finish() -> None:
    # RULES.md: "variant number_or_draw_finish: a number 1-9, Draw Two or Wild Draw Four"
    options = Options(number_or_draw_finish=True)
    table = started(options, 3, hands=[[], ["R0"]], starter="R5", exact=True)
    assert table.refused(table.play_action(1, "R0")).rule == "number_or_draw_finish"
    table = started(options, 3, hands=[[], ["R+2"]], starter="R5", exact=True)
    table.play(1, "R+2")
    assert table.state.round == 2


def test_wild_powers_peek_and_swap() -> None:
    # RULES.md wild_powers: "name a colour; look at one player's hand for 5 seconds; swap 3
    # cards with any player". (The colour is named in every case.)
    table = started(Options(wild_powers=True), 3, hands=[[], ["W", "W"]], starter="R5")
    events = table.play(1, "W", colour=0, power="peek", target=0)
    peek = next(e for e in events if isinstance(e, RevealRequested))
    assert (peek.to, set(peek.slots)) == (1, set(table.state.hands[0]))
    assert all(s in table.views[1].known for s in table.state.hands[0])
    assert all(s not in table.views[2].known for s in table.state.hands[0])
    table.draw(2)
    table.apply(Pass(2))
    table.draw(0)
    table.apply(Pass(0))
    give = tuple(s for s in table.state.hands[1] if table.state.known[s] != card("W", 1))[:3]
    take = table.state.hands[0][:3]
    play = table.play_action(1, "W", colour=2, power="swap", target=0)
    swap = Play(1, play.slots, play.cards, 2, False, 0, "swap", give, take)
    table.apply(swap)
    assert set(take) <= set(table.state.hands[1])
    assert set(give) <= set(table.state.hands[0])
    assert all(s in table.views[0].known for s in give)


def test_turn_timer() -> None:
    # RULES.md turn_timer: "when it runs out the player draws a penalty card and the turn
    # passes". Valid only once now_ms >= turn_started_ms + turn_timer * 1000.
    table = started(Options(turn_timer=5), 3, starter="R5")
    started_ms = table.state.turn_started_ms
    assert table.refused(TimeOut(1), now_ms=started_ms + 4999).rule == "turn_timer"
    assert table.refused(TimeOut(2), now_ms=started_ms + 9999).rule == "turn_timer"
    table.apply(TimeOut(1), now_ms=started_ms + 5000)
    assert (table.hand_size(1), table.state.current) == (8, 2)
    assert table.state.turn_started_ms == started_ms + 5000
    table = started(Options(), 3, starter="R5")
    assert table.refused(TimeOut(1), now_ms=10**9).rule == "turn_timer"


def test_error_penalty() -> None:
    # RULES.md error_penalty: "a play that breaks the rules is taken back and costs a card"
    table = started(Options(error_penalty=2), 3, starter="R5")
    table.apply(ErrorPenalty(2))
    assert (table.hand_size(2), table.state.current) == (9, 1)
    assert started(Options(), 3).refused(ErrorPenalty(2)).rule == "error_penalty"


def test_draw_until_playable_claims() -> None:
    # RULES.md draw_until_playable: "keep drawing until a playable card comes"
    table = started(Options(draw_until_playable=True), 3, starter="R5",
                    pile=["Y3", "R9"], hands=[[], ["B1"]])
    table.draw(1)
    # Y3 drawn: must go on.
    assert table.refused(Pass(1), checked_by=(1,)).rule == "draw_until_playable"
    table.draw(1)
    # R9 drawn: it plays.
    assert table.refused(Draw(1), checked_by=(1,)).rule == "draw_until_playable"
    assert {type(a) for a in legal_actions(table.views[1], 1)} == {Play, Pass}
    table.apply(Pass(1))
    assert table.state.claims[-1].kind == "playable"


def test_forced_play() -> None:
    # RULES.md forced_play: "a player who draws a playable card must play it"
    table = started(Options(forced_play=True), 3, starter="R5", pile=["R9"])
    table.draw(1)
    assert table.refused(Pass(1), checked_by=(1,)).rule == "forced_play"
    assert Pass(1) not in legal_actions(table.views[1], 1)
    # another viewer cannot see the drawn card: the pass becomes a claim, caught at round end
    view0 = table.views[0]
    from uno_p2p.rules import apply
    view0, _ = apply(view0, Pass(1))
    assert view0.claims[-1].kind == "unplayable"
    assert view0.claims[-1].rule == "forced_play"


def test_seven_zero() -> None:
    # RULES.md seven_zero: "playing a 7 swaps hands with a player of your choice; playing a 0
    # passes every hand to the next player in the direction of play"
    table = started(Options(seven_zero=True), 3, hands=[[], ["R7", "R0"]], starter="R5")
    before = [set(table.state.hands[s]) for s in range(3)]
    assert table.refused(table.play_action(1, "R7")).rule == "seven_zero"
    table.play(1, "R7", target=0)
    assert set(table.state.hands[1]) == before[0]
    assert set(table.state.hands[0]) == before[1] - {table.state.discard[-1][0]}
    assert all(s in table.views[1].known for s in table.state.hands[1])
    hands = [set(table.state.hands[s]) for s in range(3)]
    table.draw(2)
    table.apply(Pass(2))
    hands[2] = set(table.state.hands[2])
    zero = table.play_action(0, "R0")
    table.apply(zero)
    hands[0] -= set(zero.slots)
    assert [set(table.state.hands[s]) for s in range(3)] == [hands[2], hands[0], hands[1]]


def test_going_out_on_a_deflecting_skip_still_makes_the_next_player_draw() -> None:
    # RULES.md "End of a round": "so does the player a penalty was passed on to by a last
    # Skip or Reverse under deflect_draw_two".
    table = started(Options(deflect_draw_two=True), 4,
                    hands=[[], ["R+2", "B1"], ["R-skip"], []], starter="R5", exact=True)
    table.play(1, "R+2")
    events = table.play(2, "R-skip")
    drawn = [e for e in events if isinstance(e, CardsDrawn) and e.reason == "penalty"]
    assert [(e.seat, len(e.slots)) for e in drawn] == [(3, 2)]
    reverse = started(Options(deflect_draw_two=True), 4,
                      hands=[[], ["R+2", "B1"], ["R-rev"], []], starter="R5", exact=True)
    reverse.play(1, "R+2")
    events = reverse.play(2, "R-rev")
    drawn = [e for e in events if isinstance(e, CardsDrawn) and e.reason == "penalty"]
    assert [(e.seat, len(e.slots)) for e in drawn] == [(1, 2)]   # "sends it back"


def test_forced_play_a_drawn_wild_draw_four_must_be_played() -> None:
    # RULES.md forced_play: "a player who draws a playable card must play it"; a Wild Draw
    # Four may always be played (the bluff), unless wd4_strict forbids it to its holder.
    table = started(Options(forced_play=True), 3, starter="R5", pile=["W+4"],
                    hands=[[], ["R9"]])
    table.draw(1)
    # Only the drawer sees the drawn card: the others' views take the pass as a hidden
    # claim, proven at the round end's reveal (verdicts.md §7, forced_play).
    assert table.refused(Pass(1), checked_by=[1]).rule == "forced_play"
    strict = started(Options(forced_play=True, wd4_strict=True), 3, starter="R5",
                     pile=["W+4"], hands=[[], ["R9"]])
    strict.draw(1)
    strict.apply(Pass(1))                       # holds red: may not play it, so may keep it
    free = started(Options(forced_play=True, wd4_strict=True), 3, starter="R5",
                   pile=["W+4"], hands=[[], ["B9"]], exact=True)
    free.draw(1)
    assert free.refused(Pass(1), checked_by=[1]).rule == "forced_play"


def test_draw_until_playable_stops_only_at_a_card_its_holder_may_play() -> None:
    # RULES.md draw_until_playable: "keep drawing until a playable card comes".
    table = started(Options(draw_until_playable=True), 3, starter="R5", pile=["W+4"],
                    hands=[[], ["R9"]])
    table.draw(1)
    # the drawn card is the drawer's alone to see: only its view can refuse (the others
    # take a hidden claim, proven at the round end)
    assert table.refused(Draw(1), checked_by=[1]).rule == "draw_until_playable"  # W+4
    strict = started(Options(draw_until_playable=True, wd4_strict=True), 3, starter="R5",
                     pile=["W+4", "B3", "Y5"], hands=[[], ["R9"]])
    strict.draw(1)
    assert strict.refused(Pass(1), checked_by=[1]).rule == "draw_until_playable"  # red held
    strict.draw(1)
    assert strict.state.claims[-1].kind == "unplayable"
    view0, _ = apply(strict.views[0], Pass(1))
    assert view0.claims[-1].verdict(strict.state.known) is False  # B3: should draw on


def test_nobody_jumps_in_onto_a_wild() -> None:
    # docs/rules.md jump_in: "never onto a Wild or Wild Draw Four (their colour is named,
    # so no card is identical)", even with the other copy of the same Wild.
    table = started(Options(jump_in=True), 3, dealer=2, hands=[["W"], [], ["W"]],
                    starter="R5")
    wild = table.play_action(0, "W", colour=2)
    assert (table.state.current, wild.cards) == (0, (card("W", 0),))
    table.apply(wild)
    jump = table.play_action(2, "W", colour=1)  # seat 1 is next: seat 2 would jump in
    assert jump.cards == (card("W", 1),)
    refused = table.refused(jump)
    assert refused.rule == "jump_in"
    assert "jump-in" in str(refused)


def test_a_swapper_still_knows_the_cards_it_gave_away() -> None:
    # docs/rules.md wild_powers: "the cards you give chosen by you and the ones you take
    # chosen blind from their hand": each side knows the cards it held before the swap.
    table = started(Options(wild_powers=True), 3, hands=[[], ["W", "R3", "G4", "B6"]],
                    starter="R5")
    give = tuple(table.slot(1, card(name)) for name in ("R3", "G4", "B6"))
    take = table.state.hands[2][:3]
    play = table.play_action(1, "W", colour=2, power="swap", target=2)
    table.apply(Play(1, play.slots, play.cards, 2, False, 2, "swap", give, take))
    faces = table.state.known
    swapper, target = view_for(table.state, 1), view_for(table.state, 2)
    assert {s: swapper.known.get(s) for s in give + take} == {s: faces[s] for s in give + take}
    assert {s: target.known.get(s) for s in give + take} == {s: faces[s] for s in give + take}
    assert all(s not in view_for(table.state, 0).known for s in give + take)
