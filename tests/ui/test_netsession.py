"""The network session under the screens, with real nodes on 127.0.0.1 in this process.

A ``HostNode`` whose player is human (no bot) and two ``JoinNode`` bot peers
talk over real loopback sockets with the full protocol (keys, proven
shuffles, private reveals). The session must show only what the host's seat
may know (table.md §5: its own hand, public cards), offer exactly the rules
engine's legal moves for that seat (RULES.md), send a move through the peer
(it is logged and seen by the others), and refuse moves for other seats. The
screens then run on prompt-toolkit's pipe input and a dummy output: the lobby
starts the game with ``s``, the table draws with ``d``.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest

from tests.net.test_memdiscovery import ADVERT as ADVERT_BASE
from tests.ui.screen import SizedOutput, piped, screen_text
from tests.ui.screen import until as wait_until
from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import ConfigError, IllegalAction
from uno_p2p.net.driver import wall_ms
from uno_p2p.net.link import Link, Timings
from uno_p2p.net.node import HostNode, JoinNode
from uno_p2p.rules import Draw, Pass, legal_actions, preset
from uno_p2p.table import bodies  # noqa: F401 (registers the table's body kinds)
from uno_p2p.table.duties import waiting_for
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase
from uno_p2p.ui import words
from uno_p2p.ui.lobby_app import LobbyOutcome, LobbyScreen
from uno_p2p.ui.netscreen import NetGameScreen
from uno_p2p.ui.netsession import NetSession
from uno_p2p.ui.status import ChatLine, NetworkTable

WAIT_S = 60.0
#: The first deal comes within this after the start (the players are all on loopback).
START_S = 20.0
BOTS = 2


@dataclass
class Table:
    session: NetSession
    host: HostNode
    peer: TablePeer
    tasks: list[asyncio.Task[None]]


async def until(check: Callable[[], bool], what: str, seconds: float = WAIT_S) -> None:
    """``tests.ui.screen.until`` with this module's longer wait (real nodes on loopback)."""
    await wait_until(check, what, seconds)


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    options = preset("official", ["turn_timer=30"])
    peer = TablePeer.host(Identity(secrets.token_bytes(32)), secrets.token_bytes(32),
                          table_id=secrets.token_bytes(16), name="Ann", options=options,
                          preset="official", bot=None, now_ms=wall_ms())
    session = NetSession("Ann's table")
    host = HostNode(peer, None, on_event=session.event, on_note=session.note, timings=Timings())
    session.driver = host
    port = await host.listen("127.0.0.1", 0)
    tasks = []
    for number in range(1, BOTS + 1):
        identity, entropy = Identity(secrets.token_bytes(32)), secrets.token_bytes(32)

        def make(link: Link, identity: Identity = identity, entropy: bytes = entropy,
                 number: int = number) -> tuple[TablePeer, None]:
            return TablePeer.join(identity, entropy, table_id=link.table_id, host=link.peer,
                                  name=f"Bot {number}", bot="heuristic"), None

        bot = JoinNode(identity, ("127.0.0.1", port), make_peer=make,
                       on_event=lambda event: None, on_note=lambda text: None)
        tasks.append(asyncio.create_task(bot.run()))
    yield Table(session, host, peer, tasks)
    host.finished.set()
    await host.shutdown("the test is over")
    for task in tasks:
        task.cancel()
    # A cancelled joiner stops at once, even while it redials a host that is gone.
    _, pending = await asyncio.wait(tasks, timeout=1)
    assert not pending, "a cancelled joiner did not stop within 1 s"


async def everyone_ready(table: Table) -> None:
    def ready() -> bool:
        view = table.session.lobby_view()
        return len(view.seats) == 1 + BOTS and view.everyone_ready
    await until(ready, "both bots seated and ready")


async def my_turn(table: Table) -> None:
    await until(lambda: table.session.in_game and table.session.view().current ==
                table.session.seat and bool(table.session.legal_actions()), "Ann's turn")


