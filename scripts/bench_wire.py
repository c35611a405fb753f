"""Benchmark of the wire format and signed log (issue 4; docs/performance.md).

One entry's whole life, as a table lives it: the author signs a play, the
sequencer countersigns it, it is encoded, and a receiving peer decodes it and
verifies it into its chain (both signatures, the hash link, the author's
counter and head). Also each step alone, and the size of typical entries.
Loops are bounded in count and in time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from uno_p2p.crypto.identity import VERIFIED_SIGNATURES, PeerId
from uno_p2p.wire.chain import ChainVerifier
from uno_p2p.wire.envelope import RECENT_DECODES, Entry, Message
from uno_p2p.wire.samples import SampleTable, sample_play, sample_share


def rate(action: Callable[[int], object], *, count: int, budget: float) -> float:
    """Calls per second of ``action(i)`` over at most ``count`` calls within ``budget`` s."""
    start = time.perf_counter()
    deadline = start + budget
    done = 0
    while done < count and (done == 0 or time.perf_counter() < deadline):
        action(done)
        done += 1
    return done / (time.perf_counter() - start)


def verify_both(entry: Entry, sequencer: PeerId) -> None:
    entry.message.verify()
    entry.verify_countersignature(sequencer)


def measure(count: int, budget: float) -> dict[str, float]:
    table = SampleTable(4)
    receiver = ChainVerifier(table.table_id, table.peers[0].identity.peer)
    for entry in table.lobby():
        receiver.accept(entry)
    host = table.peers[0].identity

    def full_cycle(turn: int) -> None:
        author = 1 + turn % 3
        peer = table.peers[author].identity
        head = receiver.head
        message = Message.sign(peer, table.table_id, table.counters[author], head,
                               sample_play(turn))
        table.counters[author] += 1
        data = Entry.countersign(host, head.seen, head.hash, message).encode()
        receiver.accept(Entry.decode(data))

    entries_per_s = rate(full_cycle, count=count, budget=budget)
    sample = Entry.countersign(host, receiver.head.seen, receiver.head.hash,
                               table.message(1, sample_play(7)))
    encoded = sample.encode()
    play_bytes = len(encoded)
    sealed = SampleTable(4)
    sealed.lobby()
    return {
        "entries_per_s": round(entries_per_s, 1),
        "sign_per_s": round(rate(lambda i: table.message(1, sample_play(i)),
                                 count=count, budget=budget / 4), 1),
        "encode_per_s": round(rate(lambda i: sample.encode(), count=count, budget=budget / 4), 1),
        "decode_per_s": round(rate(lambda i: Entry.decode(encoded), count=count,
                                   budget=budget / 4), 1),
        "verify_per_s": round(rate(lambda i: verify_both(sample, host.peer),
                                   count=count, budget=budget / 4), 1),
        "bytes_per_play": play_bytes,
        "bytes_per_share": len(sealed.append(1, sample_share(1, 3)).encode()),
        "bytes_per_sealed_share": len(sealed.sealed_share(2, 1, 3).encode()),
    }


ROWS = (
    ("entries_per_s", "entries/s: sign + countersign + encode + decode + verify"),
    ("sign_per_s", "author signatures/s (message built and signed)"),
    ("encode_per_s", "entry encodings/s"),
    ("decode_per_s", "entry decodings/s (strict, canonical check)"),
    ("verify_per_s", "entry verifications/s (both signatures)"),
    ("bytes_per_play", "bytes per play entry"),
    ("bytes_per_share", "bytes per decryption-share entry"),
    ("bytes_per_sealed_share", "bytes per sealed (private) share entry"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--count", type=int, default=20_000, help="most iterations per figure")
    parser.add_argument("--budget", type=float, default=4.0, help="seconds for the main figure")
    args = parser.parse_args(argv)
    # Each figure repeats one entry: every decoding and check is made anew, as by a peer
    # that meets the entry once (the process's memos would answer the repeats).
    VERIFIED_SIGNATURES.enabled = RECENT_DECODES.enabled = False
    results = measure(max(args.count, 1), max(args.budget, 0.01))
    if args.json:
        print(json.dumps(results))
        return 0
    width = max(len(label) for _, label in ROWS)
    for key, label in ROWS:
        print(f"{label:<{width}}  {results[key]:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
