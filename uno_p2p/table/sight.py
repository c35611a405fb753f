"""What a peer sees: it opens every card it may (its own hand, the cards privately
revealed to it) and names each claim those faces prove false (table.md §7).

``Sight`` owns what only this peer knows of the cards: the private shares revealed
to it, the share items it may prove its moves with, the slots it wants opened and
the claims it has named. It reads a state and returns the state its player may know
(the engine having learned the faces) and the faults it found, as values: the peer
applies the state through its ledger and turns each fault into an event. The engine
learns a face only here, and only from this peer's own key share and the shares
other seats sent it, so the peer's view of the game holds exactly what its player
may know.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from uno_p2p.crypto.channel import ChannelKey
from uno_p2p.crypto.group import Point, Scalar
from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import CryptoError, InvalidMessage, RemoteProtocolError
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.engine import learn as engine_learn
from uno_p2p.rules.state import Claim
from uno_p2p.table.bodies import ShareItem
from uno_p2p.table.knowledge import false_claims, openable, private_items
from uno_p2p.table.state import Misbehaviour, TablePhase, TableState
from uno_p2p.wire.envelope import Entry


@dataclass(frozen=True, slots=True)
class Fault:
    """A fault this peer's own sight found: who, at which entry, what and why;
    ``stops``: the peer takes no further entry (a card of ours opens to no card)."""

    culprit: PeerId | None
    entry: int
    code: str
    reason: str
    stops: bool = False


class Sight:
    """What this peer privately knows of the cards (table.md §7)."""

    def __init__(self) -> None:
        #: Shares other seats revealed to us, by slot and revealing seat.
        self.private: dict[Slot, dict[int, Point]] = {}
        #: The share items behind them: the proofs our own moves may carry.
        self.received: dict[tuple[Slot, int], ShareItem] = {}
        self.wanted: set[Slot] = set()
        self.claims_named: set[Claim] = set()

    def learn(self, state: TableState, key_share: Scalar) -> tuple[TableState, list[Fault]]:
        """Open every card we may now see: the state with the faces learned, and the
        faults our faces show (a bad shuffle, false claims, each named once)."""
        game, me = state.engine, state.my_seat
        if game is None or me is None or state.phase != TablePhase.PLAYING:
            return state, []
        self.wanted.update(game.hands[me])
        for due in state.privates:
            if due.to == me:
                self.wanted.update(due.slots)
        try:
            faces = openable(state, self.wanted, self.private, key_share)
        except Misbehaviour as error:  # a card of ours opens to no card: a bad shuffle
            return state, [Fault(error.culprit, state.seq, error.code, str(error), stops=True)]
        # Slots of decks before this round's first (or of decks voided by a removal) will
        # never open: stop asking for them.
        first = max(state.void_decks, min(
            (d.number for d in state.decks if d.round == game.round), default=0))
        self.wanted = {s for s in self.wanted if s.shuffle >= first}
        if faces:
            # ``openable`` gives only slots our view does not know yet, each once, so the
            # engine has no face of ours to contradict; every false claim is named once,
            # below, so what ``learn`` found is unused.
            learned, _found = engine_learn(state.game, faces)
            state = replace(state, engine=learned)
        return state, self._false_claims(state)

    def _false_claims(self, state: TableState) -> list[Fault]:
        """Each claim our private faces prove false, once (table.md §7)."""
        found = []
        for claim, reason in false_claims(state, self.claims_named):
            self.claims_named.add(claim)
            found.append(Fault(state.seats[claim.seat], state.seq, claim.rule, reason))
        return found

    def open_private(self, before: TableState, entry: Entry, channel: ChannelKey,
                     me: PeerId, seen: TableState | None) -> Fault | None:
        """A sealed private reveal to us (``before``: the table before it; ``seen``: at
        its author's head): keep its shares, or name its author (table.md §7.3)."""
        try:
            items = private_items(before, entry, channel, me, seen)
        except (InvalidMessage, CryptoError, RemoteProtocolError) as error:
            return Fault(entry.author, entry.seq, "bad_private_share", str(error))
        for slot, seat, item, point in items:
            self.private.setdefault(slot, {})[seat] = point
            self.received[slot, seat] = item
        return None

    def forget(self) -> None:
        """Seat numbers changed and the void round's cards stay shut (table.md §14):
        what we held of them is of no use any more."""
        self.private.clear()
        self.received.clear()
        self.wanted.clear()
