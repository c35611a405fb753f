"""The state of a game as one viewer knows it.

A ``State`` is an immutable value: ``apply`` returns a new one. Cards are
tracked as ``Slot``s (places in a joint shuffle); ``known`` maps the slots
whose faces *this viewer* knows to card ids. ``viewer`` is a seat number for
a player's view, or ``OMNISCIENT`` for the simulation and the audit, which
know every face. The public part (everything except ``known`` and ``seen``)
is identical for every viewer of the same history, and ``public_digest``
hashes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum
from operator import attrgetter
from typing import TypeVar

from uno_p2p.errors import LocalProtocolError
from uno_p2p.rules.cards import CARD_COLOUR, CARD_RANK, Rank
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.options import Options

OMNISCIENT = -1
NOBODY = -1
T = TypeVar("T")
#: A Wild Draw Four that may be challenged: ``(challenger, challenged, colour)``, the
#: challenger None until someone challenges (RULES.md "Challenging").
WildFour = tuple[int | None, int, int]


class Phase(Enum):
    """Where the game stands; ``TRANSITIONS`` lists the moves between phases."""

    DEALER_SELECTION = "dealer_selection"  # waiting for the public reveal of drawn cards
    RESEAT = "reseat"                      # waiting for a Reseat (seat_shuffle_every)
    STARTER = "starter"                    # waiting for the public reveal of the starter
    STARTER_COLOUR = "starter_colour"      # a Wild starter: waiting for its colour
    PLAYING = "playing"
    CHALLENGE = "challenge"                # waiting for the challenger's verdict
    ROUND_OVER = "round_over"              # waiting for the public reveal of the hands
    GAME_OVER = "game_over"


#: The only phase changes the engine makes (h11-style explicit table).
TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.DEALER_SELECTION: frozenset({Phase.DEALER_SELECTION, Phase.STARTER}),
    Phase.RESEAT: frozenset({Phase.STARTER}),
    Phase.STARTER: frozenset({Phase.STARTER, Phase.STARTER_COLOUR, Phase.PLAYING}),
    Phase.STARTER_COLOUR: frozenset({Phase.PLAYING}),
    Phase.PLAYING: frozenset({Phase.PLAYING, Phase.CHALLENGE, Phase.ROUND_OVER}),
    Phase.CHALLENGE: frozenset({Phase.PLAYING, Phase.ROUND_OVER}),
    Phase.ROUND_OVER: frozenset({Phase.RESEAT, Phase.STARTER, Phase.GAME_OVER}),
    Phase.GAME_OVER: frozenset(),
}

#: Phases in which a player owes a decision, all covered by ``turn_timer`` (RULES.md:
#: "Every decision a player owes ... is covered by turn_timer, so no table can stall"):
#: a turn (a play with its colour, 7-swap target or Wild power), a challenge verdict, a
#: starter Wild's colour. ``State.current`` owes it. A reseat is drawn by the table from
#: the log (no player decides it), so it cannot stall.
TIMED_PHASES = frozenset({Phase.PLAYING, Phase.CHALLENGE, Phase.STARTER_COLOUR})


def check_transition(old: Phase, new: Phase) -> None:
    """Refuse a phase change the table does not list.

    Raises:
        LocalProtocolError: the engine itself tried an unlisted transition (a bug).
    """
    if new not in TRANSITIONS[old]:
        raise LocalProtocolError(f"no transition from {old.value} to {new.value}")


@dataclass(frozen=True, slots=True)
class Claim:
    """A statement about hidden cards, checked once their faces are known.

    ``kind`` is ``"unplayable"`` (the card at ``slots[0]`` could not be played
    on ``colour``/``top``), ``"playable"`` (it could), ``"no_colour"`` (no card
    at ``slots`` has colour ``colour``: a Wild Draw Four's condition, or a "not
    guilty" verdict) or ``"has_colour"`` (some card at ``slots`` has it: a
    "guilty" verdict). ``rule`` is the RULES.md name the claim upholds.

    A drawn Wild Draw Four is playable (RULES.md: a player "may bluff") unless
    ``wd4_strict`` applies; then the claim lists the rest of the hand after the
    drawn card, and the card is playable only if none of it has the colour.
    """

    seat: int
    kind: str
    rule: str
    slots: tuple[Slot, ...]
    colour: int
    top: int

    def verdict(self, known: Mapping[Slot, int]) -> bool | None:
        """True if the claim holds, False if it is false, None while faces are unknown."""
        faces = [known.get(slot) for slot in self.slots]
        if self.kind in ("no_colour", "has_colour"):
            held = _holds_colour(faces, self.colour)
            return held if held is None or self.kind == "has_colour" else not held
        face = faces[0]
        if face is None:
            return None
        if face >= 104:
            # RULES.md: the bluff is part of the game, so a Wild Draw Four may always be
            # played; under wd4_strict only when the rest of the hand lacks the colour.
            held = _holds_colour(faces[1:], self.colour) if len(faces) > 1 else False
            if held is None:
                return None
            return (not held) == (self.kind == "playable")
        return playable(face, self.colour, self.top) == (self.kind == "playable")


def _holds_colour(faces: list[int | None], colour: int) -> bool | None:
    """Whether some face has ``colour`` (None while an unknown face could decide it)."""
    if any(f is not None and CARD_COLOUR[f] == colour for f in faces):
        return True
    return None if None in faces else False


def playable(card: int, colour: int | None, top: int) -> bool:
    """RULES.md "A turn": match the colour to match, or the top's number or symbol, or black.

    ``colour`` is the colour to match (a Wild's named colour; None before it is named),
    ``top`` the top card.
    """
    if card >= 100:
        return True
    if CARD_COLOUR[card] == colour:
        return True
    return top < 100 and CARD_RANK[card] == CARD_RANK[top]


@dataclass(frozen=True, slots=True)
class State:
    """One viewer's knowledge of a game. Build with ``new_game``; change with ``apply``.

    Seats are the players' fixed numbers; ``order`` is the clockwise seating.
    ``dealer`` is None until the first dealer is drawn, ``current`` (whose turn it is,
    or was once a round ends) until the first turn is given, ``colour`` (the colour to
    match) until the starter is turned and a Wild starter's colour named.
    ``draw_pile`` and ``discard`` have their top card last. ``pending`` is the
    draw penalty waiting for ``current`` (``pending_rank`` the card that set it,
    None with no penalty). ``drawn`` is the card ``current`` drew this turn and may
    still play. ``last_player`` is who played the top card when the last action was
    a play (the jump-in window), else None. ``round_winner`` and ``winner`` are None
    until a round or the game is won (a void round has none). ``exposed`` is the
    player catchable for a missed UNO, else None. The public digest says -1 for each
    None (``engine.public_part``). ``awaiting`` are the slots of a pending public reveal.
    ``challenge`` is the last Wild Draw Four while it may be or is being challenged,
    ``(challenger, challenged, colour)`` (``WildFour``), else None.
    ``scores`` are points (``points``/``losses``) or chip balances (``chips``).
    """

    options: Options
    players: tuple[str, ...]
    viewer: int
    phase: Phase
    round: int
    order: tuple[int, ...]
    dealer: int | None
    current: int | None
    direction: int
    next_shuffle: int
    draw_pile: tuple[Slot, ...]
    discard: tuple[tuple[Slot, int], ...]
    colour: int | None
    hands: tuple[tuple[Slot, ...], ...]
    pending: int
    pending_rank: int | None
    drawn: Slot | None
    last_player: int | None
    uno_said: tuple[bool, ...]
    exposed: int | None
    exposed_ms: int
    awaiting: tuple[Slot, ...]
    contenders: tuple[tuple[int, Slot], ...]
    challenge: WildFour | None
    claims: tuple[Claim, ...]
    scores: tuple[int, ...]
    round_winner: int | None
    winner: int | None
    violations: tuple[tuple[int, str], ...]
    turn_started_ms: int
    known: Mapping[Slot, int]
    seen: tuple[frozenset[Slot], ...]
    public: frozenset[Slot]

    # Convenience for the UI, bots and tests -------------------------------------------------
    @property
    def top_card(self) -> int | None:
        """The face of the top discard (None before the starter is turned)."""
        return self.discard[-1][1] if self.discard else None

    def hand(self, seat: int) -> tuple[Slot, ...]:
        """The slots in ``seat``'s hand."""
        return self.hands[seat]

    def hand_faces(self, seat: int) -> tuple[int | None, ...]:
        """The faces of ``seat``'s hand as this viewer knows them (None = unknown)."""
        known = self.known
        return tuple(known.get(slot) for slot in self.hands[seat])

    def team_of(self, seat: int) -> int:
        """``seat``'s team (RULES.md ``teams``: seated alternately), or the seat itself."""
        return seat % self.options.teams if self.options.teams else seat

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The player ``steps`` places after ``seat`` in the direction of play."""
        return seat_after(self.order, self.direction, seat, steps)

    def decider(self) -> int | None:
        """The seat whose decision the game waits for: the challenger during a challenge,
        else the current player in a turn or a starter Wild's colour (``TIMED_PHASES``);
        None when it waits for no player (a deal, a reveal, a round's end).

        The one answer to "whose move is it": the bots, the table's removals and
        hand-overs, and the screen all ask it here.
        """
        if self.phase == Phase.CHALLENGE:
            return required(self.challenge, "Wild Draw Four in a challenge")[0]
        return self.current if self.phase in TIMED_PHASES else None

    def decision_deadline_ms(self) -> int | None:
        """When the decision ``current`` owes runs out (RULES.md ``turn_timer``): a turn,
        a challenge verdict or a starter Wild's colour (``TIMED_PHASES``), on the log's
        clock; None with no timer or no decision owed. A ``TimeOut`` is valid from then.
        """
        limit = self.options.turn_timer * 1000
        if not limit or self.phase not in TIMED_PHASES:
            return None
        return self.turn_started_ms + limit


def required(value: T | None, what: str) -> T:
    """``value``, where the rules say the game has one by now: a dealer once a round
    starts, a colour to match and a player with the turn in play (a Wild starter's
    colour is named before anyone plays), the Wild Draw Four in a challenge. None there
    is the engine's own bug.

    Raises:
        LocalProtocolError: the game has no ``what`` yet.
    """
    if value is None:
        raise LocalProtocolError(f"the game has no {what} yet")
    return value


def seat_after(order: tuple[int, ...], direction: int, seat: int, steps: int = 1) -> int:
    """The player ``steps`` places after ``seat`` in ``order`` going ``direction`` (+1/-1).

    The one place that walks the seating: ``State`` and ``Work`` both call it.
    """
    return order[(order.index(seat) + steps * direction) % len(order)]


STATE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(State))
#: All field values of a state (or of a ``Work``), in ``STATE_FIELDS`` order, in one
#: C-level call: ``State(*state_values(s))`` rebuilds ``s``. ``apply`` and ``view_for``
#: run once per action, and a per-field ``getattr`` loop was a tenth of their time.
state_values = attrgetter(*STATE_FIELDS)
#: Index of each field in ``STATE_FIELDS`` (to replace a few values positionally).
FIELD_INDEX: dict[str, int] = {name: i for i, name in enumerate(STATE_FIELDS)}
PRIVATE_FIELDS = frozenset({"known", "seen", "viewer"})
#: Ranks a penalty can come from (``pending_rank``).
PENALTY_RANKS = (Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR)
