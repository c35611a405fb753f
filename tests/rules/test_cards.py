"""The canonical card ids and faces (RULES.md "Cards (108)")."""

from __future__ import annotations

from collections import Counter

import pytest

from uno_p2p.rules.cards import (
    CARD_COUNT,
    Rank,
    card_ids,
    check_card,
    colour_of,
    long_name,
    parse_card_name,
    points,
    rank_of,
    short_name,
)


def test_deck_has_108_cards_with_the_official_distribution() -> None:
    # RULES.md: "4 colours x: one 0, two each of 1-9, two Skip, two Reverse, two Draw Two"
    faces = Counter((colour_of(c), rank_of(c)) for c in range(CARD_COUNT))
    for colour in range(4):
        assert faces[(colour, Rank.ZERO)] == 1
        for rank in list(Rank)[1:13]:
            assert faces[(colour, rank)] == 2
    assert faces[(-1, Rank.WILD)] == 4
    assert faces[(-1, Rank.WILD_DRAW_FOUR)] == 4
    assert sum(faces.values()) == 108


def test_id_layout_is_the_shared_contract() -> None:
    assert [short_name(c) for c in (0, 1, 2, 3, 18, 19, 21, 23, 24)] == [
        "R0", "R1", "R1", "R2", "R9", "R-skip", "R-rev", "R+2", "R+2"]
    assert [short_name(25 * c + 7) for c in range(4)] == ["R4", "Y4", "G4", "B4"]
    assert [short_name(c) for c in (100, 103, 104, 107)] == ["W", "W", "W+4", "W+4"]
    assert long_name(25 + 23) == "Yellow Draw Two"
    assert long_name(67) == long_name(68) == "Green 9"
    assert long_name(105) == "Wild Draw Four"


def test_points() -> None:
    # RULES.md: "number cards face value; Skip, Reverse, Draw Two 20; Wild and W+4 50"
    assert points(17) == 9
    assert points(0) == 0
    assert {points(c) for c in (19, 22, 24)} == {20}
    assert points(100) == points(107) == 50
    assert sum(points(c) for c in range(CARD_COUNT)) == 4 * (90 + 120) + 400


def test_names_round_trip_and_bad_ids_refused() -> None:
    for card in range(CARD_COUNT):
        colour, rank = parse_card_name(short_name(card))
        assert card in card_ids(colour, rank)
    for bad in (-1, 108, True, "3", 2.0):
        with pytest.raises(ValueError, match="not a card id"):
            check_card(bad)
    with pytest.raises(ValueError, match="not a card name"):
        parse_card_name("R10")
