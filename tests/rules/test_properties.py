"""Property tests over random option sets and seeds (issue 2, "Property tests")."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from uno_p2p.errors import IllegalAction
from uno_p2p.rules import (
    Driver,
    Options,
    Phase,
    Reseat,
    Reveal,
    State,
    faces_of,
    legal_actions,
    public_digest,
    view_for,
)
from uno_p2p.rules.options import CHOICES, KINDS

from .invariants import check_invariants, check_view
from .timed import TimedDriver

pytestmark = pytest.mark.game

SMALL_INTS = {"target": (30, 200), "teams": (0, 0), "seat_shuffle_every": (0, 2),
              "turn_timer": (0, 30), "error_penalty": (0, 2), "catch_grace_ms": (0, 3000)}


@st.composite
def game_options(draw: st.DrawFn) -> tuple[Options, int]:
    values: dict[str, object] = {}
    for name, kind in KINDS.items():
        if kind is bool:
            values[name] = draw(st.booleans())
        elif kind is int:
            values[name] = draw(st.integers(*SMALL_INTS[name]))
        else:
            values[name] = draw(st.sampled_from(CHOICES[name]))
    if values["number_finish"] and values["number_or_draw_finish"]:
        values["number_or_draw_finish"] = False
    players = draw(st.integers(2, 6))
    if draw(st.booleans()) and players % 2 == 0 and players >= 4:
        values["teams"] = 2
    return Options(**values), players  # type: ignore[arg-type]


PROPERTY = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(PROPERTY, max_examples=10)
@given(game_options(), st.integers(0, 2**32))
def test_views_fed_like_a_table_agree_and_never_leak(setup: tuple[Options, int],
                                                     seed: int) -> None:
    # Every seat keeps its own view, fed only what the table would give it; the bots act on
    # those views. After every action all public digests are equal (Driver checks) and no
    # view holds a face its seat may not know.
    options, players = setup
    driver = TimedDriver(options, players, seed, "heuristic", mirror=True, max_rounds=1)

    def check(d: Driver) -> None:
        for seat, view in enumerate(d.views):
            check_view(d.state, view, seat)

    result = driver.run(check)
    assert result.state.phase == Phase.GAME_OVER or result.rounds > 1
    assert result.violations == []  # honest bots never break a claim


@PROPERTY
@given(game_options(), st.integers(0, 2**32))
def test_random_bot_games_end_with_all_cards_accounted_for(setup: tuple[Options, int],
                                                           seed: int) -> None:
    options, players = setup
    driver = TimedDriver(options, players, seed, "random")
    result = driver.run(lambda d: check_invariants(d.state))
    assert result.state.phase == Phase.GAME_OVER
    winner = result.state.winner
    assert winner is not None
    assert 0 <= winner < players
    assert result.violations == []


def test_timed_rules_come_up_in_random_games_and_keep_the_invariants() -> None:
    # The grace period, time-outs and error penalties all happen in these games (RULES.md
    # "Not software rules", turn_timer, error_penalty), and every card stays accounted for.
    options = Options(catch_grace_ms=1500, turn_timer=10, error_penalty=1, target=60)
    timed = {"grace_waits": 0, "timeouts": 0, "error_penalties": 0}
    for seed in range(4):
        driver = TimedDriver(options, 3, seed, "random", mirror=True)
        result = driver.run(lambda d: check_invariants(d.state))
        assert result.state.phase == Phase.GAME_OVER
        for name, count in driver.timed.items():
            timed[name] += count
    assert all(count > 0 for count in timed.values()), timed


# "Every listed action is accepted", and much more, from the outside: test_differential.py.


@settings(max_examples=8, deadline=None)
@given(game_options(), st.integers(0, 2**32))
def test_equal_histories_give_equal_digests(setup: tuple[Options, int], seed: int) -> None:
    options, players = setup
    digests = []
    for _ in range(2):
        driver = TimedDriver(options, players, seed, "heuristic", max_rounds=1)
        digests.append(_digest_sequence(driver))
    assert digests[0] == digests[1]
    assert len(set(digests[0])) > len(digests[0]) // 2  # the digest follows the game
    other = TimedDriver(options, players, seed + 1, "heuristic", max_rounds=1)
    assert _digest_sequence(other) != digests[0]


def _digest_sequence(driver: Driver) -> list[bytes]:
    seq: list[bytes] = []
    driver.run(lambda d: seq.append(public_digest(d.state)))
    return seq


def test_view_for_equals_the_view_a_table_builds() -> None:
    driver = Driver(Options(seven_zero=True, wild_powers=True), 4, 99, "random",
                    mirror=True, max_rounds=1)

    def check(d: Driver) -> None:
        for seat in range(4):
            projected = view_for(d.state, seat)
            assert public_digest(projected) == public_digest(d.views[seat])
            own = set(d.state.hands[seat])
            assert {s for s in projected.known if s in own} == own
    driver.run(check)


class EngineMachine(RuleBasedStateMachine):
    """Any sequence of legal actions by anyone keeps the state valid."""

    def __init__(self) -> None:
        super().__init__()
        self.driver: Driver | None = None

    @initialize(setup=game_options(), seed=st.integers(0, 2**32))
    def start(self, setup: tuple[Options, int], seed: int) -> None:
        options, players = setup
        self.driver = TimedDriver(options, players, seed, "random")

    @rule(choice=st.integers(0, 10**9))
    def act(self, choice: int) -> None:
        driver = self.driver
        assert driver is not None
        state: State = driver.state
        if state.phase == Phase.GAME_OVER:
            return
        if state.awaiting:
            driver.apply(Reveal(tuple(faces_of(state, state.awaiting))))
            return
        if state.phase == Phase.RESEAT:
            driver.apply(Reseat(tuple(reversed(state.order))) if not state.options.teams
                         else Reseat(state.order))
            return
        everything = [a for seat in range(len(state.players))
                      for a in legal_actions(view_for(state, seat), seat)]
        assert everything, "nobody can move"
        action = everything[choice % len(everything)]
        try:
            driver.apply(action)
        except IllegalAction as error:  # pragma: no cover - a failure is the finding
            raise AssertionError(f"listed action {action} refused: {error}") from error

    @invariant()
    def valid(self) -> None:
        if self.driver is not None:
            check_invariants(self.driver.state)


EngineMachine.TestCase.settings = settings(
    max_examples=30, stateful_step_count=150, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
TestEngineMachine = EngineMachine.TestCase
