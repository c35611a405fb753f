"""Turn actions: playing, drawing, passing and the Wild Draw Four challenge.

RULES.md "A turn" and the house rules that change it. Every check runs before
the first edit, so a refused action changes nothing (``apply`` also works on
a scratch copy). Rule names in ``IllegalAction(rule=...)`` are RULES.md option
names, or for the base rules: ``turn``, ``matching``, ``draw``,
``wild_draw_four``, ``challenge``, ``card``.
"""

from __future__ import annotations

from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import Challenge, ChallengeVerdict, Draw, Pass, Play
from uno_p2p.rules.cards import CARD_COLOUR, CARD_RANK, Rank, long_name, same_face
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.events import (
    CardsPlayed,
    ChallengeResolved,
    ClaimViolated,
    RevealRequested,
    UnoSaid,
)
from uno_p2p.rules.rounds import describe_claim, end_round
from uno_p2p.rules.state import OMNISCIENT, Claim, Phase, State, playable, required
from uno_p2p.rules.uno import check_grace, false_uno_allowed
from uno_p2p.rules.work import Work

D2, W4 = Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR


def _refuse(message: str, rule: str) -> IllegalAction:
    return IllegalAction(message, rule=rule)


# -- checks ---------------------------------------------------------------------------------
def check_owned(work: Work | State, seat: int, slots: tuple[Slot, ...],
                cards: tuple[int, ...]) -> None:
    """The slots are in ``seat``'s hand and the claimed faces fit what we know."""
    hand = work.hands[seat]
    name = work.players[seat]
    for slot, card in zip(slots, cards, strict=True):
        if slot not in hand:
            raise _refuse(f"{name} does not hold the card at {tuple(slot)}", "card")
        known = work.known.get(slot)
        if known is not None and known != card:
            raise _refuse(f"{name} claims {long_name(card)} but holds {long_name(known)}", "card")


def check_answers_penalty(work: Work | State, card: int) -> None:
    """With a draw penalty pending only a stacking or deflecting card may be played."""
    rank, pending_rank, options = CARD_RANK[card], work.pending_rank, work.options
    if pending_rank == D2:
        if rank == D2 and options.stack_draw_two:
            return
        if rank == W4 and options.stack_four_on_two:
            return
        if (options.deflect_draw_two and rank in (Rank.SKIP, Rank.REVERSE)
                and CARD_COLOUR[card] == work.colour):
            return
    elif rank == W4 and options.stack_draw_four:
        return
    rule = "stack_draw_four" if pending_rank == W4 else "stack_draw_two"
    who = work.players[required(work.current, "player with the turn")]
    raise _refuse(f"{who} must take the {work.pending}-card penalty; "
                  f"{long_name(card)} cannot answer it", rule)


def check_match(work: Work | State, card: int) -> None:
    if work.pending:
        check_answers_penalty(work, card)
    elif not playable(card, work.colour, work.discard[-1][1]):
        raise _refuse(f"{long_name(card)} matches neither the colour nor the "
                      f"{'symbol' if work.discard[-1][1] >= 100 else 'face'} on the pile",
                      "matching")


def check_shape(work: Work | State, action: Play) -> None:
    """One card; two identical ones (jump_in doubles); or a sum jump-in set."""
    seat, cards = action.seat, action.cards
    name = work.players[seat]
    top = work.discard[-1][1]
    if seat == work.current and work.phase == Phase.PLAYING:
        if work.drawn is not None and action.slots != (work.drawn,):
            raise _refuse(f"after drawing, {name} may play only the card just drawn", "draw")
        if len(cards) == 2 and work.options.jump_in and same_face(*cards):
            return
        if len(cards) != 1:
            raise _refuse(f"{name} may play only one card (or two identical with jump_in)",
                          "jump_in")
        return
    if work.last_player is None or seat == work.last_player:
        raise _refuse(f"it is not {name}'s turn", "turn")
    if work.options.jump_in and len(cards) <= 2 and top < 100 and all(
            same_face(c, top) for c in cards):
        return
    if work.options.sum_jump_in and _is_sum_set(cards, top) and not work.pending:
        return
    rule = "jump_in" if work.options.jump_in else "turn"
    raise _refuse(f"it is not {name}'s turn, and the cards are not a jump-in", rule)


