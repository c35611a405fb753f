"""Removing a player who vanished or left (docs/rules.md "A player who vanishes or leaves").

The round under way is void: nobody scores it, its cards stay where they are
(face down, never opened), and a new round is dealt among the players left,
starting with the choice of a dealer. The removed player's hand goes with
its round; its turns are no one's; its score leaves the table with it (it can
no longer win). The players left keep their scores and their seat order.

Pure, like the rest of the engine: the new state and the events that start
the new round (a void ``RoundOver`` for the abandoned round first). The
table's shuffle numbers go on from where they were, so every deck of the
game keeps a distinct number.
"""

from __future__ import annotations

from dataclasses import replace

from uno_p2p.errors import ConfigError
from uno_p2p.rules import rounds
from uno_p2p.rules.events import Event, RoundOver
from uno_p2p.rules.state import OMNISCIENT, Phase, State
from uno_p2p.rules.work import Work


def can_remove(state: State, seat: int) -> str:
    """Why ``seat`` cannot be removed from ``state`` ("" when it can).

    Teams stay as they were dealt (a team game cannot lose a member), and a
    game needs two players.
    """
    if not 0 <= seat < len(state.players):
        return f"there is no seat {seat}"
    if state.phase == Phase.GAME_OVER:
        return "the game is over"
    if state.options.teams:
        return "a team game cannot lose a player"
    try:
        state.options.check_players(len(state.players) - 1)
    except ConfigError as error:
        return str(error)
    return ""


def remove_player(state: State, seat: int, now_ms: int = 0) -> tuple[State, list[Event]]:
    """The state without ``seat``: the round void, a dealer to choose among the rest.

    Raises:
        ConfigError: ``can_remove`` says why not.
    """
    why = can_remove(state, seat)
    if why:
        raise ConfigError(f"seat {seat} cannot be removed: {why}")
    keep = [s for s in range(len(state.players)) if s != seat]
    viewer = state.viewer
    if viewer == seat:
        viewer = OMNISCIENT
    elif viewer > seat:
        viewer -= 1
    void = RoundOver(state.round, -1, (0,) * len(state.players))
    n = len(keep)
    fresh = replace(
        state, players=tuple(state.players[s] for s in keep), viewer=viewer,
        phase=Phase.DEALER_SELECTION, order=tuple(range(n)), dealer=None, current=None,
        direction=1, draw_pile=(), discard=(), colour=None, hands=((),) * n, pending=0,
        pending_rank=None, drawn=None, last_player=None, uno_said=(False,) * n, exposed=None,
        exposed_ms=0, awaiting=(), contenders=(), challenge=None, claims=(),
        scores=tuple(state.scores[s] for s in keep), round_winner=None, winner=None,
        violations=(), turn_started_ms=now_ms, known={}, seen=(frozenset(),) * n,
        public=frozenset(),
    )
    work = Work(fresh, now_ms)
    rounds.begin_dealer_selection(work, tuple(range(n)))
    return work.freeze(), [void, *work.events]


__all__ = ["can_remove", "remove_player"]
