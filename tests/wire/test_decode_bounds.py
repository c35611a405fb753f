"""Issue 10, item 10: decoding costs at most a fixed multiple of the bytes received.

One 4 MiB record of empty arrays used to take 337 MB and seconds to decode
before any signature check. The codec now counts arrays and elements as msgpack
builds them (``Limits.max_arrays``, ``max_elements``) and stops at the bound.
"""

from __future__ import annotations

import time
import tracemalloc

import pytest

from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.codec import DEFAULT_LIMITS, unpack
from uno_p2p.wire.envelope import Entry, Message

FRAME = DEFAULT_LIMITS.max_frame
#: What decoding may hold, as a multiple of the frame it decodes.
MEMORY_FACTOR = 8


def _bombs() -> list[bytes]:
    """Frames that are cheap to send and were dear to decode."""
    array32 = b"\xdd" + (65_535).to_bytes(4, "big")
    return [
        array32 + b"\x90" * 65_535,                          # one array of empty arrays
        (b"\xdc\xff\xff" + b"\x90" * 65_535) * 60,            # many of them (trailing data)
        b"\xdc\xff\xff" + (b"\xdc\xff\xff" + b"\xc0" * 65_535) * 60,  # 4 M nils in arrays
        b"\x91" * 100_000 + b"\xc0",                          # nesting far too deep
    ]


@pytest.mark.parametrize("bomb", _bombs(), ids=["empty", "many", "nils", "deep"])
def test_a_decoding_bomb_is_refused_in_bounded_memory_and_time(bomb: bytes) -> None:
    assert len(bomb) <= FRAME
    for decode in (unpack, Entry.decode, Message.decode):
        tracemalloc.start()
        started = time.process_time()  # CPU time: the same on a loaded machine
        with pytest.raises(InvalidMessage):
            decode(bomb)
        elapsed = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < MEMORY_FACTOR * max(len(bomb), 1 << 20), (decode, peak)
        assert elapsed < 2.0


def test_the_budget_still_admits_every_real_entry() -> None:
    from uno_p2p.wire.samples import sample_log

    for entry in sample_log(players=3, turns=2):
        assert Entry.decode(entry.encode()) == entry
