"""What a peer sees: it opens every card it may (its own hand, the cards privately
revealed to it) and names each claim those faces prove false (table.md §7).

Functions over a ``TablePeer`` (kept apart so the peer stays readable), called
after each entry. The engine learns a face only here, and only from this peer's
own key share and the shares other seats sent it, so the peer's view of the game
holds exactly what its player may know.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from uno_p2p.rules.codec import Slot
from uno_p2p.rules.engine import learn as engine_learn
from uno_p2p.table.knowledge import false_claims, openable
from uno_p2p.table.state import Misbehaviour, TablePhase

if TYPE_CHECKING:
    from uno_p2p.table.peer import TablePeer


def learn(peer: TablePeer) -> None:
    """Open every card this peer may now see and learn it; then name false claims."""
    state = peer.state
    game, me = state.engine, state.my_seat
    if game is None or me is None or state.phase != TablePhase.PLAYING:
        return
    peer.wanted.update(game.hands[me])
    for due in state.privates:
        if due.to == me:
            peer.wanted.update(due.slots)
    try:
        faces = openable(state, peer.wanted, peer.private, peer.secrets.key_share)
    except Misbehaviour as error:  # a card of ours opens to no card: a bad shuffle
        peer._stop(error.culprit, state.seq, error.code, str(error), ())
        return
    # Slots of decks before this round's first (or of decks voided by a removal) will
    # never open: stop asking for them.
    first = max(state.void_decks, min(
        (d.number for d in state.decks if d.round == game.round), default=0))
    peer.wanted = {s for s in peer.wanted if s.shuffle >= first}
    if faces:
        _learn_faces(peer, faces)
    _name_false_claims(peer)


def _learn_faces(peer: TablePeer, faces: list[tuple[Slot, int]]) -> None:
    # ``openable`` gives only slots our view does not know yet, each once, so the engine
    # has no face of ours to contradict (a card seen twice in a deck is its Misbehaviour).
    # Every false claim is named once, by _name_false_claims, so ``found`` is unused.
    game, _found = engine_learn(peer.state.game, faces)
    peer.ledger.state = replace(peer.state, engine=game)


def _name_false_claims(peer: TablePeer) -> None:
    """Name, once, each claim this peer's private faces prove false (table.md §7)."""
    for claim, reason in false_claims(peer.state, peer._claims_named):
        peer._claims_named.add(claim)
        peer._misbehaved(peer.state.seats[claim.seat], peer.state.seq, claim.rule, reason, ())