async def test_the_lobby_shows_the_seats_and_the_host(table: Table) -> None:
    await everyone_ready(table)
    view = table.session.lobby_view()
    assert next(seat.name for seat in view.seats) == "Ann"
    assert sorted(seat.name for seat in view.seats[1:]) == ["Bot 1", "Bot 2"]
    assert view.am_host
    assert view.can_start
    assert view.seats[0].me
    assert view.seats[0].host
    assert view.options.turn_timer == 30
    assert not view.started


async def test_the_session_shows_only_this_seat_and_the_engine_moves(table: Table) -> None:
    session = table.session
    assert isinstance(session, NetworkTable)
    await everyone_ready(table)
    await session.start()
    assert await session.wait_for_game(WAIT_S)
    await my_turn(table)
    view = session.view()
    me = session.seat
    assert session.names[me] == "Ann"
    # table.md §5: the seat knows its own hand, and no face of another hand.
    assert all(slot in view.known for slot in view.hands[me])
    others = [slot for seat, hand in enumerate(view.hands) if seat != me for slot in hand]
    assert not any(slot in view.known for slot in others)
    # RULES.md: the moves offered are the engine's for this seat, no more, no less.
    assert session.legal_actions() == legal_actions(view, me)
    status = session.table_status()
    assert [p.name for p in status.players] == list(session.names)
    assert all(p.connected for p in status.players)
    assert session.deadline_ms() is not None
    assert status.turn_ends_ms is None, "one's own countdown is in the centre only"
    with pytest.raises(IllegalAction):
        session.submit(Draw((me + 1) % len(session.names)), wall_ms())
    draw = next(a for a in session.legal_actions() if isinstance(a, Draw))
    cards = len(view.hands[me])
    session.submit(draw, wall_ms())
    # One card, or the penalty owed (RULES.md draw_two / wild_draw_four).
    await until(lambda: len(session.view().hands[me]) > cards, "the drawn card")
    # The seat's own draw is told from its seat, as offline (ui.words): "You drew ...".
    assert any(line.startswith("You drew") for line in session.news)
    # The others saw it: the host's log holds it, signed (every bot logs the same entries).
    await until(lambda: any(isinstance(a, Pass) for a in session.legal_actions())
                or session.view().current != me, "the drawn card's face")


async def test_the_hosts_start_sets_its_own_keys_and_the_clock_at_once(table: Table) -> None:
    """The lobby's ``s`` (``NetSession.start``): the host's seat owes its key setup as soon
    as the start is logged (table.md §4), and the sequencer logs the start clock first
    (§6.1). Neither may wait for a joiner's message: if the joiners say nothing, the
    table must wait for them, not for the host (issue: ``scripts/play`` stalled after
    ``s`` and the time-out named the host itself)."""
    session, peer = table.session, table.peer
    await everyone_ready(table)
    await asyncio.sleep(0.2)  # the lobby sits idle: the host last heard a peer before this
    pressed = wall_ms()
    await session.start()
    # No await since the start: no joiner can have answered yet.
    state = peer.state
    assert state.phase == TablePhase.KEYS
    assert state.clock_started, "the start clock follows the start"
    # §6.1: the start clock reads the time of the start, not the last time a peer spoke
    # (a clock behind real time makes the next clock entry look as if it ran ahead).
    assert pressed <= state.clock_ms <= wall_ms()
    assert state.my_seat is not None
    assert state.keys[state.my_seat] is not None, "the host's seat announced its keys"
    assert state.my_seat not in waiting_for(state)
    assert await session.wait_for_game(START_S)
    await until(lambda: bool(session.view().hands[session.seat]), "the first deal", START_S)


