"""More of the ledger's checks from the outside, each with the code the protocol names.

docs/protocol/table.md §3: the host alone changes the options. §8: a seat that
reveals its secrets during a game has left it ("leaving stops the game; every
seat, the leaver first, reveals"). docs/protocol/verdicts.md lists each code
and whom it names. A refusal is also a sentence a player reads (the code,
peer and entry are for machines): it says something, never "None".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.table.test_ledger_checks import (
    CHANNELS,
    PEERS,
    TABLE_ID,
    lobby_of_three,
    resigned,
    signed,
)
from uno_p2p.audit import walk
from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.actions import Draw
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import Phase
from uno_p2p.table.bodies import Abort, Clock, KeySetup, Move, RevealSecrets
from uno_p2p.table.events import GameStarted, OptionsChanged, PlayerJoined
from uno_p2p.table.ledger import (
    LIE_CODES,
    PROOF_CODES,
    LogView,
    apply_entry,
    check_message,
    initial_state,
)
from uno_p2p.table.memnet import TableSetup, game_over, seat_table, seeded
from uno_p2p.table.removal import LEFT
from uno_p2p.table.state import Misbehaviour, TablePhase, TableState
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.limits import MAX_EVIDENCE_DEPTH
from uno_p2p.wire.lobby import Join, Leave, OpenTable, Ready, SetOptions, Start

pytestmark = pytest.mark.xdist_group("test_ledger_refusals")

Steps = tuple[list[object], list[Identity]]


@pytest.fixture(scope="module")
def finished() -> Steps:
    """One real 2-player game's log, step by step, and the seats' identities."""
    net = seat_table(TableSetup(2, preset("official", ["target=30"]), b"refusals"))
    net.run(until=game_over, max_steps=200_000)
    identities = [Identity(seeded(b"refusals", f"identity {i}")) for i in range(2)]
    return list(walk(net.entries())), identities


def _first_reveal(finished: Steps) -> tuple[int, RevealSecrets]:
    """The seat of the log's first ``reveal_secrets`` entry, and its body."""
    steps, identities = finished
    reveal = next(s.entry for s in steps  # type: ignore[attr-defined]
                  if isinstance(s.entry.message.body, RevealSecrets))  # type: ignore[attr-defined]
    seat = [i.peer for i in identities].index(reveal.author)
    return seat, reveal.message.body


def reads_as_a_sentence(error: Misbehaviour) -> None:
    said = str(error).split(": ", 1)[-1]
    assert said.strip(), error
    assert said != "None", error


@pytest.mark.parametrize("author", [1, 2])
def test_only_the_host_changes_the_options(author: int) -> None:
    ts = lobby_of_three()
    pairs = tuple((str(k), v) for k, v in preset("house").to_wire())
    with pytest.raises(Misbehaviour) as caught:
        check_message(ts, signed(author, SetOptions("house", pairs)))
    assert (caught.value.code, caught.value.peer) == ("not_host", PEERS[author].fingerprint)
    reads_as_a_sentence(caught.value)
    changed, _ = check_message(ts, signed(0, SetOptions("house", pairs)))
    assert changed.lobby is not None
    assert changed.lobby.preset == "house"


def test_a_seat_that_reveals_its_secrets_mid_game_has_left_it(finished: Steps) -> None:
    steps, identities = finished
    seat, body = _first_reveal(finished)
    step = next(s for s in steps if s.before.phase == TablePhase.PLAYING)  # type: ignore[attr-defined]
    before: TableState = step.before  # type: ignore[attr-defined]
    after, _ = check_message(before, resigned(step, identities[seat], body))
    assert after.phase == TablePhase.REVEALING
    assert after.stop is not None
    # A leave names nobody as a culprit; the stop says who left and where.
    assert (after.stop.code, after.stop.culprit, after.stop.entry) == ("left", None, before.seq)
    assert after.stop.reason == f"{before.player_names[seat]} {LEFT}"
    assert seat in after.reveals
    assert after.reveals_expected == frozenset(range(len(identities))), "every seat reveals"


