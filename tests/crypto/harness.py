"""N in-process peers running the deck protocol, every value through its wire form.

Each peer keeps its own ``Deck``; every message one peer makes is encoded with
``to_wire`` and decoded by every other peer with ``from_wire`` before being
verified, as the table will do over the codec.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from uno_p2p.crypto.audit import DeckRecord
from uno_p2p.crypto.context import (
    PURPOSE_DEAL,
    PURPOSE_OPEN,
    PURPOSE_PRIVATE,
    SEAL,
    Verified,
)
from uno_p2p.crypto.deck import Deck
from uno_p2p.crypto.keys import (
    KeyAnnouncement,
    PeerSecrets,
    SecretsReveal,
    peer_label,
    verify_key_announcement,
    verify_secrets_reveal,
)
from uno_p2p.crypto.shares import DecryptionShare
from uno_p2p.crypto.shuffle import ShuffleMessage, shuffle_context

TABLE = b"table-under-test"

#: A dishonest shuffler: given its deck view and secrets, returns its message and proof.
Cheat = Callable[[Deck, PeerSecrets], tuple[ShuffleMessage, bytes]]


def peer_id(seat: int) -> bytes:
    return hashlib.sha256(b"peer %d" % seat).digest()


def fixed_seed(seat: int, tag: bytes = b"") -> bytes:
    return hashlib.sha256(b"seed %d " % seat + tag).digest()


@dataclass
class Peer:
    seat: int
    secrets: PeerSecrets
    keys: list[Verified[KeyAnnouncement]] = field(default_factory=list)
    decks: list[Deck] = field(default_factory=list)
    hand: dict[int, int] = field(default_factory=dict)  # position -> card

    @property
    def deck(self) -> Deck:
        return self.decks[-1]


def _honest_shuffle(deck: Deck, secrets: PeerSecrets) -> tuple[ShuffleMessage, bytes]:
    return deck.make_shuffle(secrets)


class Table:
    """Seats N peers; drives key setup, shuffles, deals and opens."""

    def __init__(self, n: int, *, seeds: Sequence[bytes] | None = None) -> None:
        seeds = seeds or [fixed_seed(seat) for seat in range(n)]
        self.peers = [
            Peer(seat, PeerSecrets.from_seed(seeds[seat], table=TABLE, peer=peer_id(seat)))
            for seat in range(n)
        ]
        self.records: list[DeckRecord] = []
        self._carried: tuple[tuple[int, int], ...] = ()

    def setup_keys(self) -> None:
        wires = [peer.secrets.announce().to_wire() for peer in self.peers]
        for peer in self.peers:
            peer.keys = [
                verify_key_announcement(
                    KeyAnnouncement.from_wire(wire, peer=peer_label(peer_id(seat))),
                    table=TABLE, peer=peer_id(seat),
                )
                for seat, wire in enumerate(wires)
            ]

    def new_deck(
        self, round_number: int, deck: int, card_ids: Sequence[int],
        released: Sequence[tuple[int, Verified[SecretsReveal]]] = (),
        carried: Sequence[tuple[int, int]] = (),
    ) -> None:
        """A new deck; ``carried`` names (record index, position) of unseen cards put back."""
        for peer in self.peers:
            peer.decks.append(Deck(
                table=TABLE, round_number=round_number, deck=deck, keys=peer.keys,
                card_ids=card_ids, released=released,
                carried=[peer.decks[index].ciphertext(position) for index, position in carried],
            ))
            peer.hand = {}
        self._carried = tuple(carried)

    def shuffle(self, cheats: dict[int, Cheat] | None = None, *, trusting: bool = False) -> None:
        """Every shuffling seat in turn; each other peer decodes and verifies.

        ``trusting`` peers skip the proof of shuffle (as if it were broken), so a
        test can reach the second line of defence: openings and the reveal.
        """
        cheats = cheats or {}
        messages = []
        first = self.peers[0].deck
        while (seat := first.next_shuffler) is not None:
            shuffler = self.peers[seat]
            make = cheats.get(seat, _honest_shuffle)
            made, proof = make(shuffler.deck, shuffler.secrets)
            wire = made.to_wire()
            messages.append(ShuffleMessage.from_wire(wire, peer=str(seat)))
            for peer in self.peers:
                message = ShuffleMessage.from_wire(wire, peer=peer_label(peer_id(seat)))
                if trusting:
                    context = shuffle_context(TABLE, first.round, first.deck, peer_id(seat),
                                              turn=len(peer.deck.shuffles))
                    peer.deck.accept_shuffle(Verified(message, context, SEAL))
                else:
                    peer.deck.accept_shuffle(peer.deck.verify_shuffle(message, seat, proof))
        self.records.append(DeckRecord(
            first.round, first.deck, first.card_ids, first.shufflers, tuple(messages),
            self._carried,
        ))

    def broadcast_share(
        self, seat: int, position: int, *, purpose: str, recipient: bytes = b""
    ) -> None:
        sender = self.peers[seat]
        wire = sender.deck.make_share(
            sender.secrets, position, purpose=purpose, recipient=recipient
        ).to_wire()
        for peer in self.peers:
            share = DecryptionShare.from_wire(wire, peer=str(seat))
            peer.deck.accept_share(peer.deck.verify_share(
                share, seat=seat, position=position, purpose=purpose, recipient=recipient
            ))

    def send_private(self, seat: int, position: int, to_seat: int) -> list[object]:
        """``seat``'s share of ``position`` for ``to_seat`` only; returns its wire form."""
        sender = self.peers[seat]
        wire = sender.deck.make_share(
            sender.secrets, position, purpose=PURPOSE_PRIVATE, recipient=peer_id(to_seat)
        ).to_wire()
        receiver = self.peers[to_seat].deck
        receiver.accept_share(receiver.verify_share(
            DecryptionShare.from_wire(wire, peer=str(seat)), seat=seat, position=position,
            purpose=PURPOSE_PRIVATE, recipient=peer_id(to_seat),
        ))
        return wire

    def deal(self, position: int, to_seat: int) -> int:
        recipient = peer_id(to_seat)
        for seat in self.peers[to_seat].deck.missing_shares(position, holder=to_seat):
            self.broadcast_share(seat, position, purpose=PURPOSE_DEAL, recipient=recipient)
        holder = self.peers[to_seat]
        card = holder.deck.open_private(holder.secrets, position)
        holder.hand[position] = card
        return card

    def deal_round(self, cards_each: int) -> None:
        position = 0
        for _ in range(cards_each):
            for seat in range(len(self.peers)):
                self.deal(position, seat)
                position += 1

    def play(self, seat: int, position: int) -> list[int]:
        """The holder opens its card; every peer decrypts and checks the claim."""
        claimed = self.peers[seat].hand.pop(position)
        self.broadcast_share(seat, position, purpose=PURPOSE_OPEN)
        return [
            peer.deck.open_public(position, claimed=claimed, claimant=seat) for peer in self.peers
        ]

    def reveal_all(self) -> list[Verified[SecretsReveal]]:
        return [
            verify_secrets_reveal(
                SecretsReveal.from_wire(peer.secrets.reveal().to_wire(), peer=str(peer.seat)),
                self.peers[0].keys[peer.seat],
            )
            for peer in self.peers
        ]
