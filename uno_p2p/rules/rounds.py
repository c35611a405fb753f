"""Everything between turns: first dealer, dealing, the starter card, round end,
scoring, the next round and the end of the game (RULES.md "Players and
dealing", "End of a round and of the game").
"""

from __future__ import annotations

from collections.abc import Sequence

from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import ChooseColour, Reseat, Reveal
from uno_p2p.rules.cards import CARD_COUNT, CARD_POINTS, CARD_RANK, Rank
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.events import (
    EVERYONE,
    CardsDrawn,
    ClaimViolated,
    DealerChosen,
    GameOver,
    ReseatRequested,
    RevealRequested,
    RoundOver,
)
from uno_p2p.rules.state import Phase, required
from uno_p2p.rules.work import Work

HAND_SIZE = 7


# -- dealer selection -----------------------------------------------------------------------
def begin_dealer_selection(work: Work, contenders: Sequence[int]) -> None:
    """RULES.md: "every player draws one card; highest number deals".

    Each contender gets one card from shuffle 0 (a fresh shuffle if it runs
    out), all revealed publicly at once.
    """
    if len(work.draw_pile) < len(contenders):
        work.new_shuffle(CARD_COUNT, (), ())
    pairs = tuple((seat, work.draw_pile.pop()) for seat in contenders)
    work.contenders = pairs
    request_public(work, tuple(slot for _, slot in pairs), "dealer_selection")


def finish_dealer_selection(work: Work, faces: dict[Slot, int]) -> None:
    """Pick the dealer from the revealed cards; ties draw again (RULES.md)."""
    def value(card: int) -> int:
        # "an action or black card counts as 0"
        rank = CARD_RANK[card]
        return int(rank) if rank <= Rank.NINE else 0

    values = {seat: value(faces[slot]) for seat, slot in work.contenders}
    best = max(values.values())
    leaders = [seat for seat in work.order if values.get(seat) == best]
    if len(leaders) > 1:
        begin_dealer_selection(work, leaders)
        return
    work.contenders = ()
    work.dealer = leaders[0]
    start_round(work)


# -- a round --------------------------------------------------------------------------------
def start_round(work: Work) -> None:
    """Shuffle a fresh deck, deal 7 each from the dealer's left, turn the starter."""
    work.round += 1
    work.events.append(DealerChosen(required(work.dealer, "dealer"), work.round))
    n = len(work.players)
    work.hands = [()] * n
    work.discard = []
    work.uno_said = [False] * n
    work.claims = ()
    work.direction = 1
    work.pending = 0
    work.pending_rank = None
    work.last_player = None
    work.exposed = None
    work.round_winner = None
    work.challenge = None
    work.drawn = None
    # Faces of earlier rounds' shuffles matter no more: forget them, so that
    # views and digests stay small (the log keeps the history).
    work.known = {}
    work.public = frozenset()
    work.seen = (frozenset(),) * n
    work.new_shuffle(CARD_COUNT, (), ())
    seat = required(work.dealer, "dealer")
    dealt: list[list[Slot]] = [[] for _ in range(n)]
    for _ in range(HAND_SIZE * n):
        seat = work.next_seat(seat)
        dealt[seat].append(work.draw_pile.pop())
    for seat in range(n):
        work.hands[seat] = tuple(dealt[seat])
    for seat in work.order:
        work.events.append(CardsDrawn(seat, work.hands[seat], "deal"))
    turn_starter(work)


def turn_starter(work: Work) -> None:
    """RULES.md: "the top of the deck is turned over to start the discard pile"."""
    slot = work.draw_pile.pop()
    if work.phase != Phase.STARTER:
        work.set_phase(Phase.STARTER)
    request_public(work, (slot,), "starter")


