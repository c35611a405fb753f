"""The engine's entry points: ``new_game``, ``apply``, ``learn``, ``view_for``,
``public_digest``.

Pure and deterministic (STYLE.md): the same inputs give the same states. Deck
orders, seatings and face reveals come in as inputs, time as ``now_ms`` (the
log's time stamp of the entry being applied).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgpack

from uno_p2p.errors import ConfigError, IllegalAction
from uno_p2p.rules import play, rounds, uno
from uno_p2p.rules.actions import (
    Action,
    CatchUno,
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Draw,
    ErrorPenalty,
    Pass,
    Play,
    Reseat,
    Reveal,
    SayUno,
    TimeOut,
)
from uno_p2p.rules.codec import MAX_TEXT, Slot
from uno_p2p.rules.events import ClaimViolated, Event, ShuffleRequested
from uno_p2p.rules.options import Options
from uno_p2p.rules.state import (
    FIELD_INDEX,
    OMNISCIENT,
    TIMED_PHASES,
    Phase,
    State,
    WildFour,
    state_values,
)
from uno_p2p.rules.work import Work

_PLAY = frozenset({Phase.PLAYING})
_IN_ROUND = frozenset({Phase.PLAYING, Phase.CHALLENGE})
_REVEAL = frozenset({Phase.DEALER_SELECTION, Phase.STARTER, Phase.ROUND_OVER})

#: Which actions each phase accepts, and who handles them.
HANDLERS: dict[type[Any], tuple[frozenset[Phase], Callable[[Work, Any], None]]] = {
    Play: (_PLAY, play.apply_play),
    Draw: (_PLAY, play.apply_draw),
    Pass: (_PLAY, play.apply_pass),
    Challenge: (_PLAY, play.apply_challenge),
    ChallengeVerdict: (frozenset({Phase.CHALLENGE}), play.apply_verdict),
    SayUno: (_IN_ROUND, uno.apply_say_uno),
    CatchUno: (_IN_ROUND, uno.apply_catch),
    TimeOut: (TIMED_PHASES, uno.apply_timeout),
    ErrorPenalty: (_IN_ROUND, uno.apply_error_penalty),
    ChooseColour: (frozenset({Phase.STARTER_COLOUR}), rounds.choose_starter_colour),
    Reveal: (_REVEAL, rounds.apply_reveal),
    Reseat: (frozenset({Phase.RESEAT}), rounds.apply_reseat),
}


def new_game(
    options: Options, players: Sequence[str], *, viewer: int = OMNISCIENT, now_ms: int = 0,
) -> tuple[State, list[Event]]:
    """A game before its first dealer is chosen, and the events that start it.

    ``players`` are the names by seat number; ``viewer`` is the seat whose view
    this is, or ``OMNISCIENT``. The events ask for shuffle 0 and the public
    reveal of one card per player (RULES.md "First dealer").

    Raises:
        ConfigError: bad player count, names, teams or viewer.
    """
    names = tuple(players)
    options.check_players(len(names))
    if len(set(names)) != len(names) or any(not n or len(n) > MAX_TEXT for n in names):
        raise ConfigError("player names must be distinct and 1 to 64 characters long")
    n = len(names)
    if not OMNISCIENT <= viewer < n:
        raise ConfigError(f"viewer must be a seat number or OMNISCIENT, not {viewer}")
    state = State(
        options=options, players=names, viewer=viewer, phase=Phase.DEALER_SELECTION, round=0,
        order=tuple(range(n)), dealer=None, current=None, direction=1, next_shuffle=0,
        draw_pile=(), discard=(), colour=None, hands=((),) * n, pending=0, pending_rank=None,
        drawn=None, last_player=None, uno_said=(False,) * n, exposed=None, exposed_ms=0,
        awaiting=(), contenders=(), challenge=None, claims=(), scores=(0,) * n,
        round_winner=None, winner=None, violations=(), turn_started_ms=now_ms, known={},
        seen=(frozenset(),) * n, public=frozenset(),
    )
    work = Work(state, now_ms)
    rounds.begin_dealer_selection(work, tuple(range(n)))
    return work.freeze(), work.events


def apply(state: State, action: Action, now_ms: int = 0) -> tuple[State, list[Event]]:
    """Apply one action; return the new state and what happened.

    ``now_ms`` is the log's time of the entry (it matters for ``turn_timer``
    and ``catch_grace_ms`` only). ``state`` itself is never changed.

    Raises:
        IllegalAction: the rules forbid the action now; ``rule`` names the rule.
    """
    phases, handler = HANDLERS[type(action)]
    seat = getattr(action, "seat", 0)
    if not 0 <= seat < len(state.players):
        raise IllegalAction(f"there is no seat {seat} at this table", rule="turn")
    if state.phase not in phases:
        raise IllegalAction(
            f"{type(action).__name__} is not possible now: the game is in {state.phase.value}",
            rule="turn")
    work = Work(state, now_ms)
    handler(work, action)
    return work.freeze(), work.events


def learn(state: State, faces: Iterable[tuple[Slot, int]]) -> tuple[State, list[ClaimViolated]]:
    """This viewer learned faces (a private reveal the deck proved, or the deck order).

    Any claim that the new faces show to be false is reported as a
    ``ClaimViolated`` event; it stays in the state until the public round-end
    reveal settles it for everyone, so that the public digest stays equal.

    Raises:
        IllegalAction: a face contradicts one this viewer already knows.
    """
    known = dict(state.known)
    for slot, card in faces:
        old = known.get(slot)
        if old is not None and old != card:
            raise IllegalAction(f"the slot {tuple(slot)} was known to hold card {old}, not {card}",
                                rule="card")
        known[slot] = card
    events: list[ClaimViolated] = []
    for claim in state.claims:
        if claim.verdict(state.known) is None and claim.verdict(known) is False:
            message = f"{state.players[claim.seat]} broke {claim.rule}: " + \
                rounds.describe_claim(claim.kind, claim.rule)
            events.append(ClaimViolated(claim.seat, claim.rule, message))
    return _replace(state, known=known), events


def deck_faces(event: ShuffleRequested, order: Sequence[int]) -> list[tuple[Slot, int]]:
    """Faces of a requested shuffle, given the new deck's order as card ids (omniscient)."""
    return [(Slot(event.shuffle, p), card) for p, card in enumerate(order)]


