"""What a seat chooses to send: the public plug for bots, scripted games and a test's
adversary (issue 26).

A peer sends of its own accord what the protocol asks of it (table.md §5: keys,
shuffles, shares, the reveal); what its player decides is its own: the moves, what
it shows privately to one seat, and whether it does the work it owes at all. The
peer asks its ``Player`` at each of those points and sends what it answers, through
the same signing and the same one-message-in-flight rule as everything else. An
honest seat's player is ``BotPlayer``: its bot moves (or, at a person's seat, the
person, through ``act``), and it reveals and works as it owes.

Only this module's ``Seat`` is what a player sees of its peer: the state, its
secrets, and the few calls that send.
"""

from __future__ import annotations

from typing import Protocol

from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.rules.actions import Action
from uno_p2p.rules.bots import Bot
from uno_p2p.table.bodies import PrivateShares, ShareItem
from uno_p2p.table.state import TableState
from uno_p2p.wire.registry import Body


class Seat(Protocol):
    """What a player sees of its peer, and what it may ask of it."""

    @property
    def state(self) -> TableState: ...

    @property
    def secrets(self) -> PeerSecrets: ...

    @property
    def outstanding(self) -> int | None: ...

    def act(self, action: Action) -> None:
        """A move, checked by the engine and sent with its proofs (``TablePeer.act``)."""

    def send(self, body: Body) -> None:
        """Sign and send ``body`` as our next message, as it is: no check."""

    def proofs(self, action: Action) -> tuple[ShareItem, ...]:
        """The shares that prove the cards ``action`` plays (table.md §5)."""

    def bot(self) -> Bot | None:
        """This seat's bot for the decision at this log position (None: a person's)."""

    def bot_move(self, bot: Bot | None) -> bool:
        """``bot``'s move, when this seat must or may act; True if one went out."""


class Player(Protocol):
    """Who decides what a seat sends beyond the work it owes."""

    def move(self, seat: Seat) -> bool:
        """Make this seat's move now if it will; True if a message went out."""

    def reveal(self, seat: Seat, shares: PrivateShares) -> PrivateShares:
        """The shares this seat shows privately to one seat (owed: ``shares``)."""

    def work(self, seat: Seat, body: Body) -> Body | None:
        """The work the table waits for from this seat (``body``); None: hold it back."""


class BotPlayer:
    """The honest player: the seat's own bot decides; it reveals and works as it owes."""

    def move(self, seat: Seat) -> bool:
        return seat.bot_move(seat.bot())

    def reveal(self, seat: Seat, shares: PrivateShares) -> PrivateShares:
        return shares

    def work(self, seat: Seat, body: Body) -> Body | None:
        return body
