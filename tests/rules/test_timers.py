"""No stalls: every decision a player owes is covered by ``turn_timer`` (RULES.md "A turn":
"Every decision a player owes (a play, a colour to name, a challenge, a reseat, a swap)
is covered by turn_timer, so no table can stall")."""

from __future__ import annotations

import pytest

from uno_p2p.errors import ConfigError
from uno_p2p.rules import (
    CardsDrawn,
    Challenge,
    ChooseColour,
    Options,
    Phase,
    TimeOut,
)
from uno_p2p.rules.options import (
    NETWORK_CATCH_GRACE_MS,
    NETWORK_TURN_TIMER,
    network_options,
)
from uno_p2p.rules.state import TIMED_PHASES

from .harness import started

TIMER = Options(turn_timer=5)


def test_a_time_out_with_a_penalty_pending_draws_the_penalty_alone() -> None:
    # RULES.md turn_timer: "the player draws a penalty card and the turn passes": with a
    # Draw Two pending the penalty is what the player draws, not the penalty plus one.
    table = started(TIMER, 3, hands=[[], ["R+2"]], starter="R5")
    table.play(1, "R+2", now_ms=1000)
    # The moment a screen counts down to is the one the engine times out at.
    assert table.state.decision_deadline_ms() == 6000
    assert table.refused(TimeOut(2), now_ms=5999).rule == "turn_timer"
    table.apply(TimeOut(2), now_ms=6000)
    assert (table.hand_size(2), table.state.current, table.state.pending) == (9, 0, 0)


def test_a_challenger_who_never_gives_the_verdict_is_timed_out() -> None:
    # The verdict is a decision of its own; the timer restarts at the challenge. The
    # challenge lapses: the Wild Draw Four's 4 (not the 6 of a failed challenge).
    table = started(TIMER, 3, hands=[[], ["W+4", "Y9"]], starter="R5")
    table.play(1, "W+4", colour=1, now_ms=1000)
    table.apply(Challenge(2), now_ms=4000)
    assert table.phase == Phase.CHALLENGE
    assert table.state.decision_deadline_ms() == 9000
    assert table.refused(TimeOut(2), now_ms=8999).rule == "turn_timer"
    assert table.refused(TimeOut(1), now_ms=99_000).rule == "turn_timer"
    table.apply(TimeOut(2), now_ms=9000)
    assert (table.phase, table.hand_size(2), table.state.current) == (Phase.PLAYING, 11, 0)
    assert table.state.claims == ()      # no verdict was given: nothing to check


def test_a_starter_wild_colour_times_out_and_passes_the_naming_on() -> None:
    # RULES.md "Starter card": "Wild: the first player names the colour, then plays".
    # Timed out, that player draws a penalty card; the next one names and plays.
    table = started(TIMER, 3, starter="W")
    assert (table.phase, table.state.current) == (Phase.STARTER_COLOUR, 1)
    assert table.state.decision_deadline_ms() == 5000
    assert table.refused(TimeOut(1), now_ms=4999).rule == "turn_timer"
    table.apply(TimeOut(1), now_ms=5000)
    assert (table.phase, table.state.current, table.hand_size(1)) == \
        (Phase.STARTER_COLOUR, 2, 8)
    assert table.refused(ChooseColour(1, 2)).rule == "starter_wild_colour"
    table.apply(ChooseColour(2, 2))
    assert (table.phase, table.state.colour, table.state.current) == (Phase.PLAYING, 2, 2)


def test_the_dealer_naming_a_starter_colour_is_timed_out_too() -> None:
    table = started(Options(turn_timer=5, starter_wild_colour="dealer"), 3, starter="W")
    assert table.state.current == 0
    table.apply(TimeOut(0), now_ms=5000)
    table.apply(ChooseColour(1, 3))
    assert (table.state.colour, table.state.current, table.hand_size(0)) == (3, 1, 8)


def test_every_phase_where_a_player_owes_a_decision_is_timed() -> None:
    assert {Phase.PLAYING, Phase.CHALLENGE, Phase.STARTER_COLOUR} == set(TIMED_PHASES)


def test_network_play_always_has_a_generous_timer_and_a_short_grace() -> None:
    # RULES.md turn_timer: "Always on in network play with a generous default"; "Not
    # software rules": a pause "a second or two" maps to a short catch grace period.
    opened = network_options(Options())
    assert opened.turn_timer == NETWORK_TURN_TIMER >= 30
    assert 500 <= opened.catch_grace_ms == NETWORK_CATCH_GRACE_MS <= 2000
    chosen = network_options(Options(turn_timer=20, catch_grace_ms=700))
    assert (chosen.turn_timer, chosen.catch_grace_ms) == (20, 700)


def test_a_network_table_refuses_an_error_penalty_it_would_never_apply() -> None:
    # table.md §7.1: over the network a refused move is a race or cheating, never priced.
    with pytest.raises(ConfigError, match="error_penalty"):
        network_options(Options(error_penalty=2))


def test_the_seat_owing_the_decision_is_the_one_the_timer_waits_for() -> None:
    # RULES.md: "Every decision a player owes (a play, a colour to name, a challenge …) is
    # covered by turn_timer": the player on turn, the challenger for the verdict, the
    # first player for a starter Wild's colour; and nobody once the game is won.
    table = started(TIMER, 3, hands=[[], ["W+4", "Y9"]], starter="R5", exact=True)
    assert table.state.decider() == 1
    table.play(1, "W+4", colour=1, now_ms=1000)
    assert table.state.decider() == 2
    table.apply(Challenge(2), now_ms=2000)
    assert (table.phase, table.state.decider()) == (Phase.CHALLENGE, 2)
    assert started(TIMER, 3, starter="W").state.decider() == 1
    ending = started(Options(turn_timer=5, target=1), 3, hands=[[], ["R9"]], exact=True)
    ending.play(1, "R9", now_ms=1000)
    assert (ending.phase, ending.state.current, ending.state.decider()) == \
        (Phase.GAME_OVER, 1, None)


def test_a_starter_colour_left_unnamed_costs_a_card_drawn_for_the_timer() -> None:
    # uno.apply_timeout: "a starter Wild's colour: one penalty card, and naming the colour
    # passes to the next player"; the UI words a draw by its reason (ui/words.py).
    table = started(Options(turn_timer=5), 3, starter="W")
    chooser = table.turn
    before = table.hand_size(chooser)
    events = table.apply(TimeOut(chooser), now_ms=table.state.turn_started_ms + 5000)
    drawn = [e for e in events if isinstance(e, CardsDrawn)]
    assert [(e.seat, len(e.slots), e.reason) for e in drawn] == [(chooser, 1, "turn_timer")]
    assert table.hand_size(chooser) == before + 1
    assert table.state.current != chooser
