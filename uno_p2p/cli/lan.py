"""What ``uno-lan host``, ``join`` and ``bot`` share: the text console, addresses, the end.

Until the full-screen LAN UI lands, a human seat is a plain text loop: the
table's events as sentences, the hand after each change, the legal moves as
a numbered list on your turn; type a number to play, ``hand`` to see the
hand again, ``start`` (host) to start, ``quit`` to leave. A bot seat prints
only what matters (rounds, removals, faults, the end). Names follow the
seating as it is now: once a vanished player's seat is removed, the scores
and the winner name the players left (table.md §14.2). At the end of every
game each peer prints where its log is and the audit's verdict of that file.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import stat
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TextIO

from uno_p2p.audit import audit_file
from uno_p2p.errors import ConfigError, IllegalAction, LocalProtocolError, UnoError
from uno_p2p.net.adverts import Discovery, TableAdvert
from uno_p2p.net.discovery import ZeroconfDiscovery
from uno_p2p.net.driver import Driver
from uno_p2p.net.seats import Seat
from uno_p2p.rules.actions import (
    Action,
    CatchUno,
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Draw,
    Pass,
    Play,
    SayUno,
)
from uno_p2p.rules.cards import COLOUR_NAMES, short_name
from uno_p2p.store.unolog import UnreadableLog
from uno_p2p.table.events import (
    ChatSaid,
    GameEnded,
    GameStarted,
    HandChanged,
    MovePlayed,
    PeerMisbehaved,
    PlayerJoined,
    PlayerLeft,
    PlayerRemoved,
    Progress,
    RoundEnded,
    TableEvent,
    YourTurn,
)
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.removal import LEFT
from uno_p2p.table.state import TablePhase
from uno_p2p.ui.networds import progress_words

#: What a player reads when a table's game never started: nothing to audit, nothing kept
#: (issue 25: a lobby visit read as a finished game, and left a log behind).
LEFT_LOBBY = "You left the table before its game started: no game was played, no log was kept"
LOBBY_CLOSED = ("The table closed before its game started: no game was played, "
                "no log was kept")

#: The text console's lines (``Console``, ``finish``), pinned in tests/cli/test_words.py.
GAME_STARTS = "The game starts: {players}."
ROUND_OVER = "Round {round} over. Scores: {scores}."
ROUND_VOID = "Round {round} is void. Scores: {scores}."
MISBEHAVED = "! {name} misbehaved ({code}): {reason}"
JOINED = "{name} joined the table."
LEFT_TABLE = "{name} left the table."
SAYS = "{name} says: {text}"
REMOVED_LEFT = "{name} left the table; the game goes on among {players}."
REMOVED_VANISHED = ("{name} vanished and was removed ({reason}); the game goes on among "
                    "{players}.")
NO_REASON = "no reason given"
YOUR_HAND = "Your hand: {cards}"
YOUR_TURN = "Your turn. {choices}"
HOW_TO_TYPE = "Type a move's number, 'hand', 'say' and words to chat, 'start' (host) or 'quit'."
NOT_NOW = "Not now: {error}"
GAME_STOPPED = "The game stopped: {why}."
GAME_OVER = "Game over: {winner} wins with {points} points."
NO_WINNER = "Game over, no winner: {why}."
STOPPED_EARLY = "stopped early"
CLOSED_BEFORE_THE_END = "The table closed before the game ended."
LOG_AT = "Log: {log}"
LOG_UNREADABLE = "Audit: the log cannot be read: {error}"
AUDIT_SAYS = "Audit: {verdict}"

#: How long ``join TABLE`` browses before giving up.
FIND_SECONDS = 5.0
#: Lines longer than this are cut (a peer's name or reason is untrusted text).
MAX_LINE = 300


def discovery_for(args: argparse.Namespace) -> Discovery | None:
    """The mDNS discovery to use (docs/protocol/discovery.md), or None.

    None with ``--no-mdns`` or ``UNO_LAN_MDNS=off`` (the tests and benchmarks on
    loopback, whose packets must not reach a real interface). Otherwise on every
    IPv4 interface unless ``UNO_LAN_MDNS_INTERFACES`` pins it.

    Raises:
        DiscoveryUnavailable: the variable is not a list of IP addresses.
    """
    if getattr(args, "no_mdns", False) or os.environ.get("UNO_LAN_MDNS") == "off":
        return None
    return ZeroconfDiscovery.from_environment()


async def find_table(discovery: Discovery, name: str | None,
                     seconds: float = FIND_SECONDS) -> TableAdvert:
    """The table called ``name`` (any table when None, if there is exactly one).

    Raises:
        ConfigError: none found within ``seconds``, or several and no name given.
    """
    seen: Sequence[TableAdvert] = ()

    async def look() -> TableAdvert | None:
        nonlocal seen
        # Closed here, not by the garbage collector after the discovery is: its pending
        # resolves end with the browse (issue 24: a traceback after every join by name).
        snapshots = discovery.browse()
        try:
            async for tables in snapshots:
                seen = [t for t in tables if t.addresses and t.phase == "lobby"]
                named = [t for t in seen if name in (None, t.table_name, t.instance)]
                if len(named) == 1 or (named and name is not None):
                    return named[0]
        finally:
            close = getattr(snapshots, "aclose", None)
            if close is not None:
                await close()
        return None

    try:
        async with asyncio.timeout(seconds):
            found = await look()
    except TimeoutError:
        found = None
    if found is not None:
        return found
    if name is None and len(seen) > 1:
        listed = ", ".join(sorted(t.table_name for t in seen))
        raise ConfigError(f"several tables are open ({listed}): name one")
    raise ConfigError(f"no open table{' called ' + repr(name) if name else ''} was found "
                      f"on the network in {seconds:.0f} s (try --address HOST:PORT)")


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT`` too).

    Raises:
        ConfigError: not of that form.
    """
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"'{text}' is not an address like 192.168.1.20:7777")
    return host, int(port)


