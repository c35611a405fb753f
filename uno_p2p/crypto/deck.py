"""One peer's view of one jointly shuffled deck.

docs/protocol/deck.md §8. The table keeps one ``Deck`` per deck of a round
(the first deal, then each reshuffle of the discard pile). It holds the
seats' verified keys, the ciphertexts after each accepted shuffle, the
verified decryption shares collected per position, the key shares released
by peers that left, and the cards this peer has seen opened. It takes only
``Verified`` values, so nothing unchecked reaches it; it performs no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from uno_p2p.crypto.context import ProofContext, Verified
from uno_p2p.crypto.group import Point, Scalar
from uno_p2p.crypto.keys import (
    KeyAnnouncement,
    PeerSecrets,
    SecretsReveal,
    joint_key,
    peer_label,
)
from uno_p2p.crypto.shares import (
    DecryptionShare,
    make_share,
    open_card,
    share_from_key,
    verify_share,
)
from uno_p2p.crypto.shuffle import Ciphertext, ShuffleMessage, initial_deck, shuffle_context
from uno_p2p.crypto.shuffle_proof import make_proven_shuffle, verify_proven_shuffle
from uno_p2p.errors import CryptoError, LocalProtocolError


class DuplicateCard(CryptoError):
    """Two positions opened to one card: some shuffle was dishonest.

    With every shuffle proven (§6.4) this needs a broken proof; who cheated is
    then proven at the reveal (``uno_p2p.crypto.audit``).
    """

    code = "duplicate_card"


class ClaimMismatch(CryptoError):
    """A peer claimed a card that the opened position does not hold."""

    code = "claim_mismatch"


class Deck:
    """Ciphertexts, shares and openings of one deck, as one peer sees them."""

    __slots__ = (
        "_opened", "_released", "_shares", "card_ids", "ciphertexts", "deck", "initial",
        "joint_key", "keys", "round", "shufflers", "shuffles", "table",
    )

    def __init__(
        self, *, table: bytes, round_number: int, deck: int,
        keys: Sequence[Verified[KeyAnnouncement]], card_ids: Sequence[int],
        carried: Sequence[Ciphertext] = (),
        released: Sequence[tuple[int, Verified[SecretsReveal]]] = (),
    ) -> None:
        """Start a deck for the seats holding ``keys`` (seat order).

        The deck is ``carried`` (unseen ciphertexts of an earlier deck put back,
        in the order the log names them, §8 step 4) followed by the public encryption
        of the known ``card_ids``, ascending. Seats whose secrets are in
        ``released`` (peers that left) do not shuffle; their shares are computed
        from the released key.

        Raises:
            LocalProtocolError: keys of another table, an empty deck, or no
                seat left to shuffle.
        """
        if any(key.context.table != table for key in keys):
            raise LocalProtocolError("every key must belong to this table")
        self.table, self.round, self.deck = table, round_number, deck
        self.keys = tuple(keys)
        self.joint_key = joint_key(list(keys))
        self.card_ids = tuple(sorted(card_ids))
        known = initial_deck(card_ids) if card_ids else ()
        self.initial = tuple(carried) + known
        if not self.initial:
            raise LocalProtocolError("a deck holds at least one card")
        self.ciphertexts = self.initial
        self.shuffles: list[Verified[ShuffleMessage]] = []
        self._released: dict[int, Scalar] = {}
        for seat, reveal in released:
            self.release_key(seat, reveal)
        self.shufflers = tuple(s for s in range(len(keys)) if s not in self._released)
        if not self.shufflers:
            raise LocalProtocolError("a deck needs at least one seat to shuffle it")
        self._shares: dict[int, dict[int, Point]] = {}
        self._opened: dict[int, int] = {}

    # -- seats --------------------------------------------------------------

    def peer_of(self, seat: int) -> bytes:
        """The peer id at ``seat``."""
        return self.keys[seat].context.peer

    def seat_of(self, peer: bytes) -> int:
        """The seat of a peer id.

        Raises:
            LocalProtocolError: the peer has no seat here.
        """
        for seat, key in enumerate(self.keys):
            if key.context.peer == peer:
                return seat
        raise LocalProtocolError("this peer has no seat at the deck")

    # -- shuffling (§6) -----------------------------------------------------

    @property
    def next_shuffler(self) -> int | None:
        """The seat that shuffles next, or ``None`` once all have."""
        done = len(self.shuffles)
        return self.shufflers[done] if done < len(self.shufflers) else None

    @property
    def shuffled(self) -> bool:
        """Whether every shuffling seat has shuffled: dealing may begin."""
        return self.next_shuffler is None

    def _shuffle_context(self, seat: int) -> ProofContext:
        return shuffle_context(self.table, self.round, self.deck, self.peer_of(seat),
                               turn=len(self.shuffles))

    def make_shuffle(self, secrets: PeerSecrets) -> tuple[ShuffleMessage, bytes]:
        """This peer's shuffle of the current ciphertexts and its proof of shuffle (§6.4).

        Raises:
            LocalProtocolError: it is not this peer's turn to shuffle.
        """
        seat = self.next_shuffler
        if seat is None or self.peer_of(seat) != secrets.peer:
            raise LocalProtocolError("it is not this peer's turn to shuffle")
        message, proof = make_proven_shuffle(
            self.ciphertexts, shuffle_master=secrets.shuffle_master, round_number=self.round,
            deck=self.deck, joint_key=self.joint_key, context=self._shuffle_context(seat),
        )
        return message, proof.to_wire()

    def verify_shuffle(
        self, message: ShuffleMessage, seat: int, proof: bytes
    ) -> Verified[ShuffleMessage]:
        """Check a seat's shuffle of the current ciphertexts and its proof of shuffle.

        Raises:
            LocalProtocolError: not that seat's turn (the table orders shuffles).
            ShuffleRejected: the message does not fit this deck, or has no proof.
            ProofRejected / InvalidMessage / InvalidPoint / InvalidScalar: the
                proof is malformed or does not verify.
        """
        if seat != self.next_shuffler:
            raise LocalProtocolError(f"seat {seat} is not the next to shuffle")
        return verify_proven_shuffle(message, proof, self.ciphertexts,
                                     joint_key=self.joint_key,
                                     context=self._shuffle_context(seat))

    def accept_shuffle(self, verified: Verified[ShuffleMessage]) -> None:
        """Make a verified shuffle the current deck.

        Raises:
            LocalProtocolError: it was verified for another deck or seat.
        """
        expected = self.next_shuffler
        context = verified.context
        if expected is None or context != self._shuffle_context(expected):
            raise LocalProtocolError("this shuffle was verified for another deck or seat")
        self.shuffles.append(verified)
        self.ciphertexts = verified.value.ciphertexts

    # -- shares (§7) --------------------------------------------------------

    def ciphertext(self, position: int) -> Ciphertext:
        """The shuffled ciphertext at ``position``.

        Raises:
            LocalProtocolError: the deck is not shuffled yet, or no such position.
        """
        if not self.shuffled:
            raise LocalProtocolError("the deck is not shuffled yet")
        if not 0 <= position < len(self.ciphertexts):
            raise LocalProtocolError(f"no position {position} in a deck of {len(self.ciphertexts)}")
        return self.ciphertexts[position]

    def share_context(
        self, position: int, seat: int, *, purpose: str, recipient: bytes = b""
    ) -> ProofContext:
        """The context of ``seat``'s share of ``position`` for ``purpose``."""
        return ProofContext(
            self.table, self.round, self.deck, purpose, self.peer_of(seat), position, recipient
        )

    def make_share(
        self, secrets: PeerSecrets, position: int, *, purpose: str, recipient: bytes = b""
    ) -> DecryptionShare:
        """This peer's share of ``position``, proven for ``purpose`` and ``recipient``."""
        context = self.share_context(
            position, self.seat_of(secrets.peer), purpose=purpose, recipient=recipient
        )
        return make_share(secrets, self.ciphertext(position), context)

    def verify_share(
        self, share: DecryptionShare, *, seat: int, position: int, purpose: str,
        recipient: bytes = b"",
    ) -> Verified[DecryptionShare]:
        """Check ``seat``'s share of ``position`` (the position the log expects).

        Raises:
            ShareRejected: the share names another position.
            ProofRejected: a wrong share, or a proof from another context.
        """
        context = self.share_context(position, seat, purpose=purpose, recipient=recipient)
        return verify_share(
            share, ciphertext=self.ciphertext(position), key=self.keys[seat], context=context
        )

    def accept_share(self, verified: Verified[DecryptionShare]) -> None:
        """Record a verified share.

        Raises:
            LocalProtocolError: it was verified for another deck.
        """
        context = verified.context
        if (context.table, context.round, context.deck) != (self.table, self.round, self.deck):
            raise LocalProtocolError("this share was verified for another deck")
        if context.position is None:
            raise LocalProtocolError("a share names a position")
        seat = self.seat_of(context.peer)
        self._shares.setdefault(context.position, {})[seat] = verified.value.share

    def add_own_share(self, secrets: PeerSecrets, position: int) -> None:
        """Record this peer's own share of ``position`` (its own secret: no proof to check).

        Lets the holder of a card open it publicly in its own view without
        verifying the proof it just made for the others.
        """
        seat = self.seat_of(secrets.peer)
        own = share_from_key(secrets.key_share, self.ciphertext(position))
        self._shares.setdefault(position, {})[seat] = own

    def release_key(self, seat: int, reveal: Verified[SecretsReveal]) -> None:
        """A peer left and published its key: compute its shares from now on.

        Raises:
            LocalProtocolError: the reveal was verified for another seat.
        """
        if reveal.context.peer != self.peer_of(seat):
            raise LocalProtocolError("this reveal is another seat's")
        self._released[seat] = reveal.value.key_share

    def has_share(self, position: int, seat: int) -> bool:
        """Whether ``seat``'s share of ``position`` is known (received or released)."""
        return seat in self._released or seat in self._shares.get(position, {})

    def missing_shares(self, position: int, *, holder: int | None = None) -> list[int]:
        """Seats whose share of ``position`` is still needed (``holder``'s excepted)."""
        return [
            seat for seat in range(len(self.keys))
            if seat != holder and not self.has_share(position, seat)
        ]

    def _share_of(self, position: int, seat: int) -> Point:
        released = self._released.get(seat)
        if released is not None:
            return share_from_key(released, self.ciphertext(position))
        return self._shares[position][seat]

    # -- opening (§7) -----------------------------------------------------

    def open_private(self, secrets: PeerSecrets, position: int) -> int:
        """Open a card dealt or revealed to this peer: others' shares plus its own.

        Raises:
            LocalProtocolError: a share is still missing.
            UnknownCard / DuplicateCard: the deck or a share was bad.
        """
        seat = self.seat_of(secrets.peer)
        own = share_from_key(secrets.key_share, self.ciphertext(position))
        return self._open(position, own, skip=seat)

    def open_public(
        self, position: int, *, claimed: int | None = None, claimant: int | None = None
    ) -> int:
        """Open a card from every seat's share; check a claimed card if given.

        Raises:
            LocalProtocolError: a share is still missing.
            ClaimMismatch: the card is not the one ``claimant`` claimed.
            UnknownCard / DuplicateCard: the deck or a share was bad.
        """
        card = self._open(position, None, skip=None)
        if claimed is not None and card != claimed:
            raise ClaimMismatch(
                f"position {position} holds card {card}, not the claimed {claimed}",
                peer=None if claimant is None else peer_label(self.peer_of(claimant)),
                item=f"card at position {position}",
            )
        return card

    def _open(self, position: int, own: Point | None, *, skip: int | None) -> int:
        missing = self.missing_shares(position, holder=skip)
        if missing:
            raise LocalProtocolError(f"position {position} still needs shares from {missing}")
        shares = [self._share_of(position, seat) for seat in range(len(self.keys)) if seat != skip]
        if own is not None:
            shares.append(own)
        item = f"card at position {position}"
        card = open_card(self.ciphertext(position), shares, item=item)
        for other, seen in self._opened.items():
            if seen == card and other != position:
                raise DuplicateCard(
                    f"positions {other} and {position} both hold card {card}", item=item
                )
        self._opened[position] = card
        return card

    @property
    def opened(self) -> dict[int, int]:
        """Position -> card for every card this peer has opened."""
        return dict(self._opened)
