"""Lobby bodies: opening a table, joining, options, ready, start, kick, leave.

docs/protocol/wire.md §5.1. These do not depend on the game's design, so they
live here; the table protocol (docs/protocol.md, table chapter) gives them
their meaning in the lobby phase. Each is a frozen dataclass whose wire form is
a fixed-order array.
"""

from __future__ import annotations

from dataclasses import dataclass

from uno_p2p.crypto.channel import CHANNEL_KEY_BYTES
from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import InvalidMessage
from uno_p2p.wire import fields
from uno_p2p.wire.codec import WireValue
from uno_p2p.wire.registry import BODIES, Names

MAX_NAME_CHARS = 32
MAX_REASON_CHARS = 200
MAX_OPTIONS = 64
MAX_OPTION_KEY_CHARS = 48
MAX_OPTION_TEXT_CHARS = 64
MIN_PLAYERS = 2
MAX_PLAYERS = 10

#: An option value: the engine owns their meaning (RULES.md), the wire their form.
OptionValue = int | bool | str


def _name(value: object) -> str:
    name = fields.text(value, "a player name", min_chars=1, max_chars=MAX_NAME_CHARS)
    if name != name.strip():
        raise InvalidMessage("a player name must not start or end with spaces")
    return name


def _check_options(options: tuple[tuple[str, OptionValue], ...]) -> None:
    if type(options) is not tuple or len(options) > MAX_OPTIONS:
        raise InvalidMessage(f"options must be a tuple of at most {MAX_OPTIONS} pairs")
    for pair in options:
        if type(pair) is not tuple or len(pair) != 2:
            raise InvalidMessage("an option must be a (key, value) pair")
        fields.text(pair[0], "an option key", min_chars=1, max_chars=MAX_OPTION_KEY_CHARS)
        _option_value(pair[1])
    fields.strictly_sorted([key for key, _ in options], "options")


def _option_value(value: object) -> OptionValue:
    if type(value) is bool:
        return value
    if type(value) is int:
        return fields.integer(value, "an option value", lo=-(1 << 31), hi=(1 << 31) - 1)
    return fields.text(value, "an option value", max_chars=MAX_OPTION_TEXT_CHARS)


def options_to_wire(options: tuple[tuple[str, OptionValue], ...]) -> list[WireValue]:
    return [[key, value] for key, value in options]


def options_from_wire(value: WireValue) -> tuple[tuple[str, OptionValue], ...]:
    """The opaque canonical option list: ``[[key, value], ...]`` with keys sorted and unique.

    Raises:
        InvalidMessage: malformed, unsorted or repeated keys.
    """
    pairs = []
    for pair in fields.items(value, "options", max_len=MAX_OPTIONS):
        key, raw = fields.array(pair, 2, "an option")
        pairs.append((fields.text(key, "an option key", min_chars=1,
                                  max_chars=MAX_OPTION_KEY_CHARS), _option_value(raw)))
    fields.strictly_sorted([key for key, _ in pairs], "options")
    return tuple(pairs)


def _describe_options(preset: str, options: tuple[tuple[str, OptionValue], ...]) -> str:
    shown = ", ".join(f"{key}={str(val).lower() if type(val) is bool else val}"
                      for key, val in options)
    head = f"preset {preset}" if preset else "no preset"
    return f"{head}; {shown}" if shown else head


@BODIES.kind(0, "open_table")
@dataclass(frozen=True, slots=True)
class OpenTable:
    """The host opens the table: entry 0 of every log, signed by the sequencer."""

    name: str
    channel_key: bytes
    preset: str
    options: tuple[tuple[str, OptionValue], ...]
    max_players: int

    def __post_init__(self) -> None:
        _name(self.name)
        fields.blob(self.channel_key, "a channel key", size=CHANNEL_KEY_BYTES)
        fields.text(self.preset, "a preset", max_chars=MAX_OPTION_KEY_CHARS)
        _check_options(self.options)
        fields.integer(self.max_players, "max players", lo=MIN_PLAYERS, hi=MAX_PLAYERS)

    def to_wire(self) -> list[WireValue]:
        return [self.name, self.channel_key, self.preset, options_to_wire(self.options),
                self.max_players]

    @classmethod
    def from_wire(cls, value: WireValue) -> OpenTable:
        """Raises: InvalidMessage: malformed."""
        name, key, preset, options, max_players = fields.array(value, 5, "open_table")
        return cls(_name(name), fields.blob(key, "a channel key", size=CHANNEL_KEY_BYTES),
                   fields.text(preset, "a preset", max_chars=MAX_OPTION_KEY_CHARS),
                   options_from_wire(options),
                   fields.integer(max_players, "max players", lo=MIN_PLAYERS, hi=MAX_PLAYERS))

    def describe(self, names: Names) -> str:
        return (f"opened the table as {self.name} for up to {self.max_players} players "
                f"({_describe_options(self.preset, self.options)})")


