"""The Wild Draw Four and its challenge (RULES.md "A turn": "challenge")."""

from __future__ import annotations

import pytest

from uno_p2p.errors import IllegalAction
from uno_p2p.rules import (
    Challenge,
    ChallengeResolved,
    ChallengeVerdict,
    Draw,
    Options,
    Phase,
    Play,
    RevealRequested,
    apply,
    faces_of,
    learn,
    legal_actions,
)

from .harness import Table, card, started


def test_wild_draw_four_refused_when_viewer_knows_the_colour_is_held() -> None:
    # RULES.md: "Wild Draw Four may only be played when the player holds no card of the colour
    # to match." The player's own view (and the omniscient one) decide at once.
    table = started(Options(), 3, hands=[[], ["W+4", "R9"]], starter="R5")
    play = table.play_action(1, "W+4", colour=1)
    assert table.refused(play, checked_by=(1,)).rule == "wild_draw_four"
    assert all(a.cards != (card("W+4"),) for a in legal_actions(table.views[1], 1)
               if isinstance(a, Play))


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
    assert legal_actions(table.views[2], 2) == [ChallengeVerdict(2)]
    events = table.apply(ChallengeVerdict(2))
    assert ChallengeResolved(2, 1, False) in events
    assert (table.hand_size(2), table.state.current, table.phase) == (13, 0, Phase.PLAYING)


def _bluff_table() -> tuple[Table, Play]:
    """Seat 1 bluffs a W+4 holding red; only seats 0 and 2 (who cannot see) accept it."""
    table = started(Options(), 3, hands=[[], ["W+4", "R9"]], starter="R5")
    play = table.play_action(1, "W+4", colour=1)
    table.apply_views(play, (0, 2))
    return table, play


def test_guilty_challenged_draws_four_and_challenger_plays() -> None:
    # RULES.md: "Guilty (held a card of the colour to match): the challenged player draws 4
    # instead, and the challenger plays normally."
    table, _ = _bluff_table()
    view = table.views[2]
    assert len(view.claims) == 1
    assert view.claims[0].kind == "no_colour"
    table.apply_views(Challenge(2), (0, 2))
    # the challenged hand is shown to the challenger alone (the deck does it; we learn it)
    table.views[2], _ = learn(table.views[2], faces_of(table.state, table.state.hands[1]))
    verdicts = legal_actions(table.views[2], 2)
    red = table.slot(1, card("R9"))
    assert verdicts == [ChallengeVerdict(2, ((red, card("R9")),))]
    assert table.views[0].known.get(red) is None
    table.apply_views(verdicts[0], (0, 2))
    for seat in (0, 2):
        view = table.views[seat]
        assert len(view.hands[1]) == 6 + 4           # the challenged draws 4
        assert (view.current, view.phase, view.pending) == (2, Phase.PLAYING, 0)
        assert view.known[red] == card("R9")         # the evidence is public
        assert view.claims == ()


def test_lying_not_guilty_is_refused_by_the_challenger_engine_and_caught_at_round_end() -> None:
    table, _ = _bluff_table()
    table.apply_views(Challenge(2), (0, 2))
    view2, found = learn(table.views[2], faces_of(table.state, table.state.hands[1]))
    assert [v.rule for v in found] == ["wild_draw_four"]  # seen at once by the challenger
    with pytest.raises(IllegalAction, match="verdict is guilty"):
        apply(view2, ChallengeVerdict(2))
    # seat 0 cannot tell: the claim stays open until the hands are revealed
    view0, _ = apply(table.views[0], ChallengeVerdict(2))
    assert len(view0.claims) == 1


def test_challenge_only_by_the_victim_and_not_with_no_challenge() -> None:
    # RULES.md: "no_challenge: Wild Draw Four may be played at any time and cannot be
    # challenged."
    table = started(Options(), 3, hands=[[], ["W+4", "Y9"]], starter="R5")
    table.play(1, "W+4", colour=1)
    assert table.refused(Challenge(0)).rule == "turn"
    table = started(Options(no_challenge=True), 3, hands=[[], ["W+4", "R9"]], starter="R5")
    table.play(1, "W+4", colour=1)       # holding red is fine now
    assert table.refused(Challenge(2)).rule == "challenge"
    assert legal_actions(table.views[2], 2) == [Draw(2)]
    assert table.state.claims == ()
