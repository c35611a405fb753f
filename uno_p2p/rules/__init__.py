"""The deterministic UNO rules engine (RULES.md), pure and viewer-aware.

The public API, the contract other layers build on:

- Cards: canonical ids 0..107 (``cards``: ``colour_of``, ``rank_of``,
  ``points``, ``short_name`` "R7"/"Y+2"/"B-skip"/"W+4", ``long_name``).
- ``Options`` (every RULES.md option, frozen and validated), ``preset(name,
  overrides)`` with ``PRESETS`` official/house/party/seeds.
- ``new_game(options, players, viewer=OMNISCIENT) -> (State, events)``;
  ``apply(state, action, now_ms) -> (State, events)`` (never mutates its
  input, raises ``IllegalAction(rule=...)``); ``legal_actions(state, seat)``;
  ``learn(state, faces)`` for private reveals; ``view_for(state, seat)``;
  ``public_digest(state)`` (equal for every viewer of the same history).
- Cards are ``Slot(shuffle, position)``; ``State.known`` maps the slots this
  viewer knows to card ids. Actions name slots *and* claimed faces.
- Events ask the table for work (``ShuffleRequested``, ``RevealRequested``,
  ``CardsDrawn``, ``ReseatRequested``) or report facts (``CardsPlayed``,
  ``RoundOver``, ``GameOver``, ``ClaimViolated``...).
- Bots (``RandomBot``, ``HeuristicBot``, the searching ``SearchBot``) act on a
  seat's view only; the omniscient ``Driver``/``play_game`` plays whole games
  from a seed.

How a table drives the engine (docs/protocol.md): apply each accepted log
entry's action with the entry's time as ``now_ms``; answer each event:
``ShuffleRequested`` -> run the joint shuffle (slots ``Slot(shuffle, 0..size-1)``,
position 0 drawn first); ``CardsDrawn(seat)`` and private ``RevealRequested``
-> reveal the faces to that seat alone, which feeds them to ``learn``;
public ``RevealRequested`` (``to == EVERYONE``) -> a ``Reveal`` action with
the proven faces (the game waits for it: ``State.awaiting``);
``ReseatRequested`` -> a ``Reseat`` action with a jointly drawn seating.
``TimeOut(State.current)`` is valid in every phase where a player owes a
decision (``state.TIMED_PHASES``: a turn, a challenge verdict, a starter
Wild's colour) once ``now_ms >= State.turn_started_ms + turn_timer*1000``.
"""

from __future__ import annotations

from uno_p2p.rules.actions import (
    ACTION_TYPES,
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
    action_from_wire,
)
from uno_p2p.rules.bots import BOTS, Bot, HeuristicBot, RandomBot
from uno_p2p.rules.cards import (
    CARD_COUNT,
    Colour,
    Rank,
    colour_of,
    is_black,
    is_number,
    long_name,
    points,
    rank_of,
    short_name,
)
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.engine import (
    apply,
    deck_faces,
    faces_of,
    learn,
    new_game,
    public_digest,
    public_part,
    view_for,
)
from uno_p2p.rules.events import (
    EVENT_TYPES,
    EVERYONE,
    CardsDrawn,
    CardsPlayed,
    ChallengeResolved,
    ClaimViolated,
    DealerChosen,
    Event,
    GameOver,
    ReseatRequested,
    RevealRequested,
    RoundOver,
    ShuffleRequested,
    UnoCaught,
    UnoSaid,
    event_from_wire,
)
from uno_p2p.rules.legal import legal_actions
from uno_p2p.rules.options import PRESETS, Options, parse_assignment, preset
from uno_p2p.rules.prng import Stream
from uno_p2p.rules.search import SearchBot  # registers BOTS["search"]
from uno_p2p.rules.simulate import Driver, GameResult, play_game
from uno_p2p.rules.state import OMNISCIENT, TRANSITIONS, Claim, Phase, State, playable

__all__ = [
    "ACTION_TYPES",
    "BOTS",
    "CARD_COUNT",
    "EVENT_TYPES",
    "EVERYONE",
    "OMNISCIENT",
    "PRESETS",
    "TRANSITIONS",
    "Action",
    "Bot",
    "CardsDrawn",
    "CardsPlayed",
    "CatchUno",
    "Challenge",
    "ChallengeResolved",
    "ChallengeVerdict",
    "ChooseColour",
    "Claim",
    "ClaimViolated",
    "Colour",
    "DealerChosen",
    "Draw",
    "Driver",
    "ErrorPenalty",
    "Event",
    "GameOver",
    "GameResult",
    "HeuristicBot",
    "Options",
    "Pass",
    "Phase",
    "Play",
    "RandomBot",
    "Rank",
    "Reseat",
    "ReseatRequested",
    "Reveal",
    "RevealRequested",
    "RoundOver",
    "SayUno",
    "SearchBot",
    "ShuffleRequested",
    "Slot",
    "State",
    "Stream",
    "TimeOut",
    "UnoCaught",
    "UnoSaid",
    "action_from_wire",
    "apply",
    "colour_of",
    "deck_faces",
    "event_from_wire",
    "faces_of",
    "is_black",
    "is_number",
    "learn",
    "legal_actions",
    "long_name",
    "new_game",
    "parse_assignment",
    "play_game",
    "playable",
    "points",
    "preset",
    "public_digest",
    "public_part",
    "rank_of",
    "short_name",
    "view_for",
]