def reveal_starter(work: Work, faces: dict[Slot, int]) -> None:
    """Apply the starter card's effect (RULES.md "Starter card")."""
    (slot,) = work.awaiting
    card = faces[slot]
    work.awaiting = ()
    rank = CARD_RANK[card]
    if rank == Rank.WILD_DRAW_FOUR:
        # "Wild Draw Four: back into the deck, reshuffle, turn again."
        sources = (*reversed(work.draw_pile), slot)
        work.new_shuffle(len(sources), sources, ())
        turn_starter(work)
        return
    work.discard.append((slot, card))
    if work.options.starter_number_only and rank > Rank.NINE:
        # starter_number_only: "keep turning until a number card shows" (004).
        turn_starter(work)
        return
    work.colour = None if card >= 100 else card // 25  # a Wild's colour is named next
    dealer = required(work.dealer, "dealer")
    first = work.next_seat(dealer)
    if rank == Rank.WILD:
        chooser = first if work.options.starter_wild_colour == "first_player" else dealer
        work.set_phase(Phase.STARTER_COLOUR)
        work.set_turn(chooser)
        return
    work.set_phase(Phase.PLAYING)
    if rank == Rank.SKIP:
        work.set_turn(work.next_seat(first))  # "the first player is skipped"
    elif rank == Rank.REVERSE:
        work.direction = -1  # "the dealer plays first and play goes counter-clockwise"
        work.set_turn(dealer)
    elif rank == Rank.DRAW_TWO:
        work.give_cards(first, 2, "starter")  # "the first player draws 2 and is skipped"
        work.set_turn(work.next_seat(first))
    else:
        work.set_turn(first)


def choose_starter_colour(work: Work, action: ChooseColour) -> None:
    """RULES.md: a Wild starter: "the first player names the colour, then plays"."""
    if action.seat != work.current:
        raise IllegalAction(
            f"{work.players[action.seat]} cannot name the starter's colour; "
            f"{work.players[required(work.current, 'player with the turn')]} does",
            rule="starter_wild_colour")
    work.colour = action.colour
    work.set_phase(Phase.PLAYING)
    # The first player plays. After a time-out (``uno.apply_timeout``) the naming passed
    # on, and whoever named it plays; the dealer naming it (``dealer``) never plays first.
    chooser = action.seat
    work.set_turn(work.next_seat(chooser) if chooser == work.dealer else chooser)


# -- public reveals -------------------------------------------------------------------------
def request_public(work: Work, slots: tuple[Slot, ...], reason: str) -> None:
    work.awaiting = slots
    work.events.append(RevealRequested(slots, EVERYONE, reason))


def apply_reveal(work: Work, action: Reveal) -> None:
    """Take a proven public reveal; it must answer exactly the pending request.

    Raises:
        IllegalAction: nothing is awaited, the slots differ, or a face contradicts
            what this viewer already knows.
    """
    faces = dict(action.faces)
    if not work.awaiting or set(faces) != set(work.awaiting):
        raise IllegalAction("this reveal does not answer the reveal the game waits for",
                            rule="reveal")
    for slot, card in faces.items():
        known = work.known.get(slot)
        if known is not None and known != card:
            raise IllegalAction(f"the reveal shows card {card} at {slot} but it is {known}",
                                rule="reveal")
        work.make_public(slot, card)
    if work.phase == Phase.DEALER_SELECTION:
        work.awaiting = ()
        finish_dealer_selection(work, faces)
    elif work.phase == Phase.STARTER:
        reveal_starter(work, faces)
    else:
        work.awaiting = ()
        score_round(work, faces)


# -- end of a round -------------------------------------------------------------------------
def end_round(work: Work, winner: int | None) -> None:
    """The round is over (``winner`` None: void); every hand is revealed publicly."""
    work.round_winner = winner
    work.set_phase(Phase.ROUND_OVER)
    work.pending = 0
    work.pending_rank = None
    work.drawn = None
    work.last_player = None
    work.exposed = None
    slots = tuple(s for seat in work.order for s in work.hands[seat])
    request_public(work, slots, "round_end")


def score_round(work: Work, faces: dict[Slot, int]) -> None:
    """Check every claim against the revealed hands, score, then go on or finish."""
    check_claims_publicly(work)
    changes = round_changes(work, {
        seat: sum(CARD_POINTS[work.known[s]] for s in work.hands[seat])
        for seat in range(len(work.players))
    })
    work.scores = [a + b for a, b in zip(work.scores, changes, strict=True)]
    round_winner = -1 if work.round_winner is None else work.round_winner  # the event's -1
    work.events.append(RoundOver(work.round, round_winner, tuple(changes)))
    winner = game_winner(work)
    if winner is not None:
        work.winner = winner
        work.set_phase(Phase.GAME_OVER)
        team = work.winner % work.options.teams if work.options.teams else -1
        work.events.append(GameOver(winner, team))
        return
    order = work.order
    # dealer_rule=rotate (and after a void round): "deal passes to the left".
    left = order[(order.index(required(work.dealer, "dealer")) + 1) % len(order)]
    winner_deals = work.options.dealer_rule == "winner" and work.round_winner is not None
    work.dealer = work.round_winner if work.round_winner is not None and winner_deals else left
    every = work.options.seat_shuffle_every
    if every and work.round % every == 0:
        work.set_phase(Phase.RESEAT)
        work.events.append(ReseatRequested(work.round + 1))
        return
    work.set_phase(Phase.STARTER)
    start_round(work)


