"""Which entries go to whom (``table/announce.py``): the sequencer's announcement of
what it logged (table.md §3), its drop notice (§3.1), a member's answer to a sync
request and the request itself (§9, §9.1, §13.4). Frames are read back with the
wire's decoders, so each case says what a recipient gets."""

from __future__ import annotations

from dataclasses import replace

from tests.audit.test_fault_codes import BOB, CY, FIRST_MOVE, HOST, LOG, STRANGER, forge
from uno_p2p.rules.actions import Draw
from uno_p2p.table.announce import announcement, drop_sent, sync_answer, sync_asked
from uno_p2p.table.bodies import Move
from uno_p2p.table.frames import (
    FRAME_DROP,
    FRAME_ENTRY,
    FRAME_SYNC,
    decode_drop,
    decode_sync,
)
from uno_p2p.table.replay import replay
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.sequencer import Drop
from uno_p2p.wire.envelope import Entry

BOBS_JOIN = 1
PLAYING = replay(LOG[:FIRST_MOVE + 1]).state


def _entries(out: list[Outgoing]) -> list[tuple[object, int]]:
    """Each frame as (its recipients, the number of the entry it carries)."""
    assert all(o.data[:1] == FRAME_ENTRY for o in out)
    return [(o.to, Entry.decode(o.data[1:]).seq) for o in out]


def test_a_logged_entry_goes_to_every_member_but_the_sequencer() -> None:
    entry = LOG[FIRST_MOVE]
    out = announcement(entry, PLAYING, LOG[:FIRST_MOVE + 1], HOST)
    assert _entries(out) == [((BOB, CY), FIRST_MOVE)]
    assert Entry.decode(out[0].data[1:]) == entry


def test_a_joiner_first_gets_the_log_before_its_join() -> None:
    state = replay(LOG[:BOBS_JOIN + 1]).state
    out = announcement(LOG[BOBS_JOIN], state, LOG[:BOBS_JOIN + 1], HOST)
    assert _entries(out) == [((BOB,), 0), ((BOB,), BOBS_JOIN)]


def test_an_author_that_is_no_member_gets_the_entry_too() -> None:
    forged = forge(LOG, FIRST_MOVE, 3, Move(Draw(1)))[-1]  # by a stranger
    out = announcement(forged, PLAYING, LOG[:FIRST_MOVE], HOST)
    assert _entries(out) == [((BOB, CY, STRANGER), FIRST_MOVE)]


def test_a_drop_notice_goes_to_its_author_only_and_never_to_ourselves() -> None:
    drop = Drop(BOB.key, 4, "illegal_move", "not your turn", b"\x01" * 32)
    [out] = drop_sent(drop, HOST)
    assert out.to == (BOB,)
    assert out.data[:1] == FRAME_DROP
    notice = decode_drop(out.data[1:])
    assert (notice.counter, notice.code, notice.reason, notice.digest) == \
        (4, "illegal_move", "not your turn", b"\x01" * 32)
    assert drop_sent(replace(drop, author=HOST.key), HOST) == []


def test_a_member_asking_gets_the_entries_after_its_log_and_a_stranger_nothing() -> None:
    logged = LOG[:FIRST_MOVE + 1]
    out = sync_answer(BOB, FIRST_MOVE - 1, PLAYING, logged, hosting=False)
    assert _entries(out) == [((BOB,), FIRST_MOVE - 1), ((BOB,), FIRST_MOVE)]
    assert sync_answer(STRANGER, 0, PLAYING, logged, hosting=False) == []
    assert sync_answer(BOB, FIRST_MOVE + 1, PLAYING, logged, hosting=False) == []


def test_the_sequencer_closes_its_answer_with_synced_and_the_askers_count() -> None:
    logged = LOG[:FIRST_MOVE + 1]
    *entries, closing = sync_answer(CY, FIRST_MOVE, PLAYING, logged, hosting=True)
    assert _entries(entries) == [((CY,), FIRST_MOVE)]
    assert closing.to == (CY,)
    assert closing.data[:1] == FRAME_DROP
    notice = decode_drop(closing.data[1:])
    assert (notice.counter, notice.code) == (sum(e.author == CY for e in logged), "synced")


def test_an_answer_starts_at_the_last_hand_over_at_the_latest() -> None:
    state = replace(PLAYING, handovers=((FIRST_MOVE - 1, HOST, BOB),))
    out = sync_answer(CY, FIRST_MOVE + 1, state, LOG[:FIRST_MOVE + 1], hosting=False)
    assert _entries(out) == [((CY,), FIRST_MOVE - 1), ((CY,), FIRST_MOVE)]


def test_a_sync_request_goes_to_every_member_but_us_with_our_logs_length() -> None:
    [out] = sync_asked(PLAYING, BOB)
    assert out.to == (HOST, CY)
    assert out.data[:1] == FRAME_SYNC
    assert decode_sync(out.data[1:]) == FIRST_MOVE + 1
    assert sync_asked(replay(LOG[:1]).state, HOST) == [], "nobody else at the table"
