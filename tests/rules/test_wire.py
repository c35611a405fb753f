"""Actions and events cross the wire canonically; bad input is InvalidMessage only."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.rules import (
    ACTION_TYPES,
    EVENT_TYPES,
    CardsDrawn,
    CatchUno,
    ChallengeVerdict,
    Draw,
    GameOver,
    Phase,
    Play,
    Reseat,
    Reveal,
    RoundOver,
    ShuffleRequested,
    Slot,
    action_from_wire,
    event_from_wire,
)
from uno_p2p.rules.state import TRANSITIONS, check_transition

slots = st.builds(Slot, st.integers(0, 1000), st.integers(0, 107))
faces = st.tuples(slots, st.integers(0, 107))
seats = st.integers(0, 9)

ACTIONS = st.one_of(
    st.builds(lambda seat, ss, colour, uno: Play(seat, tuple(ss), tuple(range(len(ss))),
                                                 colour, uno),
              seats, st.lists(slots, min_size=1, max_size=3, unique=True),
              st.integers(-1, 3), st.booleans()),
    st.builds(Draw, seats),
    st.builds(CatchUno, seats, seats),
    st.builds(ChallengeVerdict, seats, st.booleans()),
    st.builds(lambda fs: Reveal(tuple({s: (s, c) for s, c in fs}.values())),
              st.lists(faces, max_size=20)),
    st.builds(Reseat, st.permutations(range(5)).map(tuple)),
)
EVENTS = st.one_of(
    st.builds(ShuffleRequested, st.integers(0, 100), st.integers(1, 108),
              st.lists(slots, max_size=5).map(tuple), st.lists(st.integers(0, 107),
                                                               max_size=5).map(tuple)),
    st.builds(CardsDrawn, seats, st.lists(slots, max_size=4).map(tuple), st.sampled_from(
        ["draw", "deal"])),
    st.builds(RoundOver, st.integers(1, 50), st.integers(-1, 9),
              st.lists(st.integers(-999, 999), max_size=10).map(tuple)),
    st.builds(GameOver, seats, st.integers(-1, 4)),
)


@settings(max_examples=200)
@given(ACTIONS)
def test_actions_round_trip(action: object) -> None:
    wire = action.to_wire()  # type: ignore[attr-defined]
    assert action_from_wire(wire) == action
    assert type(action).from_wire(wire) == action
    assert all(type(x) in (int, str, bool, list) for x in wire)


@settings(max_examples=100)
@given(EVENTS)
def test_events_round_trip(event: object) -> None:
    assert event_from_wire(event.to_wire()) == event  # type: ignore[attr-defined]


def test_every_type_has_a_distinct_tag() -> None:
    assert len(ACTION_TYPES) == 12
    assert len(EVENT_TYPES) == 12
    assert not set(ACTION_TYPES) & set(EVENT_TYPES)


WIRE_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8)
    | st.binary(max_size=8) | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=6),
    max_leaves=30,
)


@settings(max_examples=200)
@given(st.one_of(WIRE_VALUES, st.tuples(st.sampled_from(sorted(ACTION_TYPES)),
                                        st.lists(WIRE_VALUES, max_size=9)).map(
    lambda t: [t[0], *t[1]])))
def test_arbitrary_values_decode_or_raise_invalid_message(value: object) -> None:
    with contextlib.suppress(InvalidMessage):
        action_from_wire(value)
    with contextlib.suppress(InvalidMessage):
        event_from_wire(value)


@pytest.mark.parametrize("wire", [
    ["draw", 10], ["draw", -1], ["draw", True], ["draw"], ["draw", 1, 2],
    ["play", 0, [[0, 108]], [5], -1, False, -1, "", [], []],
    ["play", 0, [[0, 1]], [5, 6], -1, False, -1, "", [], []],
    ["play", 0, [[0, 1], [0, 1]], [5, 6], -1, False, -1, "", [], []],
    ["play", 0, [[0, 1]], [5], 4, False, -1, "", [], []],
    ["play", 0, [[0, 1]], [5], -1, False, -1, "steal", [], []],
    ["verdict", 0, [[0, 1, 5], [0, 2, 6]]],
    ["reveal", [[0, 1, 5], [0, 1, 6]]],
    ["nope", 1], [], "draw", [["draw"], 1],
])
def test_malformed_actions_are_refused(wire: object) -> None:
    with pytest.raises(InvalidMessage):
        action_from_wire(wire)


def test_phase_transition_table_is_enforced() -> None:
    # STYLE.md: "Phases are an Enum with an explicit transition table ... An illegal transition
    # raises."
    check_transition(Phase.PLAYING, Phase.CHALLENGE)
    with pytest.raises(LocalProtocolError):
        check_transition(Phase.GAME_OVER, Phase.PLAYING)
    with pytest.raises(LocalProtocolError):
        check_transition(Phase.CHALLENGE, Phase.STARTER)
    assert set(TRANSITIONS) == set(Phase)
    reachable = {Phase.DEALER_SELECTION}
    for _ in Phase:
        reachable |= {p for q in reachable for p in TRANSITIONS[q]}
    assert reachable == set(Phase)


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
