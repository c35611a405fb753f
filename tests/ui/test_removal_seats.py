"""The full-screen UI once a seat is removed (table.md §14): the seats close up.

A 3-seat in-memory table (the real protocol, every peer a bot) plays until the
game is under way; the screens' side for Cy (a ``NetSession`` and its
``Controller``, woken on every event as ``GameApp`` wakes them) is made then.
Bob, between Ann and Cy, vanishes and is removed; Cy's seat number drops from
2 to 1. What Cy would check: the screen keeps working, and the end names the
players left with their scores, as the audit of the log has them.
"""

from __future__ import annotations

import pytest

from tests.cli.test_lan_console import play_with_removal
from uno_p2p.table.events import TableEvent
from uno_p2p.table.peer import TablePeer
from uno_p2p.ui.controller import Controller
from uno_p2p.ui.modes import Mode
from uno_p2p.ui.netsession import NetSession
from uno_p2p.ui.overlays import dialog
from uno_p2p.ui.render import Seats, plain_text
from uno_p2p.ui.words import removed_line

pytestmark = pytest.mark.game


class Seated:
    """The part of a node the session reads: the peer it seats."""

    def __init__(self, peer: TablePeer) -> None:
        self.seated = peer

    def pump(self) -> None:
        """The in-memory network moves the peer's frames at its next delivery."""


def test_after_a_removal_the_screen_follows_the_seats_and_names_the_winner() -> None:
    session = NetSession()
    controllers: list[Controller] = []

    def wake() -> None:  # what GameApp does when the table changes
        for controller in controllers:
            controller.sync()
            if controller.mode == Mode.ROUND:
                controller.press("enter", 0)  # the player closes each round's table

    def start(peer: TablePeer) -> None:
        session.driver = Seated(peer)  # type: ignore[assignment]
        controllers.append(Controller(session))
        session.add_listener(wake)

    def event(happened: TableEvent) -> None:
        if session.driver is not None:
            session.event(happened)

    game = play_with_removal(b"console removal 5", event, start)
    seating, report = game.seating, game.report
    controller = controllers[0]
    assert controller.seats == Seats(seating, seating.index("Cy"))
    assert controller.mode == Mode.OVER
    box = dialog(controller)
    assert box is not None
    text = plain_text(box)
    winner = report.winner
    assert winner is not None
    assert ("You win the game!" if winner == "Cy" else f"{winner} wins the game.") in text
    ranked = sorted(zip(report.scores, seating, strict=True), reverse=True)
    for place, (score, name) in enumerate(ranked, 1):
        assert f" {place:>2}. {name:<16} {score:>6}" in text
    assert "Bob" not in text
    assert removed_line("Bob", False, False) in session.news