def _is_sum_set(cards: tuple[int, ...], top: int) -> bool:
    """sum_jump_in: number cards of the top's colour summing to the top number."""
    if len(cards) < 2 or top >= 100 or CARD_RANK[top] > Rank.NINE:
        return False
    colour = CARD_COLOUR[top]
    if any(CARD_RANK[c] > Rank.NINE or CARD_COLOUR[c] != colour for c in cards):
        return False
    return sum(int(CARD_RANK[c]) for c in cards) == int(CARD_RANK[top])


def check_finish(work: Work | State, action: Play, remaining: int) -> None:
    options, cards, name = work.options, action.cards, work.players[action.seat]
    if remaining:
        return
    if options.number_finish and any(CARD_RANK[c] > Rank.NINE for c in cards):
        raise _refuse(f"{name} must go out with a number card", "number_finish")
    if options.number_or_draw_finish and any(
            CARD_RANK[c] == Rank.ZERO or CARD_RANK[c] in (Rank.SKIP, Rank.REVERSE, Rank.WILD)
            for c in cards):
        raise _refuse(f"{name} must go out with a 1-9, a Draw Two or a Wild Draw Four",
                      "number_or_draw_finish")
    if len(cards) == 2 and same_face(*cards) and not action.say_uno \
            and not work.uno_said[action.seat]:
        # RULES.md jump_in: "must still say UNO first when two identical cards are their last
        # two": with the play, or as its own action just before (``uno.apply_say_uno``).
        raise _refuse(f"{name} must say UNO before going out with two identical cards", "jump_in")


def check_extras(work: Work | State, action: Play, remaining: tuple[Slot, ...]) -> None:
    """Colour for black cards, 7-swap target, Wild powers."""
    top = action.cards[-1]
    rank = CARD_RANK[top]
    name, n = work.players[action.seat], len(work.players)
    if (top >= 100) != (action.colour >= 0):
        raise _refuse(f"{name} must name a colour for a black card, and only then", "matching")
    wants_target = (work.options.seven_zero and rank == Rank.SEVEN and remaining) or action.power
    if not wants_target and action.target >= 0:
        raise _refuse(f"{name}'s play takes no target player", "seven_zero")
    if wants_target and not (0 <= action.target < n and action.target != action.seat):
        raise _refuse(f"{name} must choose another player", "seven_zero")
    if action.power and not (work.options.wild_powers and rank == Rank.WILD):
        raise _refuse("Wild powers are only for a Wild, with wild_powers on", "wild_powers")
    if action.power == "swap":
        count = min(3, len(remaining), len(work.hands[action.target]))
        if (len(action.give) != count or len(action.take) != count
                or not set(action.give) <= set(remaining)
                or not set(action.take) <= set(work.hands[action.target])
                or len(set(action.give)) != count or len(set(action.take)) != count):
            raise _refuse(f"a Wild swap moves {count} cards each way between the two hands",
                          "wild_powers")
    elif action.give or action.take:
        raise _refuse("only a Wild swap moves cards between hands", "wild_powers")


def wd4_restricted(work: Work | State) -> bool:
    """Whether a Wild Draw Four needs its holder to lack the colour to match.

    RULES.md: by default a player "may bluff" (the challenge is the only check);
    ``wd4_strict`` makes the software refuse the bluff; ``no_challenge`` lets a
    Wild Draw Four be "played at any time".
    """
    return work.options.wd4_strict and not work.options.no_challenge


