"""The garbage collector of a node process: out of the way of a move.

CPython's cyclic collector runs when enough container objects were made, on
whatever the event loop was doing. In a 4-peer game on 2 cores (issue 28) each
node ran about 30 middle-generation and one full collection during play: the
full one took 22-49 ms of wall time, the others up to 7 ms, and all but the
first found nothing to free. A move that meets one waits for it (though the
slowest moves measured were not these: docs/performance.md, "A head start,
the next round's first turn, and the collector").

Almost everything such a collection walks was made before the first move:
imported modules, their functions and classes, the rules' tables. ``settle``
freezes those (``gc.freeze``: they stay alive, refcounting still frees them,
the collector no longer walks them), so a collection during the game walks
only the game's own objects.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect once, then freeze what survives: call it after the imports and the set-up,
    before the game's loop starts."""
    gc.collect()
    gc.freeze()
