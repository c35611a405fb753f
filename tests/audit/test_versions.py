"""The audit reads both protocol versions (wire.md §3), each by its own rules.

Version 1 logs (tests/data, protocol/vectors/games) keep their verdicts (their
own tests pin them); version 2 logs (protocol/vectors/games/v2) audit ``ok``.
A version 2 shuffle must name its deck as the engine asked (table.md §4.1), a
version 1 shuffle must not, and a table speaks entry 0's version only: each
departure is refused naming the author (verdicts.md §7.2-§7.3).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from uno_p2p.audit import Status, audit_entries
from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.actions import TimeOut
from uno_p2p.rules.codec import Slot
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Clock, DeckStart, Handover, Move, ShuffleDeck
from uno_p2p.table.memnet import seeded
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.registry import Body

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "games"
V1 = list(read_log(VECTORS / "2p-official.unolog").entries)
V2 = list(read_log(VECTORS / "v2" / "2p-official.unolog").entries)
#: The vector games' identities (scripts/make_game_vectors.py: seed label + "identity i").
PEOPLE = {label: [Identity(seeded(b"uno-lan/game-vectors/" + label, f"identity {i}"))
                  for i in range(2)] for label in (b"2p", b"v2-2p")}


def resign(entries: list[Entry], index: int, body: Body, label: bytes,
           version: int | None = None) -> list[Entry]:
    """``entries[:index]`` then entry ``index`` with ``body`` (and ``version``), re-signed
    by its author and countersigned by the host, as a colluding host could."""
    old = entries[index].message
    people = PEOPLE[label]
    author = next(p for p in people if p.peer == old.author)
    message = Message.sign(author, old.table_id, old.counter, old.head, body,
                           version=old.version if version is None else version)
    return [*entries[:index], Entry.countersign(people[0], index, entries[index].prev_hash,
                                                message)]


def first_shuffle(entries: list[Entry]) -> tuple[int, ShuffleDeck]:
    entry = next(e for e in entries if isinstance(e.body, ShuffleDeck))
    assert isinstance(entry.body, ShuffleDeck)
    return entry.seq, entry.body


def test_both_versions_audit_ok() -> None:
    assert {V1[0].message.version, V2[0].message.version} == {1, 2}
    for log in (V1, V2):
        assert audit_entries(log).status == Status.OK


@pytest.mark.parametrize("change", ["round", "faces", "none"])
def test_a_version_2_shuffle_must_name_its_deck(change: str) -> None:
    seq, body = first_shuffle(V2)
    assert body.start == DeckStart(0)  # the first dealer-selection deck: round 0, fresh
    # Another round; a fresh deck named as if made of one old card; no name at all.
    start = {"round": DeckStart(1), "faces": DeckStart(0, (Slot(0, 0),), (5,)),
             "none": None}[change]
    report = audit_entries(resign(V2, seq, replace(body, start=start), b"v2-2p"))
    assert report.violation is not None
    assert (report.violation.code, report.violation.entry) == ("bad_shuffle", seq)
    assert report.violation.peer is not None
    assert report.violation.peer.key == V2[seq].author.key


def test_a_version_1_shuffle_names_no_deck() -> None:
    seq, body = first_shuffle(V1)
    report = audit_entries(resign(V1, seq, replace(body, start=DeckStart(0)), b"2p"))
    assert report.violation is not None
    assert (report.violation.code, report.violation.entry) == ("bad_shuffle", seq)


def test_a_table_speaks_entry_0s_version() -> None:
    seq, body = first_shuffle(V2)
    report = audit_entries(resign(V2, seq, replace(body, start=None), b"v2-2p", version=1))
    assert report.violation is not None
    assert (report.violation.code, report.violation.entry) == ("wrong_version", seq)
    assert report.violation.peer is not None
    assert report.violation.peer.key == V2[seq].author.key


HANDOVER = list(read_log(VECTORS / "v2" / "3p-handover.unolog").entries)
#: The hand-over vector's seats 0-2: Ann (the first host), Bob (who takes over), Cy.
HANDOVER_PEOPLE = [Identity(seeded(b"uno-lan/game-vectors/v2-handover", f"identity {i}"))
                   for i in range(3)]


def test_after_a_handover_no_time_out_before_the_new_start_clock() -> None:
    """table.md §13.2: the new sequencer's start clock is set again; until its first
    ``clock`` a ``TimeOut`` is ``no_start_clock``, naming it (the old clock does not do)."""
    handover = next(e.seq for e in HANDOVER if isinstance(e.body, Handover))
    start_clock = handover + 1
    assert isinstance(HANDOVER[start_clock].body, Clock), "the honest new sequencer's"
    bob = HANDOVER_PEOPLE[1]
    kept = HANDOVER[:start_clock]
    counter = sum(e.author == bob.peer for e in kept)
    seat = 0  # Bob's table waits for Ann, the old host, at the hand-over
    message = Message.sign(bob, kept[0].message.table_id, counter,
                           Head(start_clock, kept[-1].hash), Move(TimeOut(seat)))
    forged = [*kept, Entry.countersign(bob, start_clock, kept[-1].hash, message)]
    report = audit_entries(forged)
    assert report.violation is not None
    assert (report.violation.code, report.violation.entry) == ("no_start_clock", start_clock)
    assert report.violation.peer is not None
    assert report.violation.peer.key == bob.peer.key