def check_wild_draw_four(work: Work | State, action: Play,
                         remaining: tuple[Slot, ...]) -> Claim | None:
    """RULES.md ``wd4_strict``: "the software refuses the bluff".

    Decided now when this viewer knows a card of that colour in the hand; else
    recorded as a claim for the challenge or the round-end reveal. Without
    ``wd4_strict`` the bluff is part of the game: no check, no claim.
    """
    if CARD_RANK[action.cards[-1]] != W4 or not wd4_restricted(work):
        return None
    claim = Claim(action.seat, "no_colour", "wild_draw_four", remaining,
                  required(work.colour, "colour to match"), -1)
    if claim.verdict(work.known) is False:
        raise _refuse(f"{work.players[action.seat]} holds a card of the colour to match and "
                      "may not play a Wild Draw Four", "wild_draw_four")
    return claim


# -- playing --------------------------------------------------------------------------------
def validate_play(work: Work | State, action: Play) -> tuple[tuple[Slot, ...], Claim | None, bool]:
    """Every check of a play, without changing anything.

    Returns the hand left after the play, the Wild Draw Four claim (if any) and
    whether the play says UNO falsely (allowed only with ``false_uno_penalty``).

    Raises:
        IllegalAction: the play breaks a rule; ``rule`` names it.
    """
    seat = action.seat
    check_owned(work, seat, action.slots, action.cards)
    check_shape(work, action)
    check_match(work, action.cards[0])
    played = set(action.slots)
    remaining = tuple(s for s in work.hands[seat] if s not in played)
    check_finish(work, action, len(remaining))
    check_extras(work, action, remaining)
    claim = check_wild_draw_four(work, action, remaining)
    false_uno = action.say_uno and not (len(remaining) == 1 or not remaining)
    if false_uno:
        false_uno_allowed(work, seat)
    return remaining, claim, false_uno


def apply_play(work: Work, action: Play) -> None:
    """Validate a play completely, then carry it out."""
    remaining, claim, false_uno = validate_play(work, action)
    if action.seat == work.current:
        check_grace(work, action.seat)
    _carry_out(work, action, remaining, claim, false_uno)


def _carry_out(work: Work, action: Play, remaining: tuple[Slot, ...], claim: Claim | None,
               false_uno: bool) -> None:
    seat, cards = action.seat, action.cards
    colour_before = required(work.colour, "colour to match")
    work.exposed = None  # a play by anyone begins a turn: no more catching (RULES.md "UNO")
    work.hands[seat] = remaining
    for slot, card in zip(action.slots, cards, strict=True):
        work.discard.append((slot, card))
        work.make_public(slot, card)
    work.events.append(CardsPlayed(seat, action.slots, cards, action.colour))
    if claim is not None:
        work.claims = (*work.claims, claim)
    top = cards[-1]
    work.colour = action.colour if top >= 100 else CARD_COLOUR[top]
    if remaining:
        # An UNO said early (jump_in, two identical cards) counts only for going out with
        # them; RULES.md "UNO": otherwise it goes "with the play or follow[s] it".
        work.uno_said[seat] = False
    if action.say_uno and not false_uno:
        work.uno_said[seat] = True
        work.events.append(UnoSaid(seat))
    if len(remaining) == 1 and not work.uno_said[seat]:
        work.exposed, work.exposed_ms = seat, work.now_ms
    work.set_turn(seat)  # a jump-in: "play goes on from them"
    work.last_player = seat
    if not remaining:
        _finish(work, seat, top, len(cards))
        return
    _card_effect(work, action, colour_before)
    if false_uno:
        work.give_cards(seat, 2, "false_uno")


def _finish(work: Work, seat: int, top: int, count: int) -> None:
    """RULES.md "End of a round": "If their last card was a Draw Two or Wild Draw Four,
    the next player still draws; so does the player a penalty was passed on to by a
    last Skip or Reverse under deflect_draw_two"."""
    rank = CARD_RANK[top]
    if rank in (D2, W4):
        total = work.pending + (2 if rank == D2 else 4) * count
        work.give_cards(work.next_seat(seat), total, "penalty")
    elif work.pending and rank in (Rank.SKIP, Rank.REVERSE):
        # As ``_card_effect``: a Skip passes the penalty to the player after; a Reverse
        # (one card flips the direction, two leave it) sends it back.
        if rank == Rank.REVERSE and count == 1:
            work.direction = -work.direction
        work.give_cards(work.next_seat(seat), work.pending, "penalty")
    end_round(work, seat)


