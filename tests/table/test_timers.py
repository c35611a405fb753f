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
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.table.player import Seat


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


def test_a_challenger_who_never_gives_the_verdict_is_timed_out_and_the_game_goes_on() -> None:
    setup = TableSetup(2, preset("official", ["target=100", "turn_timer=30"]), b"vanishes")
    net = seat_table(setup, custom={1: Vanishing})
    net.run(until=game_over)
    entries = net.entries()
    moves = [e.body.action for e in entries if isinstance(e.body, Move)]
    lapsed = [i for i, a in enumerate(moves[:-1])
              if isinstance(a, Challenge) and moves[i + 1] == TimeOut(a.seat)]
    assert lapsed, "no challenge was timed out"
    assert not any(isinstance(a, ChallengeVerdict) and a.seat == 1 for a in moves)
    assert all(p.stopped is None for p in net.peers.values())
    game = net.host.state.engine
    assert game is not None
    assert game.winner is not None
