"""Benchmark of the rules engine: whole 4-player bot games, on one core.

Counts two things, both printed: a *game* is a whole game to the target
(500 points by default), a *round* is one hand from the deal to the reveal.
Each cell plays games from fixed seeds for at most ``--budget`` seconds of
CPU (and at most ``--games`` games), with the omniscient driver: bots act on
``view_for`` their seat, so every action costs a view projection,
``legal_actions``, the bot's choice and ``apply``.
"""

from __future__ import annotations

import argparse
import json
import time

from uno_p2p.rules import play_game, preset

CELLS = [("heuristic", "official"), ("heuristic", "house"),
         ("random", "official"), ("random", "house")]


def measure(bots: str, preset_name: str, games: int, budget: float,
            target: int) -> dict[str, float]:
    options = preset(preset_name, [f"target={target}"])
    played = actions = rounds = 0
    start = time.process_time()
    while played < games and time.process_time() - start < budget:
        result = play_game(options, 4, f"bench-{played}", bots)
        played += 1
        actions += result.actions
        rounds += result.rounds
    cpu = max(time.process_time() - start, 1e-9)
    return {"games": played, "games_per_s": played / cpu, "rounds_per_s": rounds / cpu,
            "actions_per_s": actions / cpu, "actions_per_round": actions / max(rounds, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--games", type=int, default=40, help="most games per cell")
    parser.add_argument("--budget", type=float, default=5.0, help="CPU seconds per cell")
    parser.add_argument("--target", type=int, default=500, help="points to win a game")
    args = parser.parse_args()
    if not 1 <= args.games <= 100_000 or not 0 < args.budget <= 600:
        parser.error("--games must be 1..100000 and --budget 0..600 seconds")
    cells = {f"{bots}/{name}": measure(bots, name, args.games, args.budget, args.target)
             for bots, name in CELLS}
    headline = cells["heuristic/official"]
    if args.json:
        print(json.dumps({
            "games_per_s": round(headline["games_per_s"], 2),
            "actions_per_s": round(headline["actions_per_s"]),
            "rounds_per_s": round(headline["rounds_per_s"], 1),
            "game": f"4 players to {args.target} points, heuristic bots, official rules",
            "cells": {k: {m: round(v, 2) for m, v in c.items()} for k, c in cells.items()},
        }))
        return 0
    print(f"4-player bot games to {args.target} points, CPU time of one process")
    print(f"{'bots/preset':<20}{'games':>7}{'games/s':>10}{'rounds/s':>10}"
          f"{'actions/s':>11}{'actions/round':>15}")
    for key, c in cells.items():
        print(f"{key:<20}{c['games']:>7}{c['games_per_s']:>10.2f}{c['rounds_per_s']:>10.1f}"
              f"{c['actions_per_s']:>11.0f}{c['actions_per_round']:>15.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