def say(line: str) -> None:
    """One line for the user (cut, control characters removed), flushed at once."""
    clean = "".join(c if c.isprintable() else "?" for c in line)[:MAX_LINE]
    print(clean, flush=True)


def describe_action(action: Action, names: tuple[str, ...]) -> str:
    """A legal move in words: ``play R7``, ``draw``, ``catch Bob``."""
    if isinstance(action, Play):
        text = "play " + " + ".join(short_name(c) for c in action.cards)
        if action.colour >= 0:
            text += f" choosing {COLOUR_NAMES[action.colour]}"
        if 0 <= action.target < len(names):
            text += f" at {names[action.target]}"
        if action.power:
            text += f" ({action.power})"
        return text + (" and say UNO" if action.say_uno else "")
    if isinstance(action, Draw):
        return "draw"
    if isinstance(action, Pass):
        return "keep the drawn card and pass"
    if isinstance(action, SayUno):
        return "say UNO"
    if isinstance(action, CatchUno):
        who = names[action.target] if 0 <= action.target < len(names) else "?"
        return f"catch {who} (no UNO)"
    if isinstance(action, Challenge):
        return "challenge the Wild Draw Four"
    if isinstance(action, ChallengeVerdict):
        return "verdict: guilty" if action.guilty else "verdict: not guilty"
    if isinstance(action, ChooseColour):
        return f"choose {COLOUR_NAMES[action.colour]}"
    return type(action).__name__.lower()


