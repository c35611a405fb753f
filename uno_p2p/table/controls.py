"""What a player does at the table: the lobby controls and the moves (table.md §3.2, §5).

The part of ``TablePeer`` a shell calls for its player: each builds a body and
hands it to the peer's ``send``, which signs it and sends it to the
sequencer (or, for the host, logs it).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.errors import LocalProtocolError, RemoteProtocolError
from uno_p2p.rules.actions import Action
from uno_p2p.rules.engine import apply as engine_apply
from uno_p2p.rules.options import Options
from uno_p2p.table.bodies import Move, PrivateShares, RevealSecrets, ShareItem
from uno_p2p.table.duties import move_proofs
from uno_p2p.table.initiative import Initiative
from uno_p2p.table.outbox import Outbox
from uno_p2p.table.removal import leave_removes
from uno_p2p.table.sequencer import Sequencer
from uno_p2p.table.sight import Sight
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.wire.lobby import Kick, Leave, Ready, SetOptions, Start
from uno_p2p.wire.registry import Body


class Controls(ABC):
    """The player's side of a ``TablePeer``: what it may ask the table to do."""

    sequencer: Sequencer | None
    secrets: PeerSecrets
    channel_seed: bytes
    stopped: RemoteProtocolError | None
    outbox: Outbox
    now_ms: int
    sight: Sight
    initiative: Initiative

    @property
    @abstractmethod
    def state(self) -> TableState:
        """The table as this peer's log has built it."""

    @abstractmethod
    def send(self, body: Body | None = None, *, to: PeerId | None = None,
             private: PrivateShares | None = None) -> None:
        """Sign and send (or, for the host, log) one body."""

    @abstractmethod
    def _drive(self) -> None:
        """Send what the table now waits for from us (duties, then the bot's move)."""

    def set_ready(self, ready: bool = True) -> None:
        """Say whether we are ready; a seat told "not ready" stays so (a bot too)."""
        if not ready:
            self.initiative.stay_not_ready()
        self.send(Ready(ready))

    def set_options(self, options: Options, preset: str = "") -> None:
        """The host changes the rules before the start."""
        self.send(SetOptions(preset, tuple((str(k), v) for k, v in options.to_wire())))

    def start(self, now_ms: int | None = None) -> None:
        """The host starts the game with everyone who joined, in joining order.

        ``now_ms`` is the shell's clock now: the start clock is logged with the start
        (table.md §6.1), and a time last heard minutes ago in the lobby would put it
        behind, so that every peer refuses the next clock entry as running ahead.

        Raises:
            LocalProtocolError: not the host, or the lobby refuses (someone not ready).
        """
        lobby = self.state.lobby
        if self.sequencer is None or lobby is None:
            raise LocalProtocolError("only the host starts the game")
        if now_ms is not None:
            self.now_ms = max(self.now_ms, now_ms)
        self.send(Start(lobby.joined))
        # The host's seat owes its key setup now (table.md §4), and its sequencer logs
        # the start clock with it (§6.1). A joiner's message would drive that too, but
        # the host must not wait for one: if none came the table would time out the
        # host itself.
        self._drive()

    def kick(self, peer: PeerId, reason: str = "") -> None:
        """The host removes a peer from the lobby before the start.

        Raises:
            LocalProtocolError: not the host, or the lobby refuses it.
        """
        if self.sequencer is None:
            raise LocalProtocolError("only the host removes players")
        self.send(Kick(peer, reason))

    def leave(self, reason: str = "") -> None:
        """Leave (table.md §8): in play, a seat the others can play on without is
        removed by the ``leave`` itself; where the leave stops the game instead, this
        peer reveals its secrets first."""
        state, seat = self.state, self.state.my_seat
        if not self.leaving_stops_the_game():
            self.send(Leave(reason))
            return
        if state.phase in (TablePhase.KEYS, TablePhase.PLAYING) and seat is not None \
                and state.keys[seat] is not None:
            reveal = self.secrets.reveal()
            self.send(RevealSecrets(reveal.key_share.to_wire(), reveal.shuffle_master,
                                       self.channel_seed))
            return
        self.send(Leave(reason))

    def leaving_stops_the_game(self) -> bool:
        """Whether our leave would end the game for everyone (table.md §8): False when
        the others play on without us (our seat is removed, §14.2) or no game runs."""
        state = self.state
        seat = state.my_seat
        if state.phase not in (TablePhase.KEYS, TablePhase.PLAYING) or seat is None:
            return False
        return bool(leave_removes(state, state.seats[seat]))

    def go_on(self) -> None:
        """The player closed the round's scores: this seat shuffles for the next round
        now rather than at the end of the pause (table.md §6)."""
        game = self.state.engine
        if game is not None:
            self.initiative.round_pause.go_on(game.round)
        self._drive()

    # -- moves ----------------------------------------------------------------------------
    def act(self, action: Action) -> None:
        """The local player's move: checked by the engine, then sent with its proofs.

        Raises:
            IllegalAction: the rules refuse it now (nothing is sent).
            LocalProtocolError: no game, or a message of ours is still on its way.
        """
        state = self.state
        if state.phase != TablePhase.PLAYING or state.engine is None or self.stopped:
            raise LocalProtocolError("there is no game to move in")
        if self.outbox.outstanding is not None:
            raise LocalProtocolError("wait until our last message is logged")
        engine_apply(state.engine, action, max(state.clock_ms, self.now_ms))
        self.send(Move(action, self.proofs(action)))
        # The host's move may leave it owing shares at once (a card dealt to another
        # seat, table.md §5): send them now rather than at the next joiner's message.
        self._drive()

    def proofs(self, action: Action) -> tuple[ShareItem, ...]:
        """The shares that prove the cards ``action`` plays (table.md §5).

        Raises:
            LocalProtocolError: this peer has no seat.
        """
        seat = self.state.my_seat
        if seat is None:
            raise LocalProtocolError("this peer has no seat")
        return move_proofs(self.state, self.secrets, seat, action, self.sight.received)