def check_claims_publicly(work: Work) -> None:
    """Every claim is decidable once the hands are public; a false one is a violation."""
    for claim in work.claims:
        if claim.verdict(work.known) is False:
            message = (f"{work.players[claim.seat]} broke {claim.rule}: "
                       + describe_claim(claim.kind, claim.rule))
            work.violations = (*work.violations, (claim.seat, claim.rule))
            work.events.append(ClaimViolated(claim.seat, claim.rule, message))
    work.claims = ()


def describe_claim(kind: str, rule: str = "") -> str:
    """What a false claim of ``kind`` (for ``rule``) means, in a sentence's second half."""
    if rule == "challenge":
        return {
            "has_colour": "they called a Wild Draw Four guilty, but the hand held no card "
                          "of the colour to match",
            "no_colour": "they called a Wild Draw Four not guilty, but the hand held the "
                         "colour to match",
        }[kind]
    return {
        "unplayable": "they kept a drawn card that could have been played",
        "playable": "they stopped drawing before a playable card came",
        "no_colour": "they played a Wild Draw Four while holding the colour to match",
    }[kind]


def round_changes(work: Work, hand_points: dict[int, int]) -> list[int]:
    """Score changes per seat for the three systems (RULES.md ``scoring``, ``teams``)."""
    n = len(work.players)
    changes = [0] * n
    winner = work.round_winner
    if winner is None:
        return changes  # a void round scores nothing (empty_deck=void_round)
    team = _team(work, winner)
    losers = [s for s in range(n) if _team(work, s) != team]
    scoring = work.options.scoring
    if scoring == "points":
        changes[winner] = sum(hand_points[s] for s in losers)
    elif scoring == "losses":
        for seat in losers:
            changes[seat] = hand_points[seat]
    else:  # chips: "each loser pays the winner what their hand is worth"
        for seat in losers:
            changes[seat] = -hand_points[seat]
            changes[winner] += hand_points[seat]
    return changes


def _team(work: Work, seat: int) -> int:
    return seat % work.options.teams if work.options.teams else seat


def team_totals(work: Work) -> dict[int, int]:
    totals: dict[int, int] = {}
    for seat, score in enumerate(work.scores):
        totals[_team(work, seat)] = totals.get(_team(work, seat), 0) + score
    return totals


def game_winner(work: Work) -> int | None:
    """The winning seat once someone reaches ``target``, else None.

    ``points``/``chips``: the round winner's side is the only one whose total
    grew, so it is the one that reached the target. ``losses``: when anyone
    reaches the target, the side with the fewest points wins; a tie goes to the
    round winner's side, then to the lowest team/seat number. With teams the
    winning seat reported is the round winner if on the winning team, else the
    team's lowest seat.
    """
    totals = team_totals(work)
    target = work.options.target
    if work.options.scoring != "losses":
        if work.round_winner is None or totals[_team(work, work.round_winner)] < target:
            return None
        return work.round_winner
    if max(totals.values()) < target:
        return None
    fewest = min(totals.values())
    best = sorted(t for t, v in totals.items() if v == fewest)
    if work.round_winner is not None and _team(work, work.round_winner) in best:
        return work.round_winner
    return min(s for s in range(len(work.players)) if _team(work, s) == best[0])


def apply_reseat(work: Work, action: Reseat) -> None:
    """Take the jointly drawn seating (``seat_shuffle_every``); teams stay alternate.

    Raises:
        IllegalAction: not a permutation of the players, or teams no longer alternate.
    """
    n = len(work.players)
    if sorted(action.order) != list(range(n)):
        raise IllegalAction("a new seating must list every player once", rule="seat_shuffle_every")
    teams = work.options.teams
    if teams and any(_team(work, action.order[i]) != _team(work, action.order[i % teams])
                     for i in range(n)):
        raise IllegalAction("teams must stay seated alternately", rule="teams")
    work.order = action.order
    work.set_phase(Phase.STARTER)
    start_round(work)
