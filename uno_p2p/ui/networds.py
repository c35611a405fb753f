"""The network table's progress in a player's words, for every screen alike.

The table layer (``uno_p2p.table``) reports its long waits and the moves of
the sequencer role as ``Progress`` text in the protocol's words ("Ann (the
sequencer) is gone: Bo takes over", docs/protocol/table.md §13). A player
knows nothing of sequencers or hand-overs: they see that a player is out of
reach and who keeps the table going. ``progress_words`` says it so, for the
text console and the full screen alike (issue 25); text it does not know is
passed on as it is.
"""

from __future__ import annotations

import re

#: What a player reads for each protocol sentence of the table layer.
OUT_OF_REACH = "{old} is out of reach: {new} keeps the table going"
BACK_IN_REACH = "everyone is back in reach: the game goes on as before"
NOT_PASSED_ON = "the table could not pass to another player: {why}"
NOT_TAKEN = "the table did not take your last message: {why}"

_PROTOCOL: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?P<old>.+) \(the sequencer\) is gone: (?P<new>.+) takes over"),
     OUT_OF_REACH),
    (re.compile(r"the sequencer is back: no hand-over"), BACK_IN_REACH),
    (re.compile(r"the hand-over is refused: (?P<why>.+)"),
     NOT_PASSED_ON),
    (re.compile(r"the sequencer did not log our message: (?P<why>.+)"), NOT_TAKEN),
)


def progress_words(what: str) -> str:
    """``what`` (a ``Progress`` event's text) in a player's words."""
    for pattern, words in _PROTOCOL:
        found = pattern.fullmatch(what)
        if found is not None:
            return words.format(**found.groupdict())
    return what
