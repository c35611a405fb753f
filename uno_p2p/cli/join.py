"""``uno-lan join``: sit down at a table on the network.

``uno-lan join [TABLE] [--address HOST:PORT] [--player P] [--join-code CODE]
[--resume]``. ``--address`` joins directly (where multicast is blocked);
``TABLE`` finds the table by name with mDNS discovery. ``--resume`` comes
back to the newest unfinished game on this machine (of ``--player``, if
given) after a crash or a kill: the same keys and the log from disk, then
whatever the table logged meanwhile (docs/protocol/table.md §9), from
whichever player keeps the table going now (if the host left, another
player: the seat file keeps where every player listens, net.md §8). In a
terminal a human comes back to the full-screen table; a seat that was a bot
resumes as a bot. If the link breaks, the peer reconnects by itself; if the
host stays gone, the game stops with a plain message, and the log stays on
disk, auditable. A resumed seat that reaches nobody at all stops after ``--give-up``
seconds (30) with exit code 1, its seat file kept for another ``--resume``.

In a terminal a human plays in the full-screen UI (``--text``: plain text):
with neither ``TABLE`` nor ``--address``, a live list of the tables found by
mDNS to pick from, then the table's lobby, then the table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from uno_p2p.cli import EXIT_FAILURE, EXIT_OK
from uno_p2p.cli.lan import (
    FIND_SECONDS,
    Console,
    discovery_for,
    end_in_lobby,
    find_table,
    finish,
    never_started,
    parse_address,
    run_with_input,
    say,
)
from uno_p2p.cli.names import add_player_argument, check_name, login_name
from uno_p2p.cli.netui import play_screens, use_screens
from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import ConfigError
from uno_p2p.net import heap
from uno_p2p.net.driver import wall_ms
from uno_p2p.net.link import Link, LinkLost
from uno_p2p.net.lookup import find_table as find_named
from uno_p2p.net.node import NOBODY_ANSWERED, JoinNode
from uno_p2p.net.seats import LogSaver, Seat, latest_seat, player_identity, seat_path
from uno_p2p.store.unolog import GameLog
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase

if TYPE_CHECKING:
    from uno_p2p.ui.netsession import NetSession

#: The first line of the news of a seat that came back (``--resume``).
RESUMED = "you are back at the table as {name}: the moves made meanwhile follow"

#: How long a joiner keeps trying to reach a host that went away.
GIVE_UP_S = 30.0


def add_join_arguments(parser: argparse.ArgumentParser,
                       said: str = "your login name") -> None:
    """What ``join`` and ``bot`` share; ``said`` names the default ``--player``."""
    parser.add_argument("table", nargs="?", default=None, help="the table's name (mDNS)")
    parser.add_argument("--address", default=None, metavar="HOST:PORT",
                        help="join the host at this address directly")
    parser.add_argument("--fingerprint", default=None, metavar="XXXX-XXXX-XXXX-XXXX",
                        help="the host key's fingerprint: picks one of several tables "
                             "whose names are alike, and is checked when linking")
    parser.add_argument("--no-mdns", action="store_true",
                        help="neither announce nor browse by mDNS (use --address)")
    add_player_argument(parser, said=said)
    parser.add_argument("--join-code", default=None, help="the code of a private table")
    parser.add_argument("--resume", action="store_true",
                        help="come back to the newest unfinished game on this machine")
    parser.add_argument("--text", action="store_true",
                        help="plain text instead of the full-screen UI")
    parser.add_argument("--give-up", type=float, default=GIVE_UP_S, help=argparse.SUPPRESS)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("join", help="sit down at a table on the network",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_join_arguments(parser)
    parser.set_defaults(func=join)


def join(args: argparse.Namespace) -> int:
    """Join as a human (full-screen on a terminal, else plain text), or resume a saved seat.

    Raises:
        ConfigError: no address and no discovery, a bad name, nothing to resume.
    """
    return run_seat(args, None, login_name())


def run_seat(args: argparse.Namespace, bot: str | None, default_player: str) -> int:
    """Join (or resume) one seat; ``bot`` is the bot kind, None for a human.

    Raises:
        ConfigError: as ``join``.
    """
    os.umask(0o077)
    heap.settle()
    if args.resume:
        return asyncio.run(_resume(args, latest_seat(args.player)))
    player = check_name(default_player if args.player is None else args.player)
    identity = Identity(secrets.token_bytes(32)) if bot else player_identity(player)
    return asyncio.run(_join(args, player, identity, bot))


def keep_members(held: list[Seat], note: Callable[[str], None]
                 ) -> Callable[[dict[bytes, tuple[str, int]]], None]:
    """What a node calls when it learns where the members listen: rewrite the seat file
    (``held[0]``, once made) with them, so that ``--resume`` finds the table even after
    a hand-over (net.md §8). A disk that refuses is a note; the game goes on. A seat
    whose file is gone (renamed ``.seat-ended``) is not written again."""
    def remember(addresses: dict[bytes, tuple[str, int]]) -> None:
        if not held or not held[0].path.exists():
            return
        held[0] = held[0].with_usable_members(addresses)
        try:
            held[0].save()
        except ConfigError as error:
            note(f"where the members listen is not saved for --resume: {error}")
    return remember


async def _where(args: argparse.Namespace) -> tuple[tuple[str, int], str | None]:
    """The host's address, and its key fingerprint when an advert gave it.

    Raises:
        ConfigError: no ``--address`` and no discovery, or no such table.
    """
    if args.address:
        return parse_address(args.address), None
    discovery = discovery_for(args)
    if discovery is None:
        raise ConfigError("mDNS discovery is not available here: give --address HOST:PORT")
    try:
        if args.table is None:
            advert = await find_table(discovery, None)
        else:  # look-alike names are refused, a fingerprint picks one (discovery.md §5)
            advert = await find_named(discovery, args.table, FIND_SECONDS,
                                      fingerprint=args.fingerprint)
    finally:
        await discovery.close()
    if not advert.addresses:
        raise ConfigError(f"the table {advert.table_name} gives no address: "
                          "use --address HOST:PORT")
    return (advert.addresses[0], advert.port), advert.host_fingerprint


async def _pick(args: argparse.Namespace) -> bool:
    """With no ``TABLE`` and no ``--address``: the player picks a table found by mDNS
    (sets ``args.address`` and ``args.join_code``); False if they quit.

    Raises:
        ConfigError: no discovery here.
    """
    from uno_p2p.ui.lobby_app import TablePicker
    from uno_p2p.ui.theme import plain_mode

    discovery = discovery_for(args)
    if discovery is None:
        raise ConfigError("mDNS discovery is off here: give --address HOST:PORT")
    try:
        pick = await TablePicker(discovery.browse(), plain_mode()).run()
    finally:
        await discovery.close()
    if pick is None or not pick.advert.addresses:
        return False
    args.address = f"{pick.advert.addresses[0]}:{pick.advert.port}"
    args.join_code = pick.code or args.join_code
    args.fingerprint = pick.advert.host_fingerprint
    args.table = pick.advert.table_name
    return True


async def _join(args: argparse.Namespace, player: str, identity: Identity,
                bot: str | None) -> int:
    screens = bot is None and use_screens(args)
    if screens and not args.address and not args.table and not await _pick(args):
        return EXIT_OK
    address, fingerprint = await _where(args)
    fingerprint = getattr(args, "fingerprint", None) or fingerprint
    console = Console(bot is None)
    made: list[Seat] = []
    if screens:
        from uno_p2p.ui.netsession import NetSession  # prompt-toolkit only for a screen

        session = NetSession(args.table or "", args.join_code or "")
        return await _join_screens(args, player, identity, address, fingerprint, session)

    savers: list[LogSaver] = []

    def make_peer(link: Link) -> tuple[TablePeer, LogSaver]:
        """The seat on the first link; on a later one before any entry, the same seat."""
        if not made:
            made.append(Seat(identity, secrets.token_bytes(32), link.table_id, link.peer, player,
                             bot or "", f"{address[0]}:{address[1]}", args.join_code or "",
                             seat_path(link.table_id, identity, player)))
            made[0].save()
            savers.append(LogSaver.create(made[0].log_path))
            say(f"Connected to the host {link.peer.fingerprint}; joining as {player}.")
        peer = TablePeer.join(identity, made[0].entropy, table_id=link.table_id,
                              host=link.peer, name=player, bot=bot)
        peer.initiative.think_ms = getattr(args, "think_ms", 0)
        return peer, savers[0]

    node = JoinNode(identity, address, make_peer=make_peer, on_event=console.event,
                    on_note=console.note, code=args.join_code, give_up_s=args.give_up,
                    expect_fingerprint=fingerprint,
                    on_members=keep_members(made, console.note))
    return await _play(node, console, lambda: made[0] if made else None)


async def _join_screens(args: argparse.Namespace, player: str, identity: Identity,
                        address: tuple[str, int], fingerprint: str | None,
                        session: NetSession) -> int:
    """A human joins in the full-screen lobby and table (see the module docstring)."""
    made: list[Seat] = []
    savers: list[LogSaver] = []

    def make_peer(link: Link) -> tuple[TablePeer, LogSaver]:
        """As in ``_join``: one seat, its log, made on the first link."""
        if not made:
            made.append(Seat(identity, secrets.token_bytes(32), link.table_id, link.peer, player,
                             "", f"{address[0]}:{address[1]}", args.join_code or "",
                             seat_path(link.table_id, identity, player)))
            made[0].save()
            session.log_path = made[0].log_path
            savers.append(LogSaver.create(made[0].log_path))
            session.note(f"Connected to the host {link.peer.fingerprint}; joining as {player}.")
        peer = TablePeer.join(identity, made[0].entropy, table_id=link.table_id,
                              host=link.peer, name=player, bot=None)
        return peer, savers[0]

    node = JoinNode(identity, address, make_peer=make_peer, on_event=session.event,
                    on_note=session.note, code=args.join_code, give_up_s=args.give_up,
                    expect_fingerprint=fingerprint,
                    on_members=keep_members(made, session.note))
    return await _play_screens(node, session, lambda: made[0] if made else None,
                               "A joiner is ready at once (r: not ready); the host starts.")


async def _resume(args: argparse.Namespace, saved: Seat) -> int:
    address = parse_address(args.address or saved.address)
    log, contents = GameLog.resume(saved.log_path)
    screens = not saved.bot and use_screens(args)
    console = Console(not saved.bot)
    if not screens:
        say(f"Resuming {saved.name} from {saved.log_path} ({len(contents.entries)} entries).")
    peer = TablePeer.resume(saved.identity, saved.entropy, contents.entries, name=saved.name,
                            bot=saved.bot or None, now_ms=wall_ms())
    peer.initiative.think_ms = getattr(args, "think_ms", 0)  # uno-lan bot --resume --think S
    session = _resumed_session(saved) if screens else None
    event = console.event if session is None else session.event
    note = console.note if session is None else session.note
    # Dialled in turn (net.md §5.3): the sequencer the log names now, at its saved
    # address (after a hand-over the host is gone), the other members, then the host.
    held = [saved]
    node = JoinNode(saved.identity, address, make_peer=None, peer=peer,
                    saver=LogSaver(log, contents.entries), on_event=event,
                    on_note=note, code=saved.code or None, expect_host=saved.host,
                    give_up_s=args.give_up, members=saved.member_addresses(),
                    on_members=keep_members(held, note))
    try:
        if session is not None:
            return await _play_screens(node, session, lambda: held[0])
        return await _play(node, console, lambda: held[0])
    except LinkLost as error:
        if error.code != NOBODY_ANSWERED:
            raise
        # The seat file stays: a later --resume may find the table again (net.md §6).
        path = saved.log_path
        raise LinkLost(f"nobody at the table answered in {args.give_up:g} s since "
                       f"{saved.name} came back: the game may have ended or moved on; "
                       f"the seat is kept for another --resume, and its log is at {path} "
                       f"(uno-lan audit {path} checks it)", code=error.code) from error


def _resumed_session(saved: Seat) -> NetSession:
    """The full-screen session of a seat coming back: the table it left, its log."""
    from uno_p2p.ui.netsession import NetSession  # prompt-toolkit only for a screen

    session = NetSession("", saved.code)
    session.log_path = saved.log_path
    session.note(RESUMED.format(name=saved.name))
    return session


async def _play_screens(node: JoinNode, session: NetSession,
                        seat: Callable[[], Seat | None], hint: str = "") -> int:
    """A human seat in the full screen, joining or resumed (back at the table it left,
    issue 25): the end and the exit code are the same for both."""
    session.driver = node
    ok, _ = await play_screens(session, node, node.run, seat, hint)
    current = seat()
    if current is not None and node.seated is not None and \
            node.seated.state.phase == TablePhase.ENDED:
        current.ended()
    return EXIT_OK if ok else EXIT_FAILURE


def why_it_stopped(node: JoinNode) -> str:
    """Why this seat's game ended before its end, in words; empty if it did not."""
    if node.removed:
        return f"the host removed you from the table ({node.removed})"
    if node.host_lost:
        return "the host is gone"
    return "" if node.peer.stopped is None else str(node.peer.stopped)


async def _play(node: JoinNode, console: Console, seat: Callable[[], Seat | None]) -> int:
    console.driver = node
    await run_with_input(console, node.run)
    current = seat()
    if never_started(node.seated):
        end_in_lobby(current, console.left)
        return EXIT_OK
    if current is None:
        return EXIT_FAILURE
    stopped = why_it_stopped(node)
    ok = finish(current.log_path, console, stopped)
    if node.peer.state.phase == TablePhase.ENDED:
        current.ended()
    return EXIT_OK if ok else EXIT_FAILURE