@BODIES.kind(1, "join")
@dataclass(frozen=True, slots=True)
class Join:
    """A peer asks for a seat, with its name and its channel key (signed: bound to it)."""

    name: str
    channel_key: bytes

    def __post_init__(self) -> None:
        _name(self.name)
        fields.blob(self.channel_key, "a channel key", size=CHANNEL_KEY_BYTES)

    def to_wire(self) -> list[WireValue]:
        return [self.name, self.channel_key]

    @classmethod
    def from_wire(cls, value: WireValue) -> Join:
        """Raises: InvalidMessage: malformed."""
        name, key = fields.array(value, 2, "join")
        return cls(_name(name), fields.blob(key, "a channel key", size=CHANNEL_KEY_BYTES))

    def describe(self, names: Names) -> str:
        return f"joined as {self.name}"


@BODIES.kind(2, "set_options")
@dataclass(frozen=True, slots=True)
class SetOptions:
    """The host changes the preset or options before the start; everyone sees them."""

    preset: str
    options: tuple[tuple[str, OptionValue], ...]

    def __post_init__(self) -> None:
        fields.text(self.preset, "a preset", max_chars=MAX_OPTION_KEY_CHARS)
        _check_options(self.options)

    def to_wire(self) -> list[WireValue]:
        return [self.preset, options_to_wire(self.options)]

    @classmethod
    def from_wire(cls, value: WireValue) -> SetOptions:
        """Raises: InvalidMessage: malformed."""
        preset, options = fields.array(value, 2, "set_options")
        return cls(fields.text(preset, "a preset", max_chars=MAX_OPTION_KEY_CHARS),
                   options_from_wire(options))

    def describe(self, names: Names) -> str:
        return f"set the rules: {_describe_options(self.preset, self.options)}"


@BODIES.kind(3, "ready")
@dataclass(frozen=True, slots=True)
class Ready:
    """A seated peer is ready (or no longer ready) to start."""

    ready: bool = True

    def __post_init__(self) -> None:
        fields.boolean(self.ready, "ready")

    def to_wire(self) -> list[WireValue]:
        return [self.ready]

    @classmethod
    def from_wire(cls, value: WireValue) -> Ready:
        """Raises: InvalidMessage: malformed."""
        (ready,) = fields.array(value, 1, "ready")
        return cls(fields.boolean(ready, "ready"))

    def describe(self, names: Names) -> str:
        return "is ready" if self.ready else "is no longer ready"


def _seats(value: object) -> tuple[PeerId, ...]:
    keys = fields.items(value, "seats", max_len=MAX_PLAYERS)
    seats = tuple(PeerId.from_wire(key) for key in keys)
    if len(seats) < MIN_PLAYERS or len({seat.key for seat in seats}) != len(seats):
        raise InvalidMessage(f"seats must list {MIN_PLAYERS}-{MAX_PLAYERS} distinct peers")
    return seats


@BODIES.kind(4, "start")
@dataclass(frozen=True, slots=True)
class Start:
    """The host starts the game; ``seats`` fixes the seat order (seat 0 first)."""

    seats: tuple[PeerId, ...]

    def __post_init__(self) -> None:
        if type(self.seats) is not tuple:
            raise InvalidMessage("seats must be a tuple")
        _seats([seat.to_wire() for seat in self.seats])

    def to_wire(self) -> list[WireValue]:
        return [[seat.to_wire() for seat in self.seats]]

    @classmethod
    def from_wire(cls, value: WireValue) -> Start:
        """Raises: InvalidMessage: malformed, too few or repeated seats."""
        (seats,) = fields.array(value, 1, "start")
        return cls(_seats(seats))

    def describe(self, names: Names) -> str:
        order = ", ".join(names(seat.key) for seat in self.seats)
        return f"started the game with {len(self.seats)} players: {order}"


@BODIES.kind(5, "kick")
@dataclass(frozen=True, slots=True)
class Kick:
    """The host removes a peer before the start."""

    peer: PeerId
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.peer, PeerId):
            raise InvalidMessage("kick names a peer identity")
        fields.text(self.reason, "a reason", max_chars=MAX_REASON_CHARS)

    def to_wire(self) -> list[WireValue]:
        return [self.peer.to_wire(), self.reason]

    @classmethod
    def from_wire(cls, value: WireValue) -> Kick:
        """Raises: InvalidMessage: malformed."""
        peer, reason = fields.array(value, 2, "kick")
        return cls(PeerId.from_wire(peer), fields.text(reason, "a reason",
                                                       max_chars=MAX_REASON_CHARS))

    def describe(self, names: Names) -> str:
        why = f": {self.reason}" if self.reason else ""
        return f"removed {names(self.peer.key)} from the table{why}"


@BODIES.kind(6, "leave")
@dataclass(frozen=True, slots=True)
class Leave:
    """A peer leaves the table (docs/protocol.md: what happens to its hand and keys)."""

    reason: str = ""

    def __post_init__(self) -> None:
        fields.text(self.reason, "a reason", max_chars=MAX_REASON_CHARS)

    def to_wire(self) -> list[WireValue]:
        return [self.reason]

    @classmethod
    def from_wire(cls, value: WireValue) -> Leave:
        """Raises: InvalidMessage: malformed."""
        (reason,) = fields.array(value, 1, "leave")
        return cls(fields.text(reason, "a reason", max_chars=MAX_REASON_CHARS))

    def describe(self, names: Names) -> str:
        return f"left the table: {self.reason}" if self.reason else "left the table"
