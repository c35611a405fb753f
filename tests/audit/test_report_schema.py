"""``uno-lan audit --json`` output matches protocol/audit-report.schema.json.

Real outputs (every reference log, the game vectors, a torn file, an
unfinished log, an unreadable file) are validated by a small validator of
the JSON Schema keywords the schema uses (type, enum, const, pattern,
minimum, maximum, required, properties, additionalProperties, items, oneOf,
$ref), so the test needs no extra package.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from uno_p2p.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "protocol" / "audit-report.schema.json").read_text())
DATA = ROOT / "tests" / "data"
LOGS = sorted(DATA.glob("*.unolog")) + sorted((ROOT / "protocol/vectors/games").glob("*.unolog"))
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return type(value) is int
    return isinstance(value, TYPES[kind]) and not (kind != "boolean" and type(value) is bool)


def errors(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Why ``value`` does not match ``schema`` (empty when it does)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return errors(value, SCHEMA["$defs"][name], where)
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not errors(value, s, where)]
        return [] if len(matching) == 1 else [f"{where}: matches {len(matching)} of oneOf"]
    out: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            return [f"{where}: {value!r} is not {kinds}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} not in {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: {value!r} != {schema['const']!r}")
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        out.append(f"{where}: {value!r} does not match {schema['pattern']}")
    if type(value) is int:
        if value < schema.get("minimum", value):
            out.append(f"{where}: {value} < minimum")
        if value > schema.get("maximum", value):
            out.append(f"{where}: {value} > maximum")
    if isinstance(value, dict):
        out += [f"{where}: missing {k}" for k in schema.get("required", []) if k not in value]
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                out += errors(item, properties[key], f"{where}.{key}")
            elif extra is False:
                out.append(f"{where}: unexpected {key}")
            elif isinstance(extra, dict):
                out += errors(item, extra, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            out += errors(item, schema["items"], f"{where}[{index}]")
    return out


def audit_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["audit", "--json", str(path)])
    document = json.loads(capsys.readouterr().out)
    assert document["exit_code"] == code
    return document  # type: ignore[no-any-return]


def test_the_validator_refuses_what_the_schema_refuses() -> None:
    assert errors({"status": "unreadable", "exit_code": 2, "error": "x"}, SCHEMA) == []
    assert errors({"status": "unreadable", "exit_code": 1, "error": "x"}, SCHEMA)
    assert errors({"status": "ok"}, SCHEMA)
    assert errors({"status": "unreadable", "exit_code": 2, "error": "x", "more": 1}, SCHEMA)


@pytest.mark.game
@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_every_real_audit_output_matches_the_schema(
        path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = audit_json(path, capsys)
    assert errors(document, SCHEMA) == []


def test_torn_unfinished_and_unreadable_outputs_match_the_schema(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = (DATA / "honest-3p-house.unolog").read_bytes()
    torn = tmp_path / "torn.unolog"
    torn.write_bytes(raw[:len(raw) // 2])
    document = audit_json(torn, capsys)
    assert document["status"] == "unfinished"
    assert document["torn_bytes"] > 0
    assert errors(document, SCHEMA) == []
    bad = tmp_path / "bad.unolog"
    bad.write_bytes(b"not a log")
    document = audit_json(bad, capsys)
    assert document["status"] == "unreadable"
    assert errors(document, SCHEMA) == []
