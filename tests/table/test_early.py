"""The entries a peer keeps ahead of its log (``EarlyEntries``, table.md §9.1, §12),
through the part's own API: what it keeps and hands back, its bounds, what it
refuses, and when it says to ask every member for the gap."""

from __future__ import annotations

from dataclasses import replace

import pytest

from uno_p2p.crypto.identity import Identity
from uno_p2p.table import early as early_module
from uno_p2p.table.bodies import Clock, Handover
from uno_p2p.table.early import EarlyEntries, Unverified
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.limits import GAP_FILL_AFTER_MS, MAX_EARLY_ENTRIES

TABLE = bytes(16)
HOST = Identity(b"\x01" * 32)
NEXT = Identity(b"\x02" * 32)
SEAT = Identity(b"\x03" * 32)
HEAD = Head.genesis(TABLE)


def _entry(seq: int, *, by: Identity = HOST, signer: Identity = HOST, n: int = 0) -> Entry:
    message = Message.sign(by, TABLE, 100 + n, HEAD, Clock(n))
    return Entry.countersign(signer, seq, bytes(32), message)


def test_an_entry_ahead_is_kept_and_handed_back_once_at_its_number() -> None:
    early = EarlyEntries()
    entry = _entry(7)
    assert early.keep(entry, HOST.peer, 1_000) is None
    assert 7 in early
    assert len(early) == 1
    assert early.size == len(entry.encode())
    assert early.take(6) is None, "only the entry at our log's next number"
    assert early.take(7) == entry
    assert early.take(7) is None, "handed back once"
    assert (len(early), early.size) == (0, 0)


def test_the_same_number_twice_keeps_the_first() -> None:
    early = EarlyEntries()
    first, second = _entry(7, n=1), _entry(7, n=2)
    early.keep(first, HOST.peer, 1_000)
    assert early.keep(second, HOST.peer, 1_000) is None
    assert early.take(7) == first
    assert early.size == 0


def test_at_most_max_early_entries_are_kept() -> None:
    early = EarlyEntries()
    for n in range(MAX_EARLY_ENTRIES + 3):
        assert early.keep(_entry(10 + n, n=n), HOST.peer, 1_000) is None
    assert len(early) == MAX_EARLY_ENTRIES
    assert MAX_EARLY_ENTRIES + 10 not in early, "the first over the bound is dropped"


