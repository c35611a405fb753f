"""Strict readers for the fields of a decoded wire array.

Every ``from_wire`` goes through these, so that a wrong type or an out-of-range
value from a peer becomes one ``InvalidMessage`` naming the field, and never a
``TypeError`` or a silently accepted value (docs/protocol/wire.md §7).
``bool`` is never accepted where an int is expected, nor the reverse.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Sequence

from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.codec import WireValue


def array(value: object, length: int, item: str) -> list[WireValue]:
    """An array of exactly ``length`` fields.

    Raises:
        InvalidMessage: not an array, or the wrong number of fields.
    """
    if type(value) is not list:
        raise InvalidMessage(f"{item} must be an array")
    if len(value) != length:
        raise InvalidMessage(f"{item} must have {length} fields, not {len(value)}")
    return value


def items(value: object, item: str, *, max_len: int) -> list[WireValue]:
    """An array of at most ``max_len`` elements (checked one by one by the caller).

    Raises:
        InvalidMessage: not an array, or too long.
    """
    if type(value) is not list:
        raise InvalidMessage(f"{item} must be an array")
    if len(value) > max_len:
        raise InvalidMessage(f"{item} has {len(value)} elements, more than {max_len}")
    return value


def integer(value: object, item: str, *, lo: int, hi: int) -> int:
    """An int in ``lo..hi`` inclusive.

    Raises:
        InvalidMessage: not an int (a bool is not an int here), or out of range.
    """
    if type(value) is not int:
        raise InvalidMessage(f"{item} must be an integer")
    if not lo <= value <= hi:
        raise InvalidMessage(f"{item} must be in {lo}..{hi}, not {value}")
    return value


def optional_integer(value: object, item: str, *, lo: int, hi: int) -> int | None:
    """nil, or an int in ``lo..hi``.

    Raises:
        InvalidMessage: as ``integer``.
    """
    return None if value is None else integer(value, item, lo=lo, hi=hi)


def boolean(value: object, item: str) -> bool:
    """A bool.

    Raises:
        InvalidMessage: not a bool.
    """
    if type(value) is not bool:
        raise InvalidMessage(f"{item} must be true or false")
    return value


def blob(value: object, item: str, *, size: int | None = None, max_size: int = 1 << 22) -> bytes:
    """A bin, of exactly ``size`` bytes if given, else at most ``max_size``.

    Raises:
        InvalidMessage: not a bin (a str is not a bin), or the wrong size.
    """
    if type(value) is not bytes:
        raise InvalidMessage(f"{item} must be a bin")
    if size is not None and len(value) != size:
        raise InvalidMessage(f"{item} must be {size} bytes, not {len(value)}")
    if len(value) > max_size:
        raise InvalidMessage(f"{item} is {len(value)} bytes, more than {max_size}")
    return value


def text(value: object, item: str, *, max_chars: int, min_chars: int = 0) -> str:
    """A str of printable characters (no control or format characters).

    Control characters are refused so that a peer's name or reason cannot
    rewrite another player's terminal or transcript.

    Raises:
        InvalidMessage: not a str, the wrong length, or unprintable.
    """
    if type(value) is not str:
        raise InvalidMessage(f"{item} must be a string")
    if not min_chars <= len(value) <= max_chars:
        raise InvalidMessage(f"{item} must be {min_chars} to {max_chars} characters long")
    check_printable(value, item)
    return value


def check_printable(value: str, item: str) -> None:
    """Raise ``InvalidMessage`` if ``value`` holds control, format or unassigned characters.

    Raises:
        InvalidMessage: as said.
    """
    for char in value:
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            raise InvalidMessage(f"{item} contains an unprintable character U+{ord(char):04X}")


def strictly_sorted(keys: Sequence[str], item: str) -> None:
    """Keys in strictly increasing order: sorted and unique, so one canonical form.

    Raises:
        InvalidMessage: out of order or repeated.
    """
    for before, after in itertools.pairwise(keys):
        if not before < after:
            raise InvalidMessage(f"{item} keys must be sorted and unique ({before!r}, {after!r})")
