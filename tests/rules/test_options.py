"""Options, presets and their canonical wire form (RULES.md: every option)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from uno_p2p.errors import ConfigError
from uno_p2p.rules.options import (
    CHOICES,
    INT_BOUNDS,
    KINDS,
    PRESETS,
    Options,
    parse_assignment,
    preset,
    show_value,
)


def test_official_is_all_defaults() -> None:
    official = preset("official")
    assert official == Options()
    assert official.describe() == []
    assert (official.dealer_rule, official.scoring, official.target) == ("winner", "points", 500)
    assert not any(getattr(official, n) for n, k in KINDS.items() if k is bool)


def test_presets_are_as_the_brief_says() -> None:
    assert preset("house").describe() == [
        "stack_draw_two=true", "stack_draw_four=true", "stack_four_on_two=true", "jump_in=true"]
    assert set(preset("party").describe()) == set(preset("house").describe()) | {"seven_zero=true"}
    assert set(preset("seeds").describe()) == {
        "starter_wild_colour=dealer", "stack_draw_two=true", "stack_draw_four=true",
        "deflect_draw_two=true"}


def test_overrides_parse_words() -> None:
    options = preset("house", ["target=300", "jump_in=off", "scoring = chips"])
    assert (options.target, options.jump_in, options.scoring) == (300, False, "chips")


@pytest.mark.parametrize(("text", "message"), [
    ("stak_draw_two=1", "unknown option 'stak_draw_two'; did you mean 'stack_draw_two'?"),
    ("target", "must look like name=value"),
    ("target=ten", "takes a whole number"),
    ("target=0", "from 1 to"),
    ("jump_in=maybe", "is on or off"),
    ("scoring=golf", "'points' or 'losses' or 'chips'"),
])
def test_bad_overrides_are_one_plain_sentence(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        preset("official", [text])


def test_unknown_preset_and_exclusive_finish_rules() -> None:
    with pytest.raises(ConfigError, match="did you mean 'house'"):
        preset("hose")
    # RULES.md: number_finish; "variant number_or_draw_finish" (one or the other)
    with pytest.raises(ConfigError, match="cannot both be on"):
        Options(number_finish=True, number_or_draw_finish=True)


def test_players_and_teams() -> None:
    with pytest.raises(ConfigError, match="2 to 10"):
        Options().check_players(11)
    with pytest.raises(ConfigError, match="equal teams"):
        Options(teams=2).check_players(5)
    with pytest.raises(ConfigError, match="equal teams"):
        Options(teams=3).check_players(3)
    Options(teams=2).check_players(6)


def _option_values() -> st.SearchStrategy[Options]:
    parts: dict[str, st.SearchStrategy[object]] = {}
    for name, kind in KINDS.items():
        if kind is bool:
            parts[name] = st.booleans()
        elif kind is int:
            parts[name] = st.integers(*INT_BOUNDS[name])
        else:
            parts[name] = st.sampled_from(CHOICES[name])
    return st.fixed_dictionaries(parts).filter(
        lambda d: not (d["number_finish"] and d["number_or_draw_finish"])
    ).map(lambda d: Options(**d))  # type: ignore[arg-type]


@given(_option_values())
def test_wire_round_trip(options: Options) -> None:
    wire = options.to_wire()
    assert [name for name, _ in wire] == sorted(KINDS)
    assert Options.from_wire(wire) == options


@pytest.mark.parametrize("mangle", [
    lambda w: w[:-1],
    lambda w: list(reversed(w)),
    lambda w: [*w[:-1], ["turn_timer", True]],
    lambda w: [[w[0][0], "7"], *w[1:]],
    lambda w: "nope",
])
def test_wire_decoding_is_strict(mangle: object) -> None:
    wire = Options().to_wire()
    with pytest.raises(ConfigError):
        Options.from_wire(mangle(wire))  # type: ignore[operator]


def test_every_preset_is_valid() -> None:
    for name in PRESETS:
        assert isinstance(preset(name), Options)


def test_the_players_guide_documents_every_option_and_its_default() -> None:
    """docs/rules.md's option tables name every option, and a table's default is ours."""
    guide = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \|(.*)$", guide, flags=re.MULTILINE))
    assert set(Options.NAMES) <= set(rows)
    for name in Options.NAMES:
        cells = [c.strip() for c in rows[name].split("|")]
        if len(cells) == 4:  # "values | default | what it does |" (house rules: "what" only)
            assert cells[1] == f"`{show_value(getattr(Options(), name))}`", name


@pytest.mark.parametrize(("word", "value"), [
    ("true", True), ("on", True), ("yes", True), ("1", True), ("ON", True), (" Yes ", True),
    ("false", False), ("off", False), ("no", False), ("0", False), ("OFF", False)])
def test_a_rule_is_switched_on_or_off_in_any_of_the_documented_words(
        word: str, value: bool) -> None:
    assert parse_assignment(f"jump_in={word}") == ("jump_in", value)


def test_a_switch_set_to_another_word_is_refused_saying_on_or_off() -> None:
    for word in ("2", "maybe", ""):
        with pytest.raises(ConfigError) as caught:
            parse_assignment(f"jump_in={word}")
        assert "on or off" in str(caught.value)
