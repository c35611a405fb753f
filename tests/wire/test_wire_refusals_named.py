"""Refusals of the wire layer name what they refuse (wire.md §4-§8, verdicts.md §8).

- A record after the last entry that is framed as an entry but is no valid
  entry is judged by the §4.1 checks in order, then ``malformed_entry``,
  naming the sequencer at that entry; a record that is not even framed as
  an entry proves nothing (None: the file is unreadable).
- A field of the wrong size or range is refused naming the field, in a
  sentence that goes on after "entry N: " (lower case first).
- Sealed bodies (wire.md §6): the refusals say what is wrong in words.
Expected values come from the spec, the reference log and the values given.
"""

from __future__ import annotations

import copy

import pytest

from tests.audit.test_fault_codes import FIRST_MOVE, HOST, LOG, _framed_record
from tests.wire.test_wire_private import _seal_raw, seated
from uno_p2p.errors import InvalidMessage, LocalProtocolError, RemoteProtocolError
from uno_p2p.wire.codec import WireValue, pack, unpack
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.game import PlayCard, Slot
from uno_p2p.wire.lobby import OpenTable, SetOptions
from uno_p2p.wire.private import open_body, seal_body
from uno_p2p.wire.raw import judge_record
from uno_p2p.wire.samples import sample_share

PREVIOUS = LOG[FIRST_MOVE - 1]


def _parts() -> tuple[int, bytes, list[WireValue], bytes]:
    """The fields of a countersigned record at entry ``FIRST_MOVE`` (kind 999)."""
    value = unpack(_framed_record(999, []))
    assert isinstance(value, list)
    seq, prev, message, countersignature = value
    assert isinstance(seq, int)
    assert isinstance(prev, bytes)
    assert isinstance(message, list)
    assert isinstance(countersignature, bytes)
    return seq, prev, message, countersignature


def test_a_countersigned_record_that_is_no_entry_is_the_sequencers() -> None:
    judged = judge_record(_framed_record(999, []), PREVIOUS, HOST)
    assert judged is not None
    assert (judged.code, judged.entry) == ("malformed_entry", FIRST_MOVE)
    assert judged.peer_key == HOST
    assert f"entry {FIRST_MOVE}" in str(judged)


def test_a_record_not_countersigned_is_a_bad_countersignature() -> None:
    judged = judge_record(_framed_record(999, [], sign=False), PREVIOUS, HOST)
    assert judged is not None
    assert (judged.code, judged.entry) == ("bad_countersignature", FIRST_MOVE)
    assert judged.peer_key == HOST


def test_the_chain_checks_come_first_in_their_order() -> None:
    seq, prev, message, countersignature = _parts()
    other_table = copy.deepcopy(message)
    other_table[1] = bytes(16)
    cases: list[tuple[list[WireValue], str]] = [
        ([seq, prev, other_table, countersignature], "wrong_table"),
        ([seq + 1, prev, message, countersignature], "bad_sequence"),
        ([seq, bytes(32), message, countersignature], "bad_prev_hash"),
    ]
    for record, code in cases:
        judged = judge_record(pack(record), PREVIOUS, HOST)
        assert judged is not None
        assert judged.code == code
        assert judged.peer_key == HOST


def test_a_record_not_framed_as_an_entry_proves_nothing() -> None:
    seq, prev, message, countersignature = _parts()
    records: list[list[WireValue]] = [[seq, prev[:-1], message, countersignature],
                                      [seq, prev, message, countersignature[:-1]],
                                      [seq, prev, message[:-1], countersignature],
                                      [-1, prev, message, countersignature]]
    for record in records:
        assert judge_record(pack(record), PREVIOUS, HOST) is None
    assert judge_record(b"\xc1", PREVIOUS, HOST) is None


def test_an_entry_with_a_short_previous_hash_is_refused_by_name() -> None:
    wire = LOG[3].to_wire()
    assert Entry.from_wire(wire) == LOG[3]
    broken = [wire[0], LOG[3].prev_hash[:-1], wire[2], wire[3]]
    with pytest.raises(InvalidMessage) as caught:
        Entry.from_wire(broken)
    assert "previous hash" in str(caught.value)


@pytest.mark.parametrize(("make", "words"), [
    (lambda: PlayCard(Slot(0, 1), 200), "card id"),
    (lambda: OpenTable("Ann", b"\x01", "house", (), 4), "channel key"),
    (lambda: SetOptions("house", (("target", 1 << 40),)), "option value"),
    (lambda: SetOptions("house", (("", 1),)), "option key"),
])
def test_a_body_built_with_a_broken_field_is_refused_by_name(make: object, words: str) -> None:
    with pytest.raises(InvalidMessage) as caught:
        make()  # type: ignore[operator]
    text = str(caught.value)
    assert words in text, text
    assert text[0].islower(), text


def test_sealed_body_refusals_say_what_is_wrong() -> None:
    table = seated()
    alice, bob, carol = table.peers[0], table.peers[1], table.peers[2]
    entry = table.sealed_share(1, 2, position=3)
    with pytest.raises(LocalProtocolError) as not_ours:
        open_body(entry.message, key=alice.channel, sender_channel=bob.channel.public,
                  recipient=alice.party)
    assert str(not_ours.value).startswith("this message is not sealed to")
    with pytest.raises(LocalProtocolError) as twice:
        seal_body(entry.body, key=bob.channel, sender=bob.party, recipient=carol.party,
                  table_id=table.table_id, counter=9)
    assert str(twice.value).startswith("a sealed body cannot be sealed")
    inner = seal_body(sample_share(1, 1), key=bob.channel, sender=bob.party,
                      recipient=carol.party, table_id=table.table_id, counter=0)
    nested = _seal_raw(table, pack([16, inner.to_wire()]))
    with pytest.raises(RemoteProtocolError) as caught:
        open_body(nested, key=carol.channel, sender_channel=bob.channel.public,
                  recipient=carol.party)
    assert str(caught.value).startswith("a sealed body contains another sealed")
