"""The lobby as the UI sees it: the tables on the network, and the seats at one table.

Pure data and pure rendering, like ``render``: the network layer (``uno-lan
host`` / ``join``) turns what it hears (mDNS adverts, docs/protocol/net.md;
lobby entries, docs/protocol/table.md) into these values, and the screens in
``lobby_app`` draw them and call back with what the player chose. Nothing
here knows about sockets, so tests feed the screens from a queue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from prompt_toolkit.utils import get_cwidth

from uno_p2p.net.adverts import TableAdvert
from uno_p2p.net.lookup import is_compatible
from uno_p2p.rules import Options
from uno_p2p.ui import words
from uno_p2p.ui.render import Block, Line, pad, rules_label, wrap


@dataclass(frozen=True, slots=True)
class LobbySeat:
    """One player in the lobby: ``me`` for this screen's player, ``host`` for the host."""

    name: str
    ready: bool = False
    host: bool = False
    bot: bool = False
    me: bool = False
    connected: bool = True


@dataclass(frozen=True, slots=True)
class LobbyView:
    """One table's lobby as this player sees it now.

    ``join_code`` is shown only to the host (who tells it to friends); joiners
    see ``code_needed``. ``started`` ends the lobby: the game begins.
    ``closed`` ends it too, with the reason (``the host closed the table``).
    ``reconnecting``: a joiner's link to the host broke and it is trying again.
    """

    table_name: str
    seats: tuple[LobbySeat, ...]
    max_seats: int
    preset: str
    options: Options
    am_host: bool = False
    join_code: str = ""
    code_needed: bool = False
    started: bool = False
    closed: str = ""
    min_players: int = 2
    reconnecting: bool = False

    @property
    def everyone_ready(self) -> bool:
        """Every seated player is ready (the host starts only then)."""
        return all(seat.ready for seat in self.seats)

    @property
    def can_start(self) -> bool:
        """The host may start: enough players, all ready."""
        return self.am_host and len(self.seats) >= self.min_players and self.everyone_ready

    @property
    def my_seat(self) -> LobbySeat | None:
        return next((seat for seat in self.seats if seat.me), None)


class LobbyActions(Protocol):
    """What a player does in the lobby; the network layer carries it out.

    Each call may raise ``UnoError`` (the host refused, the peer is gone); the
    screen shows its sentence and stays. Host-only calls are offered to the
    host only.
    """

    async def set_ready(self, ready: bool) -> None:
        """Say this player is (or is no longer) ready."""

    async def start(self) -> None:
        """Host: begin the game with the seated players."""

    async def kick(self, seat: int) -> None:
        """Host: remove the player in ``seat`` (an index into ``LobbyView.seats``)."""

    async def set_options(self, preset: str, overrides: Sequence[str]) -> None:
        """Host: the rules for this table (``preset`` and ``name=value`` overrides)."""

    async def add_bot(self) -> None:
        """Host: seat one more bot."""

    async def leave(self) -> None:
        """Leave the table (the host closes it)."""


# -- rendering: the tables on the network ----------------------------------------------------
TABLE_COLUMNS = (("table", 18), ("host", 14), ("seats", 7), ("rules", 10), ("", 14))


def advert_row(advert: TableAdvert) -> str:
    """``Friday night     Ann            2/4     house      join code``."""
    seats = f"{advert.seats_taken}/{advert.seats_taken + advert.seats_free}"
    if not is_compatible(advert):
        note = "other version"
    elif advert.phase == "playing":
        note = "playing"
    elif advert.seats_free <= 0:
        note = "full"
    else:
        note = "join code" if advert.join_code else ""
    cells = (advert.table_name, advert.host_player, seats, advert.preset, note)
    return "".join(_cell(text, width) for text, (_, width) in zip(cells, TABLE_COLUMNS,
                                                                   strict=True)).rstrip()


def joinable(advert: TableAdvert) -> bool:
    """A table in its lobby with a free seat, speaking our protocol version."""
    return advert.phase == "lobby" and advert.seats_free > 0 and is_compatible(advert)


