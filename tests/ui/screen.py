"""Read what a prompt-toolkit application drew, without a terminal.

``SizedOutput`` is prompt-toolkit's dummy output with a size the test chooses
(and may change, as a resized terminal would); ``screen_text`` reads the
characters of the last frame the renderer drew.
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput


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
