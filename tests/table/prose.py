"""What every reason the table gives must be: words that read on after a name.

A refusal, a fault or a drop goes on after "entry N: " or a player's name (table.md
§7: "Ann stopped the game: Bob <reason> (code)"), so it starts in lower case (or
with "UNO", a word of the game), never holds a missing value ("None") or mutation
testing's "XX" markers, and never shouts.
"""

from __future__ import annotations


def reads_on(text: str) -> None:
    """Assert that ``text`` reads on after a name (see the module)."""
    assert text, "a reason says why"
    assert text[0].islower() or text.startswith("UNO "), text
    assert "None" not in text, text
    assert "XX" not in text, text
    assert not text.isupper(), f"shouted: {text}"
