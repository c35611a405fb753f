"""What a table over the network shows besides the game: who is there, the waits, chat.

A local game has none of this; a network session (docs/protocol/table.md §9:
``Progress``, ``PeerMisbehaved``, ``GameEnded``) has all of it. The UI reads it
as one plain value, ``TableStatus``, from any table that offers
``table_status()`` (the ``NetworkTable`` contract), so the screen never depends
on how the session learns it. The renderers here are pure: a status in, lines
of formatted text out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from uno_p2p.ui import words
from uno_p2p.ui.render import Block, Line, wrap
from uno_p2p.ui.session import Table

#: Chat messages a status keeps (older ones scroll away).
CHAT_KEPT = 200
#: The longest chat message the input takes (the wire's MAX_TEXT is the hard limit).
CHAT_MAX = 200
BAR_WIDTH = 12


@dataclass(frozen=True, slots=True)
class Presence:
    """One seat's player and whether their peer is connected now."""

    name: str
    connected: bool
    bot: bool = False


@dataclass(frozen=True, slots=True)
class Progress:
    """A long step every peer waits on: ``Shuffling and proving the deck``, 3 of 4."""

    what: str
    done: int = 0
    total: int = 0

    def __post_init__(self) -> None:
        if self.done < 0 or self.total < 0 or (self.total and self.done > self.total):
            raise ValueError(f"progress {self.done} of {self.total} makes no sense")


