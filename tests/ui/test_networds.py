"""The table's protocol news in a player's words (issue 25), pinned here.

The inputs are the sentences the table layer sends as ``Progress`` (its
own words for table.md §13's hand-over); none may reach a player as they are.
"""

from __future__ import annotations

import pytest

from uno_p2p.ui import networds
from uno_p2p.ui.networds import progress_words

PROTOCOL_WORDS = ("sequencer", "hand-over", "handover", "takes over", "term")


def test_the_words_a_player_reads() -> None:
    assert networds.OUT_OF_REACH.format(old="Ann", new="Bo") == (
        "Ann is out of reach: Bo keeps the table going")
    assert networds.BACK_IN_REACH == "everyone is back in reach: the game goes on as before"
    assert networds.NOT_PASSED_ON.format(why="x") == (
        "the table could not pass to another player: x")
    assert networds.NOT_TAKEN.format(why="x") == "the table did not take your last message: x"


@pytest.mark.parametrize(("table_says", "player_reads"), [
    ("Ann (the sequencer) is gone: Bo takes over",
     networds.OUT_OF_REACH.format(old="Ann", new="Bo")),
    ("the sequencer is back: no hand-over", networds.BACK_IN_REACH),
    ("the hand-over is refused: a vote is missing",
     networds.NOT_PASSED_ON.format(why="a vote is missing")),
    ("the sequencer did not log our message: stale head",
     networds.NOT_TAKEN.format(why="stale head")),
    ("waiting for Bo (keys)", "waiting for Bo (keys)"),  # already a player's words
])
def test_protocol_progress_is_said_in_a_player_s_words(table_says: str,
                                                       player_reads: str) -> None:
    said = progress_words(table_says)
    assert said == player_reads
    assert not any(word in said for word in PROTOCOL_WORDS)
