"""A small deterministic random stream for bots and the simulation driver.

The rules layer may not import ``random`` (STYLE.md: the pure core takes
randomness as input), so bots and the driver draw from SHA-256 in counter
mode over a seed the shell supplies. Not for secrets: the deck's randomness
comes from the joint shuffle, never from here.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")


class Stream:
    """SHA-256(seed || counter) as a stream of integers."""

    __slots__ = ("_buffer", "_counter", "_seed")

    def __init__(self, seed: bytes | int | str) -> None:
        if isinstance(seed, int):
            seed = seed.to_bytes(16, "big", signed=True)
        elif isinstance(seed, str):
            seed = seed.encode("utf-8")
        self._seed = hashlib.sha256(b"uno-lan/prng/v1" + seed).digest()
        self._counter = 0
        self._buffer: list[int] = []

    def _word(self) -> int:
        if not self._buffer:
            block = hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._buffer = [int.from_bytes(block[i:i + 4], "big") for i in range(0, 32, 4)]
        return self._buffer.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 32) - ((1 << 32) % n)
        while True:
            word = self._word()
            if word < limit:
                return word % n

    def chance(self, numerator: int, denominator: int) -> bool:
        """True with probability ``numerator/denominator``."""
        return self.below(denominator) < numerator

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    @property
    def seed(self) -> bytes:
        """The stream's internal seed (feeds other streams deterministically)."""
        return self._seed

    def fork(self, label: str) -> Stream:
        """An independent stream derived from this one's seed and ``label``."""
        return Stream(self._seed + label.encode("utf-8"))
