"""Every message type round-trips, refuses malformed fields, and describes itself."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.audit.test_fault_codes import LOG
from tests.wire.strategies import bodies, messages
from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.wire import fields
from uno_p2p.wire.codec import WireValue, pack, unpack
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.game import DecryptionShare, PlayCard, Slot
from uno_p2p.wire.lobby import Join, OpenTable, Start
from uno_p2p.wire.registry import BODIES, Body, Names, Registry
from uno_p2p.wire.samples import SampleTable, sample_log

SLOW_CRYPTO = settings(max_examples=80, deadline=None,
                       suppress_health_check=[HealthCheck.too_slow])


@given(bodies)
@settings(max_examples=400, deadline=None)
def test_every_body_round_trips(body: Body) -> None:
    number = BODIES.number_of(body)
    data = pack(body.to_wire())
    assert BODIES.decode(number, unpack(data)) == body
    assert body.describe(lambda key: "someone")


def test_every_registered_kind_has_a_strategy() -> None:
    seen: set[type] = set()

    @given(bodies)
    @settings(max_examples=300, deadline=None)
    def collect(body: Body) -> None:
        seen.add(type(body))

    collect()
    wire_kinds = {info.cls for info in BODIES if info.cls.__module__.startswith("uno_p2p.wire")}
    assert wire_kinds <= seen


@given(messages())
@SLOW_CRYPTO
def test_every_message_round_trips_and_verifies(message: Message) -> None:
    decoded = Message.decode(message.encode())
    assert decoded == message
    assert decoded.digest == message.digest
    decoded.verify()


@given(messages(), st.integers(0, 1 << 40))
@SLOW_CRYPTO
def test_every_entry_round_trips(message: Message, seq: int) -> None:
    sequencer = Identity(bytes(range(32)))
    entry = Entry.countersign(sequencer, seq, bytes(32), message)
    decoded = Entry.decode(entry.encode())
    assert decoded == entry
    assert decoded.hash == entry.hash
    decoded.verify_countersignature(sequencer.peer)


def test_unknown_kind_and_version_are_refused() -> None:
    table = SampleTable(2)
    wire = table.message(0, Join("alice", bytes(32))).to_wire()
    unknown_kind = [*wire[:6], 9999, *wire[7:]]
    with pytest.raises(InvalidMessage, match="unknown message kind"):
        Message.decode(pack(unknown_kind))
    for version in (0, 3):
        with pytest.raises(InvalidMessage, match="version"):
            Message.decode(pack([version, *wire[1:]]))


BAD_BODIES: list[tuple[type, WireValue]] = [
    (Join, ["", bytes(32)]),  # empty name
    (Join, ["a\x1b[2J", bytes(32)]),  # terminal escape in a name
    (Join, [" bob", bytes(32)]),  # leading space
    (Join, ["bob", "x" * 32]),  # str where bin expected
    (Join, ["bob", bytes(31)]),  # short key
    (Join, ["bob"]),  # missing field
    (Join, ["bob", bytes(32), 1]),  # extra field
    (PlayCard, [[0, 5], 108, None]),  # no such card
    (PlayCard, [[0, 5], 7, 1]),  # colour for a coloured card
    (PlayCard, [[0, 5], 100, None]),  # wild without a colour
    (PlayCard, [[0, 5], 100, 4]),  # no such colour
    (PlayCard, [[0, 108], 7, None]),  # no such position
    (PlayCard, [[0, 5], True, None]),  # bool where int expected
    (PlayCard, [[-1, 5], 7, None]),  # negative shuffle
    (DecryptionShare, [[0, 1], bytes(31), bytes(64)]),
    (DecryptionShare, [[0, 1], bytes(32), bytes(65)]),
    (OpenTable, ["a", bytes(32), "", [["b", 1], ["a", 2]], 4]),  # unsorted options
    (OpenTable, ["a", bytes(32), "", [["a", 1], ["a", 2]], 4]),  # repeated option
    (OpenTable, ["a", bytes(32), "", [], 11]),  # too many players
    (OpenTable, ["a", bytes(32), "", [["a", b"x"]], 4]),  # bin option value
    (Start, [[Identity(bytes(32)).peer.key]]),  # one seat
    (Start, [[Identity(bytes(32)).peer.key] * 2]),  # repeated seat
    (Start, [[bytes(32), Identity(bytes(32)).peer.key]]),  # not a valid point
]


@pytest.mark.parametrize(("cls", "wire"), BAD_BODIES)
def test_malformed_bodies_are_refused(cls: type, wire: WireValue) -> None:
    number = next(info.number for info in BODIES if info.cls is cls)
    with pytest.raises(InvalidMessage):
        BODIES.decode(number, unpack(pack(wire)))


def test_registry_refuses_double_registration_and_unregistered_bodies() -> None:
    registry = Registry()
    registry.add(70, "sample", Join)
    with pytest.raises(LocalProtocolError):
        registry.add(70, "other", Join)
    with pytest.raises(LocalProtocolError):
        registry.add(71, "sample", Join)
    with pytest.raises(LocalProtocolError):
        BODIES.number_of(Slot(0, 0))  # type: ignore[arg-type]


def test_head_and_message_fields_are_checked_on_construction() -> None:
    with pytest.raises(InvalidMessage):
        Head(-1, bytes(32))
    with pytest.raises(InvalidMessage):
        Head(0, bytes(31))
    with pytest.raises(InvalidMessage):
        Message.sign(Identity(bytes(32)), bytes(15), 0, Head(0, bytes(32)), Join("a", bytes(32)))


#: A kind number no layer of ours registers (the table uses 64 and up, from the bottom).
TEST_KIND = 65000


def test_a_table_kind_is_added_in_one_line_and_travels_in_entries() -> None:
    from dataclasses import dataclass

    registry = Registry()
    registry.add(1, "join", Join)

    @registry.kind(TEST_KIND, "say_uno")
    @dataclass(frozen=True, slots=True)
    class SayUno:
        cards_left: int

        def to_wire(self) -> list[WireValue]:
            return [self.cards_left]

        @classmethod
        def from_wire(cls, value: WireValue) -> SayUno:
            (cards,) = fields.array(value, 1, "say_uno")
            return cls(fields.integer(cards, "cards left", lo=0, hi=108))

        def describe(self, names: Names) -> str:
            return "said UNO"

    identity = Identity(bytes(32))
    message = Message.sign(identity, bytes(16), 0, Head(0, bytes(32)), SayUno(1), registry)
    assert message.kind == TEST_KIND
    decoded = Message.decode(message.encode(), registry)
    assert decoded.body == SayUno(1)
    assert decoded.body.describe(bytes.hex) == "said UNO"
    with pytest.raises(InvalidMessage, match="unknown message kind 65000"):
        Message.decode(message.encode())  # not in the default registry


def test_a_table_id_of_another_size_is_refused_by_name() -> None:
    log = sample_log(players=3, turns=1)
    wire = copy.deepcopy(log[3].message.to_wire())
    assert isinstance(wire, list)
    for size in (15, 17):
        wire[1] = b"\x01" * size
        with pytest.raises(InvalidMessage):  # its words: tests/wire/test_field_words.py
            Message.from_wire(wire)


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
