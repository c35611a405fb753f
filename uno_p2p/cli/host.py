"""``uno-lan host``: open a table on this machine's network and play at it.

``uno-lan host [--name N] [--player P] [--preset P] [--option K=V ...] [--bots N]
[--join-code CODE] [--port PORT] [--bind ADDR] [--autoplay] [--players N]
[--bot-think SECONDS]``.

The host's peer keeps the table's log in order (docs/protocol/table.md §1).
Other players join with ``uno-lan join --address HOST:PORT`` (or by the
table's name, once mDNS discovery is on). ``--bots N`` starts N bot peers as
separate processes, each with its own keys and its own encrypted link; each
thinks ``--bot-think`` seconds before a move, so you can follow the game.
``--autoplay`` puts a bot in the host's seat too and starts as soon as every
seat is taken (``--players``, default the host and its bots): one whole game
with no human, then the log's path and the audit's verdict, exit 0 if both
are good. Network play always has a turn timer and a short UNO grace period
(the options ``turn_timer`` and ``catch_grace_ms``, docs/rules.md) unless an
option sets them. Without ``--autoplay``, in a terminal, you play in the
full-screen UI: the lobby (r: ready, s: start, b: add a bot), then the table,
and at the end the audit's verdict of the log; ``--text`` (or no terminal)
plays as plain text instead: type ``start`` when everyone is in.

Limits: a table seats 2 to 10 players, the host included, of whom at most 9
are bots; a player's name has 1 to 32 characters, the table's 1 to 63; a bot
thinks 0 to 10 seconds. docs/rules.md lists every preset and option."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import signal
import socket
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO

from uno_p2p.cli import EXIT_FAILURE, EXIT_OK
from uno_p2p.cli.bot import THINK_S, think_ms
from uno_p2p.cli.lan import (
    Console,
    discovery_for,
    end_in_lobby,
    finish,
    never_started,
    run_with_input,
    say,
)
from uno_p2p.cli.names import add_player_argument, check_name, login_name
from uno_p2p.cli.netui import play_screens, use_screens
from uno_p2p.cli.voice import OUT_OF_RANGE, TOO_LONG, CommandError, options_from
from uno_p2p.errors import ConfigError
from uno_p2p.net import heap
from uno_p2p.net.driver import wall_ms
from uno_p2p.net.link import LinkLost, Timings
from uno_p2p.net.node import HostNode
from uno_p2p.net.seats import LogSaver, Seat, player_identity, seat_path
from uno_p2p.rules.options import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Options
from uno_p2p.rules.options import network_options as with_network_defaults
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase

if TYPE_CHECKING:
    from uno_p2p.ui.netsession import NetSession

MAX_BOTS = MAX_PLAYERS - 1
MAX_PORT = 65535
#: A table that cannot open its port, and what to do.
CANNOT_LISTEN = "the table cannot listen on {address}: {why}"
CANNOT_LISTEN_HINT = ("give --bind an address of this machine (or leave it out: every one) "
                      "and --port a free port (or leave it out: any free one)")
#: The longest table name an advert carries.
MAX_TABLE_NAME = 63


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("host", help="open a table on the network",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", default="", metavar="TABLE",
                        help=f"the table's name, 1 to {MAX_TABLE_NAME} characters "
                             "(default: yours, as in Ann's table)")
    parser.add_argument("--no-mdns", action="store_true",
                        help="neither announce nor browse by mDNS (use --address)")
    add_player_argument(parser)
    parser.add_argument("--preset", default="official", metavar="P",
                        help=f"a set of rules: {', '.join(PRESETS)} (default official; "
                             "docs/rules.md)")
    parser.add_argument("--option", action="append", default=[], metavar="K=V",
                        help="one rule on top of the preset, e.g. stack_draw_two=true "
                             "(docs/rules.md lists them); may be repeated")
    parser.add_argument("--bots", type=int, default=0, metavar="N",
                        help=f"bot peers to seat, each its own process (0 to {MAX_BOTS}, "
                             "default 0)")
    parser.add_argument("--join-code", default=None, help="make the table private")
    parser.add_argument("--port", type=int, default=0,
                        help=f"the port to listen on, 1 to {MAX_PORT} (default 0: any free one)")
    parser.add_argument("--bind", default="0.0.0.0",  # noqa: S104 (a LAN table listens)
                        help="the address to listen on (default all)")
    parser.add_argument("--autoplay", action="store_true",
                        help="a bot plays the host's seat; one game, then exit")
    parser.add_argument("--text", action="store_true",
                        help="plain text instead of the full-screen UI")
    parser.add_argument("--players", type=int, default=0, metavar="N",
                        help=f"start when this many have joined ({MIN_PLAYERS} to "
                             f"{MAX_PLAYERS}, the host included)")
    parser.add_argument("--bot-think", default=None, metavar="SECONDS",
                        help=f"seconds each bot thinks before a move (default {THINK_S:g}; "
                             "0 with --autoplay)")
    parser.add_argument("--bot-output", default=None, help=argparse.SUPPRESS)
    parser.set_defaults(func=host)


def network_options(name: str, overrides: list[str]) -> Options:
    """The preset with overrides, and the network defaults (a turn timer, an UNO grace
    period) where the host set none.

    Raises:
        CommandError: unknown preset or option (with the closest name), or a bad value.
    """
    return with_network_defaults(options_from(name, overrides))


def host(args: argparse.Namespace) -> int:
    """Open the table and play one game.

    Raises:
        ConfigError: a bad option, name or bot count.
    """
    player = check_name(login_name() if args.player is None else args.player)
    if not 0 <= args.bots <= MAX_BOTS:
        raise ConfigError(OUT_OF_RANGE.format(flag="--bots", low=0, high=MAX_BOTS,
                                              value=args.bots))
    if args.players and not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        raise ConfigError(OUT_OF_RANGE.format(flag="--players", low=MIN_PLAYERS,
                                              high=MAX_PLAYERS, value=args.players))
    if not 0 <= args.port <= MAX_PORT:
        raise ConfigError(OUT_OF_RANGE.format(flag="--port", low=0, high=MAX_PORT,
                                              value=args.port))
    if len(args.name) > MAX_TABLE_NAME:
        raise ConfigError(TOO_LONG.format(flag="--name (the table's)", high=MAX_TABLE_NAME,
                                          value=len(args.name)))
    options = network_options(args.preset, args.option)
    players = args.players or 1 + args.bots
    if args.autoplay and players < 2:
        raise ConfigError("--autoplay needs at least one other seat (--bots or --players)")
    options.check_players(max(players, 2))
    bots = Bots(bot_think(args.bot_think, args.autoplay), args.join_code or "", args.bot_output)
    os.umask(0o077)
    heap.settle()
    return asyncio.run(_host(args, player, options, players, bots))


def bot_think(given: str | None, autoplay: bool) -> str:
    """The seconds each bot thinks: as given, else none with ``--autoplay`` (nobody
    watches) and ``THINK_S`` otherwise (so a player can follow the game).

    Raises:
        ConfigError: not a number of seconds in range (checked before any bot starts).
    """
    think = given if given is not None else "0" if autoplay else f"{THINK_S:g}"
    think_ms(think, "--bot-think")
    return think


async def _host(args: argparse.Namespace, player: str, options: Options, players: int,
                bots: Bots) -> int:
    identity = player_identity(player)
    table_id, entropy = secrets.token_bytes(16), secrets.token_bytes(32)
    bot = "heuristic" if args.autoplay else None
    peer = TablePeer.host(identity, entropy, table_id=table_id, name=player, options=options,
                          preset=args.preset, bot=bot, now_ms=wall_ms())
    seat = Seat(identity, entropy, table_id, identity.peer, player, bot or "", "",
                args.join_code or "", seat_path(table_id, identity, player))
    seat.save()
    try:
        return await _open_table(args, player, players, peer, seat, bots)
    except BaseException:
        if never_started(peer):  # nothing was played: no seat, no log (issue 25)
            seat.forget()
        raise


async def _open_table(args: argparse.Namespace, player: str, players: int, peer: TablePeer,
                      seat: Seat, bots: Bots) -> int:
    """Listen, seat the bots, and run the lobby and the game (full screen or text)."""
    console = Console(not args.autoplay)
    table_name = (args.name or f"{player}'s table")[:MAX_TABLE_NAME]
    screens = use_screens(args)
    from uno_p2p.ui.netsession import NetSession  # prompt-toolkit only where a screen is
    session = NetSession(table_name, args.join_code or "", add_bot=bots.add,
                         options_for=network_options)
    node = HostNode(peer, LogSaver.create(seat.log_path),
                    on_event=session.event if screens else console.event,
                    on_note=session.note if screens else console.note,
                    code=args.join_code, timings=Timings(),
                    autostart=players if args.autoplay or args.players else None,
                    discovery=discovery_for(args), table_name=table_name)
    console.driver = session.driver = node
    session.log_path = seat.log_path
    console.on_start = lambda: _start(peer, node)
    bots.address = await _announce(node, args, table_name, seat)
    for _ in range(args.bots):
        await bots.add()
    if screens:
        return await _play_full_screen(session, node, peer, seat, bots)
    return await _play_text(console, node, peer, seat, bots)


def _start(peer: TablePeer, node: HostNode) -> None:
    """The host starts the game: its peer's start entry, sent at once."""
    peer.start(node.clock())
    node.pump()


