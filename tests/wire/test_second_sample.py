"""Refusals and fields a second random sample of mutants found untested (docs/testing.md).

wire.md §3: a message's fields in order, ``kind`` a registered number and
``seen`` an entry count; a malformed one is refused naming the field, in a
sentence that goes on after "entry N: ". §6: a sealed body names its
recipient's identity. ``log show --json`` writes each entry with wire.md's
field names (``seq``, ``prev_hash``, ``author``, ``counter``, ``seen``,
``seen_hash``), bytes in hex, and the seat the log's start gave its author.
"""

from __future__ import annotations

import copy

import pytest

from tests.audit.test_fault_codes import BOB, CY, HOST, LOG
from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.codec import WireValue
from uno_p2p.wire.envelope import Message
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.transcript import Roster, entries_as_json


def _message_with(index: int, value: WireValue) -> WireValue:
    wire = copy.deepcopy(LOG[3].message.to_wire())
    assert isinstance(wire, list)
    wire[index] = value
    return wire


@pytest.mark.parametrize(("index", "bad", "words"), [(6, -1, "kind"), (4, "3", "seen")])
def test_a_malformed_message_field_is_refused_by_name(index: int, bad: WireValue,
                                                      words: str) -> None:
    assert Message.from_wire(LOG[3].message.to_wire()) == LOG[3].message
    with pytest.raises(InvalidMessage) as caught:
        Message.from_wire(_message_with(index, bad))
    text = str(caught.value)
    assert words in text, text
    assert text[0].islower(), text


def test_a_sealed_body_without_a_recipient_identity_is_refused() -> None:
    with pytest.raises(InvalidMessage) as caught:
        Sealed(b"\x01" * 32, b"\x00" * 24, b"\x00" * 40)  # type: ignore[arg-type]
    assert "recipient" in str(caught.value)


def test_log_show_json_uses_the_wire_field_names() -> None:
    shown = list(entries_as_json(LOG[:12]))
    for entry, row in zip(LOG[:12], shown, strict=True):
        assert row["seq"] == entry.seq
        assert row["prev_hash"] == entry.prev_hash.hex()
        assert row["author"] == entry.author.key.hex()
        assert row["counter"] == entry.message.counter
        assert row["seen"] == entry.message.head.seen
        assert row["seen_hash"] == entry.message.head.hash.hex()
    roster = Roster()
    for entry in LOG[:12]:
        roster.learn(entry)
    assert roster.seats == {HOST.key: 0, BOB.key: 1, CY.key: 2}
    assert shown[-1]["seat"] == roster.seats[LOG[11].author.key]
