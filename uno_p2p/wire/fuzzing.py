"""The seeded byte mutator behind our bounded fuzzers (issues 4 and 10).

``scripts/fuzz-wire`` (the decoders) and ``scripts/fuzz-table`` (a seated peer
and the host, through ``uno_p2p.table.fuzzing``) edit real frames the same way:
bit flips, byte changes, insertions of msgpack-significant bytes, deletions,
truncations and splices, plus whatever edits a target adds. One copy keeps a
fix to the mutator in both. Pure: the caller brings its own seeded generator,
so a run is reproducible from its seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

_T = TypeVar("_T")


class Rng(Protocol):
    """The few methods of ``random.Random`` the mutator uses (the core imports no
    randomness: the caller brings its own seeded generator)."""

    def randrange(self, stop: int, /) -> int: ...
    def randint(self, a: int, b: int, /) -> int: ...
    def choice(self, seq: Sequence[_T], /) -> _T: ...


#: An edit a target adds to the common ones: it changes the frame in place.
Edit = Callable[[Rng, bytearray], None]


def mutate(rng: Rng, seeds: Sequence[bytes], *, fewest: int, insert: Sequence[int],
           selectors: int, extra: Sequence[Edit] = ()) -> bytes:
    """A seed with ``fewest`` to four random edits, behind a selector byte below
    ``selectors`` (the target reads it to choose what to run).

    Each edit is one of: flip a bit, set a byte, insert one of ``insert``, delete a
    byte, truncate, one of ``extra``, or splice the tail of another seed (also what
    an edit that needs a byte does to an empty frame).
    """
    data = bytearray(rng.choice(seeds))
    kinds = 6 + len(extra)
    for _ in range(rng.randint(fewest, 4)):
        choice = rng.randrange(kinds)
        where = rng.randrange(len(data) + 1)
        if choice == 0 and data:
            data[where % len(data)] ^= 1 << rng.randrange(8)
        elif choice == 1 and data:
            data[where % len(data)] = rng.randrange(256)
        elif choice == 2:
            data[where:where] = bytes([rng.choice(insert)])
        elif choice == 3 and data:
            del data[where % len(data)]
        elif choice == 4:
            del data[where:]
        elif 5 <= choice < kinds - 1:
            extra[choice - 5](rng, data)
        else:
            other = rng.choice(seeds)
            data[where:] = other[rng.randrange(len(other) + 1):]
    return bytes([rng.randrange(selectors)]) + bytes(data)
