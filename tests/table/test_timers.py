"""No stalls at a table: the sequencer times out every decision a player owes
(RULES.md: "Every decision a player owes (a play, a colour to name, a challenge, a
reseat, a swap) is covered by turn_timer, so no table can stall")."""

from __future__ import annotations

from collections.abc import Sequence

from tests.table import adversaries as adv
from uno_p2p.rules.actions import Action, Challenge, ChallengeVerdict, TimeOut
from uno_p2p.rules.bots import HeuristicBot
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import State
from uno_p2p.table.bodies import Move
from uno_p2p.table.memnet import Network, TableSetup, seat_table
from uno_p2p.table.player import Seat
from uno_p2p.table.state import TablePhase


class ChallengesThenVanishes(HeuristicBot):
    """Challenges every Wild Draw Four, then never gives the verdict."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        if any(isinstance(a, ChallengeVerdict) for a in actions):
            return None
        challenge = [a for a in actions if isinstance(a, Challenge)]
        return challenge[0] if challenge else super().choose(view, seat, actions, must_act)


class Vanishing(adv.Playing):
    def move(self, seat: Seat) -> bool:
        return seat.bot_move(ChallengesThenVanishes(b"vanish" +
                                                    seat.state.seq.to_bytes(8, "big")))


def _moves(net: Network) -> list[Action]:
    return [e.body.action for e in net.entries() if isinstance(e.body, Move)]


def _lapsed(moves: list[Action]) -> list[int]:
    """Where a challenge was followed by its challenger's time-out."""
    return [i for i, a in enumerate(moves[:-1])
            if isinstance(a, Challenge) and moves[i + 1] == TimeOut(a.seat)]


def test_a_challenger_who_never_gives_the_verdict_is_timed_out_and_the_game_goes_on() -> None:
    setup = TableSetup(2, preset("official", ["target=100", "turn_timer=30"]), b"vanishes")
    net = seat_table(setup, custom={1: Vanishing})
    seen = [0]

    def went_on(n: Network) -> bool:
        # Until a challenge has lapsed and five moves more are logged: the game goes on
        # (its end, rounds later, adds nothing to the time-out).
        if len(n.entries()) == seen[0]:
            return False
        seen[0] = len(n.entries())
        moves = _moves(n)
        lapsed = _lapsed(moves)
        return bool(lapsed) and len(moves) > lapsed[0] + 6

    net.run(until=went_on)
    moves = _moves(net)
    lapsed = _lapsed(moves)
    assert lapsed, "no challenge was timed out"
    assert len(moves) > lapsed[0] + 6, "the game went on"
    assert not any(isinstance(a, ChallengeVerdict) and a.seat == 1 for a in moves)
    assert all(p.stopped is None for p in net.peers.values())
    assert all(p.state.phase == TablePhase.PLAYING for p in net.peers.values())
