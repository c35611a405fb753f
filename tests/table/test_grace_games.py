"""The UNO grace period in real in-memory games (``catch_grace_ms``), through the protocol.

docs/rules.md "UNO": "With ``catch_grace_ms`` set, the next player must wait
that many milliseconds after a play that left a missed UNO before playing,
drawing or challenging, so that everyone has a fair chance to catch it
(uno-lan holds such a move back until the time is up)"; and a catch counts
"before the next player begins their turn (by drawing or playing). Once the
next player has begun, you are safe." RULES.md "Not software rules" names the
grace period. A move held back by the grace period is a race, not a cheat
(docs/protocol/table.md §6): the host drops it, names nobody, and logs it
once the time is up.

Bots play a 3-player game until one of them misses UNO; then the players take
over from their bots and the test makes the moves, with the clock where it
wants it. Each table is a fixed seed whose deal (checked here) leaves a
missed UNO with the next player a joiner, or the host.
"""

from __future__ import annotations

import copy

import pytest

from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import Action, CatchUno, Draw
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import Phase, State
from uno_p2p.table.bodies import Abort, Clock, Move
from uno_p2p.table.events import PeerMisbehaved
from uno_p2p.table.frames import FRAME_MESSAGE
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("test_grace_games")]

#: Shorter than the sequencer's clock step (500 ms): the log's clock then still lags the
#: host's when the time is up, so the host must log the time before it logs the move.
GRACE_MS = 400
#: Seeds whose bots miss an UNO early, with the next player a joiner / the host.
JOINER_NEXT = b"grace-9"
HOST_NEXT = b"grace-4"


def missed_uno(net: Network) -> bool:
    game = net.host.state.engine
    return game is not None and game.exposed is not None


def table_with_a_missed_uno(seed: bytes) -> Network:
    """A 3-player table where a player has just missed UNO; nobody acts by themselves."""
    options = preset("official", ["target=30", f"catch_grace_ms={GRACE_MS}"])
    net = seat_table(TableSetup(3, options, seed, bots=("random", "random", "random")))
    net.run(until=lambda n: missed_uno(n) or game_over(n))
    assert missed_uno(net), "the seed no longer leads to a missed UNO: pick another"
    for peer in net.peers.values():
        peer.bot_kind = None  # the players take over: only the test moves from here
    net.run(max_steps=10_000)
    game = engine(net)
    assert game.phase == Phase.PLAYING
    assert game.exposed is not None
    assert len(game.hands[game.exposed]) == 1
    assert turn(game) != game.exposed
    assert len({p.ledger.head for p in net.peers.values()}) == 1, "every peer saw the play"
    return net


@pytest.fixture(scope="module")
def missed_with_a_joiner_next() -> Network:
    """The ``JOINER_NEXT`` table, played once for the module (its bots' game up to the
    missed UNO is the same for every test)."""
    return table_with_a_missed_uno(JOINER_NEXT)


@pytest.fixture
def joiner_next(missed_with_a_joiner_next: Network) -> Network:
    """A copy of that table of the test's own: every move from here is the test's."""
    return copy.deepcopy(missed_with_a_joiner_next)


def engine(net: Network) -> State:
    game = net.host.state.engine
    assert game is not None
    return game


def turn(game: State) -> int:
    """The seat whose turn it is (in play there always is one)."""
    assert game.current is not None
    return game.current


def peer_at(net: Network, seat: int) -> TablePeer:
    return next(p for p in net.peers.values() if p.state.my_seat == seat)


def deadline(net: Network) -> int:
    game = engine(net)
    return game.exposed_ms + GRACE_MS


def at(net: Network, now_ms: int) -> None:
    """Move the network's clock (every peer reads it when a frame reaches it)."""
    net.now_ms = now_ms


def act(net: Network, peer: TablePeer, action: Action) -> None:
    """The player makes a move; its frames go on the network."""
    peer.act(action)
    net.flush(peer)


def moves(net: Network) -> list[Action]:
    return [body.action for e in net.entries() if isinstance(body := e.message.body, Move)]


def no_one_punished(net: Network) -> None:
    assert not any(isinstance(e.message.body, Abort) for e in net.entries())
    assert not any(isinstance(e, PeerMisbehaved) for _, e in net.all_events())
    assert all(p.stopped is None for p in net.peers.values())
    assert len({p.ledger.head for p in net.peers.values()}) == 1


def test_the_next_player_may_not_begin_inside_the_grace_period(joiner_next: Network) -> None:
    net = joiner_next
    game = engine(net)
    nxt = peer_at(net, turn(game))
    at(net, deadline(net) - 1)
    nxt.handle_timer(net.now_ms)
    with pytest.raises(IllegalAction) as refused:
        nxt.act(Draw(turn(game)))  # the player's own machine holds it back
    assert refused.value.rule == "catch_grace_ms"
    logged = len(net.entries())
    net.run(max_steps=10_000)
    assert len(net.entries()) == logged, "nothing was sent"


