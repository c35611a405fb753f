"""The Wild Draw Four, its bluff and its challenge (RULES.md "A turn": "may bluff",
"Challenge", option ``wd4_strict``)."""

from __future__ import annotations

import pytest

from uno_p2p.errors import IllegalAction
from uno_p2p.rules import (
    Challenge,
    ChallengeResolved,
    ChallengeVerdict,
    ClaimViolated,
    Draw,
    Options,
    Phase,
    Play,
    Reveal,
    RevealRequested,
    RoundOver,
    State,
    apply,
    faces_of,
    learn,
    legal_actions,
    public_digest,
)

from .harness import Table, card, started


def test_the_bluff_is_a_legal_play_and_makes_no_claim() -> None:
    # RULES.md: "a player may bluff: play it anyway, at the risk of a challenge ... the
    # software lets a player make it".
    table = started(Options(), 3, hands=[[], ["W+4", "R9"]], starter="R5")
    bluff = table.play_action(1, "W+4", colour=1)
    assert bluff in legal_actions(table.views[1], 1)
    table.apply(bluff)
    assert (table.state.pending, table.state.current, table.state.claims) == (4, 2, ())


def test_wd4_strict_refuses_the_bluff_when_the_viewer_knows_the_colour_is_held() -> None:
    # RULES.md wd4_strict: "the software refuses the bluff"; 002: "may only be played when".
    table = started(Options(wd4_strict=True), 3, hands=[[], ["W+4", "R9"]], starter="R5")
    play = table.play_action(1, "W+4", colour=1)
    assert table.refused(play, checked_by=(1,)).rule == "wild_draw_four"
    assert all(a.cards != (card("W+4"),) for a in legal_actions(table.views[1], 1)
               if isinstance(a, Play))
    # a viewer who cannot see the hand records it as a claim, settled at the round end
    view0, _ = apply(table.views[0], play)
    assert [(c.kind, c.rule) for c in view0.claims] == [("no_colour", "wild_draw_four")]


def test_not_guilty_challenger_draws_six_and_loses_turn() -> None:
    # RULES.md: "Not guilty: the challenger draws 6 and loses the turn."
    table = started(Options(), 3, hands=[[], ["W+4", "Y9"]], starter="R5")
    table.play(1, "W+4", colour=1)
    events = table.apply(Challenge(2))
    request = next(e for e in events if isinstance(e, RevealRequested))
    assert request.to == 2
    assert set(request.slots) == set(table.state.hands[1])
    assert table.phase == Phase.CHALLENGE
    # the challenger saw the hand: its own engine offers only the true verdict
    assert legal_actions(table.views[2], 2) == [ChallengeVerdict(2, False)]
    events = table.apply(ChallengeVerdict(2, False))
    assert ChallengeResolved(2, 1, False) in events
    assert (table.hand_size(2), table.state.current, table.phase) == (13, 0, Phase.PLAYING)


def _caught_bluff(guilty_hand: list[str], rest: list[str]) -> Table:
    """Seat 1 plays a W+4 (naming yellow) on a red 5; seat 2 challenges and sees the hand.

    Seat 0 holds a yellow 7 alone, so that it can end the round."""
    table = started(Options(), 3, hands=[["Y7"], ["W+4", *guilty_hand], rest], starter="R5",
                    exact=True)
    table.play(1, "W+4", colour=1)
    table.apply(Challenge(2))
    return table


def test_a_caught_bluff_costs_four_and_shows_the_hand_to_the_challenger_alone() -> None:
    # RULES.md: "The challenged hand is shown to the challenger alone. Guilty (held a card of
    # the colour to match): the challenged player draws 4 instead, and the challenger plays
    # normally."
    table = _caught_bluff(["R9", "B3"], ["Y2", "G4"])
    hand = table.state.hands[1]
    assert all(s in table.views[2].known for s in hand)
    assert legal_actions(table.views[2], 2) == [ChallengeVerdict(2, True)]
    table.apply(ChallengeVerdict(2, True))
    for seat in (0, 2):
        view = table.views[seat]
        assert len(view.hands[1]) == 2 + 4
        assert (view.current, view.phase, view.pending) == (2, Phase.PLAYING, 0)
    # "Everyone else learns only the verdict": seat 0 knows no card of that hand.
    assert not any(s in table.views[0].known for s in hand)
    assert not table.state.public & set(hand)
    assert [(c.seat, c.kind, c.rule) for c in table.state.claims] == \
        [(2, "has_colour", "challenge")]


def test_a_caught_bluff_and_an_unchallenged_one_are_no_violation_at_the_round_end() -> None:
    # RULES.md: "The bluff is part of the game, not a cheat ... an unchallenged bluff
    # stands, in play and in any later check of the game."
    caught = _caught_bluff(["R9"], ["Y2"])
    caught.apply(ChallengeVerdict(2, True))
    caught.play(2, "Y2")
    assert [e.winner for e in caught.events if isinstance(e, RoundOver)] == [2]
    assert caught.violations == []
    unchallenged = started(Options(), 3, hands=[["Y7"], ["W+4", "R9"], ["Y2"]], starter="R5",
                           exact=True)
    unchallenged.play(1, "W+4", colour=1)
    unchallenged.draw(2)
    assert unchallenged.hand_size(2) == 5
    unchallenged.play(0, "Y7")
    assert [e.winner for e in unchallenged.events if isinstance(e, RoundOver)] == [0]
    assert unchallenged.violations == []
    assert not any(isinstance(e, ClaimViolated) for e in (*caught.events, *unchallenged.events))


