"""``uno-lan audit FILE [--json]``: check a finished game from its log alone.

Checks, in order, the chain and every signature, every action under the
recorded options with the rules engine, every proof, and (when the
end-of-game reveal is in the log) every shuffle, private reveal and hidden
claim. Prints ``OK`` and a summary, or the first violation in one paragraph
naming the entry and the peer. Needs no keys, configuration or network.

Exit codes: 0 a valid game, 1 a violation (or a game a peer aborted), 2 an
unreadable file. ``--json`` prints exactly one JSON object.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from uno_p2p.audit import audit_file
from uno_p2p.cli import EXIT_USAGE
from uno_p2p.cli.voice import plain, say_error
from uno_p2p.store.unolog import UnreadableLog


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("audit", help="check a game log from start to finish",
                                   description=plain(__doc__),
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path, help="a .unolog file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=audit)


def audit(args: argparse.Namespace) -> int:
    """Audit ``args.file``; see the module docstring for the exit codes."""
    try:
        report = audit_file(args.file)
    except UnreadableLog as error:
        if args.json:
            print(json.dumps({"status": "unreadable", "exit_code": EXIT_USAGE,
                              "error": str(error)}, sort_keys=True))
        else:
            say_error("audit", error)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(report.to_json(), sort_keys=True))
    else:
        print(f"{args.file}:")
        for line in report.lines():
            print(line)
    return report.exit_code