def view_for(state: State, seat: int) -> State:
    """Project an omniscient state to what ``seat`` may know.

    The seat keeps the faces of its own hand, the public ones (played, revealed
    at dealer selection or at round end) and the ones
    privately shown to it (a peek, a challenge, cards it gave away).
    """
    if state.viewer != OMNISCIENT:
        raise IllegalAction("only an omniscient state can be projected to a seat", rule="view")
    everything = state.known
    allowed = [*state.hands[seat], *state.public, *state.seen[seat]]
    allowed.extend(slot for slot, _ in state.discard)
    known = {slot: everything[slot] for slot in allowed if slot in everything}
    return _replace(state, viewer=seat, known=known, seen=(frozenset(),) * len(state.players))


def _replace(state: State, **changes: Any) -> State:
    values = list(state_values(state))
    for name, value in changes.items():
        values[FIELD_INDEX[name]] = value
    return State(*values)


def _slot_id(slot: Slot) -> int:
    return slot[0] << 7 | slot[1]


def public_part(state: State) -> tuple[object, ...]:
    """The public facts of a state, as nested tuples of ints, strs and bools.

    A slot is the int ``shuffle << 7 | position``; the options are their wire form;
    a seat, rank or colour the state says is None (none yet, or none now) is -1.
    """
    sid, none = _slot_id, _or_minus_one
    return (
        "uno-lan/rules/state/v1", _options_part(state.options), state.players,
        state.phase.value, state.round, state.order, none(state.dealer), none(state.current),
        state.direction, state.next_shuffle, tuple(map(sid, state.draw_pile)),
        tuple((sid(s), c) for s, c in state.discard), none(state.colour),
        tuple(tuple(map(sid, h)) for h in state.hands), state.pending,
        none(state.pending_rank), sid(state.drawn) if state.drawn else -1,
        none(state.last_player), state.uno_said, none(state.exposed), state.exposed_ms,
        tuple(map(sid, state.awaiting)),
        tuple((seat, sid(slot)) for seat, slot in state.contenders), _challenge(state.challenge),
        tuple((c.seat, c.kind, c.rule, tuple(map(sid, c.slots)), c.colour, c.top)
              for c in state.claims),
        state.scores, none(state.round_winner), none(state.winner), state.violations,
        state.turn_started_ms, tuple(sorted((sid(s), state.known[s]) for s in state.public)),
    )


def _challenge(challenge: WildFour | None) -> tuple[int, int, int]:
    """The digest's challenge: ``[-1, -1, -1]`` for none, a challenger not yet known -1
    (verdicts.md §5)."""
    if challenge is None:
        return (-1, -1, -1)
    challenger, challenged, colour = challenge
    return (_or_minus_one(challenger), challenged, colour)


def _or_minus_one(value: int | None) -> int:
    """A seat, rank or colour as the digest encodes it: -1 for none (verdicts.md §5; the state's
    API says None, and this is the one place that maps it, so no digest byte changed)."""
    return -1 if value is None else value


_OPTIONS_CACHE: dict[Options, tuple[tuple[str, object], ...]] = {}


def _options_part(options: Options) -> tuple[tuple[str, object], ...]:
    part = _OPTIONS_CACHE.get(options)
    if part is None:
        part = tuple((name, value) for name, value in options.to_wire())
        if len(_OPTIONS_CACHE) < 64:
            _OPTIONS_CACHE[options] = part
    return part


def public_digest(state: State) -> bytes:
    """SHA-256 of the canonical encoding of the public part of ``state``.

    Equal for every viewer (and the omniscient view) of the same history. The
    encoding is the wire's canonical msgpack (docs/protocol/wire.md §1) of
    ``public_part``, tuples as arrays: the bytes are specified field by field
    in docs/protocol/verdicts.md §5, so another implementation can check its
    state after every entry of the game vectors.
    """
    return hashlib.sha256(msgpack.packb(public_part(state), use_bin_type=True)).digest()


def faces_of(state: State, slots: Iterable[Slot]) -> list[tuple[Slot, int]]:
    """The ``(slot, face)`` pairs this viewer knows for ``slots`` (a driver's helper).

    Raises:
        IllegalAction: a face is unknown to this viewer.
    """
    known: Mapping[Slot, int] = state.known
    try:
        return [(slot, known[slot]) for slot in slots]
    except KeyError as missing:
        raise IllegalAction(f"this viewer does not know the face at {missing}",
                            rule="reveal") from None
