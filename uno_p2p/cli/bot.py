"""``uno-lan bot``: a headless bot peer sits down at a table.

``uno-lan bot [TABLE] [--address HOST:PORT] [--player NAME] [--join-code CODE]
[--resume] [--think SECONDS]``. The bot is a full peer: its own fresh Ed25519
key (saved with its seat, so ``--resume`` or ``uno-lan join --resume`` brings
it back), its own encrypted link, its own log under the data directory. It
plays with the heuristic bot from its own seat's view only, and prints only
rounds, faults and the end of the game. It thinks a second before each move
(``--think``, never over half the turn timer) so that the people at the table
can follow the game; ``uno-lan host --autoplay`` seats its bots with
``--think 0``.
"""

from __future__ import annotations

import argparse
import secrets

from uno_p2p.cli.join import add_join_arguments, run_seat
from uno_p2p.errors import ConfigError

#: Seconds a bot thinks before each move by default, and at most.
THINK_S = 1.0
MAX_THINK_S = 10.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("bot", help="a headless bot peer joins a table",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_join_arguments(parser, said="Bot and four hex digits")
    parser.add_argument("--think", default=str(THINK_S), metavar="SECONDS",
                        help=f"seconds to think before each move (default {THINK_S:g})")
    parser.set_defaults(func=bot)


def bot(args: argparse.Namespace) -> int:
    """Join as a bot (or resume a saved seat).

    Raises:
        ConfigError: no address and no discovery, a bad name, nothing to resume, or a
            bad ``--think``.
    """
    args.think_ms = think_ms(args.think)
    return run_seat(args, "heuristic", f"Bot {secrets.token_hex(2)}")


def think_ms(text: str, flag: str = "--think") -> int:
    """``--think`` (or the host's ``--bot-think``) in milliseconds.

    Raises:
        ConfigError: not a number of seconds from 0 to ``MAX_THINK_S``.
    """
    try:
        seconds = float(text)
    except ValueError:
        raise ConfigError(f"{flag} takes seconds, like 1 or 0.5, not {text!r}") from None
    if not 0 <= seconds <= MAX_THINK_S:
        raise ConfigError(f"{flag} must be from 0 to {MAX_THINK_S:g} seconds, not {text}")
    return round(seconds * 1000)
