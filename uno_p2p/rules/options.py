"""The table's rule options, validated once (RULES.md: every option by name).

An ``Options`` value is frozen and always valid, so the engine never re-checks
it. Names and values are exactly RULES.md's; a preset plus ``name=value``
overrides gives the options a host opens a table with, and ``to_wire`` gives
the canonical form recorded in the game log so an audit replays the game under
the same rules.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from uno_p2p.errors import ConfigError

#: Allowed words for the options that take one of a few values.
CHOICES: dict[str, tuple[str, ...]] = {
    "dealer_rule": ("winner", "rotate"),
    "starter_wild_colour": ("first_player", "dealer"),
    "empty_deck": ("pass", "void_round"),
    "scoring": ("points", "losses", "chips"),
}
#: Inclusive bounds of the integer options (sane limits for a table of friends).
INT_BOUNDS: dict[str, tuple[int, int]] = {
    "target": (1, 1_000_000),
    "teams": (0, 5),
    "seat_shuffle_every": (0, 1000),
    "turn_timer": (0, 3600),
    "error_penalty": (0, 10),
    "catch_grace_ms": (0, 10_000),
}
MIN_PLAYERS = 2
MAX_PLAYERS = 10
#: RULES.md turn_timer: "Always on in network play with a generous default, so that an
#: absent player cannot stall a table". A minute per decision is generous for a human
#: at a table of friends, and short enough that a vanished player costs little.
NETWORK_TURN_TIMER = 60
#: RULES.md "Not software rules": "pause a second or two before playing" maps to a short
#: grace period for catching a missed UNO; in network play it is 1.5 s unless set.
NETWORK_CATCH_GRACE_MS = 1500


@dataclass(frozen=True, slots=True)
class Options:
    """Every RULES.md option; the defaults are the official rules (``002``).

    ``catch_grace_ms`` is the one option RULES.md leaves as a number: "a short
    grace period for catching a missed UNO before the next player may act".
    It is the milliseconds after a play during which the next player may not
    begin a turn while a missed UNO is catchable (0 = no grace period).
    """

    dealer_rule: str = "winner"
    starter_wild_colour: str = "first_player"
    starter_number_only: bool = False
    draw_until_playable: bool = False
    empty_deck: str = "pass"
    false_uno_penalty: bool = False
    scoring: str = "points"
    target: int = 500
    teams: int = 0
    seat_shuffle_every: int = 0
    stack_draw_two: bool = False
    stack_draw_four: bool = False
    stack_four_on_two: bool = False
    deflect_draw_two: bool = False
    jump_in: bool = False
    sum_jump_in: bool = False
    number_finish: bool = False
    number_or_draw_finish: bool = False
    wild_powers: bool = False
    turn_timer: int = 0
    error_penalty: int = 0
    seven_zero: bool = False
    forced_play: bool = False
    no_challenge: bool = False
    wd4_strict: bool = False
    catch_grace_ms: int = 0

    NAMES: ClassVar[tuple[str, ...]]

    def __post_init__(self) -> None:
        for name in self.NAMES:
            _check_value(name, getattr(self, name), KINDS[name])
        if self.number_finish and self.number_or_draw_finish:
            raise ConfigError(
                "options 'number_finish' and 'number_or_draw_finish' cannot both be on"
            )

    def check_players(self, count: int) -> None:
        """Check that ``count`` players can sit at a table with these options.

        Raises:
            ConfigError: fewer than 2 or more than 10 players, or teams that do not
                divide the players into equal teams of at least two.
        """
        if not MIN_PLAYERS <= count <= MAX_PLAYERS:
            raise ConfigError(f"UNO needs 2 to 10 players, not {count}")
        if self.teams and (count % self.teams or count // self.teams < 2):
            raise ConfigError(
                f"{count} players cannot form {self.teams} equal teams of at least two"
            )

    def to_wire(self) -> list[list[Any]]:
        """Canonical form: ``[[name, value], ...]`` sorted by name."""
        return [[name, getattr(self, name)] for name in sorted(self.NAMES)]

    @classmethod
    def from_wire(cls, value: object) -> Options:
        """Decode ``to_wire``'s form strictly: every name once, sorted, typed.

        Raises:
            ConfigError: malformed list, unknown or repeated name, or a bad value.
        """
        if not isinstance(value, list | tuple) or len(value) != len(cls.NAMES):
            raise ConfigError("options must be a list of every [name, value] pair")
        pairs: dict[str, object] = {}
        for item in value:
            if not isinstance(item, list | tuple) or len(item) != 2 or not isinstance(item[0], str):
                raise ConfigError("each option must be a [name, value] pair")
            if item[0] in pairs:
                raise ConfigError(f"option '{item[0]}' is given twice")
            pairs[item[0]] = item[1]
        if list(pairs) != sorted(cls.NAMES):
            raise ConfigError("options must list every option once, sorted by name")
        return cls.from_mapping(pairs)

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> Options:
        """Build options from ``name -> value`` (typed values), defaults for the rest.

        Raises:
            ConfigError: unknown name (with a suggestion) or a bad value.
        """
        for name in values:
            _check_name(name)
        return cls(**values)  # type: ignore[arg-type]

    def with_overrides(self, assignments: Iterable[str]) -> Options:
        """Apply CLI-style ``name=value`` strings on top of these options.

        Raises:
            ConfigError: a string without ``=``, an unknown name or a bad value.
        """
        changes = dict(parse_assignment(text) for text in assignments)
        return replace(self, **changes)  # type: ignore[arg-type]

    def describe(self) -> list[str]:
        """One ``name=value`` line per option that differs from the official rules."""
        default = Options()
        return [
            f"{name}={show_value(getattr(self, name))}"
            for name in self.NAMES
            if getattr(self, name) != getattr(default, name)
        ]


Options.NAMES = tuple(f.name for f in fields(Options))
#: The Python type of each option's value (bool, int or str).
KINDS: dict[str, type] = {f.name: type(f.default) for f in fields(Options)}

#: Named presets (RULES.md and the seeds). ``seeds`` is how seed ``003`` plays.
PRESETS: dict[str, dict[str, object]] = {
    "official": {},
    "house": {
        "stack_draw_two": True, "stack_draw_four": True, "stack_four_on_two": True,
        "jump_in": True,
    },
    "party": {
        "stack_draw_two": True, "stack_draw_four": True, "stack_four_on_two": True,
        "jump_in": True, "seven_zero": True,
    },
    "seeds": {
        "stack_draw_two": True, "stack_draw_four": True, "deflect_draw_two": True,
        "starter_wild_colour": "dealer",
    },
}


def preset(name: str, overrides: Sequence[str] = ()) -> Options:
    """The options of preset ``name`` with ``name=value`` overrides applied.

    Raises:
        ConfigError: unknown preset or override.
    """
    if name not in PRESETS:
        raise ConfigError(f"unknown preset '{name}'{_suggest(name, tuple(PRESETS))}")
    return Options.from_mapping(PRESETS[name]).with_overrides(overrides)


def network_options(options: Options) -> Options:
    """The options a network table opens with: ``options`` with a turn timer and an UNO
    grace period filled in when the host left them at 0 (RULES.md ``turn_timer``:
    "Always on in network play"; "a short grace period", ``catch_grace_ms``).

    A host who set either keeps its value; a local game against bots needs neither.

    Raises:
        ConfigError: ``error_penalty`` is set: at a network table a refused play is
            a race (dropped) or cheating (named, table.md §7), never a mistake to price,
            so the option would promise what the table never does.
    """
    if options.error_penalty:
        raise ConfigError("error_penalty has no effect at a network table (a refused play "
                          "there is a race or cheating, never priced); leave it at 0")
    changes: dict[str, int] = {}
    if not options.turn_timer:
        changes["turn_timer"] = NETWORK_TURN_TIMER
    if not options.catch_grace_ms:
        changes["catch_grace_ms"] = NETWORK_CATCH_GRACE_MS
    return replace(options, **changes) if changes else options  # type: ignore[arg-type]


def parse_assignment(text: str) -> tuple[str, object]:
    """Parse one ``name=value`` string into a typed pair.

    Raises:
        ConfigError: no ``=``, unknown name, or a value of the wrong kind.
    """
    name, sep, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep:
        raise ConfigError(f"option '{text}' must look like name=value")
    _check_name(name)
    kind = KINDS[name]
    if kind is bool:
        words = {"true": True, "on": True, "yes": True, "1": True,
                 "false": False, "off": False, "no": False, "0": False}
        if raw.lower() not in words:
            raise ConfigError(f"option '{name}' is on or off, not '{raw}'")
        return name, words[raw.lower()]
    if kind is int:
        try:
            return name, int(raw)
        except ValueError:
            raise ConfigError(f"option '{name}' takes a whole number, not '{raw}'") from None
    return name, raw


def _check_name(name: str) -> None:
    if name not in Options.NAMES:
        raise ConfigError(f"unknown option '{name}'{_suggest(name, Options.NAMES)}")


def _check_value(name: str, value: object, kind: type) -> None:
    if kind is bool:
        if type(value) is not bool:
            raise ConfigError(f"option '{name}' must be true or false, not {value!r}")
    elif kind is int:
        low, high = INT_BOUNDS[name]
        if type(value) is not int or not low <= value <= high:
            raise ConfigError(f"option '{name}' must be a whole number from {low} to {high}")
    elif value not in CHOICES[name]:
        allowed = " or ".join(f"'{c}'" for c in CHOICES[name])
        raise ConfigError(f"option '{name}' must be {allowed}, not {value!r}")


def _suggest(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def show_value(value: object) -> str:
    """An option's value as a player writes it (``--option name=value``) and as
    docs/rules.md shows its default: a bool as ``true``/``false``."""
    return str(value).lower() if isinstance(value, bool) else str(value)