def test_a_stranger_cannot_stop_the_game_and_is_told_so(finished: Steps) -> None:
    steps, identities = finished
    step = next(s for s in steps if s.before.phase == TablePhase.PLAYING)  # type: ignore[attr-defined]
    stranger = Identity(seeded(b"refusals", "stranger"))
    body = Abort(identities[1].peer, "unresponsive", "did not answer")
    with pytest.raises(Misbehaviour) as caught:
        check_message(step.before, resigned(step, stranger, body))  # type: ignore[attr-defined]
    assert (caught.value.code, caught.value.peer) == ("not_seated", stranger.peer.fingerprint)
    reads_as_a_sentence(caught.value)



def test_a_start_the_options_cannot_seat_is_refused() -> None:
    # RULES.md (teams): equal teams of at least two; three players make no two teams, so
    # the start is bad_seats (docs/protocol/verdicts.md), named on the host.
    ts = lobby_of_three()
    pairs = tuple((str(k), v) for k, v in preset("official", ["teams=2"]).to_wire())
    ts = check_message(ts, signed(0, SetOptions("official", pairs)))[0]
    ts = check_message(ts, signed(1, Ready(True)))[0]
    ts = check_message(ts, signed(2, Ready(True)))[0]
    with pytest.raises(Misbehaviour) as caught:
        check_message(ts, signed(0, Start((PEERS[0], PEERS[1], PEERS[2]))))
    assert (caught.value.code, caught.value.peer) == ("bad_seats", PEERS[0].fingerprint)
    reads_as_a_sentence(caught.value)


def test_the_seats_must_be_the_joined_peers_and_the_refusal_says_so() -> None:
    ts = lobby_of_three()
    ts = check_message(ts, signed(2, Ready(True)))[0]
    with pytest.raises(Misbehaviour) as caught:
        check_message(ts, signed(0, Start((PEERS[0], PEERS[2], PEERS[1]))))
    assert caught.value.code == "bad_seats"
    reads_as_a_sentence(caught.value)
    started, events = check_message(ts, signed(0, Start((PEERS[0], PEERS[1], PEERS[2]))))
    assert started.phase == TablePhase.KEYS
    assert started.keys == (None, None, None), "every seat still owes its key"
    assert events == [GameStarted(("Ann", "Bob", "Cy"), preset("official"))]


def test_opening_the_table_seats_its_host_and_shows_the_options() -> None:
    pairs = tuple((str(k), v) for k, v in preset("house").to_wire())
    body = OpenTable("Ann", CHANNELS[0], "house", pairs, 4)
    ts, events = check_message(initial_state(TABLE_ID), signed(0, body))
    assert events == [PlayerJoined(PEERS[0], "Ann"), OptionsChanged("house", preset("house"))]
    assert ts.lobby is not None
    assert (ts.lobby.host, ts.lobby.joined, ts.lobby.max_players) == (PEERS[0], (PEERS[0],), 4)
    # wire.md §4: entry 0 opens the table; nothing else may come first.
    with pytest.raises(Misbehaviour) as caught:
        check_message(initial_state(TABLE_ID), signed(1, Join("Bob", CHANNELS[1])))
    assert caught.value.code == "no_table"
    # Only entry 0 opens it.
    with pytest.raises(Misbehaviour) as again:
        check_message(ts, signed(0, body))
    assert again.value.code == "reopened"


def test_the_clock_going_backwards_is_refused_with_a_sentence() -> None:
    ts = check_message(lobby_of_three(), signed(0, Clock(10)))[0]
    assert ts.clock_ms == 10
    with pytest.raises(Misbehaviour) as caught:
        check_message(ts, signed(0, Clock(9)))
    assert (caught.value.code, caught.value.peer) == ("clock_backwards", PEERS[0].fingerprint)
    reads_as_a_sentence(caught.value)


def test_a_key_announcement_made_for_another_peer_is_a_bad_key(finished: Steps) -> None:
    # deck.md §4: the key's proof binds the table and the peer; another's does not verify.
    steps, identities = finished
    keyed = [s for s in steps if isinstance(s.entry.message.body, KeySetup)]  # type: ignore[attr-defined]
    first, second = keyed[0], keyed[1]
    before: TableState = second.before  # type: ignore[attr-defined]
    author = second.entry.author  # type: ignore[attr-defined]
    seat = [i.peer for i in identities].index(author)
    stolen = first.entry.message.body  # type: ignore[attr-defined]
    with pytest.raises(Misbehaviour) as caught:
        check_message(before, resigned(second, identities[seat], stolen))
    assert (caught.value.code, caught.value.peer) == ("bad_key", author.fingerprint)
    own = second.entry.message.body  # type: ignore[attr-defined]
    after, _ = check_message(before, resigned(second, identities[seat], own))
    assert after.keys[seat] is not None


