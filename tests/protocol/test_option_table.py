"""The option table of docs/protocol/verdicts.md §4 is the engine's option list.

A verifier that reads only the spec builds the digest's option list (verdicts.md
§5, field 1) from that table: every name the engine has, with its default, or
its digests differ from the first engine entry on.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from uno_p2p.rules.options import Options

VERDICTS = Path(__file__).resolve().parents[2] / "docs" / "protocol" / "verdicts.md"
ROW = re.compile(r"^\| `(\w+)` \| (bool|int|str) \| [^|]+ \| `([^`]*)` \|$")


def table() -> dict[str, object]:
    """name -> default, from the chapter's option table."""
    text = VERDICTS.read_text()
    start = text.index("| option | wire type | values | default |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        found = ROW.match(line)
        if found is None:
            break
        rows[found[1]] = json.loads(found[3])
    return rows


def test_the_chapter_lists_every_option_with_its_default() -> None:
    defaults = Options()
    assert table() == {name: getattr(defaults, name) for name in Options.NAMES}


def test_the_chapter_counts_them_right() -> None:
    text = VERDICTS.read_text()
    count = len(Options.NAMES)
    assert f"all {count} `[name, value]` pairs" in text
    assert f"list of {count} pairs" in text
