"""What a fourth random sample of mutants (seed 19) found untested (docs/testing.md).

docs/protocol/verdicts.md §5 fixes the engine's public part ``P`` field by
field (its SHA-256 is the digest every peer and the game vectors compare):
field 0 the label ``"uno-lan/rules/state/v1"``, 15 ``pending_rank`` (-1
none), 17 ``last_player`` (-1 when the last action was no play), 23
``challenge`` (``[-1, -1, -1]`` none). So "none" must be exactly -1 after a
pass, a verdict, a time-out in a challenge and a removal; no other value is
the same bytes. RULES.md ``jump_in``: only the holder can tell that its two
cards are no pair; a viewer who knows one of them (the card it gave in a
Wild swap) cannot, and accepts the early UNO. A claim found false names
the seat that made it. A revealed face is refused naming its field.
"""

from __future__ import annotations

import hashlib

import msgpack
import pytest

from uno_p2p.errors import InvalidMessage
from uno_p2p.rules import (
    CardsDrawn,
    Challenge,
    ChallengeVerdict,
    Options,
    Pass,
    Play,
    SayUno,
    TimeOut,
    apply,
    faces_of,
    learn,
    public_digest,
    public_part,
)
from uno_p2p.rules.actions import action_from_wire
from uno_p2p.rules.engine import new_game
from uno_p2p.rules.removal import remove_player
from uno_p2p.rules.state import State

from .harness import card, started

LABEL, PENDING_RANK, LAST_PLAYER, CHALLENGE = 0, 15, 17, 23  # verdicts.md §5
ROUND_WINNER, WINNER = 26, 27


def _none_of_it(state: State) -> None:
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
    fields 17 last_player, 26 round_winner, 27 winner, "-1" for none) maps it."""
    state, _ = new_game(Options(), ["P0", "P1", "P2"])
    assert (state.last_player, state.round_winner, state.winner) == (None, None, None)
    part = public_part(state)
    assert (part[LAST_PLAYER], part[ROUND_WINNER], part[WINNER]) == (-1, -1, -1)


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
    table.apply(Challenge(2))
    assert list(public_part(table.state)[CHALLENGE]) == [2, 1, 0]  # type: ignore[call-overload]
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


def test_a_claim_found_false_names_the_seat_that_made_it() -> None:
    table = started(Options(wd4_strict=True), 3, hands=[[], ["W+4", "R9"]], starter="R5")
    play = table.play_action(1, "W+4", colour=1)
    view2, _ = apply(table.views[2], play)
    view2, _ = apply(view2, Challenge(2))
    _, found = learn(view2, faces_of(table.state, table.state.hands[1]))
    assert [(v.seat, v.rule) for v in found] == [(1, "wild_draw_four")]
    assert table.state.players[1] in found[0].message


def test_a_revealed_face_out_of_range_is_refused_naming_its_field() -> None:
    with pytest.raises(InvalidMessage) as caught:
        action_from_wire(["reveal", [[1, 4, 108]]])
    assert str(caught.value) == "Reveal.faces card must be an integer from 0 to 107, not 108"


def test_a_starter_colour_left_unnamed_costs_a_card_drawn_for_the_timer() -> None:
    # uno.apply_timeout: "a starter Wild's colour: one penalty card, and naming the colour
    # passes to the next player"; the UI words a draw by its reason (ui/words.py).
    table = started(Options(turn_timer=5), 3, starter="W")
    chooser = table.state.current
    before = table.hand_size(chooser)
    events = table.apply(TimeOut(chooser), now_ms=table.state.turn_started_ms + 5000)
    drawn = [e for e in events if isinstance(e, CardsDrawn)]
    assert [(e.seat, len(e.slots), e.reason) for e in drawn] == [(chooser, 1, "turn_timer")]
    assert table.hand_size(chooser) == before + 1
    assert table.state.current != chooser
