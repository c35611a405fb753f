"""More of the ledger's checks from the outside, each with the code the protocol names.

docs/protocol/table.md §3: the host alone changes the options. §8: a seat that
reveals its secrets during a game has left it ("leaving stops the game; every
seat, the leaver first, reveals"). docs/protocol/verdicts.md lists each code
and whom it names. A refusal is also a sentence a player reads (the code,
peer and entry are for machines): it says something, never "None".
"""

from __future__ import annotations

import pytest

from tests.table.test_ledger_checks import (
    PEERS,
    lobby_of_three,
    resigned,
    signed,
)
from uno_p2p.audit import walk
from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Abort, RevealSecrets
from uno_p2p.table.ledger import check_message
from uno_p2p.table.memnet import TableSetup, game_over, seat_table, seeded
from uno_p2p.table.state import Misbehaviour, TablePhase, TableState
from uno_p2p.wire.lobby import SetOptions

Steps = tuple[list[object], list[Identity]]


@pytest.fixture(scope="module")
def finished() -> Steps:
    """One real 2-player game's log, step by step, and the seats' identities."""
    net = seat_table(TableSetup(2, preset("official", ["target=30"]), b"refusals"))
    net.run(until=game_over, max_steps=200_000)
    identities = [Identity(seeded(b"refusals", f"identity {i}")) for i in range(2)]
    return list(walk(net.entries())), identities


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
    reveal = next(s for s in steps if isinstance(s.entry.message.body,  # type: ignore[attr-defined]
                                                  RevealSecrets))
    author = reveal.entry.author  # type: ignore[attr-defined]
    seat = [i.peer for i in identities].index(author)
    step = next(s for s in steps if s.before.phase == TablePhase.PLAYING)  # type: ignore[attr-defined]
    before: TableState = step.before  # type: ignore[attr-defined]
    body = reveal.entry.message.body  # type: ignore[attr-defined]
    after, _ = check_message(before, resigned(step, identities[seat], body))
    assert after.phase == TablePhase.REVEALING
    assert after.stop is not None
    # A leave names nobody as a culprit; the stop says who left and where.
    assert (after.stop.code, after.stop.culprit, after.stop.entry) == ("left", None, before.seq)
    assert after.stop.reason == f"{before.player_names[seat]} left the table"
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

