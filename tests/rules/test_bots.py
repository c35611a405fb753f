"""Bots that play like people: they sometimes bluff a Wild Draw Four and challenge with
judgement, from their own view only (RULES.md "may bluff", "Challenge")."""

from __future__ import annotations

from uno_p2p.rules import Challenge, Draw, Options, Play, legal_actions, preset
from uno_p2p.rules.bots import HeuristicBot, guilt_chance, is_bluff
from uno_p2p.rules.simulate import WildDrawFourStats

from .harness import started


def test_the_heuristic_bot_bluffs_sometimes_and_never_under_wd4_strict() -> None:
    table = started(Options(), 3, hands=[[], ["W+4", "R9", "R2", "B3"]], starter="R5",
                    exact=True)
    view = table.views[1]
    actions = legal_actions(view, 1)
    assert any(isinstance(a, Play) and is_bluff(view, a) for a in actions)
    picks = [HeuristicBot(f"bluff {i}").choose(view, 1, actions, True) for i in range(200)]
    bluffs = sum(isinstance(p, Play) and is_bluff(view, p) for p in picks)
    assert 5 <= bluffs <= 40, bluffs          # sometimes, not always (1 in 12 when calm)
    strict = started(Options(wd4_strict=True), 3, hands=[[], ["W+4", "R9", "R2", "B3"]],
                     starter="R5", exact=True)
    actions = legal_actions(strict.views[1], 1)
    assert not any(isinstance(a, Play) and is_bluff(strict.views[1], a) for a in actions)


def test_it_bluffs_more_when_the_next_player_is_about_to_go_out() -> None:
    calm = started(Options(), 3, hands=[[], ["W+4", "R9", "R2"]], starter="R5")
    urgent = started(Options(), 3, hands=[[], ["W+4", "R9", "R2"], ["G1", "G2"]],
                     starter="R5", exact=True)

    def count(table: object) -> int:
        view = table.views[1]  # type: ignore[attr-defined]
        actions = legal_actions(view, 1)
        picks = [HeuristicBot(f"b{i}").choose(view, 1, actions, True) for i in range(200)]
        return sum(isinstance(p, Play) and is_bluff(view, p) for p in picks)

    assert count(urgent) > 2 * count(calm)


def test_a_card_of_the_colour_seen_in_the_hand_makes_the_challenge_certain() -> None:
    # wild_powers peek: seat 2 saw seat 1's hand, red in it; then seat 1 bluffs on red.
    table = started(Options(), 3, hands=[[], ["W+4", "R9"]], starter="R5")
    table.play(1, "W+4", colour=1)
    view = table.views[2]
    assert 0.0 < guilt_chance(view, 2) < 1.0
    from dataclasses import replace
    peeked = replace(view, known={**view.known,
                                  **{s: table.state.known[s] for s in view.hands[1]}})
    assert guilt_chance(peeked, 2) == 1.0
    actions = legal_actions(peeked, 2)
    assert all(HeuristicBot(f"c{i}").choose(peeked, 2, actions, True) == Challenge(2)
               for i in range(20))


def test_a_tiny_hand_is_rarely_challenged_a_big_one_often() -> None:
    small = started(Options(), 3, hands=[[], ["W+4", "B9"]], starter="R5", exact=True)
    small.play(1, "W+4", colour=1)
    big = started(Options(), 3, hands=[[], ["W+4", *["B1", "B2", "G3", "G4", "Y5", "Y6",
                                                     "B7", "G8", "Y9", "B4", "G5", "Y3"]]],
                  starter="R5", exact=True)
    big.play(1, "W+4", colour=1)
    assert guilt_chance(small.views[2], 2) < guilt_chance(big.views[2], 2)

    def challenges(table: object) -> int:
        view = table.views[2]  # type: ignore[attr-defined]
        actions = legal_actions(view, 2)
        assert Draw(2) in actions
        return sum(HeuristicBot(f"h{i}").choose(view, 2, actions, True) == Challenge(2)
                   for i in range(100))

    assert challenges(small) < 10 < 60 < challenges(big)


def test_its_decision_depends_only_on_its_own_view() -> None:
    # Hidden information is first class: two games that differ only in the hidden cards of
    # the bluffer's hand give the challenger the same view, hence the same decision.
    one = started(Options(), 3, hands=[[], ["W+4", "R9", "B1"]], starter="R5", exact=True)
    two = started(Options(), 3, hands=[[], ["W+4", "G9", "B1"]], starter="R5", exact=True)
    for table in (one, two):
        table.play(1, "W+4", colour=1)
    views = [one.views[2], two.views[2]]
    assert views[0].hands == views[1].hands
    decisions = [[HeuristicBot(f"v{i}").choose(v, 2, legal_actions(v, 2), True)
                  for i in range(30)] for v in views]
    assert decisions[0] == decisions[1]


def test_bot_games_make_bluffs_challenges_and_catches_at_plausible_rates() -> None:
    stats = WildDrawFourStats()
    for i in range(12):
        stats.play(preset("official", ["target=200"]), 2 + i % 3, f"rates {i}")
    summary = stats.summary()
    assert 0.03 <= summary["bluff_rate"] <= 0.35, summary          # type: ignore[operator]
    assert 0.1 <= summary["challenge_rate"] <= 0.6, summary        # type: ignore[operator]
    assert stats.caught >= 1, summary
    assert stats.challenged > stats.caught, summary
    assert stats.bluffs_challenged == stats.caught  # honest verdicts: every challenged bluff


def test_the_searching_bot_imagines_worlds_from_its_own_view_only() -> None:
    # Two games that differ only in seat 1's hidden hand give seat 0 the same view, hence
    # the same imagined worlds: the search never peeks.
    from uno_p2p.rules.prng import Stream
    from uno_p2p.rules.search import determinise

    one = started(Options(), 3, hands=[["R7", "Y3"], ["G9", "B1"]], starter="R5")
    two = started(Options(), 3, hands=[["R7", "Y3"], ["B9", "G1"]], starter="R5")
    worlds = [determinise(t.views[0], Stream(b"same dice")) for t in (one, two)]
    assert worlds[0] is not None
    assert worlds[1] is not None
    assert worlds[0].known == worlds[1].known
    world, view = worlds[0], one.views[0]
    assert all(world.known[s] == c for s, c in view.known.items())        # what it knows
    in_play = [*world.draw_pile, *(s for h in world.hands for s in h),
               *(s for s, _ in world.discard)]
    assert sorted(world.known[s] for s in in_play) == list(range(108))   # one whole deck


def test_the_searching_bot_plays_legal_moves_through_a_game() -> None:
    from uno_p2p.rules.search import SearchBot
    from uno_p2p.rules.simulate import Driver

    bots = [SearchBot("s", worlds=2, depth=12), HeuristicBot("h")]
    result = Driver(preset("official", ["target=60"]), 2, "search game", bots,
                    mirror=True).run()
    assert result.state.winner is not None
    assert result.violations == []
