"""The terminal UI: a full-screen table for one human seat (``uno-lan play``).

Three parts, kept apart so that the same UI later sits on a network table
(docs/protocol.md) and on a replay:

- ``session``: the ``Table`` contract (a seat's view, its legal actions,
  ``submit``, news in plain words, change notifications) and ``LocalTable``,
  the local game against bots on the rules package's omniscient driver;
- ``render``, ``dialogs``, ``theme`` and ``words``: pure functions from a
  view to prompt-toolkit formatted text and plain-words news, testable
  without a terminal;
- ``controller`` (keys to actions, pickers, dialogs; ``overlays`` draws its
  key help and boxes) and ``app`` (the prompt-toolkit ``Application``, bot
  pauses on asyncio timers);
- ``status``: what a network table shows besides the game (players connected
  or missing, progress, waits, the turn timer, why a game stopped, chat), read
  from any table that offers ``table_status()`` (``NetworkTable``);
- ``lobby`` and ``lobby_app``: the table picker and the lobby, full-screen
  asyncio screens fed by an async source of updates (adverts, lobby views)
  and calling back through ``LobbyActions``, so the network layer plugs in.
"""

from __future__ import annotations
