"""A frame's bytes are decoded once for all of a node's readers, and a failure every time.

A node reads an incoming frame up to three times (its check worker's statements, a
turn made ahead, the peer itself); ``RecentDecodes`` makes the later readers take the
first one's value. What must hold is what decoding anew would give: the same values,
the same refusals, nothing kept from bytes that did not decode, and a bound.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings

from tests.wire.strategies import messages
from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.codec import DEFAULT_LIMITS, Limits, pack
from uno_p2p.wire.envelope import (
    MESSAGE_HASH_LABEL,
    RECENT_DECODES,
    Entry,
    Message,
    RecentDecodes,
)
from uno_p2p.wire.samples import sample_log

LOG = sample_log(players=3, turns=3)


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    RECENT_DECODES.clear()
    yield
    RECENT_DECODES.clear()


def test_the_same_bytes_give_the_same_entry_without_decoding_again() -> None:
    data = LOG[-1].encode()
    first = Entry.decode(data)
    assert Entry.decode(bytes(data)) is first  # equal bytes, another object
    assert first == LOG[-1]
    assert first.hash == LOG[-1].hash


def test_an_entry_and_a_message_are_kept_apart() -> None:
    entry = LOG[-1]
    message_bytes = entry.message.encode()
    message = Message.decode(message_bytes)
    assert message == entry.message
    assert Message.decode(bytes(message_bytes)) is message
    with pytest.raises(InvalidMessage):
        Entry.decode(message_bytes)  # a message's bytes are no entry, even once decoded
    assert Entry.decode(entry.encode()) == entry


def test_bytes_that_do_not_decode_are_refused_every_time() -> None:
    data = LOG[-1].encode()
    broken = data[:-1]
    for _ in range(2):
        with pytest.raises(InvalidMessage) as refused:
            Entry.decode(broken)
        assert refused.value.code == "invalid_message"
    assert Entry.decode(data) == LOG[-1]


def counted(memo: RecentDecodes, calls: list[bytes], data: bytes) -> Entry:
    """``data`` decoded through ``memo``, noting in ``calls`` each time it really is."""
    def anew() -> Entry:
        calls.append(data)
        return Entry.decode(data)
    return memo.decoded(Entry, data, anew)


def test_only_the_last_few_are_kept() -> None:
    memo = RecentDecodes(size=2)
    calls: list[bytes] = []
    decode = partial(counted, memo, calls)

    RECENT_DECODES.enabled = False  # count this memo's own decodings only
    try:
        first, second, third = (entry.encode() for entry in LOG[-3:])
        kept = decode(first)
        decode(second)
        assert decode(first) is kept  # the first, used again, is now the newest
        decode(third)  # beyond two: the oldest (the second) goes
        assert decode(first) is kept
        decode(second)
        assert calls == [first, second, third, second]
    finally:
        RECENT_DECODES.enabled = True


def test_the_bytes_kept_are_bounded_and_a_frame_over_the_bound_is_not_kept() -> None:
    # A member may send frames of up to 4 MiB (wire.md §7): what is kept of them is
    # bounded in bytes, not only in count.
    first, second = (entry.encode() for entry in LOG[-2:])
    memo = RecentDecodes(size=16, max_bytes=len(first) + len(second) - 1)
    calls: list[bytes] = []
    decode = partial(counted, memo, calls)

    RECENT_DECODES.enabled = False  # count this memo's own decodings only
    try:
        kept = decode(first)
        assert decode(first) is kept
        decode(second)  # both would pass the bound: the first goes
        decode(second)
        assert decode(first) is not kept
        small = RecentDecodes(max_bytes=len(second))
        assert small.decoded(Entry, second, lambda: LOG[-1]) is LOG[-1]
        assert len(first) > len(second)
        assert small.decoded(Entry, first, lambda: LOG[-2]) is LOG[-2]
        assert small.decoded(Entry, first, lambda: LOG[-3]) is LOG[-3], "over: not kept"
        assert small.decoded(Entry, second, lambda: LOG[-3]) is LOG[-1], "nor pushing out"
    finally:
        RECENT_DECODES.enabled = True
    assert calls == [first, second, first]


def test_off_it_decodes_every_time() -> None:
    data = LOG[-1].encode()
    RECENT_DECODES.enabled = False
    try:
        assert Entry.decode(data) is not Entry.decode(data)
    finally:
        RECENT_DECODES.enabled = True


def test_other_limits_decode_anew() -> None:
    data = LOG[-1].encode()
    kept = Entry.decode(data)
    assert Entry.decode(data, limits=DEFAULT_LIMITS) is kept
    anew = Entry.decode(data, limits=Limits(max_frame=len(data)))
    assert anew == LOG[-1]
    assert anew is not kept
    message = LOG[-1].message.encode()
    assert Message.decode(message, limits=Limits(max_frame=len(message))) == LOG[-1].message
    with pytest.raises(InvalidMessage):
        Message.decode(message, limits=Limits(max_frame=len(message) - 1))
    with pytest.raises(InvalidMessage):
        Entry.decode(data, limits=Limits(max_frame=len(data) - 1))  # its own limits apply


@given(messages())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_message_hash_is_over_its_whole_signed_encoding(message: Message) -> None:
    # wire.md §3: SHA-256 over the label and the signed message, however it is computed.
    whole = pack(message.to_wire())
    assert message.hash == hashlib.sha256(MESSAGE_HASH_LABEL + whole).digest()
