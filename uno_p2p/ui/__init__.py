"""The terminal UI: a full-screen table for one human seat (``uno-lan play``).

Three parts, kept apart so that the same UI later sits on a network table
(docs/protocol.md) and on a replay:

- ``session``: the ``Table`` contract (a seat's view, its legal actions,
  ``submit``, news in plain words, change notifications) and ``LocalTable``,
  the local game against bots on the rules package's omniscient driver;
- ``render``, ``dialogs``, ``theme`` and ``words``: pure functions from a
  view to prompt-toolkit formatted text and plain-words news, testable
  without a terminal;
- ``controller`` (keys to actions, pickers, dialogs) and ``app`` (the
  prompt-toolkit ``Application``, bot pauses on asyncio timers).
"""

from __future__ import annotations
