"""Bounded fuzzing of every decoder that reads a peer's bytes (issue 4).

The property: any input either decodes or raises ``InvalidMessage``; an entry
that decodes either verifies or raises ``RemoteProtocolError``; a sealed body
either opens or raises ``CryptoError`` / ``RemoteProtocolError``. Anything
else (a ``TypeError``, an ``IndexError``, a crash) is a bug and stops the run.

With atheris installed (``pip install -e '.[fuzz]'``) this runs coverage-guided
libFuzzer from a seed corpus of real entries. Without it, it falls back to a
seeded mutation fuzzer over the same corpus (bit flips, byte changes,
insertions, deletions, truncations, splices). Both are bounded by ``--runs``
and ``--seconds``. libFuzzer ends the process itself and prints its own
statistics; a bug prints the failing input and exits non-zero either way.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError, RemoteProtocolError
from uno_p2p.wire import fuzzing
from uno_p2p.wire.chain import verify_entry
from uno_p2p.wire.codec import unpack
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.private import open_body
from uno_p2p.wire.samples import SamplePeer, sample_log

LOG = sample_log(players=3, turns=2)
HOST: PeerId = LOG[0].author
CAROL = SamplePeer.make(2)
SENDERS = {SamplePeer.make(i).identity.peer.key: SamplePeer.make(i).channel.public
           for i in range(3)}
EXPECTED = (InvalidMessage, RemoteProtocolError, CryptoError, LocalProtocolError)
#: Bytes the mutator inserts: msgpack's type boundaries and markers.
INSERT_BYTES = (0x00, 0x7F, 0x80, 0xC1, 0xCA, 0xDC, 0xFF)


def corpus() -> list[bytes]:
    """Real entries and messages, and a few bare values."""
    seeds = [entry.encode() for entry in LOG]
    seeds += [entry.message.encode() for entry in LOG[5:9]]
    seeds += [b"\x90", b"\xc0", b"\x93\x01\xc4\x01\x00\xa1a"]
    return seeds


def check_one(data: bytes) -> None:
    """Run every decoder on ``data``; raise only for a bug."""
    selector, rest = (data[0] % 3, data[1:]) if data else (0, data)
    try:
        if selector == 0:
            unpack(rest)
        elif selector == 1:
            Message.decode(rest).verify()
        else:
            _check_entry(Entry.decode(rest))
    except EXPECTED:
        return


def _check_entry(entry: Entry) -> None:
    previous = LOG[entry.seq - 1] if 0 < entry.seq <= len(LOG) else None
    with contextlib.suppress(RemoteProtocolError):
        verify_entry(entry, previous, HOST)
    channel = SENDERS.get(entry.author.key)
    if channel is not None:
        open_body(entry.message, key=CAROL.channel, sender_channel=channel,
                  recipient=CAROL.party)


def mutate(rng: random.Random, seeds: list[bytes]) -> bytes:
    """A seed with one to four random edits, behind a selector byte for ``check_one``."""
    return fuzzing.mutate(rng, seeds, fewest=1, insert=INSERT_BYTES, selectors=3)


def run_mutation(runs: int, seconds: float, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    seeds = corpus()
    deadline = time.monotonic() + seconds
    done = 0
    while done < runs and time.monotonic() < deadline:
        data = mutate(rng, seeds)
        try:
            check_one(data)
        except Exception:
            print(f"BUG on input {data.hex()}", file=sys.stderr)
            raise
        done += 1
    return {"engine": "mutation", "runs": done, "seed": seed, "bugs": 0}


def run_atheris(runs: int, seconds: float) -> dict[str, object]:
    import atheris

    with tempfile.TemporaryDirectory() as directory:
        for index, data in enumerate(corpus()):
            for selector in range(3):
                Path(directory, f"seed-{index}-{selector}").write_bytes(bytes([selector]) + data)
        argv = [sys.argv[0], f"-runs={runs}", f"-max_total_time={max(int(seconds), 1)}",
                "-max_len=4096", "-print_final_stats=1", directory]
        atheris.instrument_all()  # coverage of every module loaded: ours and msgpack's
        atheris.Setup(argv, check_one)
        started = time.monotonic()
        try:
            atheris.Fuzz()
        except SystemExit as stop:
            if stop.code not in (0, None):
                raise
    return {"engine": "atheris", "seconds": round(time.monotonic() - started, 1), "bugs": 0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200_000, help="most inputs to try")
    parser.add_argument("--seconds", type=float, default=60.0, help="most time to spend")
    parser.add_argument("--seed", type=int, default=0, help="seed of the mutation fuzzer")
    parser.add_argument("--engine", choices=("auto", "atheris", "mutation"), default="auto")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    engine: Callable[[], dict[str, object]] = lambda: run_mutation(  # noqa: E731
        args.runs, args.seconds, args.seed)
    if args.engine != "mutation":
        try:
            import atheris  # noqa: F401
        except ImportError:
            if args.engine == "atheris":
                print("atheris is not installed: pip install -e '.[fuzz]'", file=sys.stderr)
                return 2
        else:
            engine = lambda: run_atheris(args.runs, args.seconds)  # noqa: E731
    result = engine()
    print(json.dumps(result) if args.json else
          ", ".join(f"{key}: {value}" for key, value in result.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
