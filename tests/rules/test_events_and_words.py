"""What the engine tells players in words and events, beyond the effects of a move.

RULES.md "UNO": saying it is an action of its own, announced to the table; a
draw is announced as a draw; under ``seven_zero`` a 0 passes every hand to
the next player in the direction of play (each hand shown privately to its
new owner, for that reason). A refusal names the rule it enforces and is a
sentence that names the player, never empty or "None". A false hidden claim
is described in words for every kind the engine records.
"""

from __future__ import annotations

import pytest

from uno_p2p.errors import IllegalAction, InvalidMessage
from uno_p2p.rules import (
    CardsDrawn,
    Draw,
    ErrorPenalty,
    Options,
    Pass,
    Play,
    SayUno,
    UnoSaid,
)
from uno_p2p.rules.actions import action_from_wire
from uno_p2p.rules.events import RevealRequested
from uno_p2p.rules.rounds import describe_claim

from .harness import Table, card, started


def said(error: IllegalAction) -> str:
    text = str(error)
    assert text.strip(), error.rule
    assert "None" not in text, text
    return text


def test_a_draw_is_announced_as_a_draw() -> None:
    table = started(Options(), 3, hands=[[], ["R7"]], starter="B5")
    events = table.draw(1)
    drawn = [e for e in events if isinstance(e, CardsDrawn)]
    assert len(drawn) == 1
    assert (drawn[0].seat, len(drawn[0].slots), drawn[0].reason) == (1, 1, "draw")


def test_a_zero_under_seven_zero_passes_every_hand_on_and_says_why() -> None:
    table = started(Options(seven_zero=True), 3, hands=[[], ["R0", "G2"]], starter="R5")
    before = {seat: table.state.hands[seat] for seat in range(3)}
    zero = table.slot(1, card("R0"))
    left = tuple(s for s in before[1] if s != zero)
    events = table.play(1, "R0")
    # Direction of play is 0 -> 1 -> 2 -> 0: each hand goes to the next player.
    moved = {(e.slots, e.to, e.reason) for e in events if isinstance(e, RevealRequested)}
    assert moved == {(before[0], 1, "seven_zero"), (left, 2, "seven_zero"),
                     (before[2], 0, "seven_zero")}
    assert (table.state.hands[1], table.state.hands[2], table.state.hands[0]) == (
        before[0], left, before[2])


def test_saying_uno_is_announced_to_the_table() -> None:
    table = started(Options(), 3, hands=[[], ["R7", "R8"]], starter="R5", exact=True)
    table.play(1, "R7")
    events = table.apply(SayUno(1))
    assert UnoSaid(1) in events
    assert table.state.uno_said[1]


def _refusal(table: Table, action: Play | Pass | Draw | ErrorPenalty) -> IllegalAction:
    return table.refused(action)


def test_refusals_name_their_rule_and_the_player() -> None:
    table = started(Options(), 3, hands=[["R7"], ["W", "G3"]], starter="R5")
    names = table.state.players
    for early in (table.play_action(0, "R7"), Draw(0), Pass(0)):  # seat 1 plays first
        turn = _refusal(table, early)
        assert turn.rule == "turn"
        assert names[0] in said(turn)
    colourless = _refusal(table, table.play_action(1, "W"))  # a Wild must name a colour
    assert colourless.rule == "matching"
    assert names[1] in said(colourless)
    early_pass = _refusal(table, Pass(1))  # RULES.md: draw first, then pass
    assert early_pass.rule == "draw"
    assert names[1] in said(early_pass)
    off = _refusal(table, ErrorPenalty(1))
    assert off.rule == "error_penalty"
    said(off)


@pytest.mark.parametrize(("kind", "rule"), [
    ("unplayable", "forced_play"), ("playable", "draw_until_playable"),
    ("no_colour", "wd4_strict"), ("has_colour", "challenge"), ("no_colour", "challenge")])
def test_every_false_claim_is_described_in_words(kind: str, rule: str) -> None:
    sentence = describe_claim(kind, rule)
    assert sentence.startswith("they ")
    others = {describe_claim(k, r) for k, r in [
        ("unplayable", "forced_play"), ("playable", "draw_until_playable"),
        ("no_colour", "wd4_strict"), ("has_colour", "challenge"), ("no_colour", "challenge")]
        if (k, r) != (kind, rule)}
    assert sentence not in others, "each kind of lie reads differently"


def test_keeping_a_playable_drawn_card_is_refused_naming_the_card() -> None:
    # RULES.md forced_play: "a player who draws a playable card must play it".
    table = started(Options(forced_play=True), 3, hands=[[], ["G7"]], starter="R5",
                    pile=["R3"])
    table.draw(1)
    drawn = table.state.drawn
    assert drawn is not None
    assert table.state.known[drawn] == card("R3")
    kept = table.refused(Pass(1), checked_by=[1])  # the others cannot see the card
    assert kept.rule == "forced_play"
    text = said(kept)
    assert table.state.players[1] in text
    assert "3" in text, "it names the card just drawn"


def test_a_revealed_face_out_of_range_is_refused_naming_its_field() -> None:
    with pytest.raises(InvalidMessage) as caught:
        action_from_wire(["reveal", [[1, 4, 108]]])
    assert str(caught.value) == "Reveal.faces card must be an integer from 0 to 107, not 108"
