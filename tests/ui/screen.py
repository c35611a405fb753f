"""Read what a prompt-toolkit application drew, without a terminal.

``SizedOutput`` is prompt-toolkit's dummy output with a size the test chooses
(and may change, as a resized terminal would); ``screen_text`` reads the
characters of the last frame the renderer drew; ``piped`` runs an application
session on a pipe input; ``until`` waits, bounded, for what the screen should do.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from prompt_toolkit.application import Application, create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput, Output

#: How long a UI test waits for the screen to show what it expects.
WAIT_S = 20.0


class SizedOutput(DummyOutput):
    """A dummy output of ``columns`` by ``rows``."""

    def __init__(self, columns: int = 100, rows: int = 30) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def screen_text(app: Application[Any]) -> str:
    """The characters of the last frame, one line per row, right spaces stripped."""
    screen = app.renderer._last_screen
    if screen is None:
        return ""
    size = app.output.get_size()
    return "\n".join(
        "".join(screen.data_buffer[row][col].char for col in range(size.columns)).rstrip()
        for row in range(size.rows))


@contextmanager
def piped(output: Output) -> Iterator[PipeInput]:
    """An application session reading keys from a pipe and drawing to ``output``."""
    with create_pipe_input() as pipe_input, \
            create_app_session(input=pipe_input, output=output):
        yield pipe_input


async def until(check: Callable[[], bool], what: str, seconds: float = WAIT_S) -> None:
    """Wait for ``check`` (bounded by ``seconds``), letting the application run.

    Raises:
        AssertionError: it did not hold in time (``what`` says what was awaited).
    """
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)
