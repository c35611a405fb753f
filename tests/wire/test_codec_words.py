"""The codec, the envelope and the registry refuse in sentences that say what is wrong.

wire.md §1: one canonical msgpack encoding; no maps, no ext types, no
floats, integers of 64 bits; anything else is ``InvalidMessage``. §7: the
frame, the arrays and the nesting are bounded, and a refusal names the
bound. §3: protocol versions 1 and 2 only. §5: a kind is registered once, and an
unknown kind is refused by number; §5.3: a colour is named for a black card
only. The sentences are what a player or a bug report reads, so each is
held whole (fresh mutant samples kept finding them emptied or shouted).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.wire.codec import WireValue, pack, unpack
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.game import PlayCard, Slot
from uno_p2p.wire.limits import Limits
from uno_p2p.wire.registry import Registry
from uno_p2p.wire.samples import sample_log

LOG = sample_log(players=3, turns=1)


@dataclass(frozen=True)
class Tag:
    value: int

    def to_wire(self) -> list[WireValue]:
        return [self.value]

    @classmethod
    def from_wire(cls, value: WireValue) -> Tag:
        assert isinstance(value, list)
        assert isinstance(value[0], int)
        return cls(value[0])

    def describe(self, names: object) -> str:
        return "tagged"


def _registry() -> Registry:
    registry = Registry()
    registry.add(7, "tag", Tag)
    return registry


REFUSED: list[tuple[str, Callable[[], object], str]] = [
    ("text for bytes", lambda: unpack("hello"), "a message must be bytes"),  # type: ignore[arg-type]
    ("frame too large", lambda: unpack(pack([1, 2, 3]), Limits(max_frame=3)),
     "a message of 4 bytes exceeds the 3 limit"),
    ("1 as cc 01", lambda: unpack(b"\xcc\x01"),
     "a message is not in canonical form (it does not re-encode the same)"),
    ("an empty map", lambda: unpack(b"\x80"), "maps are not allowed on the wire"),
    ("an empty ext value", lambda: unpack(b"\xc7\x00\x05"),
     "msgpack ext types are not allowed on the wire"),
    ("an empty ext value in an array", lambda: unpack(b"\x92\x01\xc7\x00\x05"),
     "msgpack ext types are not allowed on the wire"),
    ("too many elements", lambda: unpack(pack([[1, 2], 3]), Limits(max_elements=3)),
     "more than 3 array elements in one message"),
    ("too many arrays", lambda: unpack(pack([[1], [2]]), Limits(max_arrays=2)),
     "more than 2 arrays in one message"),
    ("too deep", lambda: unpack(pack([[[1]]]), Limits(max_depth=2)),
     "arrays nested deeper than 2"),
    ("a float to pack", lambda: pack(1.5), "a float has no wire form"),  # type: ignore[arg-type]
    ("a tuple to pack", lambda: pack((1,)), "a tuple has no wire form"),  # type: ignore[arg-type]
    ("2^64 to pack", lambda: pack(1 << 64), "an integer does not fit in 64 bits"),
    ("a colour for a number card", lambda: PlayCard(Slot(0, 1), 5, 2),
     "a colour is named for a Wild card, and only for one"),
    ("no colour for a Wild", lambda: PlayCard(Slot(0, 1), 100),
     "a colour is named for a Wild card, and only for one"),
    ("version 3", lambda: dataclasses.replace(LOG[3].message, version=3),
     "protocol version 3 is not supported"),
    ("an entry of no message", lambda: Entry(3, LOG[2].hash, "m", bytes(64)),  # type: ignore[arg-type]
     "an entry holds a message"),
    ("an unknown kind", lambda: _registry().decode(9, [1]), "unknown message kind 9"),
]


@pytest.mark.parametrize(("what", "make", "words"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_value_off_the_wire_format_is_refused_in_words(
        what: str, make: Callable[[], object], words: str) -> None:
    with pytest.raises(InvalidMessage) as caught:
        make()
    assert str(caught.value) == words, what


def test_malformed_msgpack_is_refused_naming_the_error() -> None:
    for raw in (b"\xc1", b"\x92\x01", b"\x01\x02"):
        with pytest.raises(InvalidMessage) as caught:
            unpack(raw)
        assert str(caught.value).startswith("malformed msgpack: "), raw


def test_a_registry_refuses_misuse_in_words() -> None:
    registry = _registry()
    assert registry.decode(7, [4]) == Tag(4)
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: registry.add(7, "other", Tag), "kind 7 (other) is registered twice"),
        (lambda: registry.add(8, "tag", Tag), "kind 8 (tag) is registered twice"),
        (lambda: registry.add(65536, "big", Tag), "kind number 65536 is out of range"),
        (lambda: registry.number_of(PlayCard(Slot(0, 1), 5)),
         "PlayCard is not a registered body kind"),
        (lambda: registry.by_name("play"), "no body kind named 'play'"),
    ]
    for make, words in cases:
        with pytest.raises(LocalProtocolError) as caught:
            make()
        assert str(caught.value) == words


def test_kind_numbers_run_from_0_to_65535() -> None:
    registry = Registry()
    registry.add(0, "first", Tag)
    assert 0 in registry
    assert registry.decode(0, [5]) == Tag(5)
    assert [info.number for info in registry] == [0]
    registry2 = Registry()
    registry2.add(65535, "last", Tag)
    assert registry2.by_name("last").number == 65535
    for bad in (-1, 65536):
        with pytest.raises(LocalProtocolError):
            Registry().add(bad, "bad", Tag)
