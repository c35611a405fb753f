"""The searching bot against the heuristic bot: win rate over many games.

Two-player games by default (the searching bot's seat alternates, so neither
the first deal nor the first turn favours it), played by the omniscient
``Driver`` with every bot given only its own seat's view. Prints the win rate
with a 95% Wilson interval and the CPU time per game; ``--json`` for machines.
Bounded by ``--games`` and ``--budget`` CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import time

from uno_p2p.rules import HeuristicBot, preset
from uno_p2p.rules.bots import Bot
from uno_p2p.rules.search import SearchBot
from uno_p2p.rules.simulate import Driver


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if not games:
        return 0.0, 0.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--first", type=int, default=0,
                        help="number of the first game (to continue a run with new deals)")
    parser.add_argument("--players", type=int, default=2, help="one searcher, the rest heuristic")
    parser.add_argument("--preset", default="official")
    parser.add_argument("--target", type=int, default=200)
    parser.add_argument("--worlds", type=int, default=16, help="determinisations per decision")
    parser.add_argument("--depth", type=int, default=200, help="actions per rollout (cap)")
    parser.add_argument("--budget", type=float, default=1200.0, help="CPU seconds in all")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 2 <= args.players <= 10 or not 1 <= args.games <= 100_000:
        parser.error("players must be 2..10 and games 1..100000")
    options = preset(args.preset, [f"target={args.target}"])
    start = time.process_time()
    wins = games = 0
    for i in range(args.first, args.first + args.games):
        if time.process_time() - start > args.budget:
            break
        searcher = i % args.players
        bots: list[Bot] = [
            SearchBot(f"search {i}", worlds=args.worlds, depth=args.depth) if seat == searcher
            else HeuristicBot(f"heuristic {i} {seat}") for seat in range(args.players)]
        result = Driver(options, args.players, f"duel {i}", bots).run()
        games += 1
        wins += result.winner == searcher
    cpu = time.process_time() - start
    low, high = wilson(wins, games)
    fair = 1 / args.players
    row = {"games": games, "players": args.players, "preset": args.preset,
           "target": args.target, "worlds": args.worlds, "depth": args.depth,
           "search_wins": wins, "win_rate": round(wins / games, 3) if games else 0.0,
           "ci95": [round(low, 3), round(high, 3)], "fair_share": round(fair, 3),
           "cpu_s": round(cpu, 1), "cpu_s_per_game": round(cpu / games, 2) if games else 0.0}
    if args.json:
        print(json.dumps(row))
        return 0
    print(f"search vs heuristic, {args.players} players, {args.preset}, target {args.target}, "
          f"{args.worlds} worlds x {args.depth} actions")
    print(f"games {games}  search wins {wins}  win rate {row['win_rate']:.1%} "
          f"(95% CI {low:.1%}-{high:.1%}; an equal bot wins {fair:.1%})  "
          f"{cpu:.0f} s CPU, {row['cpu_s_per_game']} s per game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
