"""The shared byte mutator of ``scripts/fuzz-wire`` and ``scripts/fuzz-table``."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.wire.fuzzing import Rng, mutate

SEEDS = [b"\x93\x01\xc4\x01\x00\xa1a", b"E\x90", b""]


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_a_run_is_reproducible_from_its_seed_and_names_a_valid_target(seed: int) -> None:
    """A bug found by a run can be found again from the seed it prints."""
    first = [mutate(random.Random(seed), SEEDS, fewest=1, insert=(0xC1,), selectors=3)
             for _ in range(5)]
    again = [mutate(random.Random(seed), SEEDS, fewest=1, insert=(0xC1,), selectors=3)
             for _ in range(5)]
    assert first == again
    assert all(data[0] < 3 for data in first)


def test_every_kind_of_edit_happens_and_a_target_can_add_its_own() -> None:
    """Bit flips, new bytes, insertions, deletions, truncations, splices, and the
    target's own edit all show up within a few hundred inputs of one seed."""
    marker = 0xAB

    def mark(rng: Rng, data: bytearray) -> None:
        data[:0] = bytes([marker])

    rng = random.Random(7)
    seed = bytes(range(32))
    outputs = [mutate(rng, [seed, b"\xff" * 8], fewest=1, insert=(0xC1,), selectors=1,
                      extra=(mark,))[1:] for _ in range(400)]
    assert any(marker in out for out in outputs)  # the target's own edit
    assert any(0xC1 in out for out in outputs)  # an insertion
    assert any(0 < len(out) < len(seed) and seed.startswith(out) for out in outputs)  # cut
    assert any(len(out) == len(seed) and out != seed for out in outputs)  # a changed byte
    assert any(b"\xff\xff\xff" in out and out[:1] == b"\x00" for out in outputs)  # a splice
