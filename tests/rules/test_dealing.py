"""First dealer, the deal and the starter card (RULES.md "Players and dealing")."""

from __future__ import annotations

from uno_p2p.rules import (
    ChooseColour,
    DealerChosen,
    Options,
    Phase,
    RevealRequested,
    ShuffleRequested,
    new_game,
)
from uno_p2p.rules.cards import CARD_COUNT

from .harness import Table, card, cards, round_deck, started, top


def test_no_card_is_on_the_pile_before_the_starter_is_turned() -> None:
    # RULES.md: "the top of the deck is turned over to start the discard pile".
    state, _ = new_game(Options(), ["P0", "P1", "P2"])
    assert state.top_card is None
    assert started(Options(), 3, starter="R5").state.top_card == card("R5")


def test_highest_card_deals_and_ties_draw_again() -> None:
    # RULES.md: "every player draws one card; highest number deals (an action or black
    # card counts as 0); tied players draw again until one is highest."
    first = cards("R8", "Y8", "R-skip", "G2")      # seats 0 and 1 tie on 8; a Skip is 0
    again = cards("B3", "B7")                      # the tied players draw again: seat 1 wins
    rest = [c for c in range(CARD_COUNT) if c not in first + again]
    table = Table(Options(), 4, selection=first + again + rest)
    dealers = [e for e in table.events if isinstance(e, DealerChosen)]
    assert dealers == [DealerChosen(1, 1)]
    requests = [e for e in table.events
                if isinstance(e, RevealRequested) and e.reason == "dealer_selection"]
    assert [len(r.slots) for r in requests] == [4, 2]


def test_seven_cards_each_and_play_starts_left_of_dealer() -> None:
    # RULES.md: "7 cards each"; "Play starts with the player to the dealer's left and goes
    # clockwise."
    table = started(Options(), 4, dealer=2, starter="R5")
    assert [table.hand_size(s) for s in range(4)] == [7, 7, 7, 7]
    assert table.state.current == 3
    assert table.state.direction == 1
    assert len(table.state.draw_pile) == CARD_COUNT - 28 - 1


def test_new_game_asks_for_shuffle_and_public_reveal() -> None:
    state, events = new_game(Options(), ["a", "b"])
    assert state.phase == Phase.DEALER_SELECTION
    assert events[0] == ShuffleRequested(0, CARD_COUNT)
    assert isinstance(events[1], RevealRequested)
    assert events[1].to == -1


def test_starter_wild_draw_four_is_shuffled_back() -> None:
    # RULES.md: "Wild Draw Four: back into the deck, reshuffle, turn again."
    deck = round_deck(3, 0, [], card("W+4"))
    table = Table(Options(), 3, decks=[deck, top("R4")])
    shuffles = [e for e in table.events if isinstance(e, ShuffleRequested)]
    assert len(shuffles) == 3  # selection, round deck, the reshuffle
    reshuffle = shuffles[-1]
    assert reshuffle.size == CARD_COUNT - 21
    assert reshuffle.faces == ()  # the deck's faces stay secret
    assert table.state.top_card == card("R4")
    assert card("W+4") not in [c for _, c in table.state.discard]
    assert table.phase == Phase.PLAYING
    assert table.state.current == 1


def test_starter_wild_first_player_names_colour() -> None:
    # RULES.md: "Wild: the first player names the colour, then plays."
    table = started(Options(), 3, starter="W")
    assert table.phase == Phase.STARTER_COLOUR
    assert table.state.current == 1
    assert table.refused(ChooseColour(0, 2)).rule == "starter_wild_colour"
    table.apply(ChooseColour(1, 2))
    assert (table.phase, table.state.colour, table.state.current) == (Phase.PLAYING, 2, 1)


def test_starter_wild_dealer_names_colour_with_option() -> None:
    # RULES.md: "Option starter_wild_colour: first_player (default) or dealer."
    table = started(Options(starter_wild_colour="dealer"), 3, starter="W")
    assert table.state.current == 0
    table.apply(ChooseColour(0, 3))
    assert (table.state.colour, table.state.current) == (3, 1)


def test_starter_skip_skips_first_player() -> None:
    # RULES.md: "Skip: the first player is skipped."
    table = started(Options(), 3, starter="R-skip")
    assert table.state.current == 2


def test_starter_reverse_dealer_plays_first_counter_clockwise() -> None:
    # RULES.md: "Reverse: the dealer plays first and play goes counter-clockwise."
    table = started(Options(), 4, dealer=1, starter="R-rev", hands=[["R3"], ["R4"]])
    assert (table.state.current, table.state.direction) == (1, -1)
    table.play(1, "R4")
    assert table.state.current == 0


def test_starter_draw_two_first_player_draws_and_is_skipped() -> None:
    # RULES.md: "Draw Two: the first player draws 2 and is skipped."
    table = started(Options(), 3, starter="R+2")
    assert [table.hand_size(s) for s in range(3)] == [7, 9, 7]
    assert table.state.current == 2


def test_starter_number_only_keeps_turning() -> None:
    # RULES.md: "Option starter_number_only: keep turning until a number card shows (004)."
    table = started(Options(starter_number_only=True), 3, starter="R-skip", pile=["W", "Y6"])
    assert table.state.top_card == card("Y6")
    assert table.state.current == 1
    assert [c for _, c in table.state.discard] == cards("R-skip", "W", "Y6")
