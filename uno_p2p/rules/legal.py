"""``legal_actions``: what a seat may do now, from its own knowledge only.

Candidates are checked by the very validators ``apply`` uses, so a listed
action is always accepted by ``apply`` (a property test says so). Two kinds
of choices are listed by one representative, because listing them all would
be combinatorial: a Wild swap gives the first cards of the hand and takes the
first of the victim's (``apply`` accepts any valid choice), and sum jump-ins
are listed for sets of up to four cards. ``TimeOut``, ``ErrorPenalty``,
``Reveal`` and ``Reseat`` come from the table, not from a seat, so they are
never listed; time windows (``catch_grace_ms``) are not applied here.
"""

from __future__ import annotations

from itertools import combinations

from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import (
    Action,
    CatchUno,
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Draw,
    Pass,
    Play,
    SayUno,
)
from uno_p2p.rules.cards import CARD_COLOUR, CARD_RANK, Rank, same_face
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.play import (
    validate_challenge,
    validate_draw,
    validate_pass,
    validate_play,
    validate_verdict,
)
from uno_p2p.rules.state import Phase, State, playable, required

COLOURS = (0, 1, 2, 3)


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, as this state's viewer knows the cards.

    Cards whose faces the viewer does not know are not offered (a player view
    always knows its own hand once the deck has revealed it).
    """
    phase = state.phase
    actions: list[Action] = []
    if phase == Phase.PLAYING:
        if seat == state.current:
            actions.extend(_turn_actions(state, seat))
        elif state.last_player is not None and (state.options.jump_in or state.options.sum_jump_in):
            actions.extend(_jump_ins(state, seat))
        actions.extend(_uno_actions(state, seat))
    elif phase == Phase.CHALLENGE:
        if state.challenge is not None and seat == state.challenge[0]:
            actions.extend(_verdicts(state, seat))
        actions.extend(_uno_actions(state, seat))
    elif phase == Phase.STARTER_COLOUR and seat == state.current:
        actions.extend(ChooseColour(seat, c) for c in COLOURS)
    return actions


def _own_faces(state: State, seat: int) -> list[tuple[Slot, int]]:
    known = state.known
    return [(s, known[s]) for s in state.hands[seat] if s in known]


def _turn_actions(state: State, seat: int) -> list[Action]:
    actions: list[Action] = []
    faces = _own_faces(state, seat)
    if state.drawn is not None:
        faces = [(s, c) for s, c in faces if s == state.drawn]
    faces = [(s, c) for s, c in faces if _may_match(state, c)]
    for slot, card in faces:
        actions.extend(_variants(state, seat, (slot,), (card,)))
    if state.options.jump_in and state.drawn is None:
        for (s1, c1), (s2, c2) in combinations(faces, 2):
            if same_face(c1, c2):
                actions.extend(_variants(state, seat, (s1, s2), (c1, c2)))
    # The action is built only once its check passes (this runs once per decision).
    for make, check in ((Draw, validate_draw), (Pass, validate_pass),
                        (Challenge, validate_challenge)):
        try:
            check(state, seat)
        except IllegalAction:
            continue
        actions.append(make(seat))
    return actions


def _may_match(state: State, card: int) -> bool:
    """A cheap first filter; ``validate_play`` has the last word."""
    if state.pending:
        return CARD_RANK[card] in (Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR, Rank.SKIP, Rank.REVERSE)
    return playable(card, state.colour, required(state.top_card, "card on the pile"))


def _jump_ins(state: State, seat: int) -> list[Action]:
    if seat == state.last_player:
        return []
    top = required(state.top_card, "card on the pile")  # a jump-in follows a play
    faces = _own_faces(state, seat)
    actions: list[Action] = []
    if state.options.jump_in and top < 100:
        same = [(s, c) for s, c in faces if same_face(c, top)]
        for size in (1, 2):
            for combo in combinations(same, size):
                actions.extend(_variants(state, seat, *_split(combo)))
    if state.options.sum_jump_in and CARD_RANK[top] <= Rank.NINE:
        numbers = [(s, c) for s, c in faces
                   if CARD_RANK[c] <= Rank.NINE and CARD_COLOUR[c] == CARD_COLOUR[top]]
        for combo in _sum_sets(numbers, int(CARD_RANK[top])):
            actions.extend(_variants(state, seat, *_split(combo)))
    return actions


def _sum_sets(numbers: list[tuple[Slot, int]], total: int,
              ) -> list[tuple[tuple[Slot, int], ...]]:
    """Sets of two or more of these number cards summing to ``total``, one per multiset
    of values (RULES.md sets no upper limit: 0+1+1+2+2+3 make 9 with six cards).

    A depth-first search pruned on the running sum keeps this small even for a
    hand of fifty cards.
    """
    ordered = sorted(numbers, key=lambda sc: int(CARD_RANK[sc[1]]))
    found: dict[tuple[int, ...], tuple[tuple[Slot, int], ...]] = {}

    def search(start: int, chosen: tuple[tuple[Slot, int], ...], left: int) -> None:
        if len(chosen) >= 2 and left == 0:
            found.setdefault(tuple(int(CARD_RANK[c]) for _, c in chosen), chosen)
        previous = -1
        for i in range(start, len(ordered)):
            value = int(CARD_RANK[ordered[i][1]])
            if value > left:
                break
            if value == previous:
                continue  # the same value from another copy gives the same set
            previous = value
            search(i + 1, (*chosen, ordered[i]), left - value)

    search(0, (), total)
    return list(found.values())


def _split(combo: tuple[tuple[Slot, int], ...]) -> tuple[tuple[Slot, ...], tuple[int, ...]]:
    return tuple(s for s, _ in combo), tuple(c for _, c in combo)


def _variants(state: State, seat: int, slots: tuple[Slot, ...],
              cards: tuple[int, ...]) -> list[Action]:
    """The valid plays of these cards: colours, UNO, 7-swap targets, Wild powers."""
    top = cards[-1]
    black = top >= 100
    probe = Play(seat, slots, cards, colour=0 if black else -1,
                 say_uno=len(cards) == 2 and len(slots) == len(state.hands[seat]))
    checked = _with_target(state, probe)
    try:
        remaining, _, _ = validate_play(state, checked)
    except IllegalAction:
        return []
    rank = CARD_RANK[top]
    plain = not (state.options.seven_zero and rank == Rank.SEVEN) and not (
        state.options.wild_powers and rank == Rank.WILD)
    if plain and not black and len(remaining) != 1:
        return [checked]  # the one variant is the probe itself (the common case: no copy)
    colours = COLOURS if black else (-1,)
    unos = (False, True) if len(remaining) == 1 else (probe.say_uno,)
    others = [p for p in state.order if p != seat]
    extras: list[tuple[int, str, tuple[Slot, ...], tuple[Slot, ...]]] = [(-1, "", (), ())]
    if state.options.seven_zero and rank == Rank.SEVEN and remaining:
        extras = [(t, "", (), ()) for t in others]
    elif state.options.wild_powers and rank == Rank.WILD:
        extras += [(t, "peek", (), ()) for t in others]
        for t in others:
            count = min(3, len(remaining), len(state.hands[t]))
            extras.append((t, "swap", remaining[:count], state.hands[t][:count]))
    return [
        Play(seat, slots, cards, colour, uno, target, power, give, take)
        for colour in colours for uno in unos for target, power, give, take in extras
    ]


def _with_target(state: State, probe: Play) -> Play:
    """A probe needs a target when a 7 is played under seven_zero."""
    rank = CARD_RANK[probe.cards[-1]]
    leaves = len(state.hands[probe.seat]) > len(probe.slots)
    if state.options.seven_zero and rank == Rank.SEVEN and leaves:
        target = next(p for p in state.order if p != probe.seat)
        return Play(probe.seat, probe.slots, probe.cards, probe.colour, probe.say_uno, target)
    return probe


def _uno_actions(state: State, seat: int) -> list[Action]:
    actions: list[Action] = []
    hand = state.hands[seat]
    if len(hand) == 1 and not state.uno_said[seat]:
        actions.append(SayUno(seat))
    elif len(hand) == 2 and state.options.jump_in and not state.uno_said[seat]:
        # RULES.md jump_in: UNO said "first" before going out with a pair.
        pair = [state.known.get(s) for s in hand]
        if None not in pair and same_face(*pair):  # type: ignore[arg-type]
            actions.append(SayUno(seat))
    if state.exposed is not None and state.exposed != seat:
        actions.append(CatchUno(seat, state.exposed))
    return actions


def _verdicts(state: State, seat: int) -> list[Action]:
    """The true verdict, once the challenged hand is shown to this viewer (none before)."""
    hand = state.hands[required(state.challenge, "Wild Draw Four in a challenge")[1]]
    if any(s not in state.known for s in hand):
        return []  # the hand has not been shown to this viewer yet
    actions: list[Action] = []
    for verdict in (ChallengeVerdict(seat, True), ChallengeVerdict(seat, False)):
        try:
            validate_verdict(state, verdict)
        except IllegalAction:
            continue
        actions.append(verdict)
    return actions
