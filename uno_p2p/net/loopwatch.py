"""How long the event loop was kept busy: a ticker that measures its own lateness.

docs/protocol/net.md §7.1. A task wakes every ``period_s``; between two
wake-ups it records two figures:

- ``max_late_s``: wall time beyond the period (what a heartbeat or a key
  press waited). On a loaded machine this includes time the process waited
  for a core, which no code of ours can remove;
- ``max_busy_s``: CPU time the loop's own thread spent between two ticks
  (``time.thread_time``): work that ran on the loop and kept the ticker out.
  It does not grow with the machine's load, nor with work done by worker
  threads, so it measures exactly what ``uno_p2p.net.verify`` moves away.

Used by ``NodeStats`` (``UNO_LAN_STATS``), ``scripts/bench-loop`` and the tests.
"""

from __future__ import annotations

import asyncio
import time


class LoopWatch:
    """A ticker on the running loop; ``start`` it inside the loop, ``stop`` it after."""

    def __init__(self, period_s: float = 0.005) -> None:
        self.period_s = period_s
        self.max_late_s = 0.0
        self.max_busy_s = 0.0
        self.ticks = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin ticking on the running loop (once)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        wall, busy = time.perf_counter(), time.thread_time()
        while True:
            await asyncio.sleep(self.period_s)
            now_wall, now_busy = time.perf_counter(), time.thread_time()
            self.max_late_s = max(self.max_late_s, now_wall - wall - self.period_s)
            self.max_busy_s = max(self.max_busy_s, now_busy - busy)
            self.ticks += 1
            wall, busy = now_wall, now_busy

    def stop(self) -> None:
        """Stop ticking (the figures stay)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def figures(self) -> dict[str, float | int]:
        """``loop_max_late_ms``, ``loop_max_busy_ms`` and ``loop_ticks``."""
        return {"loop_max_late_ms": round(self.max_late_s * 1000, 1),
                "loop_max_busy_ms": round(self.max_busy_s * 1000, 1),
                "loop_ticks": self.ticks}
