"""The audit's choice when one log holds several findings (docs/protocol/audit.md).

The audit reports one verdict: the stages run in order (chain, rules, proofs,
reveal) and the first stage that finds something gives it; within the
reveal stage and the table's own records, the finding at the earliest entry
wins. Here two seats shuffle from seeds they never committed to (nobody can
tell until the end-of-game reveal), in one deck or in two, and a log can
also be cut; the expected verdict is written from the log's construction:
which seat cheated first, at the entry of its ``shuffle`` (never computed by
the audit).
"""

from __future__ import annotations

import pytest

from tests.table.adversaries import DishonestShuffler
from uno_p2p.audit import Status, audit_entries
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import ShuffleDeck
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.registry import Body

pytestmark = pytest.mark.game


class CheatsInTheSecondDeck(DishonestShuffler):
    """Shuffles deck 0 honestly, then deck 1 from a seed it never committed to."""

    def cheat(self, body: Body) -> Body:
        if isinstance(body, ShuffleDeck) and body.shuffle == 0:
            return body
        return super().cheat(body)


def played(custom: dict[int, type[TablePeer]], seed: bytes) -> tuple[Entry, ...]:
    setup = TableSetup(3, preset("official", ["target=30"]), seed)
    net = seat_table(setup, custom=custom)
    net.run(until=game_over, max_steps=400_000)
    assert all(p.stopped is None for p in net.peers.values()), "nobody saw it during play"
    return net.entries()


def shuffle_entry(entries: tuple[Entry, ...], seat: int, deck: int) -> int:
    """Where ``seat`` logged its shuffle of ``deck`` (seats author in joining order)."""
    authors = [e.author for e in entries if isinstance(e.message.body, ShuffleDeck)
               and e.message.body.shuffle == 0]
    return next(e.seq for e in entries if isinstance(e.message.body, ShuffleDeck)
                and e.message.body.shuffle == deck and e.author == authors[seat])


@pytest.mark.parametrize(("custom", "culprit", "deck"), [
    # Both cheat in deck 0: Bob shuffles before Cy, so Bob's entry comes first.
    ({1: DishonestShuffler, 2: DishonestShuffler}, 1, 0),
    # Bob cheats in deck 1, Cy in deck 0: Cy's entry is earlier, though Bob sits first.
    ({1: CheatsInTheSecondDeck, 2: DishonestShuffler}, 2, 0),
], ids=["one-deck", "two-decks"])
def test_the_earliest_of_several_dishonest_shuffles_is_the_verdict(
        custom: dict[int, type[TablePeer]], culprit: int, deck: int) -> None:
    entries = played(custom, b"two shufflers")
    report = audit_entries(entries)
    assert report.status == Status.VIOLATION
    finding = report.violation
    assert finding is not None
    assert finding.stage == "reveal"
    assert finding.code == "dishonest_shuffle"
    assert finding.entry == shuffle_entry(entries, culprit, deck)
    assert finding.peer is not None
    assert (finding.peer.seat, finding.peer.name) == (culprit, ["Ann", "Bob", "Cy"][culprit])


def test_a_chain_fault_later_in_the_log_outranks_an_earlier_dishonest_shuffle() -> None:
    entries = played({1: DishonestShuffler}, b"two shufflers")
    late = len(entries) - 2
    assert late > shuffle_entry(entries, 1, 0)
    cut = [*entries[:late], *entries[late + 1:]]  # entry `late` dropped: the next is misplaced
    report = audit_entries(cut)
    assert report.status == Status.VIOLATION
    assert report.violation is not None
    assert (report.violation.stage, report.violation.code, report.violation.entry) == (
        "chain", "bad_sequence", late + 1)
