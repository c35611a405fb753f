"""What a play tells the table: its events, reveal reasons and refusal rules (RULES.md).

The table, the UI and the audit act on the engine's events and on the rule a
refusal names, so these are checked by value: a played card is announced with
its seat, slots, faces and colour; every private or public reveal says why
(``seven_zero``, ``swap``, ``round_end``); a refusal names the RULES.md option
it enforces. Plus the corners the mutation run found unguarded: a Wild swap
with fewer than three cards left, a play that says UNO falsely under
``false_uno_penalty``, and the dealer under ``dealer_rule=winner``.
"""

from __future__ import annotations

from uno_p2p.rules import (
    EVERYONE,
    CardsPlayed,
    Challenge,
    ChallengeVerdict,
    Options,
    Pass,
    Play,
    RevealRequested,
)

from .harness import card, started


def test_a_play_is_announced_with_its_seat_slots_faces_and_colour() -> None:
    table = started(Options(), 3, hands=[[], ["R7", "W"]], starter="R5")
    play = table.play_action(1, "R7")
    events = table.apply(play)
    assert CardsPlayed(1, play.slots, play.cards, -1) in events


def test_a_wild_is_announced_with_the_colour_named() -> None:
    table = started(Options(), 3, hands=[[], ["W"]], starter="R5")
    play = table.play_action(1, "W", colour=3)
    assert CardsPlayed(1, play.slots, (card("W"),), 3) in table.apply(play)
    assert table.state.colour == 3


def test_reveal_requests_say_why() -> None:
    table = started(Options(seven_zero=True), 3, hands=[[], ["R7", "R2"]], starter="R5")
    events = table.play(1, "R7", target=0)
    reasons = {(e.to, e.reason) for e in events if isinstance(e, RevealRequested)}
    assert reasons == {(0, "seven_zero"), (1, "seven_zero")}
    ending = started(Options(), 3, hands=[[], ["R3"]], starter="R5", exact=True)
    held = {s for seat in (0, 2) for s in ending.state.hands[seat]}
    events = ending.play(1, "R3")
    public = [e for e in events if isinstance(e, RevealRequested) and e.to == EVERYONE
              and e.reason == "round_end"]
    assert len(public) == 1  # "every hand is revealed publicly"
    assert set(public[0].slots) == held


def test_a_wild_swap_with_two_cards_left_moves_two_each_way() -> None:
    # RULES.md wild_powers: "swap 3 cards with any player" - as many as the player has left.
    table = started(Options(wild_powers=True), 3, hands=[[], ["W", "R1", "R2"]], starter="R5",
                    exact=True)
    mine = tuple(s for s in table.state.hands[1] if table.state.known[s] != card("W"))
    theirs = table.state.hands[0][:2]
    play = table.play_action(1, "W", colour=0, power="swap", target=0)
    three = Play(1, play.slots, play.cards, 0, False, 0, "swap", mine, table.state.hands[0][:3])
    assert table.refused(three).rule == "wild_powers"
    events = table.apply(Play(1, play.slots, play.cards, 0, False, 0, "swap", mine, theirs))
    assert RevealRequested(theirs, 1, "swap") in events
    assert RevealRequested(mine, 0, "swap") in events
    assert set(table.state.hands[1]) == set(theirs)
    assert set(mine) <= set(table.state.hands[0])


def test_powers_and_targets_are_refused_naming_their_rule() -> None:
    table = started(Options(wild_powers=True), 3, hands=[[], ["R7", "W"]], starter="R5")
    assert table.refused(table.play_action(1, "R7", power="peek", target=0)).rule == \
        "wild_powers"
    plain = started(Options(), 3, hands=[[], ["W"]], starter="R5")
    assert plain.refused(plain.play_action(1, "W", colour=0, power="peek", target=0)).rule == \
        "wild_powers"
    assert plain.refused(plain.play_action(1, "W", colour=0, target=0)).rule == "seven_zero"


def test_a_play_saying_uno_falsely_costs_two_cards_with_false_uno_penalty() -> None:
    # RULES.md false_uno_penalty: "saying UNO when one does not have one card costs 2 cards".
    table = started(Options(false_uno_penalty=True), 3, hands=[[], ["R7"]], starter="R5")
    before = table.hand_size(1)
    table.play(1, "R7", say_uno=True)
    assert table.hand_size(1) == before - 1 + 2
    assert not table.state.uno_said[1]


def test_only_the_challenger_gives_the_verdict() -> None:
    table = started(Options(), 3, hands=[[], ["W+4", "Y9"]], starter="R5")
    table.play(1, "W+4", colour=1)  # no red in hand: a legal Wild Draw Four
    table.apply(Challenge(2))
    assert table.refused(ChallengeVerdict(0)).rule == "challenge"
    assert table.refused(ChallengeVerdict(1)).rule == "challenge"


def test_the_round_winner_deals_next_under_dealer_rule_winner() -> None:
    # RULES.md dealer_rule: "winner (default: the previous round's winner deals)". Seat 2
    # goes out while seat 0 dealt, so the next dealer is 2, not 0's left (1).
    table = started(Options(dealer_rule="winner"), 3, hands=[[], [], ["R3"]], starter="R5",
                    exact=True)
    assert table.state.dealer == 0
    table.draw(1)
    table.apply(Pass(1))
    table.play(2, "R3")
    assert table.state.dealer == 2
    rotate = started(Options(dealer_rule="rotate"), 3, hands=[[], [], ["R3"]], starter="R5",
                     exact=True)
    rotate.draw(1)
    rotate.apply(Pass(1))
    rotate.play(2, "R3")
    assert rotate.state.dealer == 1  # "deal passes to the left"
