"""What a cheat does, once: shared by the table tests' adversaries and the reference logs.

``tests/table/adversaries.py`` wraps these in peers that cheat among honest
ones; ``scripts/make_reference_logs.py`` plays the same cheats (through a
peer, or by rewriting a peer's message on its way to the host) to record the
audit's reference logs. Keeping one copy means a cheat the tests prove the
table catches is the very cheat the audit is shown. Each helper only builds
the forged body or state; who sends it, and when, stays with the caller.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from uno_p2p.crypto.cards import card_point
from uno_p2p.crypto.group import Scalar, base_mul
from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.crypto.shuffle import Ciphertext, shuffle_context
from uno_p2p.crypto.shuffle_proof import make_proven_shuffle
from uno_p2p.rules.actions import ChallengeVerdict, Play
from uno_p2p.rules.cards import CARD_COLOUR
from uno_p2p.rules.state import State
from uno_p2p.table.bodies import Move, ShuffleDeck
from uno_p2p.table.duties import Owed, make_item
from uno_p2p.table.game import named_deck, table_key
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TableState
from uno_p2p.wire.envelope import Entry

#: The first card id of the black cards (Wilds 100-103, Wild Draw Fours 104-107).
WILD = 100
WILD_DRAW_FOUR = 104


def holds_colour(faces: Iterable[int], colour: int) -> bool:
    """Whether these cards hold one of ``colour`` (RULES.md: a Wild Draw Four "may be
    played only" without the colour to match; black cards have none)."""
    return any(card < WILD and CARD_COLOUR[card] == colour for card in faces)


def forget_hand(state: TableState, seat: int) -> TableState:
    """``state`` with the faces of ``seat``'s hand forgotten.

    A cheat's own client must let its lie into its own ledger: the engine
    would refuse what the faces it knows disprove, so the cheat forgets them
    for that one entry (everyone else learns them at the round's reveal).
    """
    game = state.engine
    assert game is not None
    hand = set(game.hands[seat])
    blind = replace(game, known={s: c for s, c in game.known.items() if s not in hand})
    return replace(state, engine=blind)


class BlindToItsVerdict(TablePeer):
    """Takes its own challenge verdict into its ledger without the challenged hand it saw
    (so a lying verdict passes its own engine)."""

    def judging(self, entry: Entry) -> None:
        game = self.ledger.state.engine
        if entry.author == self.peer_id and isinstance(entry.body, Move) and game is not None \
                and game.challenge is not None and isinstance(entry.body.action, ChallengeVerdict):
            self.ledger.state = forget_hand(self.ledger.state, game.challenge[1])


def bluff_play(game: State, seat: int) -> Play | None:
    """A Wild Draw Four ``seat`` could play on its turn while holding the colour to match
    (with three cards or more, so the game goes on), naming the next colour; else None."""
    hand = game.hands[seat]
    faces = {slot: game.known[slot] for slot in hand if slot in game.known}
    fours = [slot for slot, card in faces.items() if card >= WILD_DRAW_FOUR]
    colour = game.colour
    if game.current != seat or game.pending or game.drawn is not None or not fours or \
            len(hand) < 3 or colour is None or not holds_colour(faces.values(), colour):
        return None
    return Play(seat, (fours[0],), (faces[fours[0]],), (colour + 1) % 4)


def first_card_play(state: TableState, secrets: PeerSecrets, seat: int,
                    game: State | None = None) -> Move:
    """``seat`` plays the first card of its hand (as ``game``, by default the table's
    engine, knows it), opened with its own share, whoever has the turn; a Wild names red."""
    game = state.engine if game is None else game
    assert game is not None
    slot = game.hands[seat][0]
    card = game.known[slot]
    item = make_item(state, secrets, seat, Owed(slot, "open", -1))
    return Move(Play(seat, (slot,), (card,), 0 if card >= WILD else -1), (item,))


def stacked_deck(state: TableState, shuffle: int) -> tuple[bytes, ...]:
    """Deck ``shuffle``'s cards in an order the cheat chose, freshly encrypted under the
    joint key with randomness it knows (issue 9's attack: it would know every card)."""
    deck, key = state.decks[shuffle], table_key(state)
    stacked = []
    for k, card in enumerate(sorted(deck.card_ids, reverse=True)):
        r = Scalar.of(1000 + k)
        stacked.append(Ciphertext(base_mul(r), card_point(card) + key * r).to_wire())
    return tuple(stacked)


def shuffle_from(state: TableState, shuffle: int, peer: bytes,
                 shuffle_master: bytes) -> ShuffleDeck:
    """``peer``'s true, proven shuffle of deck ``shuffle`` from ``shuffle_master``: valid
    on arrival, but from a seed ``peer`` never committed to, so only the end-of-game
    re-execution shows it (docs/protocol.md, the reveal)."""
    deck = state.decks[shuffle]
    context = shuffle_context(state.table_id, deck.round, deck.number, peer,
                              turn=len(deck.done))
    message, proof = make_proven_shuffle(
        deck.ciphertexts, shuffle_master=shuffle_master, round_number=deck.round,
        deck=deck.number, joint_key=table_key(state), context=context)
    start = named_deck(deck) if state.version >= 2 else None
    return ShuffleDeck(shuffle, tuple(message.to_wire()), proof.to_wire(), start)
