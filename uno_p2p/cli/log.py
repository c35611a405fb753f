"""``uno-lan log show FILE [--json]``: read a game log as a transcript.

Text: one line per entry (``entry 41, seat 2 (alice): played Red 7``), then
whether the hash chain and every signature hold. ``--json``: one JSON object
per line and entry, bytes as hex (JSON Lines), and JSON even on failure: an
unreadable file is one object ``{"status": "unreadable", "error": ...,
"exit_code": 2}``, a broken chain a last object ``{"status": "broken_chain",
...}`` after the entries. Without ``--json`` an unreadable file is one
sentence on stderr (exit code 2), and a broken chain is shown, then reported
(exit code 1). The full check of a game (rules, proofs, reveals) is
``uno-lan audit``.
"""

from __future__ import annotations

import argparse
import json
from importlib import import_module
from pathlib import Path

from uno_p2p.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from uno_p2p.cli.voice import plain, say_error
from uno_p2p.errors import RemoteProtocolError
from uno_p2p.store.unolog import LogContents, UnreadableLog, read_log
from uno_p2p.table.handover import handover_successor
from uno_p2p.wire.chain import verify_chain
from uno_p2p.wire.transcript import describe_entries, entries_as_json

#: Packages whose import registers more body kinds (the table protocol's).
KIND_PROVIDERS = ("uno_p2p.wire", "uno_p2p.table")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("log", help="read a game log", description=plain(__doc__),
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="log_action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="print a game log as a readable transcript")
    show.add_argument("file", type=Path, help="a .unolog file")
    show.add_argument("--json", action="store_true", help="one JSON object per entry")
    show.set_defaults(func=show_log)


def _load_kinds() -> None:
    for name in KIND_PROVIDERS:
        import_module(name)


def show_log(args: argparse.Namespace) -> int:
    """Print the log at ``args.file``; see the module docstring for exit codes."""
    _load_kinds()
    try:
        contents = read_log(args.file)
    except UnreadableLog as error:
        if args.json:
            print(json.dumps({"status": "unreadable", "error": str(error),
                              "exit_code": EXIT_USAGE}, sort_keys=True))
        else:
            say_error("log show", error)
        return EXIT_USAGE
    if args.json:
        for record in entries_as_json(contents.entries):
            print(json.dumps(record, sort_keys=True))
        broken = _chain_break(contents)
        if broken is not None:
            print(json.dumps({"status": "broken_chain", "error": broken,
                              "exit_code": EXIT_FAILURE}, sort_keys=True))
            return EXIT_FAILURE
        return EXIT_OK
    return _print_transcript(args.file, contents)


def _chain_break(contents: LogContents) -> str | None:
    """Why the log's chain or a signature fails, or None if it holds (or is empty)."""
    if not contents.entries:
        return None
    try:
        verify_chain(contents.entries, successor=handover_successor)  # table.md §13
    except RemoteProtocolError as error:
        return f"the chain is broken: {error} (code {error.code}, peer {error.peer})"
    return None


def _print_transcript(path: Path, contents: LogContents) -> int:
    print(f"{path}: {len(contents.entries)} entries")
    for line in describe_entries(contents.entries):
        print(line)
    if contents.torn_bytes:
        print(f"({contents.torn_bytes} bytes of an unfinished last entry are ignored)")
    if not contents.entries:
        return EXIT_OK
    broken = _chain_break(contents)
    if broken is not None:
        print(broken[0].upper() + broken[1:] + ".")
        return EXIT_FAILURE
    sequencer = contents.entries[0].author
    print(f"Chain and signatures hold: {len(contents.entries)} entries, sequenced by "
          f"{sequencer.fingerprint}.")
    return EXIT_OK
