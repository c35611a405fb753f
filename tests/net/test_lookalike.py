"""Look-alike table names (issue 24 item 9, discovery.md §5), without sockets.

Expected pairs come from Unicode's confusables (UTS #39) and NFKC, written out
here by hand, never from the module's own table.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.net.lookalike import look_alike, skeleton

#: Latin letters and a Cyrillic or Greek letter that looks the same (confusables.txt).
TWINS = {
    "a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e", "p": "\u0440",
    "x": "\u0445", "y": "\u0443", "i": "\u0456", "j": "\u0458", "s": "\u0455",
    "O": "\u039f", "A": "\u0391", "K": "\u039a", "T": "\u03a4", "H": "\u041d",
}


@pytest.mark.parametrize(("first", "second"), [
    ("Friday night", "Friday n\u0456ght"),  # Cyrillic i
    ("Friday night", "FRIDAY NIGHT"),  # case
    ("Friday night", "\uff26riday night"),  # full-width F (NFKC)
    ("Friday night", "Fri\u200bday night"),  # a zero-width space
    ("Friday night", "Friday  night "),  # white space
    ("Friday night", "Fr\u00eeday night"),  # an accent
    ("Friday night", "FRlDAY NIGHT"),  # a lower-case L for a capital I
    ("Room 101", "Room lOl"),  # digits and letters
    ("corn", "com"),  # rn reads as m
    ("OKAY", "\u039f\u039a\u0391Y"),  # Greek capitals
])
def test_look_alike_names(first: str, second: str) -> None:
    assert look_alike(first, second)


@pytest.mark.parametrize(("first", "second"), [
    ("Friday night", "Saturday night"), ("Ann's table", "Bob's table"), ("Same", "Sane"),
    ("table 1", "table 2"), ("Modern", "Mode\u0433n"),  # a Cyrillic ge is no r
])
def test_different_names_stay_different(first: str, second: str) -> None:
    assert not look_alike(first, second)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="".join(TWINS) + "bdfgz -'", min_size=1, max_size=24),
       st.data())
def test_swapping_latin_letters_for_their_twins_keeps_the_name(text: str,
                                                               data: st.DataObject) -> None:
    swaps = data.draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    twin = "".join(TWINS.get(c, c) if swap else c for c, swap in zip(text, swaps, strict=True))
    assert look_alike(text, twin)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_the_skeleton_of_a_skeleton_is_itself(text: str) -> None:
    assert skeleton(skeleton(text)) == skeleton(text)
