"""The plain-text console of ``uno-lan host/join --text``: chat typed and shown."""

from __future__ import annotations

import pytest

from uno_p2p.cli.lan import Console
from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.options import preset
from uno_p2p.table.events import ChatSaid
from uno_p2p.table.memnet import seeded
from uno_p2p.table.peer import TablePeer


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
    console.command("say Good luck, Bob\n")
    events = [e for e in iter(ann.next_event, None) if isinstance(e, ChatSaid)]
    assert [(e.text, e.mine) for e in events] == [("Good luck, Bob", True)]  # case kept
    assert driver.pumps == 1
    console.event(ChatSaid(ann.peer_id, "Bob", "thanks!", False))
    console.event(events[0])  # our own line is not echoed back
    assert capsys.readouterr().out == "Bob says: thanks!\n"
    console.command("say \n")
    assert "Not now:" in capsys.readouterr().out
