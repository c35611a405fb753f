"""What a peer tells its player in words (table.md §11): whom the table waits for, and
why a game that stopped early stopped.

``Progress`` is "a wait": it names the players the table waits for (never the
player's own seat). ``GameEnded`` gives winner -1 when the game stopped early
and says why (§8: a seat that leaves mid-game stops it).
"""

from __future__ import annotations

from dataclasses import replace

from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Clock
from uno_p2p.table.events import GameEnded, Progress
from uno_p2p.table.frames import FRAME_ENTRY, frame
from uno_p2p.table.memnet import NAMES, TableSetup, game_over, seat_table
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Entry, Message

WAITING = "waiting for "


def test_a_wait_names_the_players_waited_for() -> None:
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), b"waits named"))
    net.run(until=lambda n: len(n.entries()) > 40)
    names = set(NAMES[:3])
    told = 0
    for key, peer in net.peers.items():
        own = peer.name
        for event in net.events[key]:
            if not isinstance(event, Progress) or not event.what.startswith(WAITING):
                continue
            told += 1
            who = event.what[len(WAITING):]
            named = {name for name in names if name in who}
            assert named, f"{own} was told a wait that names nobody: {event.what!r}"
            assert own not in named, f"{own} was told it waits for itself: {event.what!r}"
    assert told >= 3


def test_a_game_stopped_by_a_leaver_ends_without_a_winner_saying_who_left() -> None:
    net = seat_table(TableSetup(2, preset("official", ["target=200"]), b"told leaver"))
    net.run(until=lambda n: n.host.state.phase == TablePhase.PLAYING and n.host.state.seq > 20)
    leaver = next(p for p in net.peers.values() if not p.is_host)
    while leaver.outstanding is not None:
        net.step()
    leaver.leave("dinner is ready")
    net.flush(leaver)
    net.run(until=game_over)
    ended = [e for _, e in net.all_events() if isinstance(e, GameEnded)]
    assert len(ended) == 2
    for event in ended:
        assert event.winner == -1
        assert leaver.name in event.stopped


def test_a_peer_stopped_while_its_bot_thinks_asks_for_no_more_timers() -> None:
    """A peer that stopped (here: an entry whose author signature does not verify,
    wire.md §4.1) takes no further entry and sends nothing more (table.md §7), so its
    bot's thinking time, cut short, wakes nothing: ``next_timer`` is None."""
    net = seat_table(TableSetup(2, preset("official", ["target=30"]), b"stopped thinker"))
    guest = next(p for p in net.peers.values() if not p.is_host)
    guest.initiative.think_ms = 60_000
    net.run(until=lambda n: guest.initiative.thinking is not None
            and guest.initiative.thinking[0] == guest.state.seq)
    thinking = guest.initiative.thinking
    assert thinking is not None
    assert guest.next_timer() == thinking[1] + 60_000, "it thinks on this position"
    host = net.host
    message = Message.sign(host.identity, host.table_id, 10_000, guest.ledger.head,
                           Clock(net.now_ms + 1))
    entry = Entry.countersign(host.identity, guest.state.seq, guest.ledger.head.hash,
                              replace(message, signature=bytes(64)))
    guest.receive(frame(FRAME_ENTRY, entry.encode()), net.now_ms, host.peer_id)
    assert guest.stopped is not None
    assert guest.stopped.code == "bad_signature"
    assert guest.next_timer() is None
