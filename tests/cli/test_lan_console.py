"""The plain-text console of ``uno-lan host/join --text`` and ``uno-lan bot``: chat typed
and shown, and the names it prints once a seat is removed (table.md §14)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import cast

import pytest

from tests.table.test_handover import MAX_STEPS
from tests.table.test_removal import _table, _vanish
from uno_p2p.audit.core import audit_entries
from uno_p2p.audit.report import AuditReport, Status
from uno_p2p.cli import lan
from uno_p2p.cli.lan import Console, finish
from uno_p2p.crypto.identity import Identity
from uno_p2p.net.driver import Driver
from uno_p2p.rules.options import preset
from uno_p2p.table.events import ChatSaid, GameStarted, PlayerRemoved, Progress, TableEvent
from uno_p2p.table.memnet import Network, game_over, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.removal import LEFT
from uno_p2p.ui.networds import OUT_OF_REACH

pytestmark = pytest.mark.game


class Pumped:
    """The part of a node the console uses: the peer, its clock, and pump."""

    def __init__(self, peer: TablePeer) -> None:
        self.peer = peer
        self.pumps = 0

    def clock(self) -> int:
        return 1_000

    def pump(self) -> None:
        self.pumps += 1


def test_say_sends_a_chat_line_and_others_lines_are_printed(
        capsys: pytest.CaptureFixture[str]) -> None:
    ann = TablePeer.host(Identity(seeded(b"t", "ann")), seeded(b"t", "e"),
                         table_id=seeded(b"t", "table", 16), name="Ann",
                         options=preset("official"), bot=None)
    console = Console(True)
    driver = Pumped(ann)
    console.driver = driver  # type: ignore[assignment]
    typed = "Good luck, Bob"
    console.command(f"say {typed}\n")
    events = [e for e in iter(ann.next_event, None) if isinstance(e, ChatSaid)]
    assert [(e.text, e.mine) for e in events] == [(typed, True)]  # case kept
    assert driver.pumps == 1
    console.event(ChatSaid(ann.peer_id, "Bob", "thanks!", False))
    console.event(events[0])  # our own line is not echoed back
    assert capsys.readouterr().out == lan.SAYS.format(name="Bob", text="thanks!") + "\n"
    console.command("say \n")
    assert capsys.readouterr().out.startswith(lan.NOT_NOW.format(error=""))


# -- a seat removed mid-game (table.md §14) ------------------------------------------------
#: Bob, between the host Ann and Cy: once he is removed, Cy's seat number closes up.
VICTIM = 1
READER = 2


@dataclass
class RemovedGame:
    """A 3-seat in-memory game where Bob vanished and was removed, and its facts."""

    reader: TablePeer
    report: AuditReport
    removed: tuple[str, ...]
    #: The players left, in seat order: the log's seating without the removed.
    seating: tuple[str, ...]


def play_with_removal(seed: bytes, on_event: Callable[[TableEvent], None],
                      at_start: Callable[[TablePeer], None] = lambda peer: None) -> RemovedGame:
    """Cy's events go to ``on_event`` as they come; ``at_start`` sees Cy's peer once the
    game is under way, before Bob vanishes. The facts come from the audit of the log."""
    net = _table(seed, 3, 30)
    peers = list(net.peers.values())
    reader, fed = peers[READER], 0

    def feed(_: Network) -> bool:
        nonlocal fed
        events = net.events[reader.peer_id.key]
        for event in events[fed:]:
            on_event(event)
        fed = len(events)
        return False

    net.run(until=lambda n: feed(n) or n.host.state.seq > 40, max_steps=MAX_STEPS)
    assert reader.state.engine is not None, "the game is under way"
    at_start(reader)
    _vanish(net, peers[VICTIM])
    net.run(until=lambda n: feed(n) or game_over(n), max_steps=MAX_STEPS)
    feed(net)
    report = audit_entries(net.entries(reader))
    assert report.status == Status.OK, report.lines()
    removed = tuple(r.name for r in report.removed)
    assert removed == ("Bob",)
    start = sorted((p for p in report.players if p.seat is not None),
                   key=lambda p: p.seat or 0)
    seating = tuple(p.name for p in start if p.name not in removed)
    return RemovedGame(reader, report, removed, seating)


def test_after_a_removal_the_console_names_the_players_left(
        capsys: pytest.CaptureFixture[str]) -> None:
    console = Console(False)
    seen: list[TableEvent] = []

    def told(event: TableEvent) -> None:
        seen.append(event)
        console.event(event)

    game = play_with_removal(b"console removal 2", told)
    finish(None, console)
    lines = capsys.readouterr().out.splitlines()
    report, seating = game.report, game.seating
    assert report.winner == "Cy", "this seed's game is won by the seat after Bob's"
    points = report.scores[seating.index(report.winner)]
    assert lines[-1] == lan.GAME_OVER.format(winner=report.winner, points=points)
    last = report.rounds[-1]
    named = ", ".join(f"{n} {s}" for n, s in zip(seating, last.scores, strict=True))
    assert lan.ROUND_OVER.format(round=last.number, scores=named) in lines
    (gone,) = [e for e in seen if isinstance(e, PlayerRemoved)]
    assert gone.name == "Bob"
    assert gone.reason not in (LEFT, ""), "vanished, not left: the sequencer's reason is told"
    told_gone = lan.REMOVED_VANISHED.format(name="Bob", reason=gone.reason,
                                            players=", ".join(seating))
    removal = lines.index(told_gone)
    assert not any("Bob" in line for line in lines[removal + 1:]), "Bob is gone for good"


def test_the_console_says_a_hand_over_in_a_player_s_words(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 25: "(Ann (the sequencer) is gone: Bo takes over)" reached the player.
    Console(human=True).event(Progress("Ann (the sequencer) is gone: Bo takes over"))
    assert capsys.readouterr().out == f"({OUT_OF_REACH.format(old='Ann', new='Bo')})\n"


def test_a_player_who_left_is_told_as_leaving_not_vanishing(
        capsys: pytest.CaptureFixture[str]) -> None:
    # table.md §8 (issue 25): a seat removed by its own leave left; the others play on.
    console = Console(False)
    console.names = ("Ann", "Bob", "Cy")
    bob = Identity(seeded(b"left", "bob")).peer
    console.event(PlayerRemoved(bob, "Bob", 1, 40, LEFT))
    assert capsys.readouterr().out.splitlines()[-1] == lan.REMOVED_LEFT.format(
        name="Bob", players="Ann, Cy")


def test_a_text_player_does_not_hold_the_next_round(
        capsys: pytest.CaptureFixture[str]) -> None:
    # table.md §6: the pause between rounds waits for a scores box to close; the text
    # console prints the scores and has none, so its seat does not pause.
    me, host = Identity(seeded(b"text", "me")), Identity(seeded(b"text", "host")).peer
    peer = TablePeer.join(me, seeded(b"text", "entropy"), table_id=bytes(16), host=host,
                          name="Ann", bot=None)
    before = peer.initiative.pauses_between_rounds
    console = Console(True)
    console.driver = cast(Driver, SimpleNamespace(seated=peer))
    console.event(GameStarted(("Ann", "Bob"), preset("official")))
    assert (before, peer.initiative.pauses_between_rounds) == (True, False)
    assert capsys.readouterr().out.splitlines()[-1] == lan.GAME_STARTS.format(
        players="Ann, Bob")
