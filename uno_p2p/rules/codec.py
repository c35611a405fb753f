"""Canonical wire forms for the engine's values (actions, events, slots).

Every action and event is a frozen dataclass that names its wire fields in a
class-level ``WIRE`` spec of ``(field, kind)`` pairs. ``to_wire`` gives
``[tag, value, ...]`` in that fixed order using only ints, bools, strs and
lists (no floats, no maps), so signatures cover stable bytes; ``decode`` is
strict: a wrong tag, arity, type or bound raises ``InvalidMessage`` and
nothing else.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple, Protocol, TypeVar

from uno_p2p.errors import InvalidMessage

#: Hard bounds on anything decoded from a peer (RULES.md: 108 cards, 10 players).
MAX_SEATS = 10
MAX_SHUFFLES = 1_000_000
MAX_POSITIONS = 108
MAX_ITEMS = 108
MAX_TEXT = 64


class Slot(NamedTuple):
    """A card by place: ``position`` (0..size-1) in joint shuffle number ``shuffle``.

    The mental-poker layer deals positions; the face behind a slot is known only
    to whoever it was revealed to.
    """

    shuffle: int
    position: int

    def __deepcopy__(self, memo: dict[int, object]) -> Slot:
        """A pair of ints: a copy of a game shares it."""
        return self


class WireValue(Protocol):
    TAG: ClassVar[str]
    WIRE: ClassVar[tuple[tuple[str, str], ...]]


W = TypeVar("W", bound=WireValue)


def _int(value: object, low: int, high: int, what: str) -> int:
    if type(value) is not int or not low <= value <= high:
        raise InvalidMessage(f"{what} must be an integer from {low} to {high}, not {value!r}")
    return value


def _list(value: object, what: str, limit: int = MAX_ITEMS) -> list[Any]:
    if not isinstance(value, list | tuple) or len(value) > limit:
        raise InvalidMessage(f"{what} must be a list of at most {limit} items")
    return list(value)


def _slot(value: object, what: str) -> Slot:
    pair = _list(value, what, 2)
    if len(pair) != 2:
        raise InvalidMessage(f"{what} must be a [shuffle, position] pair")
    return Slot(
        _int(pair[0], 0, MAX_SHUFFLES, f"{what} shuffle"),
        _int(pair[1], 0, MAX_POSITIONS - 1, f"{what} position"),
    )


_BOUNDS = {"cards": (0, 107), "seats": (0, MAX_SEATS - 1), "ints": (-(2**31), 2**31)}


def _decode_field(kind: str, value: object, what: str) -> object:
    if kind == "seat":
        return _int(value, 0, MAX_SEATS - 1, what)
    if kind == "opt_seat":
        return _int(value, -1, MAX_SEATS - 1, what)
    if kind == "int":
        return _int(value, -(2**31), 2**31, what)
    if kind == "card":
        return _int(value, 0, 107, what)
    if kind == "bool":
        if type(value) is not bool:
            raise InvalidMessage(f"{what} must be true or false")
        return value
    if kind == "str":
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            raise InvalidMessage(f"{what} must be a text of at most {MAX_TEXT} characters")
        return value
    if kind == "slots":
        return tuple(_slot(v, what) for v in _list(value, what))
    if kind in ("cards", "seats", "ints"):
        low, high = _BOUNDS[kind]
        return tuple(_int(v, low, high, what) for v in _list(value, what))
    if kind == "faces":
        return tuple(_face(v, what) for v in _list(value, what))
    raise AssertionError(kind)


def _face(value: object, what: str) -> tuple[Slot, int]:
    triple = _list(value, what, 3)
    if len(triple) != 3:
        raise InvalidMessage(f"{what} must be [shuffle, position, card] triples")
    return _slot(triple[:2], what), _int(triple[2], 0, 107, f"{what} card")


def _encode_field(kind: str, value: Any) -> object:
    if kind == "slots":
        return [[s.shuffle, s.position] for s in value]
    if kind in ("cards", "seats", "ints"):
        return list(value)
    if kind == "faces":
        return [[s.shuffle, s.position, c] for s, c in value]
    return value


def encode(value: WireValue) -> list[object]:
    """``[tag, field...]`` in the class's fixed field order."""
    return [value.TAG, *(_encode_field(k, getattr(value, n)) for n, k in value.WIRE)]


def decode_fields(cls: type[W], value: object) -> W:
    """Decode ``[tag, field...]`` into ``cls``, strictly.

    Raises:
        InvalidMessage: wrong tag, wrong number of fields, or a field out of bounds.
    """
    items = _list(value, cls.__name__, len(cls.WIRE) + 1)
    if len(items) != len(cls.WIRE) + 1 or items[0] != cls.TAG:
        raise InvalidMessage(
            f"not a {cls.__name__}: expected tag {cls.TAG!r} and {len(cls.WIRE)} fields")
    kwargs = {
        name: _decode_field(kind, raw, f"{cls.__name__}.{name}")
        for (name, kind), raw in zip(cls.WIRE, items[1:], strict=True)
    }
    try:
        return cls(**kwargs)
    except ValueError as error:
        raise InvalidMessage(f"{cls.__name__}: {error}") from None


def decode_any(registry: dict[str, type[W]], value: object, what: str) -> W:
    """Decode a value whose tag selects its class from ``registry``.

    Raises:
        InvalidMessage: unknown tag or a malformed value.
    """
    if not isinstance(value, list | tuple) or not value or not isinstance(value[0], str) \
            or value[0] not in registry:
        raise InvalidMessage(f"not a known {what}")
    return decode_fields(registry[value[0]], value)