def test_a_move_sent_early_is_dropped_as_a_race_and_logged_once_the_time_is_up(
        joiner_next: Network) -> None:
    net = joiner_next
    game = engine(net)
    seat, end = turn(game), deadline(net)
    nxt = peer_at(net, seat)
    # The player's clock runs ahead of the host's: it sends at the end of the grace
    # period, the host still reads a time inside it.
    nxt.handle_timer(end)
    act(net, nxt, Draw(seat))
    at(net, end - 1)
    net.run(max_steps=10_000)
    assert Draw(seat) not in moves(net), "the host held the move back"
    assert engine(net).exposed is not None
    assert engine(net).current == seat
    assert nxt.outstanding is None, "the host told the player it did not log the move"
    no_one_punished(net)
    # Once the host's clock has passed the grace period the same move is logged, after
    # a clock entry that shows the time was up (table.md §6).
    at(net, end)
    act(net, nxt, Draw(seat))
    net.run(max_steps=10_000)
    entries = net.entries()
    assert moves(net)[-1] == Draw(seat)
    drawn = max(i for i, e in enumerate(entries) if e.message.body == Move(Draw(seat)))
    clocks = [e.message.body.now_ms for e in entries[:drawn]
              if isinstance(e.message.body, Clock)]
    assert clocks[-1] >= end
    assert engine(net).exposed is None, "the next player began: the window closed"
    no_one_punished(net)


def test_the_host_as_next_player_waits_out_the_grace_period_too() -> None:
    net = table_with_a_missed_uno(HOST_NEXT)
    host, game = net.host, engine(net)
    assert host.state.my_seat == turn(game)
    end = deadline(net)
    host.handle_timer(end - 1)
    with pytest.raises(IllegalAction) as refused:
        act(net, host, Draw(turn(game)))
    assert refused.value.rule == "catch_grace_ms"
    # At the end of the grace period the host logs the time, then its move.
    host.handle_timer(end)
    act(net, host, Draw(turn(game)))
    net.run(max_steps=10_000)
    bodies = [e.message.body for e in net.entries()]
    assert moves(net)[-1] == Draw(turn(game))
    drawn = max(i for i, body in enumerate(bodies) if body == Move(Draw(turn(game))))
    assert isinstance(clock := bodies[drawn - 1], Clock)
    assert clock.now_ms >= end
    no_one_punished(net)


def test_a_catch_inside_the_grace_period_counts(joiner_next: Network) -> None:
    net = joiner_next
    game = engine(net)
    victim = game.exposed
    assert victim is not None
    catcher = next(s for s in range(3) if s not in (victim, turn(game)))
    at(net, game.exposed_ms + 1)
    act(net, peer_at(net, catcher), CatchUno(catcher, victim))
    net.run(max_steps=10_000)
    after = engine(net)
    assert CatchUno(catcher, victim) in moves(net)
    assert len(after.hands[victim]) == 1 + 2, "caught: draw 2 (RULES.md UNO)"
    assert after.exposed is None, "caught once"
    # With nothing left to catch the next player need not wait any more.
    nxt = peer_at(net, turn(after))
    act(net, nxt, Draw(turn(after)))
    net.run(max_steps=10_000)
    assert moves(net)[-1] == Draw(turn(after))
    no_one_punished(net)


def test_once_the_next_player_has_begun_the_missed_uno_is_safe(joiner_next: Network) -> None:
    net = joiner_next
    game = engine(net)
    victim, seat = game.exposed, turn(game)
    assert victim is not None
    catcher = next(s for s in range(3) if s not in (victim, seat))
    at(net, deadline(net))
    peer_at(net, seat).handle_timer(net.now_ms)
    act(net, peer_at(net, seat), Draw(seat))
    net.run(max_steps=10_000)
    assert moves(net)[-1] == Draw(seat)
    with pytest.raises(IllegalAction):
        act(net, peer_at(net, catcher), CatchUno(catcher, victim))
    assert len(engine(net).hands[victim]) == 1, "still one card: safe"


def test_a_bot_next_player_waits_out_the_grace_period_to_the_millisecond(
        joiner_next: Network) -> None:
    """docs/rules.md: the next player "must wait that many milliseconds" after the play
    that left a missed UNO. A bot's seat waits until then and not a millisecond longer:
    its timer is the period's end; a millisecond before, it has sent nothing; at the
    end itself, it moves at once."""
    net = joiner_next
    game = engine(net)
    nxt = peer_at(net, turn(game))
    end = deadline(net)
    nxt.data_to_send()
    nxt.bot_kind = "random"  # the player hands the seat back to its bot
    nxt.handle_timer(end - 1)
    assert nxt.data_to_send() == [], "inside the grace period: nothing sent"
    assert nxt.next_timer() == end, "it wakes at the period's end"
    nxt.handle_timer(end)
    sent = nxt.data_to_send()
    assert [out.data[:1] for out in sent] == [FRAME_MESSAGE], "its move, at once"
    assert nxt.outstanding is not None
