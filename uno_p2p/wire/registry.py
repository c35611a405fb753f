"""The typed registry of message body kinds.

An entry carries ``kind`` (a small int) and ``body`` (an array). The registry
maps each kind number to a frozen dataclass with ``to_wire`` / ``from_wire`` /
``describe``, so decoding picks the right class and refuses unknown kinds
(docs/protocol/wire.md §5). The table layer adds its own kinds in one line::

    @BODIES.kind(69, "clock")
    @dataclass(frozen=True, slots=True)
    class Clock: ...

Kind numbers: 0-31 lobby and envelope bodies (this package), 32-63 the sample
game bodies of this package, 64 and up the table protocol (64-71 today:
``uno_p2p/table/bodies.py``; every shape is in ``protocol/wire.cddl``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.wire.codec import WireValue

MAX_KIND = 0xFFFF


#: What a body needs to describe itself: a peer key -> a readable name.
Names = Callable[[bytes], str]


@runtime_checkable
class Body(Protocol):
    """A message body: a frozen dataclass registered with a kind number."""

    def to_wire(self) -> list[WireValue]: ...

    def describe(self, names: Names) -> str:
        """What happened, for the transcript: ``played Red 7``."""
        ...


#: The decoder of one kind: the class's ``from_wire``.
Decoder = Callable[[WireValue], Body]
B = TypeVar("B")


@dataclass(frozen=True, slots=True)
class KindInfo:
    """One registered kind."""

    number: int
    name: str
    cls: type
    decode: Decoder


class Registry:
    """Kind number <-> body class. One shared instance, ``BODIES``.

    A registry is filled at import time by decorators and only read after,
    so sharing it between peers in one process is safe.
    """

    def __init__(self) -> None:
        self._by_number: dict[int, KindInfo] = {}
        self._by_class: dict[type, KindInfo] = {}
        self._by_name: dict[str, KindInfo] = {}

    def kind(self, number: int, name: str) -> Callable[[type[B]], type[B]]:
        """Class decorator registering a body class as kind ``number``.

        Raises:
            LocalProtocolError: the number or the name is taken, or out of range.
        """

        def register(cls: type[B]) -> type[B]:
            self.add(number, name, cls)
            return cls

        return register

    def add(self, number: int, name: str, cls: type) -> None:
        """Register ``cls`` (which must have ``from_wire``) as kind ``number``.

        Raises:
            LocalProtocolError: the number or the name is taken, or out of range.
        """
        if not 0 <= number <= MAX_KIND:
            raise LocalProtocolError(f"kind number {number} is out of range")
        if number in self._by_number or name in self._by_name:
            raise LocalProtocolError(f"kind {number} ({name}) is registered twice")
        info = KindInfo(number, name, cls, cls.from_wire)  # type: ignore[attr-defined]
        self._by_number[number] = info
        self._by_class[cls] = info
        self._by_name[name] = info

    def decode(self, number: int, value: WireValue) -> Body:
        """Decode the body of kind ``number``.

        Raises:
            InvalidMessage: unknown kind, or a malformed body.
        """
        info = self._by_number.get(number)
        if info is None:
            raise InvalidMessage(f"unknown message kind {number}")
        return info.decode(value)

    def number_of(self, body: Body) -> int:
        """The kind number of ``body``.

        Raises:
            LocalProtocolError: its class was never registered.
        """
        info = self._by_class.get(type(body))
        if info is None:
            raise LocalProtocolError(f"{type(body).__name__} is not a registered body kind")
        return info.number

    def by_name(self, name: str) -> KindInfo:
        """Look a kind up by name.

        Raises:
            LocalProtocolError: no such kind.
        """
        try:
            return self._by_name[name]
        except KeyError:
            raise LocalProtocolError(f"no body kind named {name!r}") from None

    def __iter__(self) -> Iterator[KindInfo]:
        return iter(sorted(self._by_number.values(), key=lambda info: info.number))

    def __contains__(self, number: object) -> bool:
        return number in self._by_number


#: The registry every peer uses.
BODIES = Registry()
