"""How every ``uno-lan`` command speaks: one error format, one set of exit codes.

An error is one line on stderr, ``uno-lan: what went wrong; what to do next.``
(``error_line``; an error that already says what to do is not given a second
hint). The exit codes are the ``EXIT_*`` constants of
``uno_p2p.cli``, listed for the user by ``uno-lan --help`` (``EPILOG``). The
argument parser speaks the same way (``Parser.error``), and the help shows
plain text: the docstrings used as descriptions lose their ``markup``.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Iterable, Sequence
from typing import NoReturn

from uno_p2p.errors import ConfigError, UnoError
from uno_p2p.rules import PRESETS, Options, preset
from uno_p2p.store.unolog import UnreadableLog

#: Every command's ``--help`` ends with the exit codes, the same in the full screen and in
#: plain text (``--text``).
EXIT_CODES = """\
Exit codes (the same in the full screen and in plain text):
  0    done: the game was played, the log holds, the audit found no fault;
       or you left a table's lobby before its game started
  1    a check failed or a game stopped before its end: a rule or proof
       violated, a broken log chain, a player gone, no table at the address
  2    the command could not run: a bad option or value, an unreadable or
       misplaced file, no terminal for the game
  130  interrupted by Ctrl-C (143: stopped by SIGTERM)"""

#: ``uno-lan --help`` ends with this: the error format and the exit codes.
EPILOG = f"""\
Errors are one line on stderr: "uno-lan: what went wrong; what to do next."

{EXIT_CODES}

Every command has its own help: uno-lan COMMAND --help."""


#: A joiner's link that found no table at the address (``LinkLost`` codes of
#: ``uno_p2p.net.link.connect``), and what to do then.
WRONG_ADDRESS = frozenset({"unknown_host", "not_a_table", "unreachable"})
WRONG_ADDRESS_HINT = ("check the address: the host's screen shows the one to join, "
                      "like --address 192.168.1.20:7777")

#: A number or a length outside what a flag takes (``--bots``, ``--players``, names).
OUT_OF_RANGE = "{flag} must be from {low} to {high}, not {value}"
TOO_LONG = "{flag} must be 1 to {high} characters, not {value}"

#: Flags another command spells differently, and the one this command takes: your name
#: is ``--player`` everywhere (``--name`` is the table's, in ``host``).
OLD_SPELLINGS = {"--name": "--player"}

#: argparse's words for an abbreviation that fits several options (said again in ours).
AMBIGUOUS = re.compile(r"ambiguous option: (?P<option>\S+) could match (?P<matches>.+)")

#: The hint after a usage error: where the command's usage is.
USAGE_HINT = "run {command} --help for the usage"

#: A misspelt option, and the known one closest to it.
NO_SUCH_OPTION = "there is no option {option}"
DID_YOU_MEAN = " (did you mean {option}?)"


class CommandError(ConfigError):
    """A bad command line or setting, with the next step for the user."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class Parser(argparse.ArgumentParser):
    """argparse, with its usage errors in the one error format and exit code 2, and a
    "did you mean" for a misspelt option (``--adress``) of whichever command it is."""

    def parse_known_args(  # type: ignore[override]  # typeshed overloads on the namespace
            self, args: Sequence[str] | None = None,
            namespace: argparse.Namespace | None = None,
    ) -> tuple[argparse.Namespace, list[str]]:
        """argparse's, then the first unknown option named with the closest known one.

        A sub-command's parser runs this too, so the error names its own options
        and its own ``--help``.

        Raises:
            SystemExit: an unknown option (code 2).
        """
        parsed, extras = super().parse_known_args(args, namespace)
        unknown = [word.partition("=")[0] for word in extras if word.startswith("--")]
        if unknown:
            self.error(unknown_option(unknown[0], self.option_names()))
        return parsed, extras

    def option_names(self) -> list[str]:
        """Every ``--option`` this parser takes, hidden ones left out."""
        # argparse keeps its actions in the private _actions (as uno_p2p.cli.plain_help).
        return [name for action in self._actions if action.help != argparse.SUPPRESS
                for name in action.option_strings if name.startswith("--")]

    def error(self, message: str) -> NoReturn:
        """Print ``uno-lan: message; run uno-lan COMMAND --help ...`` and exit 2.

        Raises:
            SystemExit: always, with code 2.
        """
        ambiguous = AMBIGUOUS.fullmatch(message)
        if ambiguous is not None:  # argparse lists the hidden options too: leave them out
            shown = self.option_names()
            matches = [m for m in ambiguous["matches"].split(", ") if m in shown]
            message = f"{ambiguous['option']} could be {' or '.join(matches)}"
        print(error_line(self.prog.removeprefix("uno-lan").strip() or "",
                         message, USAGE_HINT.format(command=self.prog)), file=sys.stderr)
        raise SystemExit(2)


