"""The host's lobby controls from a player's side (table.md §3.2, §6.1).

``set_options`` is the host's change of the rules before the start: everyone's
lobby shows the new preset and options, every joiner's ready is cleared, and
every peer is told (``OptionsChanged``). ``start(now_ms)`` logs the start
clock at the shell's time now, not at the last time the host heard in the
lobby.
"""

from __future__ import annotations

from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Clock
from uno_p2p.table.events import OptionsChanged, PlayerReady, Progress
from uno_p2p.table.frames import FRAME_DROP, DropNotice, decode_drop
from uno_p2p.table.memnet import Network, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.lobby import SetOptions, Start


def _lobby(seed: bytes, joiners: int = 1) -> Network:
    net = Network()
    net.add(TablePeer.host(Identity(seeded(seed, "id 0")), seeded(seed, "e 0"),
                           table_id=seeded(seed, "table", 16), name="Ann",
                           options=preset("official"), max_players=4))
    for i in range(1, joiners + 1):
        net.add(TablePeer.join(Identity(seeded(seed, f"id {i}")), seeded(seed, f"e {i}"),
                               table_id=net.host.table_id, host=net.host.peer_id,
                               name=f"P{i}"))
        net.run()
    return net


def test_the_host_changes_the_rules_and_every_peer_sees_them() -> None:
    net = _lobby(b"set options", joiners=2)
    joiners = [p for p in net.peers.values() if not p.is_host]
    lobby = net.host.state.lobby
    assert lobby is not None
    assert all(p.peer_id.key in lobby.ready for p in joiners)  # ready before the change
    house = preset("house", ["target=200"])
    for events in net.events.values():
        events.clear()
    net.host.set_options(house, "house")
    net.flush(net.host)  # the host logs at once; memnet sends what it queued
    net.run()
    changed = next(e.seq for e in net.entries() if isinstance(e.body, SetOptions))
    for key, peer in net.peers.items():
        lobby = peer.state.lobby
        assert lobby is not None
        assert lobby.preset == "house"
        assert dict(lobby.options)["target"] == 200
        # table.md §3.2: a change of the rules clears every joiner's ready.
        then = peer.ledger.state_at(changed + 1)
        assert then is not None
        assert then.lobby is not None
        assert not any(p.peer_id.key in then.lobby.ready for p in joiners)
        told = [e for e in net.events[key] if isinstance(e, OptionsChanged)]
        assert [(e.preset, e.options.target) for e in told] == [("house", 200)]
        assert told[0].options == house


def test_the_start_clock_is_the_shells_time_at_the_start() -> None:
    net = _lobby(b"start clock")
    assert net.host.now_ms == 0  # nothing in the lobby moved the host's clock
    net.host.start(now_ms=90_000)
    net.flush(net.host)
    net.run(until=lambda n: n.host.state.phase != TablePhase.LOBBY
            and any(isinstance(e.body, Clock) for e in n.entries()))
    entries = net.entries()
    start = next(e.seq for e in entries if isinstance(e.body, Start))
    clocks = [e for e in entries[start:] if isinstance(e.body, Clock)]
    assert clocks
    assert isinstance(clocks[0].body, Clock)
    assert clocks[0].body.now_ms == 90_000


def test_a_joiner_changing_the_rules_is_told_why_the_host_dropped_it() -> None:
    """table.md §3.2: ``set_options`` is the host's alone. In the lobby a refusal is no
    cheat worth an abort: the sequencer drops the message and tells its author (``D``,
    ``[counter, code, reason]``, §2) with the code (``not_host``, verdicts.md) and a
    reason the player reads, which the joiner passes on as ``Progress``."""
    drops: list[tuple[bytes, DropNotice]] = []

    def watch(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        if data[:1] == FRAME_DROP:
            drops.append((recipient, decode_drop(data[1:])))
        return [data]

    net = _lobby(b"joiner options")
    net.tamper = watch
    joiner = next(p for p in net.peers.values() if not p.is_host)
    before = net.host.state.seq
    joiner.set_options(preset("house"), "house")
    net.flush(joiner)
    net.run()
    assert net.host.state.seq == before  # nothing logged
    assert net.host.state.lobby is not None
    assert net.host.state.lobby.preset != "house"
    assert len(drops) == 1
    recipient, notice = drops[0]
    code, reason = notice.code, notice.reason
    assert recipient == joiner.peer_id.key
    assert code == "not_host"
    assert "host" in reason
    assert reason != "None"
    told = [e.what for e in net.events[joiner.peer_id.key] if isinstance(e, Progress)]
    assert any(reason in what for what in told), told
    assert joiner.outstanding is None  # its number is free again


def test_every_peer_is_told_who_is_ready_and_who_is_no_longer() -> None:
    """table.md §3.2 ``ready`` (3): every peer learns which joined peer is ready, by
    identity and name, and so when it takes its ready back."""
    net = _lobby(b"ready told", joiners=2)
    first = next(p for p in net.peers.values() if p.name == "P1")
    for key in net.peers:
        readies = [e for e in net.events[key] if isinstance(e, PlayerReady)]
        assert {(e.peer, e.name, e.ready) for e in readies} >= {
            (p.peer_id, p.name, True) for p in net.peers.values() if not p.is_host}
        net.events[key].clear()
    first.set_ready(False)
    net.flush(first)
    net.run()
    for key in net.peers:
        told = [(e.peer, e.name, e.ready) for e in net.events[key] if isinstance(e, PlayerReady)]
        assert told == [(first.peer_id, "P1", False)]


def test_bots_say_ready_again_after_each_change_of_the_rules() -> None:
    """Issue 25: a bot plays any rules, so when the host's ``set_options`` clears its
    ready (table.md §3.2) it says ready again by itself, after every change; a seat
    told "not ready" stays so."""
    net = _lobby(b"bots ready", joiners=3)
    bots = [p for p in net.peers.values() if not p.is_host]
    for name in ("house", "official"):
        net.host.set_options(preset(name), name)
        net.flush(net.host)
        net.run()
        lobby = net.host.state.lobby
        assert lobby is not None
        assert lobby.preset == name
        assert all(p.peer_id.key in lobby.ready for p in bots), name
    stubborn = bots[0]
    stubborn.set_ready(False)
    net.flush(stubborn)
    net.run()
    net.host.set_options(preset("house"), "house")
    net.flush(net.host)
    net.run()
    lobby = net.host.state.lobby
    assert lobby is not None
    assert [p.peer_id.key in lobby.ready for p in bots] == [False, True, True]


def test_a_persons_seat_says_ready_once_and_not_again_after_a_change_of_the_rules() -> None:
    """table.md §3.2: a seat that joins ready says so once; the host's ``set_options``
    clears every ready, and a person's seat (no bot) is then not ready until its player
    says so: only a bot plays any rules (issue 25)."""
    seed = b"a person's ready"
    net = _lobby(seed)
    person = net.add(TablePeer.join(Identity(seeded(seed, "id 9")), seeded(seed, "e 9"),
                                    table_id=net.host.table_id, host=net.host.peer_id,
                                    name="Pat", bot=None))
    net.run()
    bot = next(p for p in net.peers.values() if p.name == "P1")
    lobby = net.host.state.lobby
    assert lobby is not None
    assert {bot.peer_id.key, person.peer_id.key} <= lobby.ready
    net.host.set_options(preset("house"), "house")
    net.flush(net.host)
    net.run()
    lobby = net.host.state.lobby
    assert lobby is not None
    assert (bot.peer_id.key in lobby.ready, person.peer_id.key in lobby.ready) == (True, False)
