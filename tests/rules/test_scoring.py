"""Round end, scoring, the target, teams, dealers and reseating (RULES.md "End of a round")."""

from __future__ import annotations

from uno_p2p.rules import (
    CardsDrawn,
    ClaimViolated,
    DealerChosen,
    Draw,
    GameOver,
    Options,
    Pass,
    Phase,
    Reseat,
    ReseatRequested,
    Reveal,
    RoundOver,
    faces_of,
    learn,
)
from uno_p2p.rules.cards import points

from .harness import Table, started


def _hand_points(table: Table, seat: int) -> int:
    return sum(points(c) for c in table.faces(seat))


def _go_out(options: Options, players: int = 3, last: str = "R3") -> tuple[Table, list[int]]:
    """Seat 1 goes out with ``last`` on its first turn; returns the others' hand points."""
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[1] = [last]
    table = started(options, players, hands=hands, starter="R5", exact=True)
    before = [_hand_points(table, s) for s in range(players)]
    table.play(1, last)
    return table, before


def test_round_ends_and_winner_scores_the_others_cards() -> None:
    # RULES.md scoring points: "the winner scores the sum of the others' cards"
    table, before = _go_out(Options())
    over = next(e for e in table.events if isinstance(e, RoundOver))
    assert over.winner == 1
    assert over.changes == (0, before[0] + before[2], 0)
    assert table.state.scores == over.changes
    assert table.state.round == 2
    # RULES.md dealer_rule winner: "the previous round's winner deals"
    assert [e for e in table.events if isinstance(e, DealerChosen)][-1] == DealerChosen(1, 2)


def test_last_card_draw_two_still_makes_next_player_draw() -> None:
    # RULES.md: "If their last card was a Draw Two or Wild Draw Four, the next player still
    # draws."
    table, before = _go_out(Options(), last="R+2")
    over = next(e for e in table.events if isinstance(e, RoundOver))
    penalty = [e for e in table.events if isinstance(e, CardsDrawn) and e.reason == "penalty"]
    assert len(penalty) == 1
    assert penalty[0].seat == 2
    assert len(penalty[0].slots) == 2
    drawn = sum(points(table.all_faces[s]) for s in penalty[0].slots)
    assert over.changes[1] == before[0] + before[2] + drawn  # the drawn cards are counted


def test_dealer_rule_rotate() -> None:
    # RULES.md dealer_rule rotate: "deal passes to the left"
    table, _ = _go_out(Options(dealer_rule="rotate"))
    assert [e for e in table.events if isinstance(e, DealerChosen)][-1] == DealerChosen(1, 2)
    table, _ = _go_out(Options(dealer_rule="rotate"), players=4)
    assert table.state.dealer == 1  # left of dealer 0, though seat 1 won as well
    table, _ = _go_out(Options(dealer_rule="winner"), players=4)
    assert table.state.dealer == 1


def test_points_to_target_ends_the_game() -> None:
    # RULES.md: "the first to reach target (default 500) wins the game"
    table, before = _go_out(Options(target=10))
    assert table.phase == Phase.GAME_OVER
    assert table.state.winner == 1
    assert GameOver(1, -1) in table.events
    assert table.state.scores[1] == before[0] + before[2]


def test_losses_scoring_fewest_points_wins() -> None:
    # RULES.md losses: "each loser adds the points of their own hand; when anyone reaches
    # target, the player with the fewest points wins."
    table, before = _go_out(Options(scoring="losses", target=10))
    assert table.state.scores == (before[0], 0, before[2])
    assert table.phase == Phase.GAME_OVER
    assert table.state.winner == 1


def test_losses_below_target_game_goes_on() -> None:
    table, before = _go_out(Options(scoring="losses", target=1000))
    assert table.state.scores == (before[0], 0, before[2])
    assert table.phase == Phase.PLAYING


def test_chips_losers_pay_the_winner() -> None:
    # RULES.md chips: "each loser pays the winner what their hand is worth; shown as a balance"
    table, before = _go_out(Options(scoring="chips", target=10))
    assert table.state.scores == (-before[0], before[0] + before[2], -before[2])
    assert sum(table.state.scores) == 0
    assert table.state.winner == 1


def test_teams_score_together() -> None:
    # RULES.md teams: "fixed teams of equal size seated alternately; scores are summed per
    # team" - seats 1 and 3 are partners, so 3's cards do not count for 1.
    table, before = _go_out(Options(teams=2, target=10_000), players=4)
    over = next(e for e in table.events if isinstance(e, RoundOver))
    assert over.changes == (0, before[0] + before[2], 0, 0)
    table, before = _go_out(Options(teams=2, target=10), players=4)
    assert GameOver(1, 1) in table.events


def test_seat_shuffle_every_asks_for_a_new_seating() -> None:
    # RULES.md seat_shuffle_every: "reseat players at random every N rounds"
    table, _ = _go_out(Options(seat_shuffle_every=1), players=4)
    assert ReseatRequested(2) in table.events
    assert table.phase == Phase.RESEAT
    assert table.refused(Reseat((0, 1, 2))).rule == "seat_shuffle_every"
    table.apply(Reseat((2, 0, 3, 1)))
    assert table.state.order == (2, 0, 3, 1)
    assert table.state.phase.value == "playing"
    assert table.state.next_seat(1) == 2  # 1 sits before 2 now


def test_teams_stay_alternate_when_reseated() -> None:
    table, _ = _go_out(Options(seat_shuffle_every=1, teams=2, target=10_000), players=4)
    assert table.refused(Reseat((0, 2, 1, 3))).rule == "teams"
    table.apply(Reseat((3, 2, 1, 0)))
    assert table.state.order == (3, 2, 1, 0)


def test_false_claim_is_caught_by_the_round_end_reveal() -> None:
    # RULES.md forced_play: "a player who draws a playable card must play it". Only the
    # drawer sees the card, so for the others keeping it is a claim, checked when the hands
    # are revealed at round end. Seat 2's own engine (and the omniscient one) refuse the lie.
    options = Options(forced_play=True)
    table = started(options, 3, hands=[[], ["R3", "R2"], []], starter="R5",
                    pile=["R9", "G2"], exact=True)
    table.play(1, "R3", say_uno=True)
    table.draw(2)                                        # R9: playable, so it must be played
    assert table.refused(Pass(2), checked_by=(2,)).rule == "forced_play"
    others = (0, 1)
    table.apply_views(Pass(2), others)                   # the lie, accepted where unseen
    table.apply_views(Draw(0), others)
    table.views[0], _ = learn(table.views[0], faces_of(table.state, table.views[0].hands[0][-1:]))
    table.apply_views(Pass(0), others)                   # G2 on R3: a true claim
    play = table.play_action(1, "R2")
    table.apply_views(play, others)
    view = table.views[0]
    assert view.phase == Phase.ROUND_OVER
    assert len(view.claims) == 2
    reveal = Reveal(tuple(faces_of(table.state, view.awaiting)))
    found = table.apply_views(reveal, others)
    violations = [e for e in found if isinstance(e, ClaimViolated)]
    assert [(v.seat, v.rule) for v in violations] == [(2, "forced_play")]
    assert "P2 broke forced_play" in violations[0].message
    assert violations[0].error().rule == "forced_play"
    assert table.views[1].violations == ((2, "forced_play"),)
