"""Your name at the table: one flag, ``--player``, in every command (issue 25).

``play``, ``host``, ``join`` and ``bot`` all take ``--player NAME``; where a
command has ``--name`` it is the table's name (``host``), never yours. Without
``--player`` a human sits down under their login name (``getpass.getuser``:
the ``LOGNAME``/``USER`` variables, else the account), cut to the lobby's
limit, so that nobody is seated as "Host" or "Player" by surprise.
"""

from __future__ import annotations

import argparse
import getpass

from uno_p2p.cli.voice import TOO_LONG
from uno_p2p.errors import ConfigError
from uno_p2p.wire.lobby import MAX_NAME_CHARS

#: The name of a human with no login to borrow (a container with no account, say).
NO_LOGIN = "Player"


def login_name() -> str:
    """The user's login name, cut to ``MAX_NAME_CHARS``; ``NO_LOGIN`` when there is none."""
    try:
        login = getpass.getuser()
    except (OSError, KeyError):  # no variable and no account entry (3.11 raises KeyError)
        login = ""
    return login.strip()[:MAX_NAME_CHARS] or NO_LOGIN


def add_player_argument(parser: argparse.ArgumentParser, default: str | None = None,
                        said: str = "your login name") -> None:
    """``--player NAME``, the one spelling of your name at the table.

    ``said`` is how ``--help`` names the default (``default`` None: chosen later).
    """
    parser.add_argument("--player", default=default, metavar="NAME",
                        help=f"your name at the table, 1 to {MAX_NAME_CHARS} characters "
                             f"(default {said})")


def check_name(name: str) -> str:
    """A player name as the lobby accepts it (1 to ``MAX_NAME_CHARS`` characters).

    Raises:
        ConfigError: empty or too long.
    """
    name = name.strip()
    if not 0 < len(name) <= MAX_NAME_CHARS:
        raise ConfigError(TOO_LONG.format(flag="--player", high=MAX_NAME_CHARS,
                                          value=len(name)))
    return name
