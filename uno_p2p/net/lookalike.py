"""When two table names look the same to a player (docs/protocol/discovery.md §5).

A table's name is untrusted text from the network: anyone on the LAN can
advertise "Friday night" spelt with a Cyrillic "i" (U+0456), and a player who types
"Friday night" cannot tell the two apart. ``skeleton`` maps a name to a form
in which names a player would confuse are equal; ``uno-lan join NAME`` then
refuses to choose between tables with the same skeleton and asks for the host
key's fingerprint instead.

It is a small, deliberate subset of Unicode's confusables (UTS #39 §4), not
the whole table: NFKC (full-width letters, ligatures, super- and subscripts),
case folding, no format characters (zero-width spaces and joiners, the soft
hyphen) or combining marks (accents), one space for any run of white space,
and the Cyrillic and Greek letters that look like Latin ones (in either
case: the table maps the case-folded letter), plus the Latin and digit
look-alikes "1"/"l"/"i"/"|", "0"/"o" and "rn"/"m". It errs on the side of
calling names alike: the price is one ``--fingerprint`` more, never a wrong
table.
"""

from __future__ import annotations

import unicodedata

#: Case-folded letters of other scripts (and Latin ones) that a Latin letter hides.
LOOK_ALIKES: dict[str, str] = {
    # Cyrillic (lower case, or the lower case of a capital that looks Latin).
    "а": "a", "в": "b", "е": "e", "ё": "e", "з": "3", "і": "l", "ї": "l", "ј": "j",
    "к": "k", "м": "m", "н": "h", "о": "o", "п": "n", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l",
    "ɡ": "g", "ь": "b",
    # Greek.
    "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "h", "ι": "l", "κ": "k", "μ": "m",
    "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
    # Latin and digits.
    "1": "l", "i": "l", "|": "l", "ı": "l", "0": "o",
}
_TABLE = str.maketrans(LOOK_ALIKES)
#: Pairs of letters that read as one (after the single letters are mapped).
LOOK_ALIKE_PAIRS = (("rn", "m"), ("vv", "w"))


def skeleton(name: str) -> str:
    """``name`` in the form in which look-alike names are equal (see the module)."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(c for c in unicodedata.normalize("NFD", text)
                   if unicodedata.category(c) not in ("Mn", "Me", "Cf"))
    text = " ".join(text.split()).translate(_TABLE)
    for pair, one in LOOK_ALIKE_PAIRS:
        text = text.replace(pair, one)
    return text


def look_alike(first: str, second: str) -> bool:
    """Whether a player could take one table name for the other."""
    return skeleton(first) == skeleton(second)


__all__ = ["LOOK_ALIKES", "LOOK_ALIKE_PAIRS", "look_alike", "skeleton"]
