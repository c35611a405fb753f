"""Tampering with any byte of an honest log makes the audit fail, and say where.

Two attackers: one who flips bytes in the file (the store's CRC or the
chain catches it), and one who rewrites an entry's bytes and fixes the file's
framing (only the chain can catch it, at that very entry). A bounded sample
of offsets from a fixed seed keeps the test fast.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from uno_p2p.audit import Status, audit_file
from uno_p2p.crypto.identity import Identity
from uno_p2p.store.unolog import HEADER, GameLog, UnreadableLog, read_log
from uno_p2p.table import bodies  # noqa: F401 (registers the table's body kinds)
from uno_p2p.table.memnet import seeded
from uno_p2p.wire.envelope import Entry, Head, Message

DATA = Path(__file__).resolve().parent.parent / "data"
HONEST = DATA / "honest-3p-house.unolog"
SAMPLES = 24


def _verdict(path: Path) -> str:
    """What the audit says about ``path``, as text; "OK" only for a valid log."""
    try:
        report = audit_file(path)
    except UnreadableLog as error:
        return f"unreadable: {error}"
    if report.status == Status.OK:
        return "OK"
    finding = report.violation
    where = "" if finding is None else f"entry {finding.entry}"
    return f"{report.status.value} {where} {' '.join(report.lines())}"


def test_every_sampled_byte_flip_in_the_file_fails_and_says_where(tmp_path: Path) -> None:
    raw = HONEST.read_bytes()
    rng = random.Random(6)
    offsets = sorted({*rng.sample(range(len(HEADER), len(raw)), SAMPLES), len(raw) - 1})
    for offset in offsets:
        damaged = bytearray(raw)
        damaged[offset] ^= 0x20
        path = tmp_path / f"flip-{offset}.unolog"
        path.write_bytes(bytes(damaged))
        verdict = _verdict(path)
        assert verdict != "OK", offset
        # The store names the byte and record; a cut-off last record is named too.
        assert "byte" in verdict or "record" in verdict or "after entry" in verdict, verdict


def test_header_damage_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "header.unolog"
    path.write_bytes(b"X" + HONEST.read_bytes()[1:])
    assert _verdict(path).startswith("unreadable")


def _rewrite(path: Path, records: list[bytes]) -> None:
    with GameLog.create(path) as log:
        for record in records:
            log.append_bytes(record)


def test_a_rewritten_entry_with_fixed_framing_is_caught_at_that_entry(tmp_path: Path) -> None:
    records = [entry.encode() for entry in read_log(HONEST).entries]
    rng = random.Random(7)
    for trial in range(SAMPLES):
        index = rng.randrange(len(records))
        damaged = bytearray(records[index])
        damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        path = tmp_path / f"entry-{trial}.unolog"
        _rewrite(path, [*records[:index], bytes(damaged), *records[index + 1:]])
        verdict = _verdict(path)
        assert verdict != "OK"
        assert f"entry {index} " in verdict or f"record {index} " in verdict, (index, verdict)


@pytest.mark.parametrize("edit", ["drop", "swap", "duplicate"])
def test_dropped_swapped_or_repeated_entries_are_caught_where_they_happen(
        tmp_path: Path, edit: str) -> None:
    records = [entry.encode() for entry in read_log(HONEST).entries]
    index = len(records) // 2
    if edit == "drop":
        del records[index]
    elif edit == "swap":
        records[index], records[index + 1] = records[index + 1], records[index]
    else:
        records.insert(index + 1, records[index])
    path = tmp_path / f"{edit}.unolog"
    _rewrite(path, records)
    report = audit_file(path)
    assert report.status == Status.VIOLATION
    assert report.violation is not None
    assert report.violation.stage == "chain"
    assert report.violation.entry in (index, index + 1)


def test_an_author_shown_another_history_makes_the_sequencer_the_culprit(
        tmp_path: Path) -> None:
    """A countersigned entry whose author saw a different log: the sequencer showed it
    one (a fork) or skipped its check; either way the host answers for it (wire.md §4.3)."""
    seed = b"uno-lan/reference/honest-3p"
    identities = {Identity(seeded(seed, f"identity {i}")).peer.key:
                  Identity(seeded(seed, f"identity {i}")) for i in range(3)}
    entries = list(read_log(HONEST).entries)
    host = identities[entries[0].author.key]
    index = next(i for i, e in enumerate(entries)
                 if e.author != host.peer and e.message.head.seen > 2)
    old = entries[index].message
    wrong = Head(old.head.seen, bytes(32))
    message = Message.sign(identities[old.author.key], old.table_id, old.counter, wrong,
                           old.body, version=old.version)
    entries[index] = Entry.countersign(host, index, entries[index].prev_hash, message)
    path = tmp_path / "head.unolog"
    _rewrite(path, [entry.encode() for entry in entries[:index + 1]])
    report = audit_file(path)
    assert report.violation is not None
    assert report.violation.code == "head_mismatch"
    assert report.violation.entry == index
    assert report.violation.peer is not None
    assert report.violation.peer.host


def test_a_cut_short_file_is_unfinished_and_blames_nobody(tmp_path: Path) -> None:
    raw = HONEST.read_bytes()
    path = tmp_path / "torn.unolog"
    path.write_bytes(raw[:-100])
    report = audit_file(path)
    assert report.status == Status.UNFINISHED
    assert report.violation is None
    assert report.torn_bytes > 0
    assert "cut-short" in report.stopped
    assert report.exit_code == 1