def test_what_would_pass_max_early_bytes_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    one = len(_entry(10).encode())
    monkeypatch.setattr(early_module, "MAX_EARLY_BYTES", 2 * one + one // 2)
    early = EarlyEntries()
    for n in range(3):
        early.keep(_entry(10 + n), HOST.peer, 1_000)
    assert (len(early), early.size) == (2, 2 * one)


def test_entries_that_fill_max_early_bytes_exactly_are_all_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """table.md §9.1: kept "only up to ... MAX_EARLY_BYTES together": up to, so the bound
    itself is allowed."""
    one = len(_entry(10).encode())
    monkeypatch.setattr(early_module, "MAX_EARLY_BYTES", 2 * one)
    early = EarlyEntries()
    for n in range(3):
        early.keep(_entry(10 + n), HOST.peer, 1_000)
    assert (len(early), early.size) == (2, 2 * one)


def test_an_entry_that_does_not_verify_is_told_and_not_kept() -> None:
    early = EarlyEntries()
    forged = _entry(7, signer=SEAT)  # not countersigned by the sequencer
    unverified = early.keep(forged, HOST.peer, 1_000)
    assert isinstance(unverified, Unverified)
    assert (unverified.seq, unverified.code) == (7, "bad_countersignature")
    assert unverified.reason.startswith("an entry ahead of our log does not verify")
    # Countersigned, but the author's signature is another's.
    unsigned = replace(Message.sign(HOST, TABLE, 1, HEAD, Clock(1)), author=SEAT.peer)
    bad_author = Entry.countersign(HOST, 7, bytes(32), unsigned)
    unverified = early.keep(bad_author, HOST.peer, 1_000)
    assert unverified is not None
    assert unverified.code == "bad_signature"
    assert (len(early), early.size, early.gap_since, early.deadline()) == (0, 0, None, None)


def test_a_full_buffer_checks_no_signature() -> None:
    early = EarlyEntries()
    for n in range(MAX_EARLY_ENTRIES):
        early.keep(_entry(10 + n, n=n), HOST.peer, 1_000)
    assert early.keep(_entry(5, signer=SEAT), HOST.peer, 1_000) is None
    assert 5 not in early


def test_a_handover_ahead_is_countersigned_by_the_sequencer_it_names() -> None:
    body = Handover(1, HOST.peer, NEXT.peer, ((SEAT.peer, bytes(64)),))
    handover = Entry.countersign(NEXT, 7, bytes(32),
                                 Message.sign(NEXT, TABLE, 0, HEAD, body))
    early = EarlyEntries()
    assert early.keep(handover, HOST.peer, 1_000) is None
    assert 7 in early
    by_old = Entry.countersign(HOST, 8, bytes(32), Message.sign(NEXT, TABLE, 1, HEAD, body))
    refused = early.keep(by_old, HOST.peer, 1_000)
    assert refused is not None
    assert refused.code == "bad_countersignature"


def test_an_entry_of_a_later_term_is_dropped_untold_and_a_stranger_s_is_told() -> None:
    """table.md §7.4: past a hand-over still in our gap, the new sequencer countersigns;
    its entries are no fault of anyone's (a player was once told "a peer misbehaved"
    for them) and are not kept; bytes no seat countersigned are told, as before."""
    seats = (HOST.peer, NEXT.peer, SEAT.peer)
    early = EarlyEntries()
    later_term = _entry(9, by=SEAT, signer=NEXT)
    assert early.keep(later_term, HOST.peer, 1_000, seats) is None
    assert (len(early), early.size, early.gap_since) == (0, 0, None), "not kept either"
    stranger = Identity(b"\x04" * 32)
    forged = _entry(9, by=SEAT, signer=stranger)
    told = early.keep(forged, HOST.peer, 1_000, seats)
    assert told is not None
    assert (told.seq, told.code) == (9, "bad_countersignature")
    assert len(early) == 0
    # The sequencer we know countersigned it, the author's signature forged: told.
    unsigned = replace(Message.sign(HOST, TABLE, 1, HEAD, Clock(1)), author=SEAT.peer)
    told = early.keep(Entry.countersign(HOST, 9, bytes(32), unsigned), HOST.peer, 1_000, seats)
    assert told is not None
    assert told.code == "bad_signature"


def test_a_gap_open_gap_fill_after_ms_asks_then_waits_as_long_again() -> None:
    early = EarlyEntries()
    assert not early.ask_due(10_000), "no gap, nothing to ask"
    early.keep(_entry(7), HOST.peer, 1_000)
    early.keep(_entry(8), HOST.peer, 1_500)  # the gap opened with the first
    assert early.deadline() == 1_000 + GAP_FILL_AFTER_MS
    assert not early.ask_due(1_000 + GAP_FILL_AFTER_MS - 1)
    assert early.ask_due(1_000 + GAP_FILL_AFTER_MS + 5)
    assert early.deadline() == 1_000 + 2 * GAP_FILL_AFTER_MS + 5
    assert not early.ask_due(1_000 + GAP_FILL_AFTER_MS + 6), "asked just now"


def test_the_gap_closes_once_nothing_is_kept() -> None:
    early = EarlyEntries()
    early.keep(_entry(7), HOST.peer, 1_000)
    early.keep(_entry(9), HOST.peer, 1_000)
    early.take(7)
    early.settle()
    assert early.deadline() == 1_000 + GAP_FILL_AFTER_MS, "entry 9 still waits above a gap"
    early.take(9)
    early.settle()
    assert (early.gap_since, early.deadline()) == (None, None)


def test_a_new_term_forgets_the_entries_and_the_gap_below_them() -> None:
    # A peer that took over is never sent entries ahead of its own log: a gap it kept
    # open would have it ask every member each second (test_gap_fill).
    early = EarlyEntries()
    early.keep(_entry(7), HOST.peer, 1_000)
    early.new_term()
    assert (len(early), early.size) == (0, 0)
    assert (early.gap_since, early.deadline()) == (None, None)
    assert not early.ask_due(1_000 + 10 * GAP_FILL_AFTER_MS)


def test_a_resync_forgets_everything() -> None:
    early = EarlyEntries()
    early.keep(_entry(7), HOST.peer, 1_000)
    early.clear()
    assert (len(early), early.size, early.gap_since) == (0, 0, None)
