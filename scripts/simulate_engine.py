"""Play thousands of bot games with the rules engine under every preset.

Every game must end with a valid winner (a seat that reached the target, or
the fewest points under ``losses``) and no claim violation; the script prints
a summary per preset and exits 1 on the first game that does not. Bounded by
``--games`` per preset and ``--budget`` CPU seconds in all.

It also counts the Wild Draw Four bluffs (RULES.md "may bluff"): how many
Wild Draw Fours were played, how many while holding the colour to match (read
from the omniscient state, which the bots never see), how many were
challenged, and how many challenges caught a bluff.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from uno_p2p.rules import PRESETS, Phase, preset
from uno_p2p.rules.simulate import WildDrawFourStats


def valid_winner(result_state: object) -> bool:
    state = result_state
    winner = getattr(state, "winner", -1)
    return getattr(state, "phase", None) == Phase.GAME_OVER and winner >= 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000, help="games per preset")
    parser.add_argument("--players", default="2,3,4,6", help="player counts to cycle through")
    parser.add_argument("--bots", default="heuristic", choices=["heuristic", "random"])
    parser.add_argument("--target", type=int, default=500)
    parser.add_argument("--budget", type=float, default=300.0, help="CPU seconds in all")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    counts = [int(x) for x in args.players.split(",")]
    if not counts or any(not 2 <= n <= 10 for n in counts) or not 1 <= args.games <= 100_000:
        parser.error("players must be 2..10 and games 1..100000")
    start = time.process_time()
    summary: dict[str, dict[str, object]] = {}
    for name in PRESETS:
        options = preset(name, [f"target={args.target}"])
        wins: Counter[int] = Counter()
        games = rounds = actions = 0
        bluffs = WildDrawFourStats()
        for i in range(args.games):
            if time.process_time() - start > args.budget:
                break
            players = counts[i % len(counts)]
            result = bluffs.play(options, players, f"{name}-{i}", args.bots)
            if not valid_winner(result.state) or result.violations:
                print(f"game {name}-{i} ({players} players) ended badly: {result.state.phase}")
                return 1
            games += 1
            rounds += result.rounds
            actions += result.actions
            wins[result.winner] += 1
        summary[name] = {"games": games, "rounds": rounds, "actions": actions,
                         "wins_by_seat": dict(sorted(wins.items())),
                         "wild_draw_four": bluffs.summary()}
    cpu = time.process_time() - start
    if args.json:
        print(json.dumps({"cpu_s": round(cpu, 2), "presets": summary}))
        return 0
    print(f"{args.bots} bots, target {args.target}, players {args.players}: {cpu:.1f} s CPU")
    for name, row in summary.items():
        print(f"{name:<10} games {row['games']:>6}  rounds {row['rounds']:>7}  "
              f"actions {row['actions']:>9}  wins by seat {row['wins_by_seat']}")
    print("Wild Draw Four: played, challengeable, bluffs (rate), challenged (rate), "
          "bluffs challenged, caught (of bluffs), challenge success")
    for name, row in summary.items():
        w = row["wild_draw_four"]
        assert isinstance(w, dict)  # noqa: S101
        print(f"{name:<10} {w['wild_draw_fours']:>6} {w['challengeable']:>6} "
              f"{w['bluffs']:>5} ({w['bluff_rate']:.1%}) {w['challenged']:>5} "
              f"({w['challenge_rate']:.1%}) {w['bluffs_challenged']:>5} "
              f"{w['caught']:>5} ({w['bluffs_caught_rate']:.1%}) "
              f"{w['challenge_success_rate']:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
