"""The host tells a grace-period race from a cheat by the engine's rule, not by wording."""

from __future__ import annotations

from uno_p2p.errors import IllegalAction
from uno_p2p.table.sequencer import Sequencer
from uno_p2p.table.state import Misbehaviour


def refusal(cause: IllegalAction) -> Misbehaviour:
    try:
        try:
            raise cause
        except IllegalAction as error:
            raise Misbehaviour(f"entry 9: {error}", culprit=None, entry=9,
                               code="illegal_move") from error
    except Misbehaviour as wrapped:
        return wrapped


def test_a_move_held_back_by_the_grace_period_is_a_race() -> None:
    held = refusal(IllegalAction("wait for the grace period", rule="catch_grace_ms"))
    assert Sequencer._grace_rule(held)


def test_a_message_merely_naming_the_option_is_not_a_race() -> None:
    other = refusal(IllegalAction("catch_grace_ms mentioned, but a wrong colour", rule="matching"))
    assert not Sequencer._grace_rule(other)
