"""Table bodies on the wire, and the lobby's rules.

Every table body round-trips through the canonical codec; arbitrary bytes
decode or raise ``InvalidMessage``, nothing else (STYLE.md); the lobby
refuses what a host or a joiner may not do and the host may kick before
the start.
"""

from __future__ import annotations

import contextlib
import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.rules.actions import Draw, Play, SayUno
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import (
    Abort,
    Clock,
    DeckStart,
    KeySetup,
    Move,
    PrivateShares,
    RevealSecrets,
    ShareItem,
    Shares,
    ShuffleDeck,
)
from uno_p2p.table.events import PeerMisbehaved, PlayerLeft
from uno_p2p.table.memnet import Network, TableSetup, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.codec import pack, unpack
from uno_p2p.wire.envelope import Message
from uno_p2p.wire.lobby import Start
from uno_p2p.wire.registry import BODIES, Body

POINT = Identity(b"\x01" * 32).peer.key  # any valid 32-byte point
ITEM = ShareItem(3, 1, "deal", 2, 17, POINT, b"\x00" * 64)
SAMPLES: list[Body] = [
    KeySetup(POINT, b"\x02" * 32, b"\x00" * 64),
    ShuffleDeck(0, (POINT * 2, POINT * 2), b"proof"),
    ShuffleDeck(0, (POINT * 2,)),
    # Version 2 (table.md §4.1): a fresh deck, a reshuffle, a Wild Draw Four sent back.
    ShuffleDeck(0, (POINT * 2,), b"proof", DeckStart(0)),
    ShuffleDeck(4, (POINT * 2,), b"", DeckStart(2, (Slot(3, 0), Slot(1, 9)), (7, 101))),
    ShuffleDeck(5, (POINT * 2,), b"", DeckStart(2, (Slot(4, 1),))),
    Shares((ITEM, ShareItem(3, 1, "open", -1, 18, POINT, b"\x00" * 64))),
    Move(Play(1, (Slot(3, 17),), (5,)), (ShareItem(3, 1, "open", -1, 17, POINT, b"\x00" * 64),)),
    Move(Draw(2)),
    Move(SayUno(0)),
    PrivateShares((ShareItem(3, 1, "private", 0, 5, POINT, b"\x00" * 64),)),
    Clock(123_456),
    RevealSecrets(b"\x03" * 32, b"\x04" * 32, b"\x05" * 32),
    Abort(Identity(b"\x06" * 32).peer, "bad_share", "a wrong share", b"evidence"),
]


@pytest.mark.parametrize("body", SAMPLES, ids=lambda b: type(b).__name__)
def test_every_table_body_round_trips_through_the_codec(body: Body) -> None:
    number = BODIES.number_of(body)
    wire = unpack(pack(body.to_wire()))
    assert BODIES.decode(number, wire) == body
    assert 64 <= number <= 71
    assert body.describe(lambda key: "Ann")


@pytest.mark.parametrize("bad", [
    lambda: ShareItem(0, 0, "open", 2, 0, POINT, b"\x00" * 64),   # open with a recipient
    lambda: ShareItem(0, 0, "deal", -1, 0, POINT, b"\x00" * 64),  # deal without one
    lambda: ShareItem(0, 0, "peek", 1, 0, POINT, b"\x00" * 64),   # no such purpose
    lambda: ShareItem(0, 0, "deal", 1, 108, POINT, b"\x00" * 64),  # no such position
    lambda: ShuffleDeck(0, (b"\x00" * 63,)),
    lambda: DeckStart(1, (Slot(0, 1), Slot(0, 2)), (5,)),  # faces: none or one per source
    lambda: DeckStart(1, (Slot(0, 108),)),  # no such position
    lambda: DeckStart(1, (Slot(0, 1),), (108,)),  # no such card
    lambda: DeckStart(-1),  # no such round
    lambda: ShuffleDeck.from_wire([0, 1, [], [], [POINT * 2]]),  # neither form
    lambda: Shares(()),
    lambda: PrivateShares((ITEM,)),  # a deal share is not private
])
def test_malformed_bodies_are_refused(bad: object) -> None:
    with pytest.raises(InvalidMessage):
        bad()  # type: ignore[operator]


@settings(max_examples=300, deadline=None)
@given(kind=st.integers(min_value=64, max_value=72), data=st.binary(max_size=300))
def test_arbitrary_bytes_decode_or_raise_invalid_message(kind: int, data: bytes) -> None:
    with contextlib.suppress(InvalidMessage):
        BODIES.decode(kind, unpack(data))


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=400))
def test_a_peer_given_garbage_names_it_and_never_crashes(data: bytes) -> None:
    net = _lobby(1)
    joiner = next(p for p in net.peers.values() if not p.is_host)
    host = net.host
    joiner.events()
    seq = joiner.state.seq
    # Only the sequencer sends entries (table.md §3.1): a garbage entry names the host.
    joiner.receive(b"E" + data, sender=host.peer_id)
    faults = [e for e in joiner.events() if isinstance(e, PeerMisbehaved)]
    assert len(faults) == 1
    assert faults[0].peer == host.peer_id
    assert faults[0].code in ("invalid_frame", *CHAIN_CODES)
    assert joiner.state.seq == seq
    # A garbage message to the host names nobody (its author is not known) and logs nothing.
    host.events()
    host_seq = host.state.seq
    host.receive(b"M" + data, sender=joiner.peer_id)
    host_faults = [e for e in host.events() if isinstance(e, PeerMisbehaved)]
    assert all(f.peer is None and f.code == "invalid_frame" for f in host_faults)
    assert host.state.seq == host_seq
    host.receive(data)
    assert host.state.phase == TablePhase.LOBBY


