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
from uno_p2p.rules.cards import same_face
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.events import UnoCaught, UnoSaid
from uno_p2p.rules.state import Phase, State
from uno_p2p.rules.work import Work

CATCH_PENALTY = 2
FALSE_UNO_PENALTY = 2


def check_grace(work: Work, seat: int) -> None:
    """RULES.md "Not software rules": a grace period for catching before the next player acts.

    Raises:
        IllegalAction: ``catch_grace_ms`` has not passed since the missed UNO.
    """
    grace = work.options.catch_grace_ms
    if grace and work.exposed is not None and work.exposed != seat \
            and work.now_ms < work.exposed_ms + grace:
        raise IllegalAction(f"{work.players[seat]} must wait {grace} ms so that a missed UNO "
                            "can be caught", rule="catch_grace_ms")


def false_uno_allowed(work: Work | State, seat: int) -> None:
    """Saying UNO without one card is refused, unless ``false_uno_penalty`` prices it."""
    if not work.options.false_uno_penalty:
        raise IllegalAction(f"{work.players[seat]} does not have one card left to say UNO",
                            rule="uno")


def apply_say_uno(work: Work, action: SayUno) -> None:
    """RULES.md "UNO": saying it is an action of its own.

    Under ``jump_in`` a player holding two cards may say it just before going
    out with them as a pair ("must still say UNO first"); such an early UNO
    counts only for that (``play._carry_out`` forgets it after any other play).

    Raises:
        IllegalAction: said already, or not down to one card (unless
            ``false_uno_penalty`` prices it).
    """
    seat = action.seat
    hand = work.hands[seat]
    early = len(hand) == 2 and work.options.jump_in
    if early and not _pair(work, hand):
        # Refused, never priced: only the holder's view can tell (``_pair``), and every
        # view must agree on what an accepted action does.
        raise IllegalAction(f"{work.players[seat]} may say UNO with two cards only "
                            "before going out with a pair", rule="jump_in")
    if len(hand) == 1 or early:
        if work.uno_said[seat]:
            raise IllegalAction(f"{work.players[seat]} has said UNO already", rule="uno")
        work.uno_said[seat] = True
        if work.exposed == seat:
            work.exposed = None
        work.events.append(UnoSaid(seat))
        return
    false_uno_allowed(work, seat)
    # false_uno_penalty: "saying UNO when one does not have one card costs 2 cards"
    work.give_cards(seat, FALSE_UNO_PENALTY, "false_uno")


def _pair(work: Work, hand: tuple[Slot, ...]) -> bool:
    """Whether two cards may be a pair: identical, or not known to this viewer.

    Only the holder sees both faces, so only the holder's engine can refuse an
    early UNO over two different cards; every other viewer accepts it (it
    protects nothing but going out with a pair).
    """
    first, second = (work.known.get(slot) for slot in hand)
    return first is None or second is None or same_face(first, second)


def apply_catch(work: Work, action: CatchUno) -> None:
    if action.target != work.exposed or action.seat == action.target:
        raise IllegalAction(f"{work.players[action.target]} cannot be caught now", rule="uno")
    work.exposed = None
    work.events.append(UnoCaught(action.seat, action.target))
    work.give_cards(action.target, CATCH_PENALTY, "caught")


def apply_timeout(work: Work, action: TimeOut) -> None:
    """RULES.md turn_timer: "the player draws a penalty card and the turn passes";
    "every decision a player owes ... is covered by turn_timer, so no table can stall".

    The time-out is valid only when ``now_ms`` (the log's time of the entry) is
    at least ``turn_timer`` seconds after ``turn_started_ms`` (the time of the
    entry that gave the decision), and ``seat`` owes it (``current``: the
    player on turn, the challenger, the one naming a starter Wild's colour).
    What it does depends on the decision owed:

    - a turn: draw one penalty card, or with a draw penalty pending, that
      penalty alone (it replaces the card); the turn passes;
    - a challenge verdict: the challenge lapses, the challenger takes the
      Wild Draw Four's penalty (not the 2 more of a failed challenge) and
      loses the turn, as if it had not challenged;
    - a starter Wild's colour: one penalty card, and naming the colour passes
      to the next player, who then plays.

    Raises:
        IllegalAction: no timer, not this seat's decision, or not yet run out.
    """
    seat = action.seat
    limit = work.options.turn_timer * 1000
    if not limit or seat != work.current or work.now_ms < work.turn_started_ms + limit:
        raise IllegalAction(f"{work.players[seat]}'s turn timer has not run out",
                            rule="turn_timer")
    work.exposed = None
    work.last_player = None
    if work.phase == Phase.STARTER_COLOUR:
        work.give_cards(seat, 1, "turn_timer")
        work.set_turn(work.next_seat(seat))
        return
    if work.phase == Phase.CHALLENGE:
        work.set_phase(Phase.PLAYING)
    count = work.pending or 1
    work.pending, work.pending_rank = 0, None
    work.challenge = None
    work.give_cards(seat, count, "turn_timer")
    work.set_turn(work.next_seat(seat))


def apply_error_penalty(work: Work, action: ErrorPenalty) -> None:
    """RULES.md error_penalty: "a play that breaks the rules is taken back and costs a card"."""
    if not work.options.error_penalty:
        raise IllegalAction("error_penalty is off at this table", rule="error_penalty")
    work.give_cards(action.seat, work.options.error_penalty, "error_penalty")