async def _announce(node: HostNode, args: argparse.Namespace, table_name: str,
                    seat: Seat) -> str:
    """Open the table's port and tell how to join; return the address bots join at.

    Raises:
        CommandError: the port cannot be opened there (``_listen``).
    """
    port = await _listen(node, args.bind, args.port)
    wildcard = args.bind in ("0.0.0.0", "")  # noqa: S104
    where = "127.0.0.1" if wildcard else args.bind
    say(f"Table '{table_name}' is open on port {port}. "
        f"Join with: uno-lan join --address {lan_address() if wildcard else where}:{port}"
        + (" --join-code CODE" if args.join_code else ""))
    say(f"Host key: {seat.identity.peer.fingerprint}")
    return f"{where}:{port}"


async def _play_full_screen(session: NetSession, node: HostNode, peer: TablePeer, seat: Seat,
                            bots: Bots) -> int:
    """The lobby and the game in the full-screen UI, then the audit's verdict."""
    try:
        ok, _ = await play_screens(session, node, node.run, lambda: seat,
                                   f"Others join with: uno-lan join --address {bots.address}")
    finally:
        if peer.state.phase != TablePhase.ENDED:
            bots.abandon()  # the game is abandoned: the bots need not wait
        await bots.stop()
    if peer.state.phase == TablePhase.ENDED:
        seat.ended()
    return EXIT_OK if ok else EXIT_FAILURE


