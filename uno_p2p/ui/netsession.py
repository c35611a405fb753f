"""The table over the network as the UI sees it: one ``TablePeer`` behind a node.

The screens were built against abstract contracts (``session.Table`` for the
game, ``status.NetworkTable`` for presence, waits and the end, ``lobby``'s
``LobbyView`` and ``LobbyActions``); this module fills them from a real
``HostNode`` or ``JoinNode`` (docs/protocol/net.md §7). It decides nothing
about the game: the view is the peer's own engine state, built from its
verified log (it holds only the faces this peer may know, table.md §5), the
legal moves come from ``legal_actions`` on that state, and a move goes to
``TablePeer.act`` (checked by the engine, then signed and sent).

The session hears the node through ``event`` and ``note`` (give them to the
node as ``on_event`` / ``on_note``), keeps the news in plain words, and wakes
the screens on every change.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import ConfigError, IllegalAction, LocalProtocolError, UnoError
from uno_p2p.net.driver import Driver
from uno_p2p.net.node import HostNode, JoinNode
from uno_p2p.rules import Action, Options, State, legal_actions
from uno_p2p.rules.options import preset
from uno_p2p.table.duties import turn_deadline, waiting_for
from uno_p2p.table.events import (
    ChatSaid,
    GameEnded,
    GameStarted,
    MovePlayed,
    PeerMisbehaved,
    PlayerJoined,
    PlayerLeft,
    PlayerRemoved,
    RoundEnded,
    TableEvent,
)
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.sequencer import RESPONSE_TIMEOUT_MS
from uno_p2p.table.state import TablePhase
from uno_p2p.ui.lobby import LobbySeat, LobbyView
from uno_p2p.ui.session import NEWS_KEPT, RoundSummary, SelfPaced
from uno_p2p.ui.status import CHAT_KEPT, ChatLine, Presence, Stopped, TableStatus

#: How often the lobby looks again even when nothing was heard (presence changes).
LOBBY_POLL_S = 1.0
#: The fewest players a game takes (RULES.md ``players``).
MIN_PLAYERS = 2


class NetSession(SelfPaced):
    """One seat at a network table, for the lobby and game screens (see the module doc).

    ``add_bot`` is the host's way to seat one more bot peer (a process), None
    where this player cannot; ``options_for`` turns the lobby's preset and
    overrides into options (the CLI's rule: network play has a turn timer).
    ``log_path`` is where the node keeps this peer's log.
    """

    def __init__(self, table_name: str = "", join_code: str = "",
                 add_bot: Callable[[], Awaitable[None]] | None = None,
                 options_for: Callable[[str, list[str]], Options] = preset) -> None:
        self.driver: Driver | None = None
        self.table_name = table_name
        self.join_code = join_code
        self.log_path: Path | None = None
        self._add_bot = add_bot
        self._options_for = options_for
        self._news: list[str] = []
        self._chat: list[ChatLine] = []
        self._summaries: list[RoundSummary] = []
        self._listeners: list[Callable[[], None]] = []
        self._changed = asyncio.Event()
        self.result: GameEnded | None = None
        self.verdict = ""
        self.left = ""

    # -- what the node tells us --------------------------------------------------------------
    def event(self, event: TableEvent) -> None:
        """One table event (the node's ``on_event``): news, summaries, a wake-up."""
        if isinstance(event, MovePlayed):
            self._add_news(event.description)
        elif isinstance(event, GameStarted):
            self._add_news(f"The game starts: {', '.join(event.players)}.")
        elif isinstance(event, RoundEnded):
            self._round_ended(event)
        elif isinstance(event, GameEnded):
            self.result = event
            self.game_over()
            if event.winner < 0:
                self._add_news(f"The game is over early: {event.stopped or 'it was stopped'}.")
            if event.audit:
                self._add_news(f"The end-of-game check: {event.audit}")
        elif isinstance(event, PeerMisbehaved):
            self._add_news(f"{event.name or 'A peer'} broke the rules ({event.code}): "
                           f"{event.reason}")
        elif isinstance(event, PlayerJoined):
            self._add_news(f"{event.name} joined the table.")
        elif isinstance(event, ChatSaid):
            self._chat = [*self._chat, ChatLine(event.name, event.text, event.mine)][-CHAT_KEPT:]
        elif isinstance(event, PlayerRemoved):
            # table.md §14: the seats close up; the names the screens read follow.
            self._add_news(f"{event.name} vanished and was removed ({event.reason}); "
                           "the round is void and the others play on.")
        elif isinstance(event, PlayerLeft):
            self._add_news(f"{event.name} {'was removed' if event.kicked else 'left'}"
                           + (f": {event.reason}" if event.reason else "."))
        self._wake()

    def note(self, text: str) -> None:
        """What the node says about links and presence (its ``on_note``)."""
        self._add_news(text[:1].upper() + text[1:])
        self._wake()

    def finished(self, verdict: str, log: Path | None) -> None:
        """The node has stopped: show the audit's ``verdict`` of the log at ``log``."""
        self.verdict = verdict
        self.log_path = log or self.log_path
        self._wake()

    # -- the Table contract ---------------------------------------------------------------
    @property
    def peer(self) -> TablePeer | None:
        """The seat's peer, once the node has one (a joiner gets it on its first link)."""
        return None if self.driver is None else self.driver.seated

    def _peer(self) -> TablePeer:
        peer = self.peer
        if peer is None:
            raise LocalProtocolError("not at a table yet")
        return peer

    @property
    def seat(self) -> int:
        seat = self._peer().state.my_seat
        return 0 if seat is None else seat

    @property
    def names(self) -> tuple[str, ...]:
        return self._peer().state.player_names

    @property
    def news(self) -> Sequence[str]:
        return self._news

    @property
    def summaries(self) -> Sequence[RoundSummary]:
        return self._summaries

    @property
    def in_game(self) -> bool:
        """The game has started and its engine state exists (the table screen can show)."""
        peer = self.peer
        return peer is not None and peer.state.engine is not None and \
            peer.state.my_seat is not None

    def view(self) -> State:
        """The peer's engine state: built from its verified log, only faces it may know.

        Raises:
            LocalProtocolError: the game has not started.
        """
        return self._peer().state.game

    def legal_actions(self) -> list[Action]:
        """The engine's legal moves for this seat now; none while the table works or
        while our last message is on its way (``TablePeer.act`` would refuse)."""
        peer = self.peer
        if peer is None or peer.stopped is not None or peer.outstanding is not None:
            return []
        state, seat = peer.state, peer.state.my_seat
        game = state.engine
        if state.phase != TablePhase.PLAYING or game is None or seat is None or game.awaiting \
                or any(s not in game.known for s in game.hands[seat]):
            return []
        return legal_actions(game, seat)

    def submit(self, action: Action, now_ms: int) -> None:
        """Send the player's move (checked by the engine first).

        Raises:
            IllegalAction: the rules refuse it, it is another seat's, or the table is
                not ready for a move (our last message is still on its way).
        """
        if getattr(action, "seat", -1) != self.seat or self.driver is None:
            raise IllegalAction("you can only act for your own seat", rule="turn")
        try:
            self.driver.act(action)
        except LocalProtocolError as error:
            raise IllegalAction(str(error), rule="turn") from error

    def add_listener(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def deadline_ms(self) -> int | None:
        """When this player's turn times out, on the table clock (wall milliseconds)."""
        ends = self._turn_ends()
        return ends if ends is not None and self._peer().state.game.current == self.seat \
            else None

    def _turn_ends(self) -> int | None:
        # The sequencer's own figure (duties.turn_deadline): a challenge verdict or a
        # starter Wild's colour counts down as a turn does.
        return None if self.peer is None else turn_deadline(self.peer.state)

    # -- the NetworkTable contract ---------------------------------------------------------
    def table_status(self) -> TableStatus:
        """Who is connected, who the table waits for, the turn timer, the stop, the end."""
        peer = self.peer
        if peer is None:
            return TableStatus(waiting_for="connecting to the host")
        state = peer.state
        missing = self._missing()
        players = tuple(Presence(name, name not in missing, name.startswith("Bot "))
                        for name in state.player_names)
        waiting = [s for s in waiting_for(state) if s != state.my_seat]
        text = ""
        if waiting:
            text = f"waiting for {', '.join(state.player_names[s] for s in waiting)} " \
                f"({_doing(state.phase)})"
            gone = [state.player_names[s] for s in waiting if state.player_names[s] in missing]
            if gone and self.driver is not None:
                # table.md §6: the sequencer removes a seat it waits for this long after
                # the last progress; say so instead of promising the table moves on.
                left = max(0, peer.progress_ms + RESPONSE_TIMEOUT_MS - self.driver.clock())
                text += f"; {' and '.join(gone)} removed in {left // 1000} s if not back"
        elif state.phase == TablePhase.REVEALING:
            text = "revealing every secret for the final check"
        # Our own turn's countdown is in the centre already; here, the others' turns.
        ends = None if state.engine is None or state.engine.current == state.my_seat \
            else self._turn_ends()
        return TableStatus(players=players, waiting_for=text, turn_ends_ms=ends,
                           stopped=self._stopped(), verdict=self.verdict,
                           log=str(self.log_path) if self.verdict and self.log_path else "",
                           chat=tuple(self._chat))

    def send_chat(self, text: str) -> None:
        """A chat line to the table (table.md §15: signed, passed on, never logged).

        Raises:
            ValueError: not at a table yet, or a line the chat refuses (nothing is sent).
        """
        try:
            self._peer().say(text, None if self.driver is None else self.driver.clock())
        except LocalProtocolError as error:
            raise ValueError(str(error)) from error
        self._pump()

    def _missing(self) -> set[str]:
        driver = self.driver
        if isinstance(driver, HostNode):
            return {driver.name_of(key) for key in driver.missing}
        if isinstance(driver, JoinNode):
            return set(driver.missing)
        return set()

    def _stopped(self) -> Stopped | None:
        peer, driver = self.peer, self.driver
        log = str(self.log_path) if self.log_path else ""
        if isinstance(driver, JoinNode) and driver.host_lost:
            return Stopped("", "the host is gone", "every move logged so far", log)
        result = self.result
        if result is not None and result.winner < 0 and (peer is None or peer.stopped is None):
            return Stopped("", result.stopped or "the game ended early",
                           "every move logged until then", log)
        if peer is None or peer.stopped is None:
            return None
        error = peer.stopped
        culprit = getattr(error, "culprit", None)
        who = peer.state.name_of(culprit.key) if isinstance(culprit, PeerId) else ""

        return Stopped(who, str(error), "who broke the rules, with the signed evidence", log)

    # -- the lobby ---------------------------------------------------------------------------
    def lobby_view(self) -> LobbyView:
        """The lobby as the log has built it, for ``LobbyScreen``."""
        peer = self.peer
        closed = self._lobby_closed()
        if peer is None or peer.state.lobby is None:
            return LobbyView(self.table_name or "the table", (), 10, "official",
                             preset("official"), closed=closed)
        state, lobby = peer.state, peer.state.lobby
        missing = self._missing()
        seats = tuple(LobbySeat(name := lobby.names.get(p.key, p.fingerprint),
                                ready=p.key in lobby.ready, host=p.key == lobby.host.key,
                                bot=name.startswith("Bot "), me=p.key == peer.peer_id.key,
                                connected=name not in missing)
                      for p in lobby.joined)
        try:
            options = Options.from_wire([list(pair) for pair in lobby.options])
        except ConfigError:
            options = preset("official")
        return LobbyView(self.table_name or f"{state.name_of(lobby.host.key)}'s table", seats,
                         lobby.max_players, lobby.preset or "custom", options,
                         am_host=peer.is_host, join_code=self.join_code if peer.is_host else "",
                         code_needed=bool(self.join_code) and not peer.is_host,
                         started=state.phase != TablePhase.LOBBY and self.in_game,
                         closed=closed, min_players=MIN_PLAYERS,
                         reconnecting=self._reconnecting())

    def _reconnecting(self) -> bool:
        driver = self.driver
        return isinstance(driver, JoinNode) and driver.link is None \
            and not driver.finished.is_set()

    def _lobby_closed(self) -> str:
        driver, peer = self.driver, self.peer
        if self.left:
            return self.left
        if driver is not None and driver.removed:
            return f"the host removed you from the table ({driver.removed})"
        if isinstance(driver, JoinNode) and driver.host_lost:
            return "the host closed the table"
        if peer is not None and peer.stopped is not None:
            return f"the table stopped: {peer.stopped}"
        if driver is not None and driver.finished.is_set() and not self.in_game:
            return "the table closed"
        return ""

    async def lobby_updates(self) -> AsyncIterator[LobbyView]:
        """Each new lobby view, as the log changes (and once a second for presence)."""
        last = self.lobby_view()
        while True:
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(LOBBY_POLL_S):
                    await self._changed.wait()
            view = self.lobby_view()
            if view != last:
                last = view
                yield view

    async def set_ready(self, ready: bool) -> None:
        """Raises: UnoError: the peer cannot say it now."""
        self._peer().set_ready(ready)
        self._pump()

    async def start(self) -> None:
        """Raises: UnoError: not the host, or the lobby refuses."""
        self._peer().start(None if self.driver is None else self.driver.clock())
        self._pump()

    async def kick(self, seat: int) -> None:
        """Raises: UnoError: not the host, or no such seat."""
        lobby = self._peer().state.lobby
        if lobby is None or not 0 <= seat < len(lobby.joined):
            raise ConfigError("there is nobody in that seat")
        self._peer().kick(lobby.joined[seat], "removed by the host")
        self._pump()

    async def set_options(self, preset_name: str, overrides: Sequence[str]) -> None:
        """Raises: ConfigError: an unknown preset or option."""
        self._peer().set_options(self._options_for(preset_name, list(overrides)), preset_name)
        self._pump()

    async def add_bot(self) -> None:
        """Raises: ConfigError: this player cannot seat bots."""
        if self._add_bot is None:
            raise ConfigError("only the host can add a bot")
        await self._add_bot()

    async def leave(self) -> None:
        """Leave the table (in a game, the peer reveals its secrets first, table.md §8)."""
        self.left = "you left the table"
        peer = self.peer
        if peer is not None and peer.state.phase != TablePhase.ENDED and peer.stopped is None:
            try:
                peer.leave("left the table")
                self._pump()
            except UnoError:
                pass
        self._wake()

    async def wait_for_game(self, seconds: float) -> bool:
        """Until the engine exists (the start entry is logged); False after ``seconds``."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while not self.in_game:
            left = end - loop.time()
            if left <= 0 or self._lobby_closed():
                return False
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(left, LOBBY_POLL_S)):
                    await self._changed.wait()
        return True

    # -- internals ---------------------------------------------------------------------------
    def _pump(self) -> None:
        if self.driver is not None:
            self.driver.pump()

    def _wake(self) -> None:
        self._changed.set()
        for listener in self._listeners:
            listener()

    def _add_news(self, line: str) -> None:
        self._news.append(line)
        del self._news[:-NEWS_KEPT]

    def _round_ended(self, event: RoundEnded) -> None:
        peer = self.peer
        game = None if peer is None else peer.state.engine
        names = () if peer is None else peer.state.player_names
        if game is not None:
            # The round-end reveal made every hand public (RULES.md ``scoring``).
            hands = tuple(tuple(game.known[s] for s in hand if s in game.known)
                          for hand in game.hands)
            self._summaries.append(RoundSummary(event.round, event.winner, hands,
                                                event.changes, event.scores))
        who = names[event.winner] if 0 <= event.winner < len(names) else "nobody"
        self._add_news(f"Round {event.round} is over: {who} wins it.")

    def game_over(self) -> None:
        """Mark the last round as the game's end (the screen then shows the final scores)."""
        result = self.result
        if result is None or result.winner < 0 or not self._summaries:
            return
        last = self._summaries[-1]
        if last.game_winner < 0:
            self._summaries[-1] = RoundSummary(last.round, last.winner, last.hands,
                                               last.changes, last.scores, result.winner)


def _doing(phase: TablePhase) -> str:
    """What the table is doing while it waits, in a player's words."""
    return {TablePhase.KEYS: "setting up keys", TablePhase.PLAYING: "shuffling and dealing",
            TablePhase.REVEALING: "the final reveal"}.get(phase, phase.value)