def test_a_refused_entry_is_its_own_evidence(finished: Steps) -> None:
    # table.md §7: a refused entry names its author and holds the entry as the evidence.
    steps, identities = finished
    step = next(s for s in steps if s.before.phase == TablePhase.PLAYING  # type: ignore[attr-defined]
                and isinstance(s.entry.message.body, Move))  # type: ignore[attr-defined]
    before: TableState = step.before  # type: ignore[attr-defined]
    game = before.engine
    assert game is not None
    idle = next(s for s in range(2) if s != game.current and game.phase == Phase.PLAYING)
    message = resigned(step, identities[idle], Move(Draw(idle)))
    entry = Entry.countersign(identities[0], before.seq, step.entry.prev_hash, message)  # type: ignore[attr-defined]
    with pytest.raises(Misbehaviour) as caught:
        apply_entry(before, entry)
    assert (caught.value.code, caught.value.peer) == ("illegal_move",
                                                      identities[idle].peer.fingerprint)
    assert caught.value.entry == before.seq
    assert caught.value.evidence == (entry,)


def test_evidence_may_not_itself_hold_evidence(finished: Steps) -> None:
    # table.md §7.2: judging evidence never recurses without bound: an abort judged as
    # evidence (one level down) may not carry evidence of its own; bad_evidence, its author.
    steps, identities = finished
    step = next(s for s in steps if s.before.phase == TablePhase.PLAYING)  # type: ignore[attr-defined]
    before: TableState = step.before  # type: ignore[attr-defined]
    inner = resigned(step, identities[0], Move(Draw(0)))
    body = Abort(identities[0].peer, "illegal_move", "x", inner.encode())
    nested = resigned(step, identities[1], body)
    with pytest.raises(Misbehaviour) as caught:
        check_message(before, nested, LogView(depth=MAX_EVIDENCE_DEPTH))
    assert (caught.value.code, caught.value.peer) == ("bad_evidence",
                                                      identities[1].peer.fingerprint)
    reads_as_a_sentence(caught.value)


def test_only_a_seated_peer_leaves_a_game_under_way(finished: Steps) -> None:
    # verdicts.md §7: not_seated, "a leave or abort during a game by a non-seat".
    steps, _ = finished
    step = next(s for s in steps if s.before.phase == TablePhase.PLAYING)  # type: ignore[attr-defined]
    stranger = Identity(seeded(b"refusals", "stranger"))
    with pytest.raises(Misbehaviour) as caught:
        check_message(step.before, resigned(step, stranger, Leave("bye")))  # type: ignore[attr-defined]
    assert (caught.value.code, caught.value.peer) == ("not_seated", stranger.peer.fingerprint)
    reads_as_a_sentence(caught.value)


def test_a_reveal_from_a_seat_that_announced_no_key_is_out_of_place(finished: Steps) -> None:
    # verdicts.md §7: unexpected_reveal; a seat with no key has no secrets to show.
    steps, identities = finished
    seat, body = _first_reveal(finished)
    step = next(s for s in steps if s.before.phase == TablePhase.KEYS  # type: ignore[attr-defined]
                and s.before.keys[seat] is None)  # type: ignore[attr-defined]
    with pytest.raises(Misbehaviour) as caught:
        check_message(step.before, resigned(step, identities[seat], body))  # type: ignore[attr-defined]
    assert (caught.value.code, caught.value.peer) == (
        "unexpected_reveal", identities[seat].peer.fingerprint)
    reads_as_a_sentence(caught.value)


def test_the_lies_a_stale_head_does_not_excuse_are_the_specs() -> None:
    """table.md §5.3 lists the refusals that prove a lie whatever the author had seen:
    every proof (the reveal mismatches among them) and three rules a signature breaks."""
    text = (Path(__file__).resolve().parents[2] / "docs/protocol/table.md").read_text()
    section = text.split("\n### 5.3 ", 1)[1].split("\n## 6. ", 1)[0]
    listed = set(re.findall(r"`([a-z_]+)`", section.split("whatever the author had seen")[1]
                            .split(". The one")[0]))
    assert listed == LIE_CODES
    assert LIE_CODES - PROOF_CODES == listed - PROOF_CODES == {
        "wrong_seat", "not_a_move", "not_sequencer"}