async def test_screens_start_the_game_and_draw_on_keys(table: Table) -> None:
    with piped(SizedOutput(120, 40)) as pipe:
        await everyone_ready(table)
        session = table.session
        lobby = LobbyScreen(session.lobby_view(), session.lobby_updates(), session, plain=True)
        running = asyncio.ensure_future(lobby.run())
        await until(lambda: "Bot 2" in screen_text(lobby.app), "the lobby drawn")
        assert "host, you" in screen_text(lobby.app)
        pipe.send_text("s")
        assert await asyncio.wait_for(running, WAIT_S) == LobbyOutcome.STARTED
        assert await session.wait_for_game(WAIT_S)
        screen = NetGameScreen(session, plain=True)
        shown = asyncio.ensure_future(screen.run())
        await my_turn(table)
        cards = len(session.view().hands[session.seat])
        await until(lambda: "Your turn" in screen_text(screen.app), "the turn on screen")
        pipe.send_text("d")
        await until(lambda: len(session.view().hands[session.seat]) > cards, "the draw")
        now = len(session.view().hands[session.seat])
        await until(lambda: f"Ann · {now} cards" in screen_text(screen.app), "the hand on screen")
        assert words.PLAYERS + words.PRESENT.format(name="Ann") in screen_text(screen.app)
        pipe.send_text("q")
        await until(lambda: "y quit" in screen_text(screen.app), "the quit question")
        pipe.send_text("y")
        assert await asyncio.wait_for(shown, WAIT_S) == 0


async def test_join_without_an_address_picks_a_table_found_on_the_network(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``uno-lan join`` with no TABLE and no --address: the picker lists what discovery
    hears (docs/protocol/discovery.md), Enter picks it, the join code is typed."""
    import argparse
    from dataclasses import replace

    from uno_p2p.cli import join
    from uno_p2p.net.memdiscovery import MemoryDiscovery, MemoryNetwork

    network = MemoryNetwork()
    advert = replace(ADVERT_BASE, addresses=("127.0.0.1",), join_code=True)
    announcement = await MemoryDiscovery(network).announce(advert)
    monkeypatch.setattr(join, "discovery_for", lambda args: MemoryDiscovery(network))
    args = argparse.Namespace(address=None, table=None, join_code=None, no_mdns=False)
    with piped(SizedOutput(100, 30)) as pipe:
        picking = asyncio.ensure_future(join._pick(args))
        await asyncio.sleep(0.3)
        pipe.send_text("\r")
        await asyncio.sleep(0.2)
        pipe.send_text("7391\r")
        assert await asyncio.wait_for(picking, WAIT_S)
    await announcement.close()
    assert args.address == "127.0.0.1:45123"
    assert args.join_code == "7391"
    assert args.table == "Friday night"
    assert args.fingerprint == advert.host_fingerprint


async def test_the_host_kicks_a_player_and_changes_the_rules_from_the_lobby(
        table: Table) -> None:
    await everyone_ready(table)
    names = [seat.name for seat in table.session.lobby_view().seats]
    await table.session.kick(2)
    await until(lambda: len(table.session.lobby_view().seats) == 2, "the kicked seat gone")
    assert [seat.name for seat in table.session.lobby_view().seats] == names[:2]
    await until(lambda: sum(task.done() for task in table.tasks) == 1,
                "the kicked bot's node ends", 20.0)
    await table.session.set_options("house", ["target=200"])
    await until(lambda: table.session.lobby_view().preset == "house", "the new rules")
    view = table.session.lobby_view()
    assert view.options == preset("house", ["target=200"])
    with pytest.raises(ConfigError):
        await table.session.set_options("hose", [])
    with pytest.raises(ConfigError):
        await table.session.kick(5)


async def test_a_chat_line_shows_on_the_table_and_a_bad_one_is_refused(table: Table) -> None:
    await everyone_ready(table)
    table.session.send_chat("good luck, bots")
    assert table.session.table_status().chat[-1] == ChatLine("Ann", "good luck, bots", True)
    with pytest.raises(ValueError, match="1 to 200 characters"):
        table.session.send_chat("x" * 201)
    assert len(table.session.table_status().chat) == 1
