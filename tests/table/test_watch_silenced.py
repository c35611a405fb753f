"""Whom an entry says did not answer (``watch.silenced``), which censorship stands on.

table.md §6.2: a peer that holds a signed message from the player the sequencer
then timed out (or aborted for silence) names the sequencer for censorship. The
silenced player is the ``TimeOut``'s seat, every seat of the table included (the
host's own player, seat 0, too), or the culprit of an ``unresponsive`` or
``missing_reveal`` abort that carries no evidence; any other entry silences nobody.
"""

from __future__ import annotations

from tests.audit.test_fault_codes import BOB, FIRST_MOVE, LOG, PEOPLE, forge
from uno_p2p.rules.actions import Draw, TimeOut
from uno_p2p.table.bodies import Abort, Move
from uno_p2p.table.replay import replay
from uno_p2p.table.watch import silenced


def test_a_time_out_silences_its_seat_and_a_silence_abort_its_culprit() -> None:
    before = replay(LOG[:FIRST_MOVE]).state
    for seat in range(3):
        timed_out = forge(LOG, FIRST_MOVE, 0, Move(TimeOut(seat)))[-1]
        assert silenced(timed_out, before) == PEOPLE[seat].peer, f"seat {seat}"
    for code in ("unresponsive", "missing_reveal"):
        assert silenced(forge(LOG, FIRST_MOVE, 0, Abort(BOB, code, "", b""))[-1],
                        before) == BOB
        with_evidence = Abort(BOB, code, "", LOG[FIRST_MOVE].message.encode())
        assert silenced(forge(LOG, FIRST_MOVE, 0, with_evidence)[-1], before) is None
    assert silenced(forge(LOG, FIRST_MOVE, 0, Abort(BOB, "illegal_move", "", b""))[-1],
                    before) is None
    assert silenced(forge(LOG, FIRST_MOVE, 1, Move(Draw(1)))[-1], before) is None
    # A time-out for a seat the table does not have names nobody (the ledger refuses it).
    assert silenced(forge(LOG, FIRST_MOVE, 0, Move(TimeOut(3)))[-1], before) is None
