"""A node's garbage collections walk the game's objects, not its imports (``net/heap.py``),
and the benchmark sees every collection once the table has started (``CollectorWatch``)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

from uno_p2p.net.stats import CollectorWatch

#: What a node process imports before ``settle``: the command line and all it reaches.
SETTLE = """
import gc, json
import uno_p2p.cli.host, uno_p2p.cli.join
tracked = len(gc.get_objects())
before = gc.get_freeze_count()
from uno_p2p.net import heap
heap.settle()
print(json.dumps([tracked, before, gc.get_freeze_count(), len(gc.get_objects())]))
"""


def test_settle_freezes_what_the_imports_made_so_a_collection_walks_none_of_it() -> None:
    # A process of its own: freezing this test process would keep its garbage for good.
    out = subprocess.run([sys.executable, "-c", SETTLE], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    tracked, before, frozen, left = json.loads(out)
    assert before == 0
    assert frozen >= tracked * 0.9, "the imports' objects are frozen"
    assert left < 1_000, "a collection now walks what is made after the set-up only"


def test_the_watch_counts_each_generation_from_its_start_to_its_stop() -> None:
    watch = CollectorWatch()
    gc.collect(0)
    assert watch.counts == [0, 0, 0], "nothing before the start"
    watch.start()
    try:
        gc.collect(0)
        gc.collect(2)
        gc.collect(2)
    finally:
        watch.stop()
    assert watch.counts[0] >= 1
    assert watch.counts[2] >= 2
    assert watch.longest_ms[2] > 0.0
    seen = list(watch.counts)
    gc.collect(2)
    assert watch.counts == seen, "nothing after the stop"
    assert watch.heard not in gc.callbacks
