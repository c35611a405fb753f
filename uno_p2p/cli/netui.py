"""The full-screen side of ``uno-lan host`` and ``join``: lobby, table, verdict.

When stdin and stdout are a terminal (and neither ``--text`` nor
``--autoplay`` is given) a human seat plays in the prompt-toolkit screens:
the lobby until the game starts, then the table, fed by a ``NetSession``
over the node. The node runs beside the screens as its own task; when it
stops, the log on disk is audited and the verdict shown under the final
scores (issue 12). After the screens close, the same end lines as the text
console are printed, so the terminal keeps where the log is and its verdict.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path

from uno_p2p.audit import audit_file
from uno_p2p.cli.lan import Console, end_in_lobby, finish, never_started, say
from uno_p2p.cli.voice import say_error
from uno_p2p.errors import UnoError
from uno_p2p.net.driver import Driver
from uno_p2p.net.node import HostNode
from uno_p2p.net.seats import Seat
from uno_p2p.store.unolog import UnreadableLog
from uno_p2p.ui.netsession import NetSession

#: How long the table screen waits for the start entry after the lobby closed.
START_WAIT_S = 60.0
#: How long a player who quits waits for the node to finish on its own.
LEAVE_WAIT_S = 3.0


def use_screens(args: argparse.Namespace) -> bool:
    """The full-screen UI: a terminal on both ends, no ``--text``, no ``--autoplay``."""
    return not getattr(args, "text", False) and not getattr(args, "autoplay", False) and \
        sys.stdin.isatty() and sys.stdout.isatty()


def verdict_of(log: Path | None) -> str:
    """The audit's first line for the log at ``log`` (``OK: ...`` or what is wrong)."""
    if log is None:
        return "there is no log: the game never started here"
    try:
        return audit_file(log).lines()[0]
    except (UnreadableLog, UnoError) as error:
        return f"the log cannot be read: {error}"


async def play_screens(session: NetSession, node: Driver,
                       run_node: Callable[[], Coroutine[None, None, None]],
                       seat: Callable[[], Seat | None], hint: str = "") -> tuple[bool, str]:
    """Run the node beside the lobby and table screens until the player quits.

    Returns (whether the game ended with a winner and a clean audit, or never
    started; why the table stopped or could not be reached: empty if it did
    not). A game that never started keeps no file (``end_in_lobby``).
    """

    def log() -> Path | None:
        held = seat()
        return None if held is None else held.log_path

    from uno_p2p.ui.lobby_app import LobbyOutcome, LobbyScreen
    from uno_p2p.ui.netscreen import NetGameScreen
    from uno_p2p.ui.theme import plain_mode

    failure: list[str] = []
    #: Why the node could not reach the table, when it could not (said as an error).
    unreached: list[UnoError | OSError] = []
    node_task: asyncio.Task[None] = asyncio.create_task(run_node())

    async def watch() -> None:
        # asyncio.wait, not await: a node cancelled by _leave (a joiner still reconnecting
        # when its player quits) must end the watch quietly, not cancel the watcher too.
        await asyncio.wait([node_task])
        error = None if node_task.cancelled() else node_task.exception()
        if isinstance(error, UnoError | OSError):
            failure.append(str(error))
            unreached.append(error)
            session.left = f"could not join: {error}"
        elif error is not None:
            raise error
        session.finished(verdict_of(log()), log())

    watcher = asyncio.create_task(watch())
    plain = plain_mode()
    left = False
    if not session.in_game:  # a resumed seat goes straight back to the table it left
        lobby = LobbyScreen(session.lobby_view(), session.lobby_updates(), session, plain)
        if hint:
            lobby.status = hint
        left = await lobby.run() == LobbyOutcome.LEFT
    if not left and await session.wait_for_game(START_WAIT_S):
        screen = NetGameScreen(session, plain)
        await screen.run()
        if screen.error is not None:
            failure.append(f"the screen stopped on an internal error: {screen.error}")
    await _leave(session, node, node_task)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(watcher, LEAVE_WAIT_S * 10)
    if never_started(node.seated):
        if failure:
            forgotten = seat()
            if forgotten is not None:
                forgotten.forget()
            if unreached:  # no table was ever reached: an error, with what to do
                say_error("join", unreached[0] if isinstance(unreached[0], UnoError)
                          else str(unreached[0]))
            else:
                say(f"The game stopped: {failure[0]}.")
            return False, failure[0]
        end_in_lobby(seat(), left)
        return True, ""
    result = session.result
    stopped = failure[0] if failure else session.table_status().stopped
    why = stopped if isinstance(stopped, str) else (
        "" if stopped is None else f"{stopped.who + ': ' if stopped.who else ''}{stopped.why}")
    console = Console(False)
    console.driver = node
    console.result = result
    console.names = session.names if session.peer is not None and session.in_game else ()
    return finish(log(), console, why), why


async def _leave(session: NetSession, node: Driver, node_task: asyncio.Task[None]) -> None:
    """The player quit: leave the table, let the node end, close it if it does not."""
    if node_task.done():
        return
    await session.leave()
    with contextlib.suppress(TimeoutError, UnoError, OSError):
        await asyncio.wait_for(asyncio.shield(node_task), LEAVE_WAIT_S)
    if node_task.done():
        return
    node.finished.set()  # the host's node then says goodbye to every joiner itself
    if not isinstance(node, HostNode):
        node_task.cancel()
    with contextlib.suppress(TimeoutError, asyncio.CancelledError, UnoError, OSError):
        await asyncio.wait_for(node_task, LEAVE_WAIT_S)
    if not isinstance(node, HostNode):
        node.close_log()