def plain(doc: str | None) -> str:
    """A docstring as plain help text: ````code```` and ```name``` lose their backticks."""
    return re.sub(r"`{1,2}([^`]+)`{1,2}", r"\1", doc or "").strip()


def error_line(command: str, message: str, hint: str = "") -> str:
    """``uno-lan: --players must be from 2 to 10, not 11; run uno-lan play --help ...``

    ``command`` is the sub-command the error is about (hints name it); every
    error starts with the same ``uno-lan:``, whichever command speaks.
    """
    where = "uno-lan"
    text = message.strip().rstrip(".")
    if hint:
        text += f"; {hint.strip().rstrip('.')}"
    return f"{where}: {text}."


def hint_for(error: UnoError, command: str) -> str:
    """What to do next after ``error`` in ``command``."""
    if isinstance(error, CommandError) and error.hint:
        return error.hint
    if isinstance(error, UnreadableLog):
        return "check the file's name (uno-lan simulate --log FILE writes a log to try)"
    if isinstance(error, ConfigError):
        return f"run uno-lan {command} --help for the valid values"
    if getattr(error, "code", None) in WRONG_ADDRESS:  # net.link's LinkLost codes
        return WRONG_ADDRESS_HINT
    return ""  # the other errors say what happened and, where there is one, what to do


def usage_error(error: UnoError) -> bool:
    """A bad setting or an unusable file: exit code 2 rather than 1."""
    return isinstance(error, ConfigError | UnreadableLog)


def say_error(command: str, error: UnoError | str, hint: str = "") -> None:
    """Print one error line for ``command`` on stderr."""
    if isinstance(error, UnoError):
        hint = hint or hint_for(error, command)
    print(error_line(command, str(error), hint), file=sys.stderr)


def options_from(name: str, overrides: Sequence[str]) -> Options:
    """The rules of preset ``name`` with ``name=value`` overrides, named as the user typed.

    Raises:
        CommandError: an unknown preset or option (the valid names in the hint),
            or a value the option does not take.
    """
    if name not in PRESETS:
        raise CommandError(f"there is no preset '{name}'{_close(name, PRESETS)}",
                           f"choose one of {', '.join(PRESETS)}")
    for text in overrides:
        key = text.partition("=")[0].strip()
        if "=" in text and key not in Options.NAMES:
            raise CommandError(f"there is no option '{key}'{_close(key, Options.NAMES)}",
                               f"the options are {', '.join(sorted(Options.NAMES))}")
    try:
        return preset(name, overrides)
    except ConfigError as error:
        raise CommandError(str(error), "docs/rules.md says what each option takes") from None


def unknown_option(word: str, known: Iterable[str]) -> str:
    """``there is no option --adress (did you mean --address?)``; an old spelling
    (``OLD_SPELLINGS``) is pointed at the flag that took its place."""
    known = list(known)
    old = OLD_SPELLINGS.get(word)
    close = [old] if old in known else difflib.get_close_matches(word, known, n=1)
    return NO_SUCH_OPTION.format(option=word) + (
        DID_YOU_MEAN.format(option=close[0]) if close else "")


def _close(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""