def table_list(adverts: Sequence[TableAdvert], cursor: int, width: int,
               searching_s: int = 0) -> Block:
    """The tables found so far, the chosen one reversed; or what to do when there is none."""
    head = "".join(_cell(title, w) for title, w in TABLE_COLUMNS).rstrip()
    rows: Block = [[("class:header", pad_text(" Tables on this network", width))], [],
                   [("class:muted", f"  {head}")]]
    if not adverts:
        rows += [[("", "  Looking for tables" + "." * (1 + searching_s % 3))], [],
                 *[[("class:muted", f"  {row}")] for row in wrap(
                     words.NONE_FOUND_YET, width - 4)]]
        return rows
    for n, advert in enumerate(adverts):
        text = f"  {advert_row(advert)}"
        if n == cursor:
            style = "class:cursor"
        elif not joinable(advert):
            style = "class:muted"
        else:
            style = ""
        rows.append([(style, pad_text(text, min(width, 72)))])
    return rows


# -- rendering: one table's lobby ------------------------------------------------------------
def lobby_block(view: LobbyView, cursor: int, width: int) -> Block:
    """Seats (who is ready, the host, bots, me), the rules in force and the join code."""
    title = f" {view.table_name} · {len(view.seats)}/{view.max_seats} players"
    rows: Block = [[("class:header", pad_text(title, width))], []]
    name_w = max([get_cwidth(s.name) for s in view.seats] + [8])
    for n, seat in enumerate(view.seats):
        rows.append(seat_line(n, seat, name_w, view.am_host and n == cursor))
    rows += [[("class:muted", f"  {n + 1:>2}. (free seat)")]
             for n in range(len(view.seats), view.max_seats)][:3]
    rows += [[], [("class:marker", "Rules: "), ("", rules_label(view.options))]]
    changes = view.options.describe()
    if changes:
        rows += [[("class:muted", f"  {row}")]
                 for row in wrap("in force: " + ", ".join(changes), width - 4)]
    rows.append([("class:muted", f"  the game ends at {view.options.target} "
                                 f"({view.options.scoring})")])
    if view.am_host and view.join_code:
        rows += [[], [("class:marker", "Join code: "), ("class:uno", view.join_code),
                      ("class:muted", words.TELL_THE_CODE)]]
    elif view.code_needed:
        rows += [[], [("class:muted", words.ASKS_FOR_A_CODE)]]
    rows += [[], [("", waiting_line(view))]]
    return rows


def seat_line(n: int, seat: LobbySeat, name_w: int, selected: bool) -> Line:
    """``  1. Ann       ✓ ready   host`` (``you``, ``bot``, ``not connected``)."""
    ready = ("class:good", "✓ ready    ") if seat.ready else ("class:muted", "· not ready")
    notes = [word for on, word in ((seat.host, "host"), (seat.bot, "bot"), (seat.me, "you"),
                                   (not seat.connected, "not connected")) if on]
    style = "class:cursor" if selected else ("class:me" if seat.me else "")
    return [(style, f"  {n + 1:>2}. {seat.name:<{name_w}} "), ready,
            ("class:muted", f"  {', '.join(notes)}" if notes else "")]


def waiting_line(view: LobbyView) -> str:
    """What the table waits for, in one sentence."""
    if view.reconnecting:
        host = next((s.name for s in view.seats if s.host), "the host")
        return words.LINK_TO_HOST_LOST.format(host=host)
    missing = ["you" if s.me else s.name for s in view.seats if not s.ready]
    if len(view.seats) < view.min_players:
        return words.NEED_PLAYERS.format(count=view.min_players)
    if missing:
        return words.WAITING_FOR_READY.format(names=words.names_and(missing))
    if view.am_host:
        return words.ALL_READY_PRESS_S
    host = next((s.name for s in view.seats if s.host), "the host")
    return words.ALL_READY_WAITING.format(host=host)


def lobby_keys(view: LobbyView) -> list[tuple[str, str]]:
    """The key help line of the lobby: only what this player can do."""
    mine = view.my_seat
    keys = [("r", "not ready" if mine is not None and mine.ready else "ready")]
    if view.am_host:
        if view.can_start:
            keys.append(("s", "start"))
        keys += [("↑↓", "choose"), ("k", "kick"), ("b", "add a bot"), ("o", "rules")]
    keys += [("?", "help"), ("q", "leave")]
    return keys


def _cell(text: str, width: int) -> str:
    if not width:
        return text
    if get_cwidth(text) >= width:
        text = text[:width - 2] + "…"
    return text.ljust(width)


def pad_text(text: str, width: int) -> str:
    """``text`` padded or cut to ``width`` columns."""
    return "".join(t for _, t in pad([("", text)], max(1, width)))