@dataclass(frozen=True, slots=True)
class Stopped:
    """Why the game stopped before its end, in words for a player.

    ``who`` is the peer named (empty when nobody is at fault, e.g. everyone left),
    ``why`` the reason, ``provable`` what the log kept so far can still prove
    (``the first 3 rounds and who broke the rules``), ``log`` where the log is.
    """

    who: str
    why: str
    provable: str = ""
    log: str = ""


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One chat message; ``mine`` when this player wrote it."""

    name: str
    text: str
    mine: bool = False


@dataclass(frozen=True, slots=True)
class TableStatus:
    """Everything around the game a network table shows (all optional).

    ``waiting_for`` is a sentence such as ``waiting for Bob to deal``;
    ``turn_ends_ms`` when the player whose turn it is runs out of time (on the
    session's clock, the one ``now_ms`` comes from). At the end, ``verdict`` is
    the audit's verdict on the game's log and ``log`` where that log is kept.
    """

    players: tuple[Presence, ...] = ()
    progress: Progress | None = None
    waiting_for: str = ""
    turn_ends_ms: int | None = None
    stopped: Stopped | None = None
    chat: tuple[ChatLine, ...] = field(default=())
    verdict: str = ""
    log: str = ""
    #: Whether this player's leave would end the game for everyone (table.md §8);
    #: None outside a game.
    leaving_stops: bool | None = None

    @property
    def missing(self) -> tuple[str, ...]:
        """Names of the players whose peer is not connected."""
        return tuple(p.name for p in self.players if not p.connected)


@runtime_checkable
class NetworkTable(Table, Protocol):
    """A table played over the network: the ``Table`` contract plus status and chat."""

    def table_status(self) -> TableStatus:
        """Who is connected, the waits, the stop, the chat, as of now."""

    def send_chat(self, text: str) -> None:
        """Say ``text`` to the table.

        Raises:
            ValueError: an empty or too long message (``check_chat``; nothing is sent).
        """


@runtime_checkable
class PausingTable(Protocol):
    """A table whose next round waits for its player to close the round's scores
    (table.md §6: a seat holds its first shuffle of a new round until then)."""

    def go_on(self) -> None:
        """The player closed the round's scores: the next round may begin."""


def status_of(table: object) -> TableStatus | None:
    """The table's status if it is a network table, else None (a local game)."""
    return table.table_status() if isinstance(table, NetworkTable) else None


# -- rendering ------------------------------------------------------------------------------
def presence_line(status: TableStatus) -> Line:
    """``Connected: Ann ● Bob ○ missing  Bot 1 ● bot``: missing players stand out."""
    if not status.players:
        return []
    line: Line = [("class:muted", words.PLAYERS)]
    for n, player in enumerate(status.players):
        if n:
            line.append(("", "  "))
        if player.connected:
            line.append(("", words.PRESENT.format(name=player.name) +
                         (words.A_BOT if player.bot else "")))
        else:
            line.append(("class:uno", words.MISSING.format(name=player.name)))
    return line


def progress_bar(progress: Progress) -> Line:
    """``Shuffling and proving the deck ▓▓▓▓▓░░░ 3/4``, or the words alone with no total."""
    if not progress.total:
        return [("class:status", f"{progress.what}…")]
    filled = BAR_WIDTH * progress.done // progress.total
    return [("class:status", f"{progress.what} "), ("class:marker", "▓" * filled),
            ("class:muted", "░" * (BAR_WIDTH - filled)),
            ("", f" {progress.done}/{progress.total}")]


def waits(status: TableStatus, now_ms: int) -> Block:
    """The progress, who the table waits for, and the turn timer, one line each."""
    lines: Block = []
    if status.progress is not None:
        lines.append(progress_bar(status.progress))
    if status.waiting_for:
        text = status.waiting_for
        lines.append([("class:muted", text[:1].upper() + text[1:] +
                       ("" if text.endswith((".", "…")) else "…"))])
    if status.turn_ends_ms is not None:
        left = max(0, (status.turn_ends_ms - now_ms + 999) // 1000)
        lines.append([("class:uno" if left <= 5 else "", words.TURN_TIMER.format(left=left))])
    return lines


def stopped_rows(stopped: Stopped) -> Block:
    """The body of the box shown when the game stops: who, why, what the log proves."""
    why = stopped.why.strip().rstrip(".")
    said = f"{stopped.who}: {why}" if stopped.who else why[:1].upper() + why[1:]
    rows: Block = [[("class:uno", words.GAME_STOPPED.format(said=said))]]
    if stopped.provable:
        provable = words.STILL_PROVABLE.format(what=stopped.provable.rstrip("."))
        rows += [[], [("", provable)]]
    if stopped.log:
        rows += [[("class:muted", words.LOG_KEPT_IN.format(log=stopped.log))],
                 [("class:muted", words.AUDIT_COMMAND.format(log=stopped.log))]]
    return rows


def verdict_rows(status: TableStatus) -> Block:
    """Under the final scores of a network game: the audit's verdict and the log's place."""
    rows: Block = []
    if status.verdict:
        rows += [[], [("class:marker", "Audit: "), ("", status.verdict)]]
    if status.log:  # the path once: with ten players the box must still fit 24 rows
        rows += [[("class:muted", words.ANYONE_CAN_CHECK.format(log=status.log))]]
    return rows


def chat_pane(chat: Sequence[ChatLine], height: int, width: int) -> Block:
    """The newest chat messages, wrapped at words to ``width``, at most ``height`` rows."""
    rows: Block = []
    for message in reversed(chat):
        style = "class:news.mine" if message.mine else ""
        text = words.CHAT_LINE.format(who=words.CHAT_YOU if message.mine else message.name,
                                      text=message.text)
        rows[:0] = [[(style, row)] for row in wrap(text, max(8, width))]
        if len(rows) >= height:
            break
    return rows[-height:] if height > 0 else []


def chat_input(text: str, width: int) -> Line:
    """The line being typed, with a cursor block; the start scrolls away when long."""
    room = max(4, width - 8)
    shown = text[-room:]
    return [("class:marker", " say: "), ("", shown), ("class:cursor", " ")]


def check_chat(text: str) -> str:
    """``text`` trimmed, ready to send.

    Raises:
        ValueError: empty, too long, or holding control characters.
    """
    text = text.strip()
    if not text:
        raise ValueError(words.SAY_SOMETHING)
    if len(text) > CHAT_MAX:
        raise ValueError(words.CHAT_TOO_LONG.format(most=CHAT_MAX))
    if any(not ch.isprintable() for ch in text):
        raise ValueError(words.NO_CONTROL_CHARACTERS)
    return text
