"""The ``uno-lan`` command: one sub-command per module in this package.

Each sub-command module exposes ``register(subparsers)``, which adds its parser
and sets ``func`` to a callable taking the parsed arguments and returning an
exit code. ``main`` is the only place that turns an ``UnoError`` into one plain
sentence for the user (``voice``: one format, one set of exit codes, listed by
``uno-lan --help``). Anything else is a bug: its traceback goes to a crash
report on disk (``UNO_LAN_DEBUG=1`` shows it instead) and the player reads
one sentence saying where.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import traceback
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path

from uno_p2p import __version__
from uno_p2p.cli.voice import EPILOG, EXIT_CODES, Parser, plain, say_error, usage_error
from uno_p2p.errors import UnoError

#: Sub-command modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = (
    "host", "join", "list", "bot", "play", "simulate", "log", "audit", "replay",
)

#: Exit codes shared by every sub-command.
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="uno-lan",
        description="UNO for friends on the same network, with no trusted server.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"uno-lan {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        import_module(f"uno_p2p.cli.{name}").register(subparsers)
    plain_help(parser)
    return parser


def plain_help(parser: argparse.ArgumentParser) -> None:
    """Every command's help in plain text: docstrings used as descriptions lose their
    ``markup``, and keep their paragraphs; each ends with the exit codes."""
    # argparse lists its sub-commands nowhere but in the private _actions.
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.description = plain(sub.description)
                sub.epilog = EXIT_CODES
                sub.formatter_class = argparse.RawDescriptionHelpFormatter
                plain_help(sub)


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
    command = " ".join(part for part in (args.command, getattr(args, "log_action", None))
                       if part)
    try:
        code: int = args.func(args)
    except UnoError as error:
        say_error(command, error)
        return EXIT_USAGE if usage_error(error) else EXIT_FAILURE
    except KeyboardInterrupt:
        say_error(command, "interrupted", "nothing more was done")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``uno-lan log show FILE | head``): not an
        # error. Point stdout at /dev/null so the interpreter's final flush
        # does not raise again on the closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except (Exception, asyncio.CancelledError) as error:  # a bug: keep it, say one line
        if os.environ.get("UNO_LAN_DEBUG"):
            raise
        report = keep_crash_report(command)
        where = f"the details are in {report}" if report else "the details could not be saved"
        say_error(command, f"an internal error stopped it ({type(error).__name__}: {error})",
                  f"{where}; please report them (the game's log is kept)")
        return EXIT_FAILURE
    return code


def keep_crash_report(command: str) -> Path | None:
    """Write the traceback being handled under ``$XDG_DATA_HOME/uno-lan/crashes``.

    A player sees one sentence, never a traceback; the report keeps what a
    developer needs. None if even that cannot be written.
    """
    from uno_p2p.net.seats import data_dir

    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        folder = data_dir() / "crashes"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{stamp}-{command.replace(' ', '-') or 'uno-lan'}-{os.getpid()}.txt"
        path.write_text(f"uno-lan {__version__} {command}\n{traceback.format_exc()}")
    except OSError:
        return None
    return path


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