def _card_effect(work: Work, action: Play, colour_before: int) -> None:
    seat, count = action.seat, len(action.cards)
    top = action.cards[-1]
    rank = CARD_RANK[top]
    n = len(work.players)
    if rank == Rank.SKIP:
        # deflect_draw_two: a Skip "passes the penalty on to the player after".
        work.set_turn(work.next_seat(seat, 1 if work.pending else 2))
    elif rank == Rank.REVERSE:
        if count == 1:
            work.direction = -work.direction
        # "with two players it acts as Skip"; deflect_draw_two: "sends it back".
        skip = n == 2 and count == 1 and not work.pending
        work.set_turn(seat if skip else work.next_seat(seat))
    elif rank == D2:
        work.pending += 2 * count
        work.pending_rank = D2
        work.set_turn(work.next_seat(seat))
    elif rank == W4:
        # RULES.md jump_in: "two Wild Draw Fours make the next player draw 8, and one
        # challenge covers the pair" (the penalty is the pair's; guilty or not, it moves).
        work.pending += 4 * count
        work.pending_rank = W4
        work.challenge = (None, seat, colour_before)
        work.set_turn(work.next_seat(seat))
    else:
        _special_effect(work, action)
        work.set_turn(work.next_seat(seat))


def _special_effect(work: Work, action: Play) -> None:
    """seven_zero hand swaps and passing; wild_powers peek and swap."""
    rank = CARD_RANK[action.cards[-1]]
    seat, target = action.seat, action.target
    if work.options.seven_zero and rank == Rank.SEVEN:
        _move_hands(work, {seat: target, target: seat}, "seven_zero")
    elif work.options.seven_zero and rank == Rank.ZERO:
        # "passes every hand to the next player in the direction of play"
        _move_hands(work, {p: work.next_seat(p) for p in work.order}, "seven_zero")
    elif action.power == "peek":
        hand = work.hands[target]
        work.events.append(RevealRequested(hand, seat, "peek"))
        work.show_privately(seat, hand)
    elif action.power == "swap":
        give, take = set(action.give), set(action.take)
        work.hands[seat] = tuple(s for s in work.hands[seat] if s not in give) + action.take
        work.hands[target] = tuple(s for s in work.hands[target] if s not in take) + action.give
        work.events.append(RevealRequested(action.take, seat, "swap"))
        work.events.append(RevealRequested(action.give, target, "swap"))
        work.show_privately(seat, action.give)
        work.show_privately(target, action.take)
        _reset_uno(work, (seat, target))


def _move_hands(work: Work, moves: dict[int, int], reason: str) -> None:
    old = list(work.hands)
    for giver, receiver in moves.items():
        work.hands[receiver] = old[giver]
        work.show_privately(giver, old[giver])
        work.events.append(RevealRequested(old[giver], receiver, reason))
    _reset_uno(work, tuple(moves))


def _reset_uno(work: Work, seats: tuple[int, ...]) -> None:
    for seat in seats:
        work.uno_said[seat] = False
    work.exposed = None


# -- drawing and passing --------------------------------------------------------------------
def _pile_has_cards(work: Work | State) -> bool:
    return bool(work.draw_pile) or len(work.discard) > 1


