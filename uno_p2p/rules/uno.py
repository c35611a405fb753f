"""Saying UNO, catching a missed UNO, and the out-of-band penalties.

RULES.md "UNO": a player who goes down to one card must say "UNO"; if another
player catches them before the next player begins a turn, they draw 2. The
window is ``State.exposed``: opened by the play that leaves one card unsaid,
closed by the next play, draw or challenge by anyone (so with two players a
Skip keeps it open until the same player's next action), or by saying UNO.
"""

from __future__ import annotations

from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import CatchUno, ErrorPenalty, SayUno, TimeOut
from uno_p2p.rules.events import UnoCaught, UnoSaid
from uno_p2p.rules.state import State
from uno_p2p.rules.work import Work

CATCH_PENALTY = 2
FALSE_UNO_PENALTY = 2


def check_grace(work: Work, seat: int) -> None:
    """RULES.md "Not software rules": a grace period for catching before the next player acts.

    Raises:
        IllegalAction: ``catch_grace_ms`` has not passed since the missed UNO.
    """
    grace = work.options.catch_grace_ms
    if grace and work.exposed >= 0 and work.exposed != seat \
            and work.now_ms < work.exposed_ms + grace:
        raise IllegalAction(f"{work.players[seat]} must wait {grace} ms so that a missed UNO "
                            "can be caught", rule="catch_grace_ms")


def false_uno_allowed(work: Work | State, seat: int) -> None:
    """Saying UNO without one card is refused, unless ``false_uno_penalty`` prices it."""
    if not work.options.false_uno_penalty:
        raise IllegalAction(f"{work.players[seat]} does not have one card left to say UNO",
                            rule="uno")


def apply_say_uno(work: Work, action: SayUno) -> None:
    seat = action.seat
    if len(work.hands[seat]) == 1:
        if work.uno_said[seat]:
            raise IllegalAction(f"{work.players[seat]} has said UNO already", rule="uno")
        work.uno_said[seat] = True
        if work.exposed == seat:
            work.exposed = -1
        work.events.append(UnoSaid(seat))
        return
    false_uno_allowed(work, seat)
    # false_uno_penalty: "saying UNO when one does not have one card costs 2 cards"
    work.give_cards(seat, FALSE_UNO_PENALTY, "false_uno")


def apply_catch(work: Work, action: CatchUno) -> None:
    if action.target != work.exposed or action.seat == action.target:
        raise IllegalAction(f"{work.players[action.target]} cannot be caught now", rule="uno")
    work.exposed = -1
    work.events.append(UnoCaught(action.seat, action.target))
    work.give_cards(action.target, CATCH_PENALTY, "caught")


def apply_timeout(work: Work, action: TimeOut) -> None:
    """RULES.md turn_timer: "the player draws a penalty card and the turn passes".

    The time-out is valid only when ``now_ms`` (the log's time of the entry) is
    at least ``turn_timer`` seconds after ``turn_started_ms`` (the time of the
    entry that gave the turn). A pending penalty is taken as well.
    """
    seat = action.seat
    limit = work.options.turn_timer * 1000
    if not limit or seat != work.current or work.now_ms < work.turn_started_ms + limit:
        raise IllegalAction(f"{work.players[seat]}'s turn timer has not run out",
                            rule="turn_timer")
    work.exposed = -1
    work.last_player = -1
    count = work.pending + 1
    work.pending, work.pending_rank = 0, -1
    work.challenge = (-1, -1, -1)
    work.give_cards(seat, count, "turn_timer")
    work.set_turn(work.next_seat(seat))


def apply_error_penalty(work: Work, action: ErrorPenalty) -> None:
    """RULES.md error_penalty: "a play that breaks the rules is taken back and costs a card"."""
    if not work.options.error_penalty:
        raise IllegalAction("error_penalty is off at this table", rule="error_penalty")
    work.give_cards(action.seat, work.options.error_penalty, "error_penalty")
