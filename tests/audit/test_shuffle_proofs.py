"""The audit and the proofs of shuffle (issue 9): every proof is checked with no reveal,
and a seat's own reveal convicts it even when another seat never reveals."""

from __future__ import annotations

import pytest

from tests.table import adversaries as adv
from uno_p2p.audit import audit_entries
from uno_p2p.audit.report import Status
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import RevealSecrets, ShuffleDeck
from uno_p2p.table.memnet import TableSetup, seat_table
from uno_p2p.table.player import Seat
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.registry import Body

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("audit_small_game")]


class NeverReveals(adv.Playing):
    """Plays honestly, then never publishes its secrets."""

    def work(self, seat: Seat, body: Body) -> Body | None:
        if seat.state.phase == TablePhase.REVEALING:
            return None
        return super().work(seat, body)


def test_a_cheat_is_convicted_by_its_own_reveal_when_another_seat_never_reveals() -> None:
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), b"own reveal"),
                     custom={1: adv.DishonestShuffler, 2: NeverReveals})
    net.run()
    log = net.entries()
    revealed = {e.author for e in log if isinstance(e.body, RevealSecrets)}
    bob, cy = net.host.state.seats[1], net.host.state.seats[2]
    assert bob in revealed
    assert cy not in revealed, "Cy never reveals, so the whole game cannot be re-executed"
    report = audit_entries(log)
    assert report.status == Status.VIOLATION, report.lines()
    finding = report.violation
    assert finding is not None
    assert finding.code == "dishonest_shuffle"
    assert finding.peer is not None
    assert finding.peer.name == "Bob"
    shuffle = log[finding.entry] if finding.entry is not None else None
    assert isinstance(shuffle, Entry)
    assert isinstance(shuffle.body, ShuffleDeck), "the finding points at Bob's shuffle"
    assert shuffle.author == bob


def test_the_audit_says_every_proof_of_shuffle_was_checked(
        small_log: tuple[Entry, ...]) -> None:
    report = audit_entries(small_log)
    shuffles = sum(isinstance(e.body, ShuffleDeck) for e in small_log)
    assert shuffles
    assert any(f"all {shuffles} proofs of shuffle" in line for line in report.verified)
