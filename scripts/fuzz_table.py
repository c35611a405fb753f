"""Bounded fuzzing of a seated table peer and the host (issue 10, the h11 invariant).

The property: whatever frame arrives, ``TablePeer.receive`` returns (a fault is
an event, never an exception), and no frame makes the process hold more than a
fixed multiple of the frame limit. Seeds are the frames of a real bot game
(``uno_p2p.table.fuzzing``); each input is a seed with a few random edits,
given to a copy of seat 1 or of the host taken in the middle of that game.
Bounded by ``--iterations`` and ``--seconds``; prints a table, or ``--json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import tracemalloc

from uno_p2p.table.fuzzing import make_target, mutate
from uno_p2p.wire.limits import DEFAULT_LIMITS, MAX_EARLY_BYTES

MEMORY_BOUND = 8 * DEFAULT_LIMITS.max_frame + MAX_EARLY_BYTES


def run(iterations: int, seconds: float, seed: int, memory: bool) -> dict[str, object]:
    target = make_target()
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    done, stopped, peak_max = 0, 0, 0
    while done < iterations and time.monotonic() < deadline:
        data = mutate(rng, target.seeds)
        if memory:
            tracemalloc.start()
        try:
            peer = target.deliver(data)
        except Exception:
            print(f"BUG on input {data.hex()}", file=sys.stderr)
            raise
        finally:
            if memory:
                peak_max = max(peak_max, tracemalloc.get_traced_memory()[1])
                tracemalloc.stop()
        if peak_max > MEMORY_BOUND:
            print(f"BUG: {peak_max} bytes held for input {data.hex()}", file=sys.stderr)
            raise SystemExit(1)
        stopped += peer.stopped is not None
        done += 1
        del peer
    return {"engine": "mutation", "iterations": done, "seed": seed, "bugs": 0,
            "stopped_copies": stopped, "peak_bytes": peak_max if memory else None,
            "memory_bound": MEMORY_BOUND}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100_000, help="most inputs to try")
    parser.add_argument("--seconds", type=float, default=60.0, help="most time to spend")
    parser.add_argument("--seed", type=int, default=0, help="seed of the mutation fuzzer")
    parser.add_argument("--memory", action="store_true",
                        help="trace each input's peak memory (slower)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = run(args.iterations, args.seconds, args.seed, args.memory)
    if args.json:
        print(json.dumps(result))
    else:
        width = max(len(key) for key in result)
        for key, value in result.items():
            print(f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
