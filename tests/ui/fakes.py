"""A network table without a network: the local game plus a status the test sets.

It stands in for the session the network layer provides (``NetworkTable``):
the screen and the controller only see the contract, so what they show of
players, waits, stops and chat is checked here without sockets.
"""

from __future__ import annotations

from dataclasses import replace

from uno_p2p.rules import Options, preset
from uno_p2p.ui.session import LocalTable
from uno_p2p.ui.status import ChatLine, TableStatus, check_chat


class FakeNetworkTable(LocalTable):
    """``LocalTable`` with ``table_status`` and ``send_chat``; ``set_status`` changes it."""

    def __init__(self, seed: str = "net", players: int = 3,
                 options: Options | None = None) -> None:
        super().__init__(options or preset("official"), players, seed.encode(), "Ann")
        self.status = TableStatus()
        self.sent: list[str] = []

    def table_status(self) -> TableStatus:
        return self.status

    def send_chat(self, text: str) -> None:
        self.sent.append(check_chat(text))
        self.set_status(chat=(*self.status.chat, ChatLine("Ann", text, mine=True)))

    def set_status(self, **changes: object) -> None:
        """Change the status as a session would, and tell the listeners."""
        self.status = replace(self.status, **changes)  # type: ignore[arg-type]
        for listener in self._listeners:
            listener()