def _drawn_claim(work: Work | State, seat: int, kind: str, rule: str) -> Claim:
    """A claim about the card just drawn; under ``wd4_strict`` it lists the rest of the
    hand too, which decides whether a drawn Wild Draw Four may be played (``Claim``)."""
    drawn = work.drawn
    assert drawn is not None  # noqa: S101 - callers check
    rest = tuple(s for s in work.hands[seat] if s != drawn) if wd4_restricted(work) else ()
    claim = Claim(seat, kind, rule, (drawn, *rest), required(work.colour, "colour to match"),
                  work.discard[-1][1])
    if claim.verdict(work.known) is False:
        face = long_name(work.known[drawn])
        verb = "must play" if kind == "unplayable" else "may not stop at"
        raise _refuse(f"{work.players[seat]} {verb} the {face} just drawn ({rule})", rule)
    return claim


def _check_current(work: Work | State, seat: int) -> None:
    if seat != work.current:
        raise _refuse(f"it is not {work.players[seat]}'s turn", "turn")


def validate_draw(work: Work | State, seat: int) -> Claim | None:
    """Checks of a draw; returns the draw_until_playable claim of drawing again.

    Raises:
        IllegalAction: not this seat's turn, or it has drawn already.
    """
    _check_current(work, seat)
    if work.drawn is None:
        return None
    if not work.options.draw_until_playable:
        raise _refuse(f"{work.players[seat]} has drawn already: play that card or pass", "draw")
    return _drawn_claim(work, seat, "unplayable", "draw_until_playable")


def apply_draw(work: Work, action: Draw) -> None:
    """Draw one card, or take the pending penalty; draw again under draw_until_playable."""
    seat = action.seat
    claim = validate_draw(work, seat)
    check_grace(work, seat)
    work.exposed = None
    work.last_player = None
    if claim is not None:
        work.claims = (*work.claims, claim)
    if work.pending:
        _take_penalty(work, seat, work.pending, "penalty")
        return
    if work.give_cards(seat, 1, "draw"):
        work.drawn = work.hands[seat][-1]
    elif work.options.empty_deck == "void_round":
        end_round(work, None)  # the seeds' "yellow card": the round is abandoned
    else:
        # "If there is still nothing to draw, the player passes"
        work.set_turn(work.next_seat(seat))


def _take_penalty(work: Work, seat: int, count: int, reason: str) -> None:
    got = work.give_cards(seat, count, reason)
    work.pending, work.pending_rank = 0, None
    work.challenge = None
    if got < count and work.options.empty_deck == "void_round":
        end_round(work, None)
        return
    work.set_turn(work.next_seat(seat))


def validate_pass(work: Work | State, seat: int) -> list[Claim]:
    """Checks of keeping the drawn card; returns the claims it makes.

    Raises:
        IllegalAction: nothing drawn, or a claim this viewer can see is false.
    """
    _check_current(work, seat)
    if work.drawn is None:
        raise _refuse(f"{work.players[seat]} must play or draw before passing", "draw")
    claims = []
    if work.options.forced_play:
        claims.append(_drawn_claim(work, seat, "unplayable", "forced_play"))
    if work.options.draw_until_playable and _pile_has_cards(work):
        claims.append(_drawn_claim(work, seat, "playable", "draw_until_playable"))
    if len(claims) == 2:
        raise _refuse(f"{work.players[seat]} must play the drawn card or draw again",
                      "forced_play")
    return claims


def apply_pass(work: Work, action: Pass) -> None:
    """Keep the drawn card. forced_play / draw_until_playable make this a claim."""
    claims = validate_pass(work, action.seat)
    work.claims = (*work.claims, *claims)
    work.last_player = None
    work.set_turn(work.next_seat(action.seat))


# -- the Wild Draw Four challenge -----------------------------------------------------------
def validate_challenge(work: Work | State, seat: int) -> None:
    """Raises:
        IllegalAction: not this seat's turn, or no Wild Draw Four to challenge.
    """
    _check_current(work, seat)
    if work.pending_rank != W4 or work.options.no_challenge or work.drawn is not None:
        raise _refuse("there is no Wild Draw Four to challenge", "challenge")


