"""The table screen for a network session: the game screen on the table's clock.

A network table's turn timer runs on the table clock (wall milliseconds, the
sequencer's ``clock_ms``; docs/protocol/table.md §6.1), so the screen reads
that clock instead of its own monotonic one; everything else is the game
screen as the local game has it (the session paces itself: ``SelfPaced``).
"""

from __future__ import annotations

from uno_p2p.net.driver import wall_ms
from uno_p2p.ui.app import GameScreen
from uno_p2p.ui.netsession import NetSession


class NetGameScreen(GameScreen):
    """``GameScreen`` over one ``NetSession``."""

    def __init__(self, session: NetSession, plain: bool) -> None:
        super().__init__(lambda game: (session, ""), 0.0, plain)

    def now_ms(self) -> int:
        return wall_ms()
