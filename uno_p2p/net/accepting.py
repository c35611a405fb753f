"""A listener out of file descriptors says so once, not a traceback per accept
(docs/protocol/net.md §6.1, issue 24 item 4).

When ``accept`` fails for want of descriptors, asyncio (3.11) stops reading the
listening socket for a second and calls the loop's exception handler, once per
connection waiting in the backlog, each time with a traceback: a host at its
file limit wrote 83,599 of them in 30 s. The node's own bounds (handshake slots,
strangers, members) keep it far from the limit; this is for when something else
in the process, or a low ``ulimit -n``, takes it there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

OUT_OF_RESOURCES = "socket.accept() out of system resource"
#: At most one note a minute while the shortage lasts.
NOTE_EVERY_S = 60.0
SENTENCE = ("this machine ran out of open files: the table takes no new connection "
            "for a moment (raise the limit with 'ulimit -n' if it lasts)")


def quiet_when_out_of_files(loop: asyncio.AbstractEventLoop,
                            on_note: Callable[[str], None]) -> None:
    """Make ``loop`` turn asyncio's accept-out-of-resources report into ``SENTENCE``,
    noted at most every ``NOTE_EVERY_S``; any other report goes where it went."""
    previous = loop.get_exception_handler()
    last = -NOTE_EVERY_S

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        nonlocal last
        if context.get("message") == OUT_OF_RESOURCES:
            if loop.time() - last >= NOTE_EVERY_S:
                last = loop.time()
                on_note(SENTENCE)
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
