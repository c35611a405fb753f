"""``uno-lan simulate``: a whole game in memory among bot peers, through the full protocol.

Every bot is a full peer with its own keys; every message is signed, every
entry countersigned by the host, every card dealt through the joint
mental-poker deck, every move checked by every peer, and the game ends with
the reveal of every secret and the re-execution of every shuffle. Prints a
summary (rounds, scores, winner, entries, time) and, with ``--log``, writes
the game log the peers agreed on as a ``.unolog`` file (``uno-lan log show``
and ``uno-lan audit`` read it). The log's path is checked before the game is
played: it must not exist yet, and its folder must. On a terminal, the
progress (round, log entries) is shown on stderr while the game is played.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import secrets
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from uno_p2p.cli import EXIT_FAILURE, EXIT_OK
from uno_p2p.cli.voice import CommandError, options_from, plain
from uno_p2p.rules.options import PRESETS
from uno_p2p.store.unolog import GameLog
from uno_p2p.table.memnet import MAX_DELIVERIES, NAMES, Network, TableSetup, game_over, seat_table
from uno_p2p.table.state import TablePhase


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "simulate", help="play a whole game among bot peers in memory",
        description=plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4, help="2 to 10 bot peers (default 4)")
    parser.add_argument("--preset", default="official", metavar="P",
                        help=f"the rules preset: {', '.join(PRESETS)} (default official)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="override one rule option (repeatable)")
    parser.add_argument("--seed", default="", help="make the game reproducible")
    parser.add_argument("--bots", default="heuristic", choices=("heuristic", "random", "search"),
                        help="how the bots play (default heuristic)")
    parser.add_argument("--log", type=Path, help="write the game log to this .unolog file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=simulate)


def simulate(args: argparse.Namespace) -> int:
    """Play the game; 0 when it ended with every shuffle proven, 1 otherwise.

    Raises:
        ConfigError: bad player count, preset, option or log path (before playing).
        UnreadableLog: the log file cannot be written.
    """
    if not 2 <= args.players <= len(NAMES):
        raise CommandError(f"UNO needs 2 to 10 players, not {args.players}",
                           "give --players a number from 2 to 10")
    options = options_from(args.preset, args.option)
    options.check_players(args.players)
    if args.log is not None:
        check_log_path(args.log)
    seed = args.seed.encode() if args.seed else _fresh_seed()
    started = time.perf_counter()
    setup = TableSetup(args.players, options, seed, preset=args.preset,
                       bots=(args.bots,) * args.players)
    net = seat_table(setup)
    progress = Progress(net) if sys.stderr.isatty() and not args.json else None
    try:
        net.run(until=progress.tick if progress else game_over, max_steps=MAX_DELIVERIES)
    finally:
        if progress is not None:
            progress.clear()
    elapsed = time.perf_counter() - started
    if args.log is not None:
        _write_log(net, args.log)
    summary = _summary(net, elapsed, args)
    if args.json:
        print(json.dumps(asdict(summary), sort_keys=True))
    else:
        _print_summary(summary)
    return EXIT_OK if summary.ok else EXIT_FAILURE


def check_log_path(path: Path) -> None:
    """Refuse a log path that cannot work, before a game is played for nothing.

    Raises:
        CommandError: the path exists (a file or a folder), or its folder does not.
    """
    if path.is_dir():
        raise CommandError(f"--log {path} is a folder",
                           f"give a file name in it, such as {path / 'game.unolog'}")
    if path.exists():
        raise CommandError(f"--log {path} already exists",
                           "choose a new file name (a log is never overwritten)")
    parent = path.parent
    if not parent.is_dir():
        raise CommandError(f"the folder {parent} for --log does not exist",
                           f"create it first (mkdir -p {parent}) or choose another path")


class Progress:
    """The round and the log's length on one stderr line, redrawn a few times a second."""

    EVERY_STEPS = 8
    EVERY_S = 0.2

    def __init__(self, net: Network) -> None:
        self.net = net
        self.steps = 0
        self.shown = 0.0

    def tick(self, net: Network) -> bool:
        """``Network.run``'s ``until``: draw the progress now and then; True when over."""
        self.steps += 1
        if self.steps % self.EVERY_STEPS == 0 and time.monotonic() - self.shown > self.EVERY_S:
            self.shown = time.monotonic()
            state = net.host.state
            game = state.engine
            round_no = game.round if game is not None else 0
            what = f"round {round_no}" if round_no else "keys and the first shuffle"
            sys.stderr.write(f"\rplaying: {what}, {state.seq} log entries…   ")
            sys.stderr.flush()
        return game_over(net)

    def clear(self) -> None:
        sys.stderr.write("\r" + " " * 60 + "\r")
        sys.stderr.flush()


def _fresh_seed() -> bytes:
    return secrets.token_bytes(16)


def _write_log(net: Network, path: Path) -> None:
    with GameLog.create(path) as log:
        for entry in net.entries():
            log.append(entry)
        log.sync()


@dataclass(frozen=True, slots=True)
class Summary:
    """What ``simulate`` reports."""

    players: list[str]
    preset: str
    options: list[str]
    rounds: int
    scores: list[int]
    winner: str | None
    entries: int
    bytes: int
    seconds: float
    stopped: str
    audit: str
    agreed: bool
    ok: bool
    log: str | None
    log_id: str


def _summary(net: Network, elapsed: float, args: argparse.Namespace) -> Summary:
    state = net.host.state
    game = state.engine
    agreed = len({tuple(p.ledger.digests) for p in net.peers.values()}) == 1
    ended = all(p.state.phase == TablePhase.ENDED for p in net.peers.values())
    winner = game.winner if game is not None and state.stop is None else None
    return Summary(
        players=list(state.player_names), preset=args.preset,
        options=game.options.describe() if game is not None else [],
        rounds=0 if game is None else game.round,
        scores=list(game.scores) if game is not None else [],
        winner=None if winner is None else state.player_names[winner],
        entries=state.seq, bytes=net.traffic.sent_bytes, seconds=round(elapsed, 3),
        stopped="" if state.stop is None else state.stop.reason,
        audit=state.audit_error or "every shuffle re-executed from its revealed seed",
        agreed=agreed, ok=agreed and ended and not state.audit_error and state.stop is None,
        log=str(args.log) if args.log is not None else None,
        log_id=hashlib.sha256(b"".join(e.hash for e in net.entries())).hexdigest()[:16],
    )


def _print_summary(summary: Summary) -> None:
    rules = f" ({', '.join(summary.options)})" if summary.options else ""
    print(f"{len(summary.players)} bot peers, preset {summary.preset}{rules}.")
    print(f"{summary.rounds} rounds, {summary.entries} log entries, "
          f"{summary.bytes} bytes sent, {summary.seconds} s.")
    for name, score in zip(summary.players, summary.scores, strict=False):
        print(f"  {name:>4}: {score}")
    if summary.winner is not None:
        print(f"Winner: {summary.winner}.")
    if summary.stopped:
        print(f"Stopped: {summary.stopped}.")
    print(f"Audit: {summary.audit}; every peer holds the same log: "
          f"{'yes' if summary.agreed else 'NO'}.")
    if summary.log:
        print(f"Log written to {summary.log}.")
    sys.stdout.flush()
