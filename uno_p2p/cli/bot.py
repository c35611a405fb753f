"""``uno-lan bot``: a headless bot peer sits down at a table.

``uno-lan bot [TABLE] [--address HOST:PORT] [--player NAME] [--join-code CODE]
[--resume]``. The bot is a full peer: its own fresh Ed25519 key (saved with
its seat, so ``--resume`` or ``uno-lan join --resume`` brings it back), its
own encrypted link, its own log under the data directory. It plays with the
heuristic bot from its own seat's view only, and prints only rounds, faults
and the end of the game.
"""

from __future__ import annotations

import argparse
import secrets

from uno_p2p.cli.join import add_join_arguments, run_seat


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("bot", help="a headless bot peer joins a table",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_join_arguments(parser)
    parser.set_defaults(func=bot)


def bot(args: argparse.Namespace) -> int:
    """Join as a bot (or resume a saved seat).

    Raises:
        ConfigError: no address and no discovery, a bad name, nothing to resume.
    """
    return run_seat(args, "heuristic", f"Bot {secrets.token_hex(2)}")
