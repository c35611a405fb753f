"""The ``uno-lan`` command: one sub-command per module in this package.

Each sub-command module exposes ``register(subparsers)``, which adds its parser
and sets ``func`` to a callable taking the parsed arguments and returning an
exit code. ``main`` is the only place that turns an ``UnoError`` into one plain
sentence for the user: a traceback reaching the terminal is a bug.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import import_module

from uno_p2p import __version__
from uno_p2p.errors import UnoError

#: Sub-command modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = ("log", "play", "simulate", "audit", "replay", "host", "join", "bot")

#: Exit codes shared by every sub-command.
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno-lan",
        description="UNO for friends on the same network, with no trusted server.",
    )
    parser.add_argument("--version", action="version", version=f"uno-lan {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        import_module(f"uno_p2p.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one sub-command and return its exit code.

    Raises:
        SystemExit: only from argparse, for ``--help``, ``--version`` and usage errors.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        code: int = args.func(args)
    except UnoError as error:
        print(f"uno-lan: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("uno-lan: interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``uno-lan log show FILE | head``): not an
        # error. Point stdout at /dev/null so the interpreter's final flush
        # does not raise again on the closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
