"""A driver whose games use the clock: catch_grace_ms, turn_timer and error_penalty.

The omniscient ``Driver`` moves its clock one second per action and never
times anyone out. Like a table (docs/protocol/table.md §6), this one waits out
the UNO grace period when the engine holds a move back for it, and now and
then lets a turn run out (``TimeOut``) or charges an ``ErrorPenalty`` for a
refused play, so that random games cover the timed rules too.
"""

from __future__ import annotations

import random

from uno_p2p.errors import IllegalAction
from uno_p2p.rules import Action, Options, Phase
from uno_p2p.rules.actions import ErrorPenalty, TimeOut
from uno_p2p.rules.simulate import Driver


class TimedDriver(Driver):
    """``Driver`` plus the clock's rules; ``timed`` counts what they did."""

    def __init__(self, options: Options, players: int, seed: int, bots: str = "random",
                 **kwargs: bool | int) -> None:
        self.chance = random.Random(seed)
        self.timed = {"grace_waits": 0, "timeouts": 0, "error_penalties": 0}
        super().__init__(options, players, seed, bots, **kwargs)  # type: ignore[arg-type]

    def apply(self, action: Action) -> None:
        try:
            super().apply(action)
        except IllegalAction as error:
            if error.rule != "catch_grace_ms":
                raise
            # The table's answer to a move held back by the grace period: wait, then retry.
            self.now_ms = self.state.exposed_ms + self.state.options.catch_grace_ms
            self.timed["grace_waits"] += 1
            super().apply(action)

    def step(self) -> bool:
        state, options, seat = self.state, self.state.options, self.state.current
        live = state.phase == Phase.PLAYING and not state.awaiting and seat is not None and (
            self.max_rounds == 0 or state.round <= self.max_rounds)
        if live and seat is not None and options.turn_timer and self.chance.random() < 0.05:
            self.now_ms = max(self.now_ms, state.turn_started_ms + options.turn_timer * 1000)
            self.apply(TimeOut(seat))
            self.timed["timeouts"] += 1
            return True
        if live and options.error_penalty and self.chance.random() < 0.02:
            self.apply(ErrorPenalty(self.chance.randrange(len(state.players))))
            self.timed["error_penalties"] += 1
            return True
        return super().step()
