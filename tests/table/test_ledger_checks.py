"""The ledger's checks judged from the outside: random table messages vs the protocol's words.

docs/protocol/table.md §3 (the lobby): a peer joins once, while there is room,
under a name nobody at the table has; only a peer with a place is ready or
leaves; the host alone kicks (a peer with a place, not itself), changes the
options and starts, with every joined peer ready, in joining order. §6: only
the sequencer writes the clock, and the clock never goes backwards. §8/§9: a
seat's revealed channel seed must be the one behind the channel key it joined
with.

A small model written from those words walks random sequences of messages
built from the body constructors (random authors, names, peers, seats and
times, not only the ones an honest peer would send) beside the ledger's own
``check_message``: the ledger must accept exactly what the model accepts, and
refuse the rest with the code the words call for.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uno_p2p.audit import walk
from uno_p2p.crypto.channel import ChannelKey
from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import (
    Action,
    CatchUno,
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Draw,
    ErrorPenalty,
    Pass,
    SayUno,
    TimeOut,
)
from uno_p2p.rules.engine import apply as engine_apply
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Abort, Clock, KeySetup, Move, RevealSecrets
from uno_p2p.table.events import OptionsChanged, PeerMisbehaved, PlayerLeft, PlayerRemoved
from uno_p2p.table.ledger import check_message, initial_state
from uno_p2p.table.memnet import TableSetup, game_over, seat_table, seeded
from uno_p2p.table.removal import LEFT
from uno_p2p.table.state import Misbehaviour, TablePhase, TableState
from uno_p2p.wire.envelope import Head, Message
from uno_p2p.wire.lobby import Join, Kick, Leave, OpenTable, Ready, SetOptions, Start
from uno_p2p.wire.registry import Body

pytestmark = pytest.mark.xdist_group("test_ledger_checks")

TABLE_ID = seeded(b"ledger", "table", 16)
IDS = [Identity(seeded(b"ledger", f"id {i}")) for i in range(5)]
PEERS = [i.peer for i in IDS]
CHANNELS = [ChannelKey(seeded(b"ledger", f"channel {i}")).public for i in range(5)]
NAMES = ["Ann", "Bob", "Cy", "Di", "Ann2"]
MAX_PLAYERS = 3


@dataclass
class Lobby:
    """The model: what table.md §3 says the lobby is after each accepted message."""

    joined: list[int] = field(default_factory=lambda: [0])
    names: dict[int, str] = field(default_factory=lambda: {0: "Ann"})
    ready: set[int] = field(default_factory=lambda: {0})
    phase: str = "lobby"
    clock: int = 0

    def judge(self, author: int, body: Body) -> str | None:
        """The refusal code the words call for, or None to accept (and the model moves on)."""
        if self.phase == "ended":
            return "after_end"
        if isinstance(body, Clock):
            if author != 0:
                return "not_sequencer"
            if body.now_ms < self.clock:
                return "clock_backwards"
            self.clock = body.now_ms
            return None
        return self._lobby(author, body)

    def _lobby(self, author: int, body: Body) -> str | None:
        if isinstance(body, Join):
            if author in self.joined:
                return "joined_twice"
            if len(self.joined) >= MAX_PLAYERS:
                return "table_full"
            if body.name in {self.names[p] for p in self.joined}:
                return "name_taken"
            self.joined.append(author)
            self.names[author] = body.name
            return None
        if isinstance(body, Ready):
            if author not in self.joined:
                return "not_joined"
            self.ready = self.ready | {author} if body.ready else self.ready - {author}
            return None
        if isinstance(body, Kick):
            if author != 0:
                return "not_host"
            victim = PEERS.index(body.peer)
            if victim not in self.joined or victim == 0:
                return "bad_kick"
            self.joined.remove(victim)
            self.ready.discard(victim)
            return None
        if isinstance(body, Leave):
            if author not in self.joined:
                return "not_joined"
            if author == 0:
                self.phase = "ended"  # the host closes the table
            else:
                self.joined.remove(author)
                self.ready.discard(author)
            return None
        if isinstance(body, Start):
            if author != 0:
                return "not_host"
            if list(body.seats) != [PEERS[p] for p in self.joined]:
                return "bad_seats"
            if any(p not in self.ready for p in self.joined):
                return "not_ready"
            self.phase = "keys"
            return None
        raise AssertionError(f"no model for {body}")


def signed(author: int, body: Body) -> Message:
    return Message.sign(IDS[author], TABLE_ID, 0, Head.genesis(TABLE_ID), body)


def opened() -> TableState:
    pairs = tuple((str(k), v) for k, v in preset("official").to_wire())
    body = OpenTable("Ann", CHANNELS[0], "official", pairs, MAX_PLAYERS)
    return check_message(initial_state(TABLE_ID), signed(0, body))[0]


@st.composite
def lobby_message(draw: st.DrawFn) -> tuple[int, Body]:
    author = draw(st.integers(0, 4))
    kind = draw(st.sampled_from(["join", "join", "join", "ready", "kick", "leave", "start",
                                 "clock"]))
    body: Body
    if kind == "join":
        body = Join(draw(st.sampled_from(NAMES)), CHANNELS[author])
    elif kind == "ready":
        body = Ready(draw(st.booleans()))
    elif kind == "kick":
        body = Kick(PEERS[draw(st.integers(0, 4))], "testing")
    elif kind == "leave":
        body = Leave("testing")
    elif kind == "start":
        seats = draw(st.lists(st.integers(0, 4), min_size=2, max_size=4, unique=True))
        body = Start(tuple(PEERS[s] for s in seats))
    else:
        body = Clock(draw(st.integers(0, 10_000)))
    return author, body


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lobby_message(), min_size=1, max_size=30))
def test_random_lobby_messages_are_judged_as_the_protocol_says(
        messages: list[tuple[int, Body]]) -> None:
    ts = opened()
    model = Lobby()
    for author, body in messages:
        wanted = model.judge(author, body)
        named: str | None = PEERS[author].fingerprint
        try:
            ts = check_message(ts, signed(author, body))[0]
            got = None
        except Misbehaviour as error:
            got, named = error.code, error.peer
        assert named == PEERS[author].fingerprint  # a refusal names the author
        assert got == wanted, f"{body} by peer {author}"
        if model.phase == "keys":
            break  # the game has begun: the lobby's words are done
        if got is None and ts.lobby is not None and ts.phase == TablePhase.LOBBY:
            assert [PEERS.index(p) for p in ts.lobby.joined] == model.joined
            assert {PEERS.index(p) for p in ts.lobby.joined
                    if p.key in ts.lobby.ready} == set(model.ready) & set(model.joined)


def test_a_taken_name_is_refused_even_with_room_and_a_freed_one_is_not() -> None:
    ts = opened()
    ts = check_message(ts, signed(1, Join("Bob", CHANNELS[1])))[0]
    for name in ("Ann", "Bob"):
        with pytest.raises(Misbehaviour) as caught:
            check_message(ts, signed(2, Join(name, CHANNELS[2])))
        assert caught.value.code == "name_taken"
    ts = check_message(ts, signed(1, Leave("bye")))[0]
    ts = check_message(ts, signed(2, Join("Bob", CHANNELS[2])))[0]  # Bob left: free again
    assert ts.lobby is not None
    assert ts.lobby.names[PEERS[2].key] == "Bob"


# -- the clock and the reveal, in a real game's log -------------------------------------------
@pytest.fixture(scope="module")
def finished() -> tuple[list[object], list[Identity]]:
    # Random bots forget UNO: the others wait out the grace period, so the clock is logged.
    net = seat_table(TableSetup(3, preset("official", ["target=30", "catch_grace_ms=1500"]),
                                b"grace", bots=("random",) * 3))
    net.run(until=game_over, max_steps=200_000)
    identities = [Identity(seeded(b"grace", f"identity {i}")) for i in range(3)]
    return list(walk(net.entries())), identities


def resigned(step: object, identity: Identity, body: Body) -> Message:
    message = step.entry.message  # type: ignore[attr-defined]
    return Message.sign(identity, message.table_id, message.counter, message.head, body)


def test_the_clock_never_goes_backwards_and_only_the_sequencer_keeps_it(
        finished: tuple[list[object], list[Identity]]) -> None:
    steps, identities = finished
    clocks = [s for s in steps if isinstance(s.entry.message.body, Clock)]  # type: ignore[attr-defined]
    assert clocks, "a game with a turn timer logs the clock"
    for step in clocks:
        before: TableState = step.before  # type: ignore[attr-defined]
        now = step.entry.message.body.now_ms  # type: ignore[attr-defined]
        assert now >= before.clock_ms
        for when, code in ((before.clock_ms - 1, "clock_backwards"), (before.clock_ms, None),
                           (now + 1, None)):
            try:
                check_message(before, resigned(step, identities[0], Clock(max(when, 0))))
                got = None
            except Misbehaviour as error:
                got = error.code
            assert got == (code if when >= 0 else None)
        with pytest.raises(Misbehaviour) as caught:
            check_message(before, resigned(step, identities[1], Clock(now)))
        assert caught.value.code == "not_sequencer"
        assert caught.value.peer == identities[1].peer.fingerprint


def test_a_reveal_with_another_channel_seed_is_refused(
        finished: tuple[list[object], list[Identity]]) -> None:
    steps, identities = finished
    reveals = [s for s in steps if isinstance(s.entry.message.body, RevealSecrets)]  # type: ignore[attr-defined]
    assert len(reveals) == 3
    for step in reveals:
        body: RevealSecrets = step.entry.message.body  # type: ignore[attr-defined]
        author: PeerId = step.entry.author  # type: ignore[attr-defined]
        seat = [i.peer for i in identities].index(author)
        before: TableState = step.before  # type: ignore[attr-defined]
        check_message(before, resigned(step, identities[seat], body))  # the true one passes
        other = replace(body, channel_seed=seeded(b"other", "channel"))
        with pytest.raises(Misbehaviour) as caught:
            check_message(before, resigned(step, identities[seat], other))
        assert caught.value.code == "channel_mismatch"
        assert caught.value.peer == author.fingerprint
        swapped = replace(body, channel_seed=_seed_of_the_other(reveals, author))
        with pytest.raises(Misbehaviour) as caught:
            check_message(before, resigned(step, identities[seat], swapped))
        assert caught.value.code == "channel_mismatch"


def _seed_of_the_other(reveals: list[object], author: PeerId) -> bytes:
    for step in reveals:
        if step.entry.author != author:  # type: ignore[attr-defined]
            seed: bytes = step.entry.message.body.channel_seed  # type: ignore[attr-defined]
            return seed
    raise AssertionError("no other reveal")


# -- every lobby code once, by hand (the random walk above may miss one on a short run) ---------
def lobby_of_three() -> TableState:
    """Ann (host), Bob and Cy joined; Ann and Bob ready."""
    ts = opened()
    ts = check_message(ts, signed(1, Join("Bob", CHANNELS[1])))[0]
    ts = check_message(ts, signed(1, Ready(True)))[0]
    return check_message(ts, signed(2, Join("Cy", CHANNELS[2])))[0]


@pytest.mark.parametrize(("author", "body", "code"), [
    (1, Join("Bob2", CHANNELS[1]), "joined_twice"),
    (3, Join("Di", CHANNELS[3]), "table_full"),
    (3, Ready(True), "not_joined"),
    (3, Leave("bye"), "not_joined"),
    (1, Kick(PEERS[2], "no"), "not_host"),
    (0, Kick(PEERS[3], "no"), "bad_kick"),
    (0, Kick(PEERS[0], "no"), "bad_kick"),
    (1, Start((PEERS[0], PEERS[1], PEERS[2])), "not_host"),
    (0, Start((PEERS[0], PEERS[2], PEERS[1])), "bad_seats"),
    (0, Start((PEERS[0], PEERS[1])), "bad_seats"),
    (0, Start((PEERS[0], PEERS[1], PEERS[2])), "not_ready"),
    (1, Clock(5), "not_sequencer"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_each_lobby_refusal_names_its_code_and_its_author(author: int, body: Body,
                                                          code: str) -> None:
    ts = lobby_of_three()
    with pytest.raises(Misbehaviour) as caught:
        check_message(ts, signed(author, body))
    assert (caught.value.code, caught.value.peer) == (code, PEERS[author].fingerprint)


def test_the_lobby_moves_as_the_words_say() -> None:
    ts = lobby_of_three()
    kicked, events = check_message(ts, signed(0, Kick(PEERS[2], "full")))
    assert kicked.lobby is not None
    assert kicked.lobby.joined == (PEERS[0], PEERS[1])
    assert events == [PlayerLeft(PEERS[2], "Cy", True, "full")]
    left, events = check_message(ts, signed(1, Leave("dinner")))
    assert left.lobby is not None
    assert left.lobby.joined == (PEERS[0], PEERS[2])
    assert PEERS[1].key not in left.lobby.ready
    assert events == [PlayerLeft(PEERS[1], "Bob", False, "dinner")]
    closed, _ = check_message(ts, signed(0, Leave("closing")))
    assert closed.phase == TablePhase.ENDED  # the host leaving closes the table
    with pytest.raises(Misbehaviour) as caught:
        check_message(closed, signed(1, Ready(True)))
    assert caught.value.code == "after_end"
    pairs = tuple((str(k), v) for k, v in preset("house").to_wire())
    changed, events = check_message(ts, signed(0, SetOptions("house", pairs)))
    assert changed.lobby is not None
    assert changed.lobby.ready == frozenset({PEERS[0].key})  # new options: ready again
    assert events == [OptionsChanged("house", preset("house"))]
    ready = check_message(ts, signed(2, Ready(True)))[0]
    started, events = check_message(ready, signed(0, Start((PEERS[0], PEERS[1], PEERS[2]))))
    assert started.phase == TablePhase.KEYS
    assert started.seats == (PEERS[0], PEERS[1], PEERS[2])
    with pytest.raises(Misbehaviour) as late:
        check_message(started, signed(3, Join("Di", CHANNELS[3])))
    assert late.value.code == "not_lobby"


def test_leaving_a_game_under_way_removes_the_leaver_and_the_sequencer_stops_it(
        finished: tuple[list[object], list[Identity]]) -> None:
    # table.md §8: a seat's leave removes it like one that vanished (§14.2); the
    # sequencer's leave stops the game, every seat, the leaver first, revealing.
    steps, identities = finished
    step = next(s for s in steps if s.before.phase == TablePhase.PLAYING)  # type: ignore[attr-defined]
    before: TableState = step.before  # type: ignore[attr-defined]
    after, events = check_message(before, resigned(step, identities[1], Leave("dinner")))
    assert after.stop is None
    assert after.seats == tuple(p for p in before.seats if p != identities[1].peer)
    assert [(e.name, e.reason, e.entry) for e in events if isinstance(e, PlayerRemoved)] == \
        [(before.player_names[1], LEFT, before.seq)]
    after, _ = check_message(before, resigned(step, identities[0], Leave("dinner")))
    assert after.stop is not None
    assert (after.stop.code, after.stop.culprit) == ("left", None)
    assert after.stop.reason == f"{before.player_names[0]} {LEFT}"
    assert after.stop.entry == before.seq


def test_only_a_seated_peer_stops_a_game_under_way_and_the_stop_names_both(
        finished: tuple[list[object], list[Identity]]) -> None:
    # table.md §7: an abort without evidence stops the game naming its culprit; it comes
    # from a seat, and only while there is a game to stop.
    steps, identities = finished
    step = next(s for s in steps if s.before.phase == TablePhase.PLAYING)  # type: ignore[attr-defined]
    before: TableState = step.before  # type: ignore[attr-defined]
    culprit = identities[2].peer
    body = Abort(culprit, "unresponsive", "did not answer")
    after, events = check_message(before, resigned(step, identities[1], body))
    names = before.player_names
    assert events == [PeerMisbehaved(culprit, names[2], before.seq, "unresponsive",
                                     "did not answer")]
    # table.md §7.3: without evidence the accusation is unproven: the Stop names the
    # accuser as the one who stopped the game, records the accused, and excuses nobody.
    stop = after.stop
    assert stop is not None
    assert (stop.code, stop.culprit, stop.entry) == ("unresponsive", None, before.seq)
    assert (stop.accuser, stop.accused) == (identities[1].peer, culprit)
    assert stop.reason.startswith(f"{names[1]} stopped the game")
    for said in (names[2], "unresponsive", "did not answer", "unproven"):
        assert said in stop.reason
    stranger = Identity(seeded(b"grace", "identity 9"))
    with pytest.raises(Misbehaviour) as caught:
        check_message(before, resigned(step, stranger, body))
    assert (caught.value.code, caught.value.peer) == ("not_seated",
                                                      stranger.peer.fingerprint)
    with pytest.raises(Misbehaviour) as lobby:
        check_message(lobby_of_three(), signed(1, Abort(PEERS[2], "unresponsive", "x")))
    assert lobby.value.code == "unexpected"


def test_a_key_announcement_out_of_place_is_refused(
        finished: tuple[list[object], list[Identity]]) -> None:
    steps, identities = finished
    keyed = next(s for s in steps if isinstance(s.entry.message.body, KeySetup))  # type: ignore[attr-defined]
    body = keyed.entry.message.body  # type: ignore[attr-defined]
    step = next(s for s in steps if s.before.phase == TablePhase.PLAYING)  # type: ignore[attr-defined]
    author = [i.peer for i in identities].index(keyed.entry.author)  # type: ignore[attr-defined]
    with pytest.raises(Misbehaviour) as caught:
        check_message(step.before, resigned(step, identities[author], body))  # type: ignore[attr-defined]
    assert (caught.value.code, caught.value.peer) == ("unexpected_key",
                                                      keyed.entry.author.fingerprint)  # type: ignore[attr-defined]


# -- moves at the table level: the ledger against the engine and table.md §5 --------------------
@st.composite
def table_move(draw: st.DrawFn, players: int) -> tuple[int, Action]:
    author = draw(st.integers(0, players - 1))
    seat = author if draw(st.integers(0, 3)) else draw(st.integers(0, players - 1))
    kind = draw(st.sampled_from(["draw", "pass", "uno", "catch", "challenge", "verdict",
                                 "colour", "timeout", "penalty"]))
    action: Action
    if kind == "catch":
        action = CatchUno(seat, draw(st.integers(0, players - 1)))
    elif kind == "colour":
        action = ChooseColour(seat, draw(st.integers(0, 3)))
    else:
        makers: dict[str, type[Draw | Pass | SayUno | Challenge | ChallengeVerdict | TimeOut
                                | ErrorPenalty]] = {
            "draw": Draw, "pass": Pass, "uno": SayUno, "challenge": Challenge,
            "verdict": ChallengeVerdict, "timeout": TimeOut, "penalty": ErrorPenalty}
        action = makers[kind](seat)
    return author, action


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_moves_are_judged_by_the_ledger_as_the_engine_and_the_table_say(
        finished: tuple[list[object], list[Identity]], data: st.DataObject) -> None:
    # table.md §5: a move is the mover's own (wrong_seat), never a reveal, seating or error
    # penalty (not_a_move), a time-out only from the sequencer (not_sequencer); then the
    # engine decides on the log's public state at the log's time (illegal_move).
    steps, identities = finished
    playing = [s for s in steps if s.before.phase == TablePhase.PLAYING]  # type: ignore[attr-defined]
    step = data.draw(st.sampled_from(playing))
    before: TableState = step.before  # type: ignore[attr-defined]
    assert before.engine is not None
    author, action = data.draw(table_move(len(identities)))
    mover = identities[author]
    if isinstance(action, ErrorPenalty):
        wanted: str | None = "not_a_move"
    elif isinstance(action, TimeOut) and author != 0:
        wanted = "not_sequencer"
    elif not isinstance(action, TimeOut) and getattr(action, "seat", author) != author:
        wanted = "wrong_seat"
    else:
        try:
            engine_apply(before.engine, action, before.clock_ms)
            wanted = None
        except IllegalAction:
            wanted = "illegal_move"
    try:
        check_message(before, resigned(step, mover, Move(action)))
        got = None
    except Misbehaviour as error:
        got, named = error.code, error.peer
        assert named == mover.peer.fingerprint
    assert got == wanted, action
