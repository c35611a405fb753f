"""The TXT record of a table advert: the bytes discovery.md §3 fixes, and strict reading."""

from __future__ import annotations

import contextlib
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.net.adverts import TableAdvert
from uno_p2p.net.txt import (
    MAX_INSTANCE_BYTES,
    TxtFields,
    decode_txt,
    encode_txt,
    instance_label,
    instance_of,
)

ADVERT = TableAdvert(
    instance="Friday night", table_name="Friday night", host_player="alice",
    addresses=("192.168.1.20",), port=45123, protocol_version=1, seats_taken=2,
    seats_free=2, preset="official", phase="lobby", join_code=True,
    host_fingerprint="625f-8f5e-3da1-b31c",
)

#: discovery.md §3.4, the example record, written out from the spec's table.
EXAMPLE_STRINGS = [
    b"txtvers=1", b"proto=1", b"table=Friday night", b"host=alice", b"taken=2", b"free=2",
    b"preset=official", b"phase=lobby", b"code=1", b"fp=625f-8f5e-3da1-b31c",
]


def rdata(strings: list[bytes]) -> bytes:
    return b"".join(bytes([len(item)]) + item for item in strings)


def with_string(key: bytes, value: bytes) -> bytes:
    """The example record with ``key``'s string replaced by ``key=value``."""
    return rdata([key + b"=" + value if item.split(b"=")[0] == key else item
                  for item in EXAMPLE_STRINGS])


def test_encoding_is_the_spec_example() -> None:
    assert encode_txt(ADVERT) == rdata(EXAMPLE_STRINGS)
    assert encode_txt(ADVERT)[:10] == b"\x09txtvers=1"


def test_decoding_the_spec_example() -> None:
    assert decode_txt(rdata(EXAMPLE_STRINGS)) == TxtFields(
        protocol_version=1, table_name="Friday night", host_player="alice", seats_taken=2,
        seats_free=2, preset="official", phase="lobby", join_code=True,
        host_fingerprint="625f-8f5e-3da1-b31c",
    )


def test_unknown_keys_and_key_case_are_accepted() -> None:
    """RFC 6763 §6.4: keys are case-insensitive; a later version may add keys."""
    strings = [item.capitalize() if item.startswith(b"host=") else item
               for item in EXAMPLE_STRINGS] + [b"future=whatever", b"flag="]
    assert decode_txt(rdata(strings)).host_player == "alice"


@pytest.mark.parametrize(("record", "why"), [
    (rdata(EXAMPLE_STRINGS[1:]), "txtvers"),
    (with_string(b"txtvers", b"2"), "txtvers"),
    (rdata([s for s in EXAMPLE_STRINGS if not s.startswith(b"fp=")]), "lacks fp"),
    (rdata([*EXAMPLE_STRINGS, b"TABLE=Other"]), "twice"),
    (rdata([*EXAMPLE_STRINGS, b"novalue"]), "key=value"),
    (rdata([*EXAMPLE_STRINGS, b"=x"]), "key=value"),
    (with_string(b"taken", b"02"), "decimal"),
    (with_string(b"taken", b"+2"), "decimal"),
    (with_string(b"taken", b"11"), "decimal"),
    (with_string(b"free", b"9"), r"taken\+free"),
    (with_string(b"free", b"0") .replace(b"taken=2", b"taken=1"), r"taken\+free"),
    (with_string(b"proto", b"0"), "proto"),
    (with_string(b"proto", b"65536"), "proto"),
    (with_string(b"phase", b"over"), "phase"),
    (with_string(b"code", b"yes"), "code"),
    (with_string(b"fp", b"625F-8F5E-3DA1-B31C"), "fingerprint"),
    (with_string(b"fp", b"625f8f5e3da1b31c"), "fingerprint"),
    (with_string(b"table", b""), "table name"),
    (with_string(b"table", b"x" * 33), "table name"),
    (with_string(b"table", b" padded"), "spaces"),
    (with_string(b"host", b"\x1b[2Jeve"), "unprintable"),
    (with_string(b"host", b"\xff\xfe"), "UTF-8"),
    (with_string(b"preset", b""), "preset"),
    (rdata(EXAMPLE_STRINGS)[:-3], "past the end"),
    (rdata(EXAMPLE_STRINGS + [b"pad=" + b"x" * 200] * 6), "at most 1300"),
    (rdata(EXAMPLE_STRINGS + [b"k%d=" % n for n in range(30)]), "at most 32"),
])
def test_a_bad_record_is_refused_with_the_reason(record: bytes, why: str) -> None:
    with pytest.raises(InvalidMessage, match=why):
        decode_txt(record)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=1400))
def test_arbitrary_bytes_decode_or_raise_invalid_message(data: bytes) -> None:
    with contextlib.suppress(InvalidMessage):
        decode_txt(data)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([*EXAMPLE_STRINGS, b"x=1", b"TAKEN=3", b"phase=playing"]),
                max_size=14), st.binary(max_size=3))
def test_shuffled_and_repeated_strings_decode_or_raise(strings: list[bytes], tail: bytes) -> None:
    try:
        fields = decode_txt(rdata(strings) + tail)
    except InvalidMessage:
        return
    assert fields.table_name == "Friday night"  # only a complete, unrepeated record passes


names = st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "S")),
                min_size=1, max_size=32)


@settings(max_examples=100, deadline=None)
@given(names, names, st.integers(0, 10), st.integers(0, 10), st.booleans(),
       st.sampled_from(("lobby", "playing")), st.integers(1, 0xFFFF))
def test_every_valid_advert_round_trips(table: str, host: str, taken: int, free: int,
                                        code: bool, phase: str, proto: int) -> None:
    if not 2 <= taken + free <= 10:
        return
    advert = replace(ADVERT, table_name=table, host_player=host, seats_taken=taken,
                     seats_free=free, join_code=code, phase=phase,  # type: ignore[arg-type]
                     protocol_version=proto)
    decoded = decode_txt(encode_txt(advert))
    assert decoded.advert(advert.instance, advert.addresses, advert.port) == advert


@pytest.mark.parametrize("bad", [
    replace(ADVERT, seats_free=9), replace(ADVERT, host_player=""),
    replace(ADVERT, host_fingerprint="nope"), replace(ADVERT, phase="over"),  # type: ignore[arg-type]
])
def test_we_never_announce_an_advert_others_would_refuse(bad: TableAdvert) -> None:
    with pytest.raises(LocalProtocolError):
        encode_txt(bad)


def test_instance_labels_are_dns_safe_and_short() -> None:
    assert instance_label("Friday night") == "Friday night"
    assert instance_label("a.b\\c") == "a-b-c"
    long = instance_label("ü" * 32)
    assert len(long.encode()) <= MAX_INSTANCE_BYTES
    assert long == "ü" * (MAX_INSTANCE_BYTES // 2)
    assert instance_label("...") == "---"
    assert instance_label(" ") == "uno-lan table"


def test_instance_of_a_service_name() -> None:
    assert instance_of("Friday night._uno-lan._tcp.local.") == "Friday night"
    assert instance_of("Friday night._other._tcp.local.") is None
    assert instance_of("._uno-lan._tcp.local.") is None
