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
from dataclasses import replace
from pathlib import Path

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import ConfigError, IllegalAction, LocalProtocolError, UnoError
from uno_p2p.net.driver import Driver
from uno_p2p.net.node import HostNode, JoinNode
from uno_p2p.rules import Action, Options, Phase, Reveal, RoundOver, State, legal_actions
from uno_p2p.rules.options import preset
from uno_p2p.table.duties import turn_deadline, waiting_for
from uno_p2p.table.events import (
    ActionApplied,
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
from uno_p2p.table.removal import LEFT
from uno_p2p.table.sequencer import RESPONSE_TIMEOUT_MS
from uno_p2p.table.state import TablePhase
from uno_p2p.ui.lobby import LobbySeat, LobbyView
from uno_p2p.ui.session import NEWS_KEPT, RoundSummary, SelfPaced
from uno_p2p.ui.status import CHAT_KEPT, ChatLine, Presence, Stopped, TableStatus
from uno_p2p.ui.words import Narrator, back_line, reconnecting_line, removed_line

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
        #: Who was out of reach when the news last said so (``_tell_presence``).
        self._away: set[str] = set()
        self._me_away = False
        #: The hands the last round-end reveal opened, until its ``RoundEnded``.
        self._round_hands: tuple[tuple[int, ...], ...] | None = None
        self.result: GameEnded | None = None
        self.verdict = ""
        self.left = ""

    # -- what the node tells us --------------------------------------------------------------
    def event(self, event: TableEvent) -> None:
        """One table event (the node's ``on_event``): news, summaries, a wake-up."""
        if isinstance(event, ActionApplied):
            self._narrate(event)
        elif isinstance(event, MovePlayed):
            if not self.in_game:  # a seat is told by ``ActionApplied``, as offline
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
            self._add_news(removed_line(event.name, event.reason == LEFT,
                                        self._is_me(event.peer)))
        elif isinstance(event, PlayerLeft):
            self._add_news(f"{event.name} {'was removed' if event.kicked else 'left'}"
                           + (f": {event.reason}" if event.reason else "."))
        self._wake()

    def note(self, text: str) -> None:
        """What the node says about links and presence (its ``on_note``).

        Its sentences are written for a log (fingerprints, addresses, error codes),
        so they stay out of the news: the news tells each change of who is out of
        reach in one short line a player understands (``_tell_presence``).
        """
        del text
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
                           chat=tuple(self._chat),
                           leaving_stops=peer.leaving_stops_the_game() if self.in_game
                           else None)

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

    def go_on(self) -> None:
        """The player closed the round's scores: our seat shuffles for the next round
        now (table.md §6), not at the end of the pause."""
        peer = self.peer
        if peer is not None and peer.stopped is None:
            peer.go_on()
            self._pump()

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

    def _tell_presence(self) -> None:
        """ "Bot 1 is reconnecting…", "Bot 1 is back.", and the same for this player."""
        if not self.in_game:
            return
        away, me_away = self._missing(), self._reconnecting()
        for name in sorted(away - self._away):
            self._add_news(reconnecting_line(name))
        for name in sorted(self._away - away):
            self._add_news(back_line(name))
        if me_away != self._me_away:
            self._add_news(reconnecting_line(None) if me_away else back_line(None))
        self._away, self._me_away = away, me_away

    def _wake(self) -> None:
        self._end_still_stands()
        self._tell_presence()
        self._changed.set()
        for listener in self._listeners:
            listener()

    def _end_still_stands(self) -> None:
        """An end this seat logged alone is no end once a hand-over it had not seen takes
        the table on from an entry before it (table.md §13.4; the node follows the
        table, ``Driver._superseded``): neither the "Game over" box nor an early stop
        may stay on the screen while the game goes on."""
        peer = self.peer
        if self.result is None or peer is None or peer.state.phase == TablePhase.ENDED:
            return
        self.result = None
        if self._summaries and self._summaries[-1].game_winner >= 0:
            self._summaries[-1] = replace(self._summaries[-1], game_winner=-1)

    def _is_me(self, peer: PeerId) -> bool:
        return self.peer is not None and self.peer.peer_id == peer

    def _add_news(self, line: str) -> None:
        self._news.append(line)
        del self._news[:-NEWS_KEPT]

    def _narrate(self, event: ActionApplied) -> None:
        """One engine action, told from this seat as the offline table tells it."""
        before, action = event.before, event.action
        narrator = Narrator(before.players, before.viewer)
        for line in narrator.describe(before, action, event.events, event.after):
            self._add_news(line)
        if isinstance(action, Reveal) and before.phase == Phase.ROUND_OVER:
            # The round-end reveal opens every hand (RULES.md ``scoring``): keep them for
            # the round-over box, as the state before it holds them.
            faces = {**before.known, **dict(action.faces)}
            self._round_hands = tuple(tuple(faces[s] for s in hand if s in faces)
                                      for hand in before.hands)

    def _round_ended(self, event: RoundEnded) -> None:
        hands, self._round_hands = self._round_hands, None
        if hands is None or len(hands) != len(event.scores):
            hands = ((),) * len(event.scores)  # a void round opens no hand
        self._summaries.append(RoundSummary(event.round, event.winner, hands,
                                            event.changes, event.scores))
        if event.winner < 0:  # a seat's won round is told with the reveal that ended it
            self._add_news(Narrator((), -1).round_line(
                self._peer().state.game, RoundOver(event.round, -1, event.changes)))

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
