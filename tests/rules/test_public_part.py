"""The engine's public part, field by field (docs/protocol/verdicts.md §5).

Its SHA-256 is the digest every peer and the game vectors compare: field 0
is the label ``"uno-lan/rules/state/v1"``, 6 ``dealer`` (-1 before the first),
7 ``current`` (-1 before the first turn), 12 ``colour`` (-1 before it is named),
15 ``pending_rank`` (-1 none), 17 ``last_player`` (-1 when the last action was
no play), 19 ``exposed`` (-1 none), 23 ``challenge`` (``[-1, -1, -1]`` none, its
challenger -1 until someone challenges). The state says None for each of them
(STYLE.md); the digest says -1, exactly, after a pass, a verdict, a time-out in
a challenge and a removal: no other value is the same bytes.
"""

from __future__ import annotations

import hashlib

import msgpack
import pytest

from uno_p2p.rules import (
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Options,
    Pass,
    TimeOut,
    public_digest,
    public_part,
)
from uno_p2p.rules.engine import new_game
from uno_p2p.rules.removal import remove_player
from uno_p2p.rules.state import State

from .harness import started

LABEL, PENDING_RANK, LAST_PLAYER, CHALLENGE = 0, 15, 17, 23  # verdicts.md §5
DEALER, CURRENT, COLOUR, EXPOSED, ROUND_WINNER, WINNER = 6, 7, 12, 19, 26, 27


def _none_of_it(state: State) -> None:
    assert (state.challenge, state.pending_rank) == (None, None)
    part = public_part(state)
    assert part[LABEL] == "uno-lan/rules/state/v1"
    assert list(part[CHALLENGE]) == [-1, -1, -1]  # type: ignore[call-overload]
    assert part[PENDING_RANK] == -1
    assert public_digest(state) == hashlib.sha256(
        msgpack.packb(part, use_bin_type=True)).digest()


def test_the_public_part_is_labelled_and_says_none_as_minus_one() -> None:
    state, _ = new_game(Options(), ["P0", "P1", "P2"])
    _none_of_it(state)
    assert public_part(state)[LAST_PLAYER] == -1


def test_the_state_says_none_and_only_the_digest_says_minus_one() -> None:
    """STYLE.md: absence is None in every API; the digest's encoding (verdicts.md §5:
    fields 6 dealer, 7 current, 12 colour, 15 pending_rank, 17 last_player, 19 exposed,
    26 round_winner, 27 winner, "-1" for none) maps it. Nobody decides while the first
    dealer is drawn."""
    state, _ = new_game(Options(), ["P0", "P1", "P2"])
    assert (state.dealer, state.current, state.colour, state.pending_rank, state.last_player,
            state.exposed, state.round_winner, state.winner, state.decider()) == (None,) * 9
    part = public_part(state)
    assert (part[DEALER], part[CURRENT], part[COLOUR], part[PENDING_RANK], part[LAST_PLAYER],
            part[EXPOSED], part[ROUND_WINNER], part[WINNER]) == (-1,) * 8


def test_a_wild_starter_has_no_colour_until_it_is_named() -> None:
    """RULES.md "Starter card": a Wild starter's colour is named by a player; until then
    the state has none and the digest says -1, then both say the colour named."""
    table = started(Options(), 3, starter="W")
    assert (table.state.colour, public_part(table.state)[COLOUR]) == (None, -1)
    table.apply(ChooseColour(1, 2))
    assert (table.state.colour, public_part(table.state)[COLOUR]) == (2, 2)


def test_a_seat_caught_out_is_exposed_in_the_state_and_in_the_digest() -> None:
    """The missed-UNO window (RULES.md "UNO"): the state names the seat, the digest says
    the same seat, and once the next player begins both say none again."""
    table = started(Options(), 3, hands=[[], ["R7", "G2"]], starter="R5", exact=True)
    table.play(1, "R7")
    assert (table.state.exposed, public_part(table.state)[EXPOSED]) == (1, 1)
    assert table.state.dealer is not None
    assert public_part(table.state)[DEALER] == table.state.dealer
    assert (table.state.current, public_part(table.state)[CURRENT]) == (2, 2)
    table.draw(2)
    assert (table.state.exposed, public_part(table.state)[EXPOSED]) == (None, -1)


def test_no_play_after_a_pass_is_last_player_minus_one() -> None:
    table = started(Options(), 3, hands=[[], ["G7"]], starter="R5", pile=["B3"])
    table.draw(1)
    table.apply(Pass(1))
    assert public_part(table.state)[LAST_PLAYER] == -1


@pytest.mark.parametrize("guilty", [True, False])
def test_a_verdict_leaves_no_challenge(guilty: bool) -> None:
    hand = ["R9"] if guilty else ["Y9"]
    table = started(Options(), 3, hands=[["Y7"], ["W+4", *hand], ["Y2"]], starter="R5",
                    exact=True)
    table.play(1, "W+4", colour=1)
    # RULES.md "Challenging": the Wild Draw Four may be challenged; nobody has yet.
    assert table.state.challenge == (None, 1, 0)
    assert list(public_part(table.state)[CHALLENGE]) == [-1, 1, 0]  # type: ignore[call-overload]
    table.apply(Challenge(2))
    challenged = table.state  # a new state (the type checker kept the old one's challenge)
    assert challenged.challenge == (2, 1, 0)
    assert list(public_part(challenged)[CHALLENGE]) == [2, 1, 0]  # type: ignore[call-overload]
    table.apply(ChallengeVerdict(2, guilty))
    _none_of_it(table.state)


def test_a_verdict_that_times_out_leaves_no_challenge() -> None:
    table = started(Options(turn_timer=5), 3, hands=[["Y7"], ["W+4", "R9"], ["Y2"]],
                    starter="R5", exact=True)
    table.play(1, "W+4", colour=1)
    table.apply(Challenge(2))
    table.apply(TimeOut(2), now_ms=table.state.turn_started_ms + 5000)
    _none_of_it(table.state)


def test_a_removal_leaves_no_pending_penalty_and_no_challenge() -> None:
    table = started(Options(), 4, hands=[[], ["W+4", "R9"]], starter="R5")
    table.play(1, "W+4", colour=1)
    assert public_part(table.state)[PENDING_RANK] != -1
    new, _ = remove_player(table.state, 3)
    _none_of_it(new)
    assert (new.pending_rank, new.dealer, new.current, new.colour, new.exposed) == (None,) * 5
