"""Canonical msgpack: the only way bytes become values and back.

docs/protocol/wire.md §1. A wire value is an int, a bool, nil, a UTF-8 str, a
bin, or an array of wire values. No maps, floats or ext types exist on the wire:
every message is an array with a fixed field order. Encoding uses msgpack's
shortest forms. Decoding untrusted bytes is bounded by named ``Limits`` and
strict: the decoded value must re-encode to exactly the bytes received, which
refuses long int forms, str8 where fixstr fits, float32, maps and anything
else that msgpack would otherwise happily decode. Any input either decodes or
raises ``InvalidMessage``; nothing else escapes (a hypothesis test and
``scripts/fuzz-wire`` check it).
"""

from __future__ import annotations

from typing import TypeAlias

import msgpack

from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.limits import DEFAULT_LIMITS as DEFAULT_LIMITS
from uno_p2p.wire.limits import Limits as Limits

#: A value that can appear on the wire (docs/protocol/wire.md §1).
WireValue: TypeAlias = "int | bool | str | bytes | list[WireValue] | None"

#: Integers must fit msgpack's int64 / uint64 ranges.
INT_MIN = -(1 << 63)
INT_MAX = (1 << 64) - 1




def pack(value: WireValue) -> bytes:
    """Encode ``value`` canonically.

    Raises:
        InvalidMessage: if ``value`` holds something that has no wire form
            (a float, a dict, a tuple, an int out of range...).
    """
    _check_value(value, depth=0, limits=None)
    encoded: bytes = msgpack.packb(value, use_bin_type=True)
    return encoded


def unpack(data: bytes, limits: Limits = DEFAULT_LIMITS) -> WireValue:
    """Decode untrusted bytes into one canonical wire value.

    Raises:
        InvalidMessage: too big, malformed, trailing bytes, a forbidden type,
            too deep, or not in canonical form.
    """
    if type(data) is not bytes:
        raise InvalidMessage("a message must be bytes")
    if len(data) > limits.max_frame:
        raise InvalidMessage(f"a message of {len(data)} bytes exceeds the {limits.max_frame} limit")
    value = _decode(data, limits)
    _check_value(value, depth=0, limits=limits)
    if msgpack.packb(value, use_bin_type=True) != data:
        raise InvalidMessage("a message is not in canonical form (it does not re-encode the same)")
    return value


def _refuse_map(pairs: object) -> None:
    raise InvalidMessage("maps are not allowed on the wire")


def _refuse_ext(code: int, data: bytes) -> None:
    raise InvalidMessage("msgpack ext types are not allowed on the wire")


class _Budget:
    """Counts the arrays msgpack builds and stops the decode past the limits.

    msgpack calls ``list_hook`` as each array is completed, so at most the
    arrays under construction (fewer elements than the frame has bytes) are
    held beyond the budget: decoding memory stays a fixed multiple of the
    frame size (docs/protocol/wire.md §7).
    """

    __slots__ = ("arrays", "elements", "limits")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.arrays = 0
        self.elements = 0

    def __call__(self, items: list[WireValue]) -> list[WireValue]:
        self.arrays += 1
        self.elements += len(items)
        if self.arrays > self.limits.max_arrays:
            raise InvalidMessage(f"more than {self.limits.max_arrays} arrays in one message")
        if self.elements > self.limits.max_elements:
            raise InvalidMessage(f"more than {self.limits.max_elements} array elements "
                                 "in one message")
        return items


def _decode(data: bytes, limits: Limits) -> WireValue:
    try:
        value: WireValue = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            list_hook=_Budget(limits),
            strict_map_key=True,
            object_pairs_hook=_refuse_map,
            ext_hook=_refuse_ext,
            max_str_len=limits.max_str,
            max_bin_len=limits.max_bin,
            max_array_len=limits.max_array,
            max_map_len=0,
            max_ext_len=0,
        )
    except InvalidMessage:
        raise
    except (ValueError, msgpack.UnpackException) as error:
        # ExtraData, FormatError, StackError, OutOfData, UnicodeDecodeError and
        # the max_*_len refusals are all ValueError or UnpackException.
        raise InvalidMessage(f"malformed msgpack: {type(error).__name__}") from error
    return value


def _check_value(value: object, *, depth: int, limits: Limits | None) -> None:
    """Refuse anything that is not a wire value, walking arrays iteratively."""
    max_depth = limits.max_depth if limits is not None else DEFAULT_LIMITS.max_depth
    stack: list[tuple[object, int]] = [(value, depth)]
    while stack:
        item, level = stack.pop()
        kind = type(item)
        if kind is list:
            if level >= max_depth:
                raise InvalidMessage(f"arrays nested deeper than {max_depth}")
            stack.extend((child, level + 1) for child in item)  # type: ignore[attr-defined]
        elif kind is int:
            if not INT_MIN <= item <= INT_MAX:  # type: ignore[operator]
                raise InvalidMessage("an integer does not fit in 64 bits")
        elif kind not in (bool, str, bytes, type(None)):
            raise InvalidMessage(f"a {kind.__name__} has no wire form")
