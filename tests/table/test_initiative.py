"""What a seat sends of its own accord (``table/initiative.py``, table.md §3.1, §5,
§7.3), as a part of its own: it reads a frozen view of its peer (``Moment``) and
says what the seat owes next; sending it is the peer's."""

from __future__ import annotations

from dataclasses import replace

from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import MAX_REASON, Abort
from uno_p2p.table.initiative import Initiative, Moment, Say
from uno_p2p.table.memnet import TableSetup, seat_table, seeded
from uno_p2p.table.offload import DutyDesk
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase

SEED = b"initiative"


def _bob() -> TablePeer:
    """Bob, seat 1 of a started 3-seat table."""
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), SEED))
    net.run(until=lambda n: n.host.state.seq > 8, max_steps=100_000)
    return net.peers[Identity(seeded(SEED, "identity 1")).peer.key]


def _bob_in_play() -> TablePeer:
    """Bob, seat 1 of a 3-seat table, once his engine runs."""
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), SEED))
    bob = net.peers[Identity(seeded(SEED, "identity 1")).peer.key]
    net.run(until=lambda _: bob.state.engine is not None, max_steps=100_000)
    return bob


def _abort_owed(mine: Initiative) -> Abort | None:
    """The abort ``mine`` owes now (a call, so a check after a step is not taken for
    one made before it)."""
    return mine.pending_abort


def test_an_abort_owed_goes_first_and_only_when_no_message_of_ours_is_on_its_way() -> None:
    """§7.3: a seat that saw a fault only it can see owes the table an abort, before any
    work; §3.1: never while a message of ours is neither logged nor dropped (``busy``),
    nor once the peer has stopped. Sent once, it is no longer owed."""
    bob = _bob()
    state = bob.state
    culprit = state.seats[2]
    abort = Abort(culprit, "bad_private_share", "its share does not open our card")
    mine = Initiative(seeded(SEED, "bot"), pauses_between_rounds=False, pending_abort=abort)
    desk = DutyDesk()

    def owed(*, busy: bool = False, stopped: bool = False) -> object:
        now = Moment(state, bob.peer_id, bob.now_ms, stopped=stopped, busy=busy,
                     bot_kind="heuristic")
        return mine.next_owed(now, desk, bob.secrets, bob.channel_seed)

    assert owed(busy=True) is None
    assert owed(stopped=True) is None
    assert _abort_owed(mine) == abort, "still owed"
    assert owed() == Say(abort)
    assert _abort_owed(mine) is None
    assert owed() != Say(abort), "sent once"


def test_the_seats_next_deadline_is_the_earliest_of_its_own() -> None:
    """table.md §6: a bot holds its move while a missed UNO may still be caught
    (``catch_grace_ms`` from when another seat was exposed) and while it thinks
    (``think_ms`` from when it first saw the position, never past half the turn timer);
    the peer's timer asks the seat for the earlier of the two."""
    bob = _bob_in_play()
    state, game = bob.state, bob.state.engine
    assert game is not None
    assert state.my_seat is not None
    base = max(state.clock_ms, bob.now_ms)
    other = (state.my_seat + 1) % len(state.seats)
    options = replace(game.options, catch_grace_ms=1_500, turn_timer=60)
    exposed = replace(state, engine=replace(game, options=options, exposed=other,
                                            exposed_ms=base))
    at = Moment(exposed, bob.peer_id, base + 200, bot_kind="heuristic")
    mine = Initiative(seeded(SEED, "bot"), pauses_between_rounds=False, think_ms=500,
                      thinking=(state.seq, base))
    assert mine.deadline(at) == base + 500, "the bot is done thinking before the grace ends"
    mine.think_ms = 4_000
    assert mine.deadline(at) == base + 1_500, "the grace ends before the bot is done"
    assert Initiative(seeded(SEED, "bot"), pauses_between_rounds=False).deadline(
        Moment(state, bob.peer_id, base, bot_kind="heuristic")) is None, "nothing to wait for"


def test_a_seat_works_ahead_only_when_its_work_would_go_out_next() -> None:
    """deck.md §6.3: a turn sent on an entry still being checked is the one the seat
    would send next; so none once stopped (table.md §7.4), none while a message of ours
    is on its way (§3.1), and none before an abort the seat owes (§7.3)."""
    bob = _bob_in_play()
    now = Moment(bob.state, bob.peer_id, bob.now_ms, bot_kind="heuristic")
    mine = Initiative(seeded(SEED, "bot"), pauses_between_rounds=False)
    assert mine.works_ahead(now)
    assert not mine.works_ahead(replace(now, stopped=True))
    assert not mine.works_ahead(replace(now, busy=True))
    mine.pending_abort = Abort(bob.state.seats[2], "bad_private_share", "its share is wrong")
    assert not mine.works_ahead(now)


def test_a_fault_only_this_seat_sees_makes_it_owe_an_abort_while_a_game_runs() -> None:
    """§7.3: the recipient of a bad private share logs an ``abort`` naming its sender;
    §2: an ``abort`` stops the game from ``keys`` or ``playing``, so only there is one
    owed (its reason within the wire's ``MAX_REASON``), and a later fault's takes the
    place of one not yet sent."""
    bob = _bob_in_play()
    state = bob.state
    cy, ann = state.seats[2], state.seats[0]
    mine = Initiative(seeded(SEED, "bot"), pauses_between_rounds=False)
    for phase in (TablePhase.LOBBY, TablePhase.REVEALING, TablePhase.ENDED):
        mine.owe_abort(replace(state, phase=phase), cy, "bad_private_share", "wrong")
        assert mine.pending_abort is None, phase
    mine.owe_abort(state, cy, "bad_private_share", "x" * (MAX_REASON + 50))
    assert mine.pending_abort == Abort(cy, "bad_private_share", "x" * MAX_REASON)
    mine.owe_abort(replace(state, phase=TablePhase.KEYS), ann, "bad_private_reveal", "late")
    assert mine.pending_abort == Abort(ann, "bad_private_reveal", "late")
