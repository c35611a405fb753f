"""Benchmark of the proof of shuffle (issue 9; docs/protocol/deck.md §6.4).

For each deck size: the CPU time (``time.process_time``, this process only)
of one shuffler's proven turn (the shuffle itself and its proof), of proving
alone, and of one peer's check on arrival (decoding the proof, every point
validated, and verifying it), best of ``--repeat`` runs within ``--budget``
seconds; the proof's size; and the libsodium operations counted during one
proof and one verification, against the scheme's formula (§6.4.5). The
process's memo of verified statements is off, so every verification is paid.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable
from typing import TypeVar

from uno_p2p.crypto.cards import CARD_COUNT
from uno_p2p.crypto.group import OPS, VALID_POINTS, Scalar, base_mul
from uno_p2p.crypto.shuffle import (
    Ciphertext,
    ShuffleMessage,
    apply_shuffle,
    initial_deck,
    permutation,
    rerandomisers,
    shuffle_context,
    shuffle_seed,
)
from uno_p2p.crypto.shuffle_proof import (
    VERIFIED,
    generators,
    make_proven_shuffle,
    prove_shuffle,
    verify_proven_shuffle,
)

T = TypeVar("T")
KEY = base_mul(Scalar.of(int.from_bytes(hashlib.sha512(b"bench joint key").digest(), "little")))
MASTER = hashlib.sha256(b"bench shuffle master").digest()
CONTEXT = shuffle_context(b"bench-table", 1, 0, b"bench-shuffler", turn=1)


def best_cpu(action: Callable[[], T], *, repeat: int, budget: float) -> tuple[float, T]:
    """The least CPU time of up to ``repeat`` runs of ``action``, within ``budget`` seconds."""
    best = float("inf")
    deadline = time.perf_counter() + budget
    result: T | None = None
    for _ in range(max(1, repeat)):
        start = time.process_time()
        result = action()
        best = min(best, time.process_time() - start)
        if time.perf_counter() > deadline:
            break
    assert result is not None  # noqa: S101 (the loop ran at least once)
    return best, result


def counted(action: Callable[[], object]) -> dict[str, int]:
    OPS.reset()
    action()
    return OPS.snapshot()


def measure(size: int, repeat: int, budget: float) -> dict[str, object]:
    """Figures for one deck of ``size`` cards, as a second shuffler receives it."""
    previous: tuple[Ciphertext, ...] = apply_shuffle(
        initial_deck(range(size)), hashlib.sha256(b"first turn").digest(), KEY)
    seed = shuffle_seed(MASTER, 1, 0)
    perm, masks = permutation(seed, size), rerandomisers(seed, size)
    generators(size)  # computed once per process; not part of a proof's cost

    def turn() -> tuple[ShuffleMessage, bytes]:
        message, proof = make_proven_shuffle(previous, shuffle_master=MASTER, round_number=1,
                                             deck=0, joint_key=KEY, context=CONTEXT)
        return message, proof.to_wire()

    turn_s, (message, proof) = best_cpu(turn, repeat=repeat, budget=budget)
    shuffled = message.ciphertexts

    def prove() -> object:
        return prove_shuffle(previous, shuffled, perm=perm, rerandomisers=masks, joint_key=KEY,
                             context=CONTEXT, secret=seed)

    def verify() -> object:
        return verify_proven_shuffle(message, proof, previous, joint_key=KEY, context=CONTEXT)

    prove_s, _ = best_cpu(prove, repeat=repeat, budget=budget)
    verify_s, _ = best_cpu(verify, repeat=repeat, budget=budget)
    made, checked = counted(prove), counted(verify)
    return {
        "prove_s": round(prove_s, 4), "verify_s": round(verify_s, 4),
        "proof_bytes": len(proof), "turn_s": round(turn_s, 4),
        "ops": {
            "prove_mul": made["mul"], "prove_mul_formula": 5 * size + 1,
            "prove_base_mul": made["base_mul"], "prove_base_mul_formula": 3 * size + 4,
            "verify_mul": checked["mul"], "verify_mul_formula": 8 * size + 7,
            "verify_base_mul": checked["base_mul"], "verify_base_mul_formula": size + 4,
            "verify_validate": checked["validate"], "verify_validate_formula": 2 * size,
            "verify_add": checked["add"],
        },
    }


def render(result: dict[str, dict[str, object]]) -> str:
    lines = [
        "Proof of shuffle (Terelius-Wikström), CPU seconds, best of the runs; ops counted "
        "in one proof / one verification (formula in brackets; validations are the proof's "
        "2N points, the deck's are decoded with the message)",
        f"{'cards':>5} {'prove_s':>8} {'verify_s':>9} {'bytes':>7} {'turn_s':>7}  "
        "mul prove/verify, base_mul prove/verify",
    ]
    for size, row in result.items():
        ops = row["ops"]
        assert isinstance(ops, dict)  # noqa: S101 (built above)
        lines.append(
            f"{size:>5} {row['prove_s']:>8.4f} {row['verify_s']:>9.4f} {row['proof_bytes']:>7} "
            f"{row['turn_s']:>7.4f}  {ops['prove_mul']} ({ops['prove_mul_formula']}) / "
            f"{ops['verify_mul']} ({ops['verify_mul_formula']}), {ops['prove_base_mul']} "
            f"({ops['prove_base_mul_formula']}) / {ops['verify_base_mul']} "
            f"({ops['verify_base_mul_formula']})")
    lines.append("turn_s: a whole turn (the shuffle and its proof); aim: 108 cards proved and "
                 "verified in at most 0.3 s each, proof at most 20 KB")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark the proof of shuffle.")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--sizes", default="52,108", help="comma-separated deck sizes")
    parser.add_argument("--repeat", type=int, default=5, help="runs timed (best kept)")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per figure")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.sizes.split(",")]
    if any(not 1 <= n <= CARD_COUNT for n in sizes):
        parser.error(f"deck sizes are 1..{CARD_COUNT}")
    VERIFIED.enabled = VALID_POINTS.enabled = False
    result = {str(n): measure(n, args.repeat, args.budget) for n in sorted(sizes, reverse=True)}
    if args.json:
        print(json.dumps(result))
    else:
        print(render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