class Console:
    """Prints a peer's events; for a human, reads moves typed on stdin."""

    def __init__(self, human: bool, *, on_start: Callable[[], None] | None = None) -> None:
        self.human = human
        self.on_start = on_start
        self.driver: Driver | None = None
        self.actions: tuple[Action, ...] = ()
        self.hand: tuple[int, ...] = ()
        self.result: GameEnded | None = None
        self.names: tuple[str, ...] = ()
        #: The player typed ``quit``: an end in the lobby is theirs, not the table's.
        self.left = False

    def note(self, text: str) -> None:
        say(f"* {text}")

    def event(self, event: TableEvent) -> None:
        """One table event as text (a bot prints only rounds, removals, faults and the end)."""
        if isinstance(event, GameEnded):
            self.result = event
        if isinstance(event, GameStarted):
            self.names = event.players
            say(GAME_STARTS.format(players=", ".join(event.players)))
            seated = None if self.driver is None else self.driver.seated
            if seated is not None:
                # The scores are printed, with no box to close: the next round need
                # not wait for this player (table.md §6).
                seated.initiative.pauses_between_rounds = False
        elif isinstance(event, PlayerRemoved):
            self._removed(event)
        elif isinstance(event, RoundEnded):
            scores = ", ".join(f"{n} {s}" for n, s in zip(self.names, event.scores,
                                                            strict=False))
            said = ROUND_VOID if event.winner < 0 else ROUND_OVER
            say(said.format(round=event.round, scores=scores))
        elif isinstance(event, PeerMisbehaved):
            say(MISBEHAVED.format(name=event.name or "a peer", code=event.code,
                                  reason=event.reason))
        elif isinstance(event, PlayerJoined | PlayerLeft):
            said = JOINED if isinstance(event, PlayerJoined) else LEFT_TABLE
            say(said.format(name=event.name))
        elif isinstance(event, ChatSaid) and self.human and not event.mine:
            say(SAYS.format(name=event.name, text=event.text))
        elif self.human:
            self._human_event(event)

    def _removed(self, event: PlayerRemoved) -> None:
        """The seats close up (table.md §14.2): every later seat number, score and
        winner counts the players left, so the names must too. Lobby names are
        unique (``name_taken``), so the name says which seat went."""
        self.names = tuple(name for name in self.names if name != event.name)
        players = ", ".join(self.names)
        if event.reason == LEFT:
            say(REMOVED_LEFT.format(name=event.name, players=players))
        else:
            say(REMOVED_VANISHED.format(name=event.name, reason=event.reason or NO_REASON,
                                        players=players))

    def _human_event(self, event: TableEvent) -> None:
        if isinstance(event, MovePlayed):
            say(event.description)
        elif isinstance(event, HandChanged):
            self.hand = event.cards
            say(YOUR_HAND.format(cards=" ".join(short_name(c) for c in event.cards)))
        elif isinstance(event, YourTurn):
            self.actions = event.actions
            say(YOUR_TURN.format(choices="  ".join(f"[{i}] {describe_action(a, self.names)}"
                                                   for i, a in enumerate(event.actions, 1))))
        elif isinstance(event, Progress):
            say(f"({progress_words(event.what)})")

    def command(self, line: str) -> None:
        """One typed line: a move number, ``hand``, ``say WORDS``, ``start`` or ``quit``."""
        text = line.strip().lower()
        driver = self.driver
        if not text or driver is None:
            return
        try:
            if text.split()[0] == "say":
                driver.peer.say(line.strip()[3:], driver.clock())  # table.md §15
                driver.pump()
            elif text.isdigit() and 1 <= int(text) <= len(self.actions):
                action, self.actions = self.actions[int(text) - 1], ()
                driver.act(action)
            elif text == "hand":
                say(YOUR_HAND.format(cards=" ".join(short_name(c) for c in self.hand)))
            elif text == "start" and self.on_start is not None:
                self.on_start()
            elif text in ("quit", "leave"):
                self.left = True
                driver.peer.leave("left the table")
                driver.pump()
            else:
                say(HOW_TO_TYPE)
        except (IllegalAction, LocalProtocolError) as error:
            say(NOT_NOW.format(error=error))

    async def read_stdin(self) -> None:
        """Feed typed lines to ``command`` until stdin closes (humans only)."""
        if not _readable_stream(sys.stdin):
            return  # /dev/null or a regular file: nobody is typing
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                         sys.stdin)
        except (ValueError, OSError):
            return  # stdin is a regular file or closed: nothing to read
        while line := await reader.readline():
            self.command(line.decode("utf-8", "replace"))


def _readable_stream(stream: TextIO) -> bool:
    """A terminal, pipe or socket (what the event loop can watch)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stream.isatty() or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def finish(log: Path | None, console: Console, stopped: str = "") -> bool:
    """Print the end: the result, where the log is, and the audit's verdict of it.

    Returns whether the game ended with a winner and the audit says OK.
    """
    result = console.result if _log_ended(console) else None
    if stopped:
        say(GAME_STOPPED.format(why=stopped))
    elif result is not None and result.winner >= 0 and result.winner < len(console.names):
        say(GAME_OVER.format(winner=console.names[result.winner],
                             points=result.scores[result.winner]))
    elif result is not None:
        say(NO_WINNER.format(why=result.stopped or STOPPED_EARLY))
    else:
        say(CLOSED_BEFORE_THE_END)
    if log is None:
        return False
    say(LOG_AT.format(log=log))
    try:
        report = audit_file(log)
    except (UnreadableLog, UnoError) as error:
        say(LOG_UNREADABLE.format(error=error))
        return False
    say(AUDIT_SAYS.format(verdict=report.lines()[0]))
    return report.status.value == "ok" and result is not None and result.winner >= 0


def _log_ended(console: Console) -> bool:
    """Whether the seat's log holds the game's end now: an end this peer logged that a
    hand-over then superseded (table.md §13.4) is no end, whatever it announced then."""
    seated = None if console.driver is None else console.driver.seated
    return seated is None or seated.state.phase == TablePhase.ENDED


def never_started(peer: TablePeer | None) -> bool:
    """Whether the table's game never started for this seat: not seated at all, or no
    start entry (the one that fixes the seats, table.md §2) when the node stopped; a
    lobby the host left ends with the table, in phase ``ended``."""
    return peer is None or not peer.state.seats


def end_in_lobby(seat: Seat | None, left: bool) -> None:
    """A table whose game never started: its files go (``Seat.forget``), and the player
    reads why in one line (``left``: they chose to leave)."""
    if seat is not None:
        seat.forget()
    say(f"{LEFT_LOBBY if left else LOBBY_CLOSED}.")


async def run_with_input(console: Console, main: Callable[[], Awaitable[None]]) -> None:
    """Run ``main()`` (a coroutine) with the console reading stdin beside it."""
    reader = asyncio.create_task(console.read_stdin()) if console.human else None
    try:
        await main()
    finally:
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

