"""Every rule of a ``remove`` entry (docs/protocol/table.md §14.1) refused from the
outside: "the phase is keys or playing; the author is the sequencer; the seat is
another seat the table waits for; the game is not over, has no teams, and keeps
at least 2 players", else ``bad_remove`` naming the author, at every peer and in
the audit. Each forged entry is signed, countersigned and chained correctly."""

from __future__ import annotations

import pytest

from tests.table.refusing import Table, accepted_everywhere, forge, refused_everywhere, table_at
from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Remove
from uno_p2p.table.state import TablePhase, TableState

pytestmark = pytest.mark.xdist_group("test_removal_rules_refused")

OPTIONS = preset("official", ["target=30"])


def a_guests_decision(state: TableState) -> bool:
    """In play, past the deal, the game waiting for a decision of a seat not the host's."""
    game = state.engine
    return state.phase == TablePhase.PLAYING and game is not None \
        and game.decider() not in (None, 0)


@pytest.fixture(scope="module")
def playing() -> Table:
    return table_at(3, OPTIONS, b"removal refused", a_guests_decision)


def _waited_and_idle(table: Table) -> tuple[Identity, Identity]:
    """The seat whose decision the game waits for, and the other guest."""
    game = table.host.state.engine
    assert game is not None
    _, bob, cy = table.ids
    return (bob, cy) if game.decider() == 1 else (cy, bob)


def test_the_sequencer_removes_a_seat_the_table_waits_for(playing: Table) -> None:
    """The control: Ann, the sequencer, removes the seat whose turn it is."""
    waited, _ = _waited_and_idle(playing)
    accepted_everywhere(playing, forge(playing, playing.ids[0], Remove(waited.peer, "gone")))


def test_only_the_sequencer_removes(playing: Table) -> None:
    waited, idle = _waited_and_idle(playing)
    entry = forge(playing, idle, Remove(waited.peer, "gone"))
    assert refused_everywhere(playing, entry) == "bad_remove"


def test_only_a_seat_the_table_waits_for(playing: Table) -> None:
    _, idle = _waited_and_idle(playing)
    entry = forge(playing, playing.ids[0], Remove(idle.peer, "gone"))
    assert refused_everywhere(playing, entry) == "bad_remove"


def test_not_the_sequencer_itself(playing: Table) -> None:
    ann = playing.ids[0]
    assert refused_everywhere(playing, forge(playing, ann, Remove(ann.peer, "gone"))) \
        == "bad_remove"


def test_not_the_sequencer_itself_even_when_the_table_waits_for_it() -> None:
    """"another seat": on the host's own turn the table waits for the host's seat, and
    still its sequencer cannot remove it."""
    table = table_at(3, OPTIONS, b"removal refused, host 2",
                     lambda state: state.phase == TablePhase.PLAYING and state.engine is not None
                     and state.engine.decider() == 0)
    ann = table.ids[0]
    assert refused_everywhere(table, forge(table, ann, Remove(ann.peer, "gone"))) \
        == "bad_remove"


def test_only_a_seat(playing: Table) -> None:
    stranger = Identity(b"\x09" * 32)
    entry = forge(playing, playing.ids[0], Remove(stranger.peer, "gone"))
    assert refused_everywhere(playing, entry) == "bad_remove"


def test_a_game_keeps_two_players() -> None:
    table = table_at(2, OPTIONS, b"removal refused, two", a_guests_decision)
    ann, bob = table.ids
    assert refused_everywhere(table, forge(table, ann, Remove(bob.peer, "gone"))) \
        == "bad_remove"


def test_a_team_game_keeps_its_teams() -> None:
    table = table_at(4, preset("official", ["target=30", "teams=2"]),
                     b"removal refused, teams", a_guests_decision)
    game = table.host.state.engine
    assert game is not None
    decider = game.decider()
    assert decider is not None
    waited = table.host.state.seats[decider]
    entry = forge(table, table.ids[0], Remove(waited, "gone"))
    assert refused_everywhere(table, entry) == "bad_remove"


def test_only_during_key_setup_and_play() -> None:
    """A table revealing its secrets removes nobody, not even a seat whose reveal it
    waits for (§14.1: the closing entry ends that wait, §8)."""
    table = table_at(3, OPTIONS, b"removal refused",
                     lambda state: state.phase == TablePhase.REVEALING)
    ann, bob, cy = table.ids
    state = table.host.state
    owing = next(i for i in (bob, cy) if state.seats.index(i.peer) not in state.reveals)
    assert refused_everywhere(table, forge(table, ann, Remove(owing.peer, "gone"))) \
        == "bad_remove"


def test_in_key_setup_only_a_seat_that_owes_its_key() -> None:
    """§14.1: in ``keys`` the table waits for a seat that has not logged its key_setup
    (Cy, who vanished at the start); a seat whose key is in is not waited for."""
    table = table_at(3, OPTIONS, b"removal refused, keys",
                     lambda state: state.phase == TablePhase.KEYS and all(state.keys[:2]),
                     vanished=2)
    ann, bob, cy = table.ids
    accepted_everywhere(table, forge(table, ann, Remove(cy.peer, "gone")))
    assert refused_everywhere(table, forge(table, ann, Remove(bob.peer, "gone"))) \
        == "bad_remove"
