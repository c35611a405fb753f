"""SIGTERM ends a full-screen UI like quitting does, so the terminal is restored.

Without a handler the process dies inside prompt-toolkit's alternate screen,
leaving the player's terminal with a hidden cursor and no echo.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator


def on_sigterm(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> bool:
    """Call ``stop`` on SIGTERM; False where the loop cannot (not the main thread, Windows)."""
    try:
        loop.add_signal_handler(signal.SIGTERM, stop)
    except (NotImplementedError, RuntimeError, ValueError):
        return False
    return True


@contextlib.contextmanager
def sigterm_calls(stop: Callable[[], None]) -> Iterator[None]:
    """Within the block, SIGTERM calls ``stop`` (on the running loop) instead of killing us."""
    loop = asyncio.get_running_loop()
    installed = on_sigterm(loop, stop)
    try:
        yield
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGTERM)
