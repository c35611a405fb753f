"""Every rule of a ``handover`` entry (docs/protocol/table.md §13.2) refused from the
outside: a well-signed, well-chained entry that breaks one rule is refused with
``bad_handover`` or ``bad_vote`` (verdicts.md §7.2) by every peer and the audit,
naming its author. Five seats: Ann hosts, Bob is the next seat, and a majority
(three) exists without Bob's own vote."""

from __future__ import annotations

import pytest

from tests.table.refusing import (
    Table,
    accepted_everywhere,
    forge,
    past,
    refused_everywhere,
    table_at,
    votes,
)
from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Handover
from uno_p2p.wire.envelope import Head

pytestmark = pytest.mark.xdist_group("test_handover_rules_refused")


@pytest.fixture(scope="module")
def table() -> Table:
    return table_at(5, preset("official", ["target=30"]), b"handover refused", past(12))


def _handover(table: Table, author: Identity, voters: list[Identity]) -> str:
    entry = forge(table, author, Handover(1, table.ids[0].peer, author.peer,
                                          votes(table, voters, author)))
    return refused_everywhere(table, entry)


def test_the_next_seat_with_a_majority_takes_over(table: Table) -> None:
    """The control: Bob, the seat after Ann, with three of five votes, his own among
    them, for term 1 at the last entry."""
    ann, bob, cy, dan, _ = table.ids
    accepted_everywhere(table, forge(table, bob, Handover(1, ann.peer, bob.peer,
                                                          votes(table, [bob, cy, dan], bob))))


def test_only_the_next_seat_after_the_sequencer_takes_over(table: Table) -> None:
    _, _, cy, dan, eve = table.ids
    assert _handover(table, cy, [cy, dan, eve]) == "bad_handover"


def test_the_handover_replaces_the_sequencer_itself(table: Table) -> None:
    _, bob, cy, dan, _ = table.ids
    body = Handover(1, cy.peer, bob.peer, votes(table, [bob, cy, dan], bob, old=cy.peer))
    assert refused_everywhere(table, forge(table, bob, body)) == "bad_handover"


def test_terms_go_one_by_one(table: Table) -> None:
    """The first hand-over opens term 1; term 2 skips it (a term is never 0 on the
    wire: the body does not decode, wire.md)."""
    ann, bob, cy, dan, _ = table.ids
    body = Handover(2, ann.peer, bob.peer, votes(table, [bob, cy, dan], bob, term=2))
    assert refused_everywhere(table, forge(table, bob, body)) == "bad_handover"


def test_a_handover_follows_the_last_entry_its_author_holds(table: Table) -> None:
    """§13.2: the votes and the entry are for the head the hand-over follows; an
    earlier head (every vote signed for it) still leaves entries out."""
    ann, bob, cy, dan, _ = table.ids
    entries = table.net.entries()
    earlier = Head(table.head.seen - 1, entries[-2].hash)
    body = Handover(1, ann.peer, bob.peer, votes(table, [bob, cy, dan], bob, head=earlier))
    assert refused_everywhere(table, forge(table, bob, body, head=earlier)) == "bad_handover"


def test_a_majority_of_the_seats_signs(table: Table) -> None:
    _, bob, cy, _, _ = table.ids
    assert _handover(table, bob, [bob, cy]) == "bad_vote"


def test_the_new_sequencers_own_vote_is_among_them(table: Table) -> None:
    _, bob, cy, dan, eve = table.ids
    assert _handover(table, bob, [cy, dan, eve]) == "bad_vote"


def test_the_old_sequencers_vote_does_not_count(table: Table) -> None:
    ann, bob, cy, _, _ = table.ids
    assert _handover(table, bob, [bob, cy, ann]) == "bad_vote"


def test_one_member_votes_once(table: Table) -> None:
    _, bob, cy, _, _ = table.ids
    assert _handover(table, bob, [bob, cy, cy]) == "bad_vote"


def test_only_members_vote(table: Table) -> None:
    _, bob, cy, _, _ = table.ids
    stranger = Identity(b"\x07" * 32)
    assert _handover(table, bob, [bob, cy, stranger]) == "bad_vote"


def test_every_vote_is_signed_for_this_handover(table: Table) -> None:
    """A vote signed for another head is no vote for this one (its signature fails)."""
    ann, bob, cy, dan, _ = table.ids
    entries = table.net.entries()
    other = Head(table.head.seen - 1, entries[-2].hash)
    signed = (*votes(table, [bob, cy], bob), *votes(table, [dan], bob, head=other))
    body = Handover(1, ann.peer, bob.peer, signed)
    assert refused_everywhere(table, forge(table, bob, body)) == "bad_vote"
