"""What a third random sample of mutants (seed 18) found untested (docs/testing.md).

RULES.md ``jump_in``: "A player going out by it must still say UNO first when
two identical cards are their last two": an early UNO is for a pair only, and
saying it over two different cards is refused naming the player and the
rule. docs/rules.md "Options": a rule that is on or off is set with
``true``/``on``/``yes``/``1`` or ``false``/``off``/``no``/``0``. An action
that decodes but makes no sense is refused as an ``InvalidMessage`` in the
words a player reads in the audit: the action's name, then why.
"""

from __future__ import annotations

import pytest

from uno_p2p.errors import ConfigError, InvalidMessage
from uno_p2p.rules import Options, Play, SayUno, UnoSaid
from uno_p2p.rules.actions import action_from_wire
from uno_p2p.rules.engine import view_for
from uno_p2p.rules.options import parse_assignment

from .harness import card, started


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


@pytest.mark.parametrize(("word", "value"), [
    ("true", True), ("on", True), ("yes", True), ("1", True), ("ON", True), (" Yes ", True),
    ("false", False), ("off", False), ("no", False), ("0", False), ("OFF", False)])
def test_a_rule_is_switched_on_or_off_in_any_of_the_documented_words(
        word: str, value: bool) -> None:
    assert parse_assignment(f"jump_in={word}") == ("jump_in", value)


def test_a_switch_set_to_another_word_is_refused_saying_on_or_off() -> None:
    for word in ("2", "maybe", ""):
        with pytest.raises(ConfigError) as caught:
            parse_assignment(f"jump_in={word}")
        assert "on or off" in str(caught.value)


#: Actions well formed on the wire that make no sense, and the words they earn.
NONSENSE = [
    (["colour", 1, -1], "ChooseColour: a colour must be named"),
    (["colour", 1, 4],
     "ChooseColour: colour must be 0-3 (red, yellow, green, blue) or -1, not 4"),
    (["play", 0, [], [], -1, False, -1, "", [], []],
     "Play: a play names at least one slot and one face per slot"),
    (["play", 0, [[1, 4], [1, 4]], [3, 3], -1, False, -1, "", [], []],
     "Play: a play names each slot once"),
    (["play", 0, [[1, 4]], [3], -1, False, -1, "steal", [], []],
     "Play: power must be one of ('', 'peek', 'swap')"),
    (["play", 0, [[1, 4]], [100], 0, False, 1, "swap",
      [[1, n] for n in range(5, 9)], [[1, n] for n in range(10, 14)]],
     "Play: a Wild swap moves at most 3 cards each way"),
    (["reveal", [[1, 4, 3], [1, 4, 5]]], "Reveal: a reveal names each slot once"),
]


@pytest.mark.parametrize(("wire", "words"), NONSENSE, ids=[w for _, w in NONSENSE])
def test_an_action_that_makes_no_sense_is_refused_in_words(wire: list[object],
                                                           words: str) -> None:
    with pytest.raises(InvalidMessage) as caught:
        action_from_wire(wire)
    assert str(caught.value) == words


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
