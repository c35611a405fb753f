"""``uno-lan replay FILE``: print a whole game move by move, as the audit saw it.

Every entry is replayed by an observer with the table's own code; what each
entry made happen follows it. Once the log's end-of-game reveal proves every
shuffle, every hand is printed face up as the game goes; without a reveal,
hidden cards are ``??``. The audit's verdict is printed under the entry it
names, and last. The replay stops at an entry the table itself refuses.
Exit codes: 0 the whole log replayed, 1 it stopped at a bad entry, 2 an
unreadable file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from uno_p2p.audit.core import audit_with_knowledge
from uno_p2p.audit.text import replay_lines
from uno_p2p.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from uno_p2p.cli.voice import plain, say_error
from uno_p2p.store.unolog import UnreadableLog, read_log


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("replay", help="print a game log move by move",
                                   description=plain(__doc__),
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path, help="a .unolog file")
    parser.add_argument("--text", action="store_true",
                        help="print the game as text (the default, and the only form for now)")
    parser.set_defaults(func=replay_text)


def replay_text(args: argparse.Namespace) -> int:
    """Print the game in ``args.file``; see the module docstring for the exit codes."""
    try:
        entries = read_log(args.file).entries
    except UnreadableLog as error:
        say_error("replay", error)
        return EXIT_USAGE
    report, knowledge = audit_with_knowledge(entries)
    if knowledge is None:
        print("(no complete end-of-game reveal: hidden cards are shown as ??)")
    else:
        print("(the end-of-game reveal proves every shuffle: every hand is shown)")
    stopped = False
    faces = None if knowledge is None else knowledge.faces
    for line in replay_lines(entries, faces, report.violation):
        stopped = line.startswith("STOP:")
        print(line)
    print(report.lines()[0])
    return EXIT_FAILURE if stopped else EXIT_OK
