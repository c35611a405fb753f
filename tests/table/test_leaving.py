"""A player who leaves during play is removed like one who vanished (issue 25;
table.md §8, §14.2).

What a player would check: the leaver's own ``leave`` is logged and takes its
seat away at once (no minute of waiting), the round under way is void, the
others play the game to its end and hold one log, and the audit verifies it.
Where the others cannot play on (two players, teams) or the leaver is the
sequencer, the leave stops the game as before; the frozen reference logs keep
their meaning (tests/audit/test_reference_logs.py).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.audit.test_report_schema import SCHEMA, errors
from tests.table.test_handover import MAX_STEPS
from uno_p2p.audit.core import audit_entries
from uno_p2p.audit.report import Status
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import Phase
from uno_p2p.table.bodies import RevealSecrets
from uno_p2p.table.events import PeerMisbehaved, PlayerRemoved, RoundEnded
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.removal import LEFT, leave_removes
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.wire.lobby import Leave

pytestmark = pytest.mark.game


def _table(seed: bytes, players: int, options: str = "official", target: int = 30
           ) -> Network:
    return seat_table(TableSetup(players, preset(options, [f"target={target}"]), seed,
                                 preset=options))


def _in_play(ts: TableState) -> bool:
    return ts.engine is not None and ts.engine.phase == Phase.PLAYING and ts.seq > 40


def _mid_round(net: Network) -> None:
    net.run(until=lambda n: _in_play(n.host.state), max_steps=MAX_STEPS)
    assert _in_play(net.host.state)


def _leave(net: Network, leaver: TablePeer) -> None:
    """The player presses q, y: its peer leaves, and its process ends once the leave
    is logged (it hears no more)."""
    leaver.leave("off to bed")
    net.flush(leaver)
    net.run(until=lambda n: leaver.peer_id not in n.host.state.seats
            or n.host.state.phase != TablePhase.PLAYING, max_steps=MAX_STEPS)
    net.silent.add(leaver.peer_id.key)


def test_a_joiner_who_leaves_a_four_player_game_is_removed_and_the_others_finish() -> None:
    net = _table(b"leave mid-round", 4)
    _mid_round(net)
    host, leaver = net.host, list(net.peers.values())[2]
    assert not leaver.leaving_stops_the_game()
    round_then = host.state.game.round
    _leave(net, leaver)
    net.run(until=game_over, max_steps=MAX_STEPS)
    live = [p for p in net.peers.values() if p is not leaver]
    assert len({tuple(e.hash for e in net.entries(p)) for p in live}) == 1
    assert all(p.state.phase == TablePhase.ENDED and p.stopped is None for p in live)
    assert not any(isinstance(e, PeerMisbehaved) for _, e in net.all_events())
    entries = net.entries(host)
    leaves = [e for e in entries if isinstance(e.body, Leave)]
    assert [e.author for e in leaves] == [leaver.peer_id]
    assert not any(isinstance(e.body, RevealSecrets) and e.author == leaver.peer_id
                   for e in entries), "a removed seat never reveals (table.md §14.3)"
    removed = [e for e in net.events[host.peer_id.key] if isinstance(e, PlayerRemoved)]
    assert [(e.name, e.reason, e.entry, e.round) for e in removed] == \
        [(leaver.name, LEFT, leaves[0].seq, round_then)]
    void = [e.winner for e in net.events[host.peer_id.key]
            if isinstance(e, RoundEnded) and e.round == round_then]
    assert void == [-1], "the round under way is void"
    state = host.state
    assert state.player_names == tuple(p.name for p in live)
    assert state.game.winner is not None, "the three left play the game to its end"
    report = audit_entries(entries)
    assert report.status == Status.OK, report.lines()
    assert [(r.name, r.round, r.left) for r in report.removed] == \
        [(leaver.name, round_then, True)]
    assert f"{leaver.name} left and was removed; round {round_then} is void." in \
        " ".join(report.lines())
    assert errors(report.to_json(), SCHEMA) == [], "the --json report keeps its schema"


def test_a_leave_is_removed_at_once_not_after_the_response_time_out() -> None:
    net = _table(b"leave at once", 3)
    _mid_round(net)
    leaver = list(net.peers.values())[1]
    clock = net.host.state.clock_ms
    _leave(net, leaver)
    assert leaver.peer_id not in net.host.state.seats
    assert net.host.state.phase == TablePhase.PLAYING
    assert net.now_ms - clock < 5_000, "no waiting for the seat to be held lost"


@pytest.mark.parametrize(("players", "options", "who"), [
    (2, "official", 1),          # one player cannot play on alone
    (4, "official", 0),          # the sequencer orders every entry
])
def test_a_leave_the_others_cannot_play_on_after_stops_the_game(
        players: int, options: str, who: int) -> None:
    net = _table(b"leave stops %d" % players, players, options, target=500)
    _mid_round(net)
    leaver = list(net.peers.values())[who]
    assert leaver.leaving_stops_the_game()
    leaver.leave("off to bed")
    net.flush(leaver)
    net.run(until=game_over, max_steps=MAX_STEPS)
    state = net.host.state
    assert state.stop is not None
    assert (state.stop.code, state.stop.culprit) == ("left", None)
    assert len(state.seats) == players, "nobody was removed"
    assert not any(isinstance(e, PlayerRemoved) for _, e in net.all_events())
    assert audit_entries(net.entries(net.host)).status == Status.STOPPED


def test_before_and_after_a_game_leaving_stops_nothing_for_the_others() -> None:
    net = _table(b"leave lobby", 3)
    peer = list(net.peers.values())[1]
    net.run(until=game_over, max_steps=MAX_STEPS)
    assert not peer.leaving_stops_the_game()


def test_a_leave_in_play_still_stops_a_version_1_table() -> None:
    """A log written at version 1 keeps version 1's meaning: the leave stops the game
    (table.md §8), whatever the seats left; only version 2 removes the seat."""
    net = seat_table(TableSetup(4, preset("official", ["target=200"]), b"v1 leave"))
    net.run(until=lambda n: n.host.state.engine is not None
            and n.host.state.engine.phase.value == "playing")
    state = net.host.state
    leaver = state.seats[1]
    assert leave_removes(state, leaver) == ""
    assert leave_removes(replace(state, version=1), leaver) != ""
