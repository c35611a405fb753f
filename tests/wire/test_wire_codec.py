"""Canonical msgpack: round trips, limits, and every non-canonical form refused."""

from __future__ import annotations

import struct

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.codec import INT_MAX, INT_MIN, Limits, WireValue, pack, unpack
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.limits import DEFAULT_LIMITS

wire_values: st.SearchStrategy[WireValue] = st.recursive(
    st.none() | st.booleans() | st.integers(INT_MIN, INT_MAX) | st.text(max_size=40)
    | st.binary(max_size=40),
    lambda children: st.lists(children, max_size=6),
    max_leaves=30,
)


@given(wire_values)
@settings(max_examples=300)
def test_every_wire_value_round_trips(value: WireValue) -> None:
    assert unpack(pack(value)) == value


@given(st.binary(max_size=300))
@settings(max_examples=1500)
def test_arbitrary_bytes_decode_or_raise_invalid_message(data: bytes) -> None:
    try:
        value = unpack(data)
    except InvalidMessage:
        return
    assert pack(value) == data


@given(st.binary(max_size=400))
@settings(max_examples=800)
def test_arbitrary_bytes_as_entry_decode_or_raise_invalid_message(data: bytes) -> None:
    try:
        Entry.decode(data)
    except InvalidMessage:
        return
    raise AssertionError("random bytes decoded to a signed entry")


@given(wire_values, st.integers(0, 200), st.integers(0, 255))
@settings(max_examples=500)
def test_mutated_encodings_decode_canonically_or_raise(value: WireValue, at: int,
                                                       byte: int) -> None:
    data = bytearray(pack(value))
    data[at % len(data)] = byte
    try:
        decoded = unpack(bytes(data))
    except InvalidMessage:
        return
    assert pack(decoded) == bytes(data)


@pytest.mark.parametrize(
    ("label", "data"),
    [
        ("uint8 for 1", b"\xcc\x01"),
        ("uint16 for 200", b"\xcd\x00\xc8"),
        ("uint32 for 5", b"\xce\x00\x00\x00\x05"),
        ("uint64 for 5", b"\xcf" + (5).to_bytes(8, "big")),
        ("int8 for -1", b"\xd0\xff"),
        ("int16 for -100", b"\xd1\xff\x9c"),
        ("int64 for -1", b"\xd3" + (-1).to_bytes(8, "big", signed=True)),
        ("int8 for positive 5", b"\xd0\x05"),
        ("str8 for a short string", b"\xd9\x01a"),
        ("str16 for a short string", b"\xda\x00\x01a"),
        ("bin16 for one byte", b"\xc5\x00\x01\x00"),
        ("array16 for one element", b"\xdc\x00\x01\x01"),
        ("array32 for one element", b"\xdd\x00\x00\x00\x01\x01"),
    ],
)
def test_long_forms_are_refused(label: str, data: bytes) -> None:
    with pytest.raises(InvalidMessage, match="canonical"):
        unpack(data)


@pytest.mark.parametrize(
    ("label", "data"),
    [
        ("float32", b"\xca" + struct.pack(">f", 1.0)),
        ("float64", b"\xcb" + struct.pack(">d", 1.5)),
        ("float inside an array", b"\x92\x01\xca" + struct.pack(">f", 2.0)),
        ("map", msgpack.packb({"a": 1})),
        ("map with duplicate keys", b"\x82\xa1a\x01\xa1a\x02"),
        ("empty map", b"\x80"),
        ("ext type", b"\xd4\x01\x00"),
        ("timestamp ext", msgpack.packb(msgpack.Timestamp(1, 0))),
        ("invalid UTF-8 in a str", b"\xa2\xff\xfe"),
        ("truncated", b"\x92\x01"),
        ("trailing bytes", b"\x01\x02"),
        ("reserved byte 0xc1", b"\xc1"),
        ("empty input", b""),
    ],
)
def test_forbidden_types_and_malformed_input_are_refused(label: str, data: bytes) -> None:
    with pytest.raises(InvalidMessage):
        unpack(data)


def test_limits_are_enforced() -> None:
    limits = Limits(max_frame=100, max_array=3, max_str=4, max_bin=5, max_depth=3)
    assert unpack(pack([1, 2, 3]), limits) == [1, 2, 3]
    refused: list[WireValue] = [
        [1, 2, 3, 4], "abcde", b"123456", [[[["deep"]]]], b"x" * 200,
    ]
    for value in refused:
        with pytest.raises(InvalidMessage):
            unpack(pack(value), limits)


def test_deep_nesting_from_a_peer_is_refused_not_a_crash() -> None:
    with pytest.raises(InvalidMessage):
        unpack(b"\x91" * 100_000 + b"\x01")


def test_pack_refuses_values_without_a_wire_form() -> None:
    for value in (1.5, {"a": 1}, (1, 2), 1 << 64, -(1 << 63) - 1, bytearray(b"x")):
        with pytest.raises(InvalidMessage):
            pack(value)  # type: ignore[arg-type]


def test_str_and_bin_are_distinct_types() -> None:
    assert unpack(pack("ab")) == "ab"
    assert unpack(pack(b"ab")) == b"ab"
    assert pack("ab") != pack(b"ab")


def test_a_frame_may_hold_exactly_max_elements_array_elements() -> None:
    assert DEFAULT_LIMITS.max_elements == 131_072  # wire.md §7
    frame = pack([[1, 2], 3])  # 2 elements inside, 2 in the outer array: 4 in all
    assert unpack(frame, Limits(max_elements=4)) == [[1, 2], 3]
    with pytest.raises(InvalidMessage):  # its words: tests/wire/test_codec_words.py
        unpack(frame, Limits(max_elements=3))