#: Codes an entry that decodes may still earn from the chain (wire.md §4.1).
CHAIN_CODES = ("bad_signature", "bad_countersignature", "wrong_table", "bad_prev_hash",
               "bad_seq", "not_sequencer", "head_mismatch", "counter_gap", "equivocation",
               "replayed_message")


def _host(seed: bytes = b"lobby") -> TablePeer:
    return TablePeer.host(Identity(seeded(seed, "id 0")), seeded(seed, "e 0"),
                          table_id=seeded(seed, "table", 16), name="Ann",
                          options=preset("official"), max_players=3)


def _lobby(joiners: int, *, ready: bool = True) -> Network:
    net = Network()
    host = net.add(_host())
    for i in range(1, joiners + 1):
        net.add(TablePeer.join(Identity(seeded(b"lobby", f"id {i}")), seeded(b"lobby", f"e {i}"),
                               table_id=host.table_id, host=host.peer_id, name=f"P{i}",
                               ready=ready))
        net.run()
    return net


def test_the_lobby_shows_everyone_the_same_seats_and_options() -> None:
    net = _lobby(2)
    lobbies = [p.state.lobby for p in net.peers.values()]
    assert all(other == lobbies[0] for other in lobbies)
    lobby = lobbies[0]
    assert lobby is not None
    assert [lobby.names[p.key] for p in lobby.joined] == ["Ann", "P1", "P2"]
    assert dict(lobby.options)["target"] == 500


def test_the_table_refuses_a_fourth_player() -> None:
    net = _lobby(2)
    host = net.host
    extra = net.add(TablePeer.join(Identity(seeded(b"x", "id")), seeded(b"x", "e"),
                                   table_id=host.table_id, host=host.peer_id, name="P9"))
    net.run()
    assert extra.peer_id not in host.state.lobby.joined  # type: ignore[union-attr]
    assert extra.state.seq == 0


@pytest.mark.parametrize("name", ["P1", "Ann"])
def test_the_table_refuses_a_taken_name_while_a_seat_is_free(name: str) -> None:
    # docs/protocol/table.md (lobby): names are distinct; the table has room (3 seats, 2 taken).
    net = _lobby(1)
    host = net.host
    before = host.state.seq
    extra = net.add(TablePeer.join(Identity(seeded(b"x", "id")), seeded(b"x", "e"),
                                   table_id=host.table_id, host=host.peer_id, name=name))
    net.run()
    lobby = host.state.lobby
    assert lobby is not None
    assert extra.peer_id not in lobby.joined
    assert sorted(lobby.names.values()) == ["Ann", "P1"]
    assert host.state.seq == before  # nothing logged for it
    fresh = net.add(TablePeer.join(Identity(seeded(b"y", "id")), seeded(b"y", "e"),
                                   table_id=host.table_id, host=host.peer_id, name="P2"))
    net.run()
    assert fresh.peer_id in lobby.joined or fresh.peer_id in host.state.lobby.joined  # type: ignore[union-attr]


def test_the_host_kicks_before_the_start_and_starts_with_the_rest() -> None:
    net = _lobby(2)
    host = net.host
    lobby = host.state.lobby
    assert lobby is not None
    kicked = lobby.joined[2]
    host.kick(kicked, "testing")
    net.flush(host)
    net.run(until=lambda n: n.host.state.engine is not None)
    assert any(isinstance(e, PlayerLeft) and e.kicked for e in net.events[kicked.key])
    host.start()
    net.flush(host)
    net.run(until=lambda n: n.host.state.engine is not None)
    assert host.state.seats == lobby.joined[:2]
    assert host.state.phase == TablePhase.PLAYING


def test_the_host_cannot_start_before_everyone_is_ready() -> None:
    net = _lobby(2, ready=False)
    with pytest.raises(LocalProtocolError):
        net.host.start()
    assert net.host.state.phase == TablePhase.LOBBY


def test_a_joiner_cannot_start_the_game() -> None:
    net = _lobby(1)
    joiner = next(p for p in net.peers.values() if not p.is_host)
    with pytest.raises(LocalProtocolError):
        joiner.start()
    message = Message.sign(joiner.identity, joiner.table_id, joiner.counter, joiner.ledger.head,
                           Start(joiner.state.lobby.joined))  # type: ignore[union-attr]
    net.send(joiner.peer_id.key, net.host.peer_id.key, b"M" + message.encode())
    net.run()
    assert net.host.state.phase == TablePhase.LOBBY


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_damaged_message_in_play_is_refused_and_the_game_goes_on(data: st.DataObject) -> None:
    host = copy.deepcopy(_playing().host)  # each example judges its own copy of the game
    logged = [e.message for e in host.ledger.chain.entries if e.author != host.peer_id]
    message = data.draw(st.sampled_from(logged))
    raw = bytearray(message.encode())
    index = data.draw(st.integers(min_value=0, max_value=len(raw) - 1))
    raw[index] ^= data.draw(st.integers(min_value=1, max_value=255))
    before = host.state.seq
    entries = host.ledger.chain.entries
    host.data_to_send()
    host.receive(b"M" + bytes(raw), sender=message.author)
    # The author's signature covers every byte: a damaged message is nobody's, so it is
    # dropped (never logged, never an Abort) and the game goes on as it was.
    assert host.state.seq == before
    assert host.ledger.chain.entries == entries
    assert host.stopped is None
    assert host.state.phase == TablePhase.PLAYING
    assert not any(out.data[:1] == b"E" for out in host.data_to_send())


_GAME: list[Network] = []


def _playing() -> Network:
    """One 3-peer game under way, made once; the test copies its host per example."""
    if not _GAME:
        net = seat_table(TableSetup(3, preset("official", ["target=60"]), b"damage"))
        net.run(until=lambda n: n.host.state.seq > 30)
        _GAME.append(net)
    return _GAME[0]