def apply_challenge(work: Work, action: Challenge) -> None:
    """RULES.md: "the next player may challenge instead of drawing"."""
    seat = action.seat
    validate_challenge(work, seat)
    check_grace(work, seat)
    work.exposed = None
    work.last_player = None
    _, challenged, colour = required(work.challenge, "Wild Draw Four to challenge")
    work.challenge = (seat, challenged, colour)
    work.set_phase(Phase.CHALLENGE)
    # The verdict is a decision of its own: turn_timer covers it from now (RULES.md).
    work.turn_started_ms = work.now_ms
    hand = work.hands[challenged]
    # "The challenged hand is shown to the challenger alone."
    work.events.append(RevealRequested(hand, seat, "challenge"))
    work.show_privately(seat, hand)


def verdict_claim(work: Work | State, action: ChallengeVerdict) -> Claim:
    """The challenger's verdict as a claim about the challenged hand.

    RULES.md: the hand is "shown to the challenger alone", so everyone else
    learns only the verdict; it is checked when the hand's cards are revealed
    (at the end of the round, or from the deck in the audit) and a false one
    names the challenger.
    """
    _, challenged, colour = in_challenge(work)
    kind = "has_colour" if action.guilty else "no_colour"
    return Claim(action.seat, kind, "challenge", work.hands[challenged], colour, -1)


def in_challenge(work: Work | State) -> tuple[int, int, int]:
    """``(challenger, challenged, colour)`` of the challenge under way (``Phase.CHALLENGE``,
    where each is known).

    Raises:
        LocalProtocolError: no challenge is under way (the engine's own bug).
    """
    challenger, challenged, colour = required(work.challenge, "Wild Draw Four in a challenge")
    return required(challenger, "challenger"), challenged, colour


def apply_verdict(work: Work, action: ChallengeVerdict) -> None:
    """Guilty or not guilty, as the challenger saw the hand; the verdict is a claim."""
    challenger, challenged, _ = in_challenge(work)
    claim = validate_verdict(work, action)
    work.claims = (*work.claims, claim)
    if claim.verdict(work.known) is False:
        # Only the challenged player's own view gets here (``validate_verdict``): it sees
        # the lie at once and says so; everyone else learns it at the round end.
        message = f"{work.players[claim.seat]} broke challenge: " + \
            describe_claim(claim.kind, claim.rule)
        work.events.append(ClaimViolated(claim.seat, claim.rule, message))
    work.set_phase(Phase.PLAYING)
    penalty = work.pending
    work.events.append(ChallengeResolved(challenger, challenged, action.guilty))
    if action.guilty:
        # "the challenged player draws 4 instead, and the challenger plays normally"
        work.give_cards(challenged, penalty, "challenge")
        work.pending, work.pending_rank = 0, None
        work.challenge = None
        work.set_turn(challenger)
        return
    # "Not guilty: the challenger draws 6 and loses the turn" (the penalty plus 2).
    _take_penalty(work, challenger, penalty + 2, "challenge")


def validate_verdict(work: Work | State, action: ChallengeVerdict) -> Claim:
    """Checks of a verdict; returns it as a claim (``verdict_claim``).

    The challenger's own engine refuses a false verdict (an honest client never
    sends one), and so does an omniscient one (the audit with every face). The
    challenged player's view also sees the lie but accepts it, reporting a
    ``ClaimViolated`` (``apply_verdict``): refusing it would stop that honest
    peer alone, while the round end shows the lie to everyone.

    Raises:
        IllegalAction: not the challenger, or a false verdict in the challenger's
            own (or an omniscient) view.
    """
    challenger, challenged, _ = in_challenge(work)
    if action.seat != challenger:
        raise _refuse(f"only {work.players[challenger]} gives the verdict", "challenge")
    claim = verdict_claim(work, action)
    if work.viewer in (challenger, OMNISCIENT) and claim.verdict(work.known) is False:
        name = work.players[challenged]
        truth = "not guilty: the hand held no card" if action.guilty else \
            "guilty: the hand held a card"
        raise _refuse(f"{name} is {truth} of the colour to match", "challenge")
    return claim