def _lying_view(table: Table, verdict: ChallengeVerdict) -> State:
    """Seat 0's view after a lying verdict it cannot check. The challenger's own engine
    and the omniscient one refuse it; the challenged player's view accepts it but sees
    the lie at once (refusing would stop that honest peer alone)."""
    for view in (table.state, table.views[2]):
        with pytest.raises(IllegalAction) as refused:
            apply(view, verdict)
        assert refused.value.rule == "challenge"
    view1, events = apply(table.views[1], verdict)
    assert [(e.seat, e.rule) for e in events if isinstance(e, ClaimViolated)] == \
        [(2, "challenge")]
    # The challenged player is told in words who lied.
    told = next(e.message for e in events if isinstance(e, ClaimViolated))
    assert table.state.players[2] in told
    assert "challenge" in told
    view0, events = apply(table.views[0], verdict)
    assert not any(isinstance(e, ClaimViolated) for e in events)
    assert public_digest(view0) == public_digest(view1)
    return view0


def _reveal_round_end(table: Table, view: State, seat: int) -> list[ClaimViolated]:
    """``seat`` goes out in ``view`` with its one card; the table reveals every hand."""
    slot = view.hands[seat][0]
    face = table.state.known[slot]
    view, _ = apply(view, Play(seat, (slot,), (face,)))
    assert view.phase == Phase.ROUND_OVER
    view, events = apply(view, Reveal(tuple(faces_of(table.state, view.awaiting))))
    return [e for e in events if isinstance(e, ClaimViolated)]


def test_a_false_guilty_verdict_is_caught_at_the_round_end_naming_the_challenger() -> None:
    # RULES.md: "Everyone else learns only the verdict"; a lie about it is still caught.
    table = _caught_bluff(["B3"], ["Y2"])            # no red: not guilty
    view0 = _lying_view(table, ChallengeVerdict(2, True))
    assert len(view0.hands[1]) == 1 + 4              # the lie made seat 1 draw
    assert view0.current == 2
    found = _reveal_round_end(table, view0, 2)
    assert [(v.seat, v.rule) for v in found] == [(2, "challenge")]
    assert "called a Wild Draw Four guilty" in found[0].message


def test_a_false_not_guilty_verdict_is_caught_the_same_way() -> None:
    table = _caught_bluff(["R9"], ["Y2"])            # red held: guilty
    view0 = _lying_view(table, ChallengeVerdict(2, False))
    assert (len(view0.hands[2]), view0.current) == (1 + 6, 0)
    found = _reveal_round_end(table, view0, 0)
    assert [(v.seat, v.rule) for v in found] == [(2, "challenge")]
    assert "not guilty" in found[0].message


def test_challenge_only_by_the_victim_and_not_with_no_challenge() -> None:
    # RULES.md: "no_challenge: Wild Draw Four may be played at any time and cannot be
    # challenged."
    table = started(Options(), 3, hands=[[], ["W+4", "Y9"]], starter="R5")
    table.play(1, "W+4", colour=1)
    assert table.refused(Challenge(0)).rule == "turn"
    table = started(Options(no_challenge=True, wd4_strict=True), 3,
                    hands=[[], ["W+4", "R9"]], starter="R5")
    table.play(1, "W+4", colour=1)       # holding red is fine now, even with wd4_strict
    assert table.refused(Challenge(2)).rule == "challenge"
    assert legal_actions(table.views[2], 2) == [Draw(2)]
    assert table.state.claims == ()


def test_wd4_strict_caught_play_stays_a_violation() -> None:
    # RULES.md wd4_strict: the software refuses the bluff, so a Wild Draw Four played while
    # holding the colour (only a modified client can) breaks the rule even when caught.
    table = started(Options(wd4_strict=True), 3, hands=[[], ["W+4", "R9"], ["Y2"]],
                    starter="R5", exact=True)
    play = table.play_action(1, "W+4", colour=1)
    view0, _ = apply(table.views[0], play)
    view0, _ = apply(view0, Challenge(2))
    view0, _ = apply(view0, ChallengeVerdict(2, True))
    found = _reveal_round_end(table, view0, 2)
    assert [(v.seat, v.rule) for v in found] == [(1, "wild_draw_four")]


def test_learning_the_hand_privately_shows_the_challenger_the_truth_at_once() -> None:
    table = started(Options(wd4_strict=True), 3, hands=[[], ["W+4", "R9"]], starter="R5")
    play = table.play_action(1, "W+4", colour=1)
    view2, _ = apply(table.views[2], play)
    view2, _ = apply(view2, Challenge(2))
    view2, found = learn(view2, faces_of(table.state, table.state.hands[1]))
    assert [v.rule for v in found] == ["wild_draw_four"]
    assert legal_actions(view2, 2) == [ChallengeVerdict(2, True)]


def test_a_claim_found_false_names_the_seat_that_made_it() -> None:
    table = started(Options(wd4_strict=True), 3, hands=[[], ["W+4", "R9"]], starter="R5")
    play = table.play_action(1, "W+4", colour=1)
    view2, _ = apply(table.views[2], play)
    view2, _ = apply(view2, Challenge(2))
    _, found = learn(view2, faces_of(table.state, table.state.hands[1]))
    assert [(v.seat, v.rule) for v in found] == [(1, "wild_draw_four")]
    assert table.state.players[1] in found[0].message
