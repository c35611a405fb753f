"""``uno-lan play``: offline practice, you against bots, full-screen in this terminal.

This is the practice mode: the bots play inside this process, with no
network, no keys and no game log (``uno-lan host`` and ``uno-lan join`` play
over the network, with the full protocol).

``uno-lan play [--players N] [--preset P] [--option K=V ...] [--player NAME]
[--seed S] [--bot-delay SECONDS]``. Every value is checked before the screen
opens: a bad one is one plain sentence and exit code 2, as is running without
a terminal. The deck orders and seats come from a seed drawn here with
``secrets`` (or from ``--seed``, which makes the game reproducible), never
from inside the engine.

Keys: left/right or 1-9 choose a card, Enter plays it (a picker asks for a
Wild's colour, a Wild power or a player when needed), Space marks cards to
play together, d draws, p passes after drawing, u says UNO (with two cards
left: with the next play), c catches a player who forgot UNO, x challenges a
Wild Draw Four, j jumps in, s sorts the hand, up/down scroll the news, ?
shows every key and the rules in force, q quits (after asking; Ctrl-C twice
quits at once). The bottom line lists the keys that work at that moment.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
from dataclasses import dataclass

from uno_p2p.cli import EXIT_USAGE
from uno_p2p.cli.names import add_player_argument, check_name, login_name
from uno_p2p.cli.voice import OUT_OF_RANGE, options_from, plain, say_error
from uno_p2p.errors import ConfigError, UnoError
from uno_p2p.rules import PRESETS, Options
from uno_p2p.rules.options import MAX_PLAYERS, MIN_PLAYERS
from uno_p2p.ui.session import LocalTable, player_names

DEFAULT_PLAYERS = 4
DEFAULT_DELAY = 1.0
MAX_DELAY = 10.0


@dataclass(frozen=True, slots=True)
class PlaySettings:
    """The checked command line."""

    options: Options
    players: int
    name: str
    seed: str
    bot_delay: float

    def table(self, game: int) -> tuple[LocalTable, str]:
        """Game number ``game`` (1 first): the same seed gives the same games."""
        seed = self.seed if game == 1 else f"{self.seed}-{game}"
        return LocalTable(self.options, self.players, seed.encode("utf-8"), self.name), seed


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play", help="offline practice: you against bots in this terminal (no network)",
        description=plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", default=str(DEFAULT_PLAYERS), metavar="N",
                        help=f"players at the table, you included ({MIN_PLAYERS}-{MAX_PLAYERS}, "
                             f"default {DEFAULT_PLAYERS})")
    parser.add_argument("--preset", default="official", metavar="P",
                        help=f"a set of rules: {', '.join(PRESETS)} (default official)")
    parser.add_argument("--option", action="append", default=[], metavar="K=V",
                        help="one rule on top of the preset, e.g. stack_draw_two=true "
                             "(docs/rules.md lists them); may be repeated")
    add_player_argument(parser)
    # The old spelling of --player: play has no table to name, so it is unambiguous here.
    parser.add_argument("--name", dest="player", help=argparse.SUPPRESS)
    parser.add_argument("--seed", default=None, metavar="S",
                        help="replay the same deals and bot moves (default: a random seed)")
    parser.add_argument("--bot-delay", default=str(DEFAULT_DELAY), metavar="SECONDS",
                        help=f"pause before each bot move (default {DEFAULT_DELAY})")
    parser.set_defaults(func=play)


def settings_from(args: argparse.Namespace) -> PlaySettings:
    """Check every value of the command line.

    Raises:
        ConfigError: a bad player count, preset, option, name, seed or delay.
    """
    players = _int(args.players, "--players")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ConfigError(OUT_OF_RANGE.format(flag="--players", low=MIN_PLAYERS,
                                              high=MAX_PLAYERS, value=players))
    options = options_from(args.preset, args.option)
    options.check_players(players)
    name = check_name(login_name() if args.player is None else args.player)
    player_names(players, 0, name)
    delay = _seconds(args.bot_delay, "--bot-delay")
    if not 0 <= delay <= MAX_DELAY:
        raise ConfigError(f"--bot-delay must be from 0 to {MAX_DELAY:g} seconds, not {delay:g}")
    seed = secrets.token_hex(4) if args.seed is None else args.seed
    if not seed or len(seed) > 64:
        raise ConfigError("--seed must be 1 to 64 characters")
    return PlaySettings(options, players, name, seed, delay)


def _int(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"{flag} must be a whole number, not '{text}'") from None


def _seconds(text: str, flag: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{flag} must be a number of seconds, not '{text}'") from None
    if value != value:  # NaN compares unequal to itself
        raise ConfigError(f"{flag} must be a number of seconds, not '{text}'")
    return value


def play(args: argparse.Namespace) -> int:
    """Check the command line, then run the game screen until the player quits."""
    try:
        settings = settings_from(args)
    except ConfigError as error:
        say_error("play", error)
        return EXIT_USAGE
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        say_error("play", "the game needs a terminal to draw the table in",
                  "run it from a terminal window, not through a pipe or a file")
        return EXIT_USAGE
    # Only a real game needs prompt-toolkit: other sub-commands start faster without it.
    from uno_p2p.ui.app import GameScreen
    from uno_p2p.ui.theme import plain_mode

    async def run() -> int:
        screen = GameScreen(settings.table, settings.bot_delay, plain_mode())
        code = await screen.run()
        error = screen.error
        if isinstance(error, UnoError):
            say_error("play", f"the game stopped: {error}")
        elif error is not None:
            say_error("play", f"the game stopped on an internal error "
                              f"({type(error).__name__}: {error})",
                      "please report it with the seed shown on the table")
        return code

    return asyncio.run(run())