async def _play_text(console: Console, node: HostNode, peer: TablePeer, seat: Seat,
                     bots: Bots) -> int:
    """The lobby and the game as plain text, then the audit's verdict."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: asyncio.ensure_future(node.shutdown("host quit")))
    try:
        await run_with_input(console, node.run)
    finally:
        await bots.stop()
    if never_started(peer):
        end_in_lobby(seat, left=True)  # only the host closes its lobby
        return EXIT_OK
    stopped = "" if peer.stopped is None else str(peer.stopped)
    ok = finish(seat.log_path, console, stopped)
    if peer.state.phase == TablePhase.ENDED:
        seat.ended()
    return EXIT_OK if ok else EXIT_FAILURE  # as in the full screen (play_screens)


async def _listen(node: HostNode, bind: str, port: int) -> int:
    """The table's port, opened.

    Raises:
        CommandError: it cannot be opened there (not this machine's address, a port in
            use), with what to do.
    """
    try:
        return await node.listen(bind, port)
    except LinkLost as error:
        cause = error.__cause__
        why = os.strerror(cause.errno) if isinstance(cause, OSError) and cause.errno \
            else str(error)
        raise CommandError(CANNOT_LISTEN.format(address=f"{bind}:{port}", why=why),
                           CANNOT_LISTEN_HINT) from error


def lan_address() -> str:
    """This machine's address on the LAN, for the join hint (a UDP ``connect`` sends
    nothing: it only asks the kernel which interface would route there)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached
            return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"


@dataclass(slots=True)
class Bots:
    """The bot peers this host starts: how each is launched, and their processes, which
    the host waits for at the end (or ends, when the game is abandoned)."""

    think: str
    join_code: str
    output: str | None
    #: Where the table listens, ``HOST:PORT``; known once its port is open (``_announce``).
    address: str = ""
    processes: list[asyncio.subprocess.Process] = field(default_factory=list)

    async def add(self) -> None:
        """Seat one more bot: its own process, its own keys, its own link (issue 11).

        Raises:
            ConfigError: the table already has ``MAX_BOTS`` bots.
        """
        if len(self.processes) >= MAX_BOTS:
            raise ConfigError(f"a table seats at most {MAX_BOTS} bots besides the host")
        number = len(self.processes) + 1
        command = [sys.executable, "-m", "uno_p2p", "bot", "--address", self.address,
                   "--player", f"Bot {number}", "--think", self.think]
        if self.join_code:
            command += ["--join-code", self.join_code]
        out = _bot_output(self.output, number)
        self.processes.append(await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.DEVNULL,
            stdout=out or asyncio.subprocess.DEVNULL, stderr=out or asyncio.subprocess.DEVNULL))
        if out is not None:
            out.close()

    def abandon(self) -> None:
        """End every bot now: the game will not go on, so none need wait for it."""
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()

    async def stop(self) -> None:
        """Wait for every bot to end its game (killed after 180 s)."""
        for process in self.processes:
            try:
                async with asyncio.timeout(180):
                    await process.wait()
            except TimeoutError:
                process.kill()
                await process.wait()


def _bot_output(directory: str | None, number: int) -> BinaryIO | None:
    """Where a bot's text goes (tests read it); nowhere by default."""
    if not directory:
        return None
    os.makedirs(directory, exist_ok=True)
    return open(os.path.join(directory, f"bot{number}.out"), "wb")
