"""Rendering: a view in, text out (no terminal)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.ui.helpers import table
from uno_p2p.rules import Draw, Phase, Play, Rank, Slot, State, preset
from uno_p2p.rules.cards import card_ids, parse_card_name
from uno_p2p.ui import render
from uno_p2p.ui.lobby import LobbySeat, seat_line
from uno_p2p.ui.render import Seats, plain_text
from uno_p2p.ui.session import LocalTable
from uno_p2p.ui.theme import card_label, plain_mode


def card(name: str) -> int:
    return card_ids(*parse_card_name(name))[0]


@pytest.fixture
def game() -> LocalTable:
    game = table("render")
    game.run_until_human()
    return game


def seats_of(game: LocalTable) -> Seats:
    return Seats(game.names, game.seat)


def with_top(view: State, top: int, colour: int) -> State:
    """The view with ``top`` on the discard pile and ``colour`` to match."""
    return replace(view, discard=(*view.discard, (Slot(999, 0), top)), colour=colour)


def test_hand_shows_every_card_of_the_view_in_order(game: LocalTable) -> None:
    view = game.view()
    block = render.hand(view, seats_of(game), 0, set(), set(), 200, plain=True)
    labels = plain_text(block).splitlines()[1].split()
    assert labels == [card_label(f, True) for f in view.hand_faces(game.seat) if f is not None]
    assert len(labels) == len(view.hands[game.seat])


def test_hand_marks_cursor_marks_and_playable_cards(game: LocalTable) -> None:
    view = game.view()
    hand = view.hands[game.seat]
    playable = {hand[0], hand[3]}
    block = render.hand(view, seats_of(game), 1, {hand[2]}, playable, 200, plain=True)
    edge, _, marks = plain_text(block).splitlines()
    cells = [edge[1 + i * 7: 1 + i * 7 + 6].strip() for i in range(len(hand))]
    assert [c == "play" for c in cells] == [s in playable for s in hand]
    coloured = render.hand(view, seats_of(game), 1, set(), playable, 200, plain=False)
    raised = [style for style, _ in coloured[0][1:] if style]
    assert len(raised) == 2
    assert all(s.startswith("class:card.") for s in raised)
    numbers = marks.split()
    assert numbers[0] == "1"
    assert numbers[1] == "▲2"
    assert numbers[2] == "✓3"


def test_hand_wraps_to_the_width(game: LocalTable) -> None:
    view = game.view()
    count = len(view.hands[game.seat])
    narrow = render.hand(view, seats_of(game), 0, set(), set(), 22, plain=True)
    assert len(narrow) == 3 * -(-count // 3)  # three cards a row, three lines each
    assert all(render.width_of(line) <= 22 for line in narrow)


def test_big_card_shows_the_top_card(game: LocalTable) -> None:
    view = with_top(game.view(), card("G+2"), 2)
    text = plain_text(render.big_card(view.top_card, plain=False))
    assert "+2" in text
    assert render.big_card(card("G+2"), plain=False)[0][0][0] == "class:card.green"
    assert "G+2" in plain_text(render.big_card(card("G+2"), plain=True))


def test_big_card_before_the_starter_is_an_empty_place() -> None:
    assert set(plain_text(render.big_card(None, plain=True))) <= {"·", "\n"}


def test_colour_to_match_after_a_wild(game: LocalTable) -> None:
    view = with_top(game.view(), card("W"), 3)
    text = plain_text(render.situation(view, seats_of(game), None))
    assert "Colour to match: ■ Blue" in text
    big = plain_text(render.big_card(view.top_card, plain=False, named=view.colour))
    assert big.split()[0] == "W"
    assert big.splitlines()[-1].strip() == "→ Blue"
    assert "→ Blue" in plain_text(render.big_card(view.top_card, plain=True, named=3))


def test_turn_marker_follows_the_current_player(game: LocalTable) -> None:
    view = game.view()
    seats = seats_of(game)
    assert "Your turn" in plain_text(render.situation(view, seats, None))
    assert plain_text([render.me_line(view, seats, True)]).startswith("▶ You")
    other = render.play_order(view, game.seat)[1]
    theirs = replace(view, current=other)
    text = plain_text(render.situation(theirs, seats, None))
    assert f"{game.names[other]}'s turn" in text
    lines = plain_text(render.opponents(theirs, seats)).splitlines()
    marked = [line for line in lines if line.startswith("▶")]
    assert len(marked) == 1
    assert game.names[other] in marked[0]


def test_opponents_show_counts_not_faces(game: LocalTable) -> None:
    view = game.view()
    lines = plain_text(render.opponents(view, seats_of(game))).splitlines()
    assert len(lines) == len(game.names) - 1
    for seat, line in zip(render.play_order(view, game.seat), lines, strict=True):
        assert game.names[seat] in line
        assert f" {len(view.hands[seat])} " in line
        assert "▮" * min(len(view.hands[seat]), 12) in line


def test_uno_status_and_catchable_player(game: LocalTable) -> None:
    view = game.view()
    other = render.play_order(view, game.seat)[0]
    hands = list(view.hands)
    hands[other] = hands[other][:1]
    said = replace(view, hands=tuple(hands),
                   uno_said=tuple(s == other for s in range(len(hands))))
    assert "UNO!" in plain_text(render.opponents(said, seats_of(game))).splitlines()[0]
    exposed = replace(view, hands=tuple(hands), exposed=other)
    assert "no UNO!" in plain_text(render.opponents(exposed, seats_of(game))).splitlines()[0]


def test_pending_penalty_and_timer_are_shown(game: LocalTable) -> None:
    view = replace(game.view(), pending=4, pending_rank=Rank.DRAW_TWO)
    text = plain_text(render.situation(view, seats_of(game), 7))
    assert "You must draw 4\n" in text  # official rules: nothing can answer a Draw Two
    stacking = replace(view, options=preset("house"))
    assert "You must draw 4 or stack a Draw Two or a Wild Draw Four" in plain_text(
        render.situation(stacking, seats_of(game), 7))
    four = replace(view, pending_rank=Rank.WILD_DRAW_FOUR, challenge=(-1, 2, 0))
    assert "You must draw 4 or challenge it" in plain_text(
        render.situation(four, seats_of(game), 7))
    assert "7 s left" in text


def test_direction_is_shown(game: LocalTable) -> None:
    view = game.view()
    assert "clockwise ↓" in plain_text(render.situation(replace(view, direction=1),
                                                        seats_of(game), None))
    assert "counter-clockwise ↑" in plain_text(
        render.situation(replace(view, direction=-1), seats_of(game), None))


def test_dealing_phase_says_so(game: LocalTable) -> None:
    view = replace(game.view(), phase=Phase.STARTER)
    assert "Dealing" in plain_text(render.situation(view, seats_of(game), None))


def test_header_has_rules_and_score_and_fits() -> None:
    game = table("hdr", options=preset("house", ["target=200"]))
    game.run_until_human()
    line = render.header(game.view(), seats_of(game), 80)
    text = plain_text(line)
    assert "round 1 · house rules + target=200 " in text
    assert text.rstrip().endswith("first to 200 · you 0 pts")
    assert render.width_of(line[0]) == 80


@pytest.mark.parametrize(("name", "extra", "label"), [
    ("official", [], "official rules"),
    ("party", [], "party rules"),
    ("seeds", ["jump_in=true"], "seeds rules + jump_in=true"),
    ("official", ["stack_draw_two=true", "stack_draw_four=true", "stack_four_on_two=true",
                  "jump_in=true", "seven_zero=true", "target=100"], "party rules + target=100"),
])
def test_rules_label_names_the_nearest_preset(name: str, extra: list[str], label: str) -> None:
    assert render.rules_label(preset(name, extra)) == label


def test_card_labels_spell_colours_without_colour() -> None:
    assert card_label(card("R7"), plain=True) == "R7"
    # Red and green never depend on colour alone: the letter is there in colour too.
    assert card_label(card("R7"), plain=False) == "R7"
    assert card_label(card("G7"), plain=False) == "G7"
    assert card_label(card("B-skip"), plain=False) == "B-skip"
    assert card_label(card("W+4"), plain=False) == "W+4"
    assert plain_mode({"NO_COLOR": "1"})
    assert not plain_mode({"NO_COLOR": ""})
    assert not plain_mode({})


def test_wild_tile_paints_letters_in_four_colours() -> None:
    fragments = render.tile(card("W"), plain=False)
    styles = {style.split()[-1] for style, _ in fragments}
    assert styles == {"class:ink.red", "class:ink.yellow", "class:ink.green", "class:ink.blue"}
    assert "".join(t for _, t in fragments).strip() == "W"


def test_news_wraps_at_words_and_fills_the_rows() -> None:
    lines = [f"line {i}: Bot 2 jumped in with Red 7, naming Blue." for i in range(10)]
    block = render.news(lines, 6, 30)
    text = plain_text(block).splitlines()
    # each line takes two rows of at most 30 columns, broken between words
    assert text == ["line 7: Bot 2 jumped in with", "  Red 7, naming Blue.",
                    "line 8: Bot 2 jumped in with", "  Red 7, naming Blue.",
                    "line 9: Bot 2 jumped in with", "  Red 7, naming Blue."]
    assert all(render.width_of(line) <= 30 for line in block)


def test_news_scrolls_back() -> None:
    lines = [f"line {i}" for i in range(10)]
    assert plain_text(render.news(lines, 3, 30, back=2)).splitlines() == \
        ["line 5", "line 6", "line 7"]
    assert plain_text(render.news(lines, 20, 30)).splitlines() == lines  # short news: all shown


def test_playable_slots_come_from_legal_plays() -> None:
    # The cards to highlight are those some legal play puts down: single cards, both cards
    # of a double, a Wild whatever colour it names; a draw highlights nothing.
    legal = [
        Play(0, (Slot(1, 3),), (5,)),
        Play(0, (Slot(1, 4), Slot(1, 9)), (30, 31)),
        Play(0, (Slot(1, 7),), (100,), colour=2),
        Play(0, (Slot(1, 7),), (100,), colour=3),
        Draw(0),
    ]
    assert render.playable_slots(legal) == {Slot(1, 3), Slot(1, 4), Slot(1, 9), Slot(1, 7)}
    assert render.playable_slots([Draw(0)]) == frozenset()
    assert render.playable_slots([]) == frozenset()


def test_key_help_keeps_the_actions_when_narrow() -> None:
    keys = [("←→", "select"), ("Enter", "play"), ("Space", "mark"), ("d", "draw"),
            ("u", "UNO with play ✓"), ("c", "catch"), ("h", "challenge"), ("q", "quit")]
    wide = plain_text(render.key_help(keys, 120))
    assert wide.startswith(" ←→ select  Enter play  Space mark")
    narrow = plain_text(render.key_help(keys, 72))
    assert "select" not in narrow
    assert "mark" not in narrow
    assert narrow.rstrip().endswith("q quit")
    assert len(narrow) == 72


def test_the_own_line_explains_the_raised_cards(game: LocalTable) -> None:
    view = game.view()
    text = plain_text([render.me_line(view, seats_of(game), plain=True, playable=True)])
    assert text.endswith("raised cards are playable now")
    assert "raised" not in plain_text([render.me_line(view, seats_of(game), plain=True)])


def test_playable_cards_say_play_in_colour_too(game: LocalTable) -> None:
    # Issue 25: in colour a playable card was marked only by a bar of its colour.
    view = game.view()
    hand = view.hands[game.seat]
    playable = set(hand)
    coloured = render.hand(view, seats_of(game), 0, set(), playable, 200, plain=False)
    edge = "".join(text for _, text in coloured[0])
    cells = [edge[1 + i * 7: 1 + i * 7 + 6] for i in range(len(hand))]
    assert cells == ["play".center(6)] * len(hand)


def test_a_wild_s_rainbow_edge_says_play_too() -> None:
    edge = render._edge(card("W+4"), playable=True, plain=False)
    assert "".join(text for _, text in edge) == "play".center(6)
    assert len({style for style, _ in edge}) == 4, "still the four colours"


def test_good_news_is_never_drawn_in_the_warning_red(game: LocalTable) -> None:
    # Issue 25: "Your turn" and "✓ ready" were drawn in the red of UNO! and of errors.
    seats = seats_of(game)
    turn = [style for line in render.situation(game.view(), seats, None)
            for style, text in line if text == "Your turn"]
    ready = seat_line(0, LobbySeat("Ann", ready=True), 3, selected=False)
    styles = [*turn, *(style for style, text in ready if "ready" in text)]
    assert len(styles) == 2
    assert all("class:uno" not in style and "class:good" in style for style in styles)
