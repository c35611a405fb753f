"""Sample game bodies with primitive fields: a play and a decryption share.

docs/protocol/wire.md §5.3. The table protocol defines the game's full set of
bodies on top of the engine's and the deck's own forms; these two are the
shapes it is expected to use, and they give the golden vectors and the
benchmark a realistic entry. A card sits at a *slot*: the shuffle it came from
(0 the first, one more per reshuffle) and its position in that shuffled deck.
"""

from __future__ import annotations

from dataclasses import dataclass

from uno_p2p.errors import InvalidMessage
from uno_p2p.rules.cards import CARD_COUNT, COLOUR_NAMES, is_black, long_name
from uno_p2p.wire import fields
from uno_p2p.wire.codec import WireValue
from uno_p2p.wire.registry import BODIES, Names

#: A ristretto255 point and a DLEQ proof (challenge, response), as the deck stores them.
POINT_BYTES = 32
DLEQ_PROOF_BYTES = 64
#: Shuffles per game and positions per shuffle stay well inside these.
MAX_SHUFFLE = 1 << 20
MAX_POSITION = CARD_COUNT - 1


@dataclass(frozen=True, slots=True)
class Slot:
    """Where a card sits: (shuffle number, position in that shuffled deck)."""

    shuffle: int
    position: int

    def __post_init__(self) -> None:
        fields.integer(self.shuffle, "a shuffle number", lo=0, hi=MAX_SHUFFLE)
        fields.integer(self.position, "a deck position", lo=0, hi=MAX_POSITION)

    def to_wire(self) -> list[WireValue]:
        return [self.shuffle, self.position]

    @classmethod
    def from_wire(cls, value: WireValue) -> Slot:
        """Raises: InvalidMessage: malformed."""
        shuffle, position = fields.array(value, 2, "a slot")
        return cls(fields.integer(shuffle, "a shuffle number", lo=0, hi=MAX_SHUFFLE),
                   fields.integer(position, "a deck position", lo=0, hi=MAX_POSITION))


@BODIES.kind(32, "play")
@dataclass(frozen=True, slots=True)
class PlayCard:
    """A player plays the card at ``slot``, revealing it as ``card``.

    ``colour`` is the colour named for a Wild or Wild Draw Four (RULES.md "A
    turn"), and must be absent for any other card.
    """

    slot: Slot
    card: int
    colour: int | None = None

    def __post_init__(self) -> None:
        fields.integer(self.card, "a card id", lo=0, hi=CARD_COUNT - 1)
        fields.optional_integer(self.colour, "a colour", lo=0, hi=len(COLOUR_NAMES) - 1)
        if is_black(self.card) != (self.colour is not None):
            raise InvalidMessage("a colour is named for a Wild card, and only for one")

    def to_wire(self) -> list[WireValue]:
        return [self.slot.to_wire(), self.card, self.colour]

    @classmethod
    def from_wire(cls, value: WireValue) -> PlayCard:
        """Raises: InvalidMessage: malformed, or a colour where none belongs."""
        slot, card, colour = fields.array(value, 3, "play")
        return cls(Slot.from_wire(slot), fields.integer(card, "a card id", lo=0, hi=CARD_COUNT - 1),
                   fields.optional_integer(colour, "a colour", lo=0, hi=len(COLOUR_NAMES) - 1))

    def describe(self, names: Names) -> str:
        said = f" and named {COLOUR_NAMES[self.colour]}" if self.colour is not None else ""
        return f"played {long_name(self.card)}{said}"


@BODIES.kind(33, "decryption_share")
@dataclass(frozen=True, slots=True)
class DecryptionShare:
    """One peer's decryption share for the card at ``slot``, with its DLEQ proof."""

    slot: Slot
    share: bytes
    proof: bytes

    def __post_init__(self) -> None:
        fields.blob(self.share, "a decryption share", size=POINT_BYTES)
        fields.blob(self.proof, "a DLEQ proof", size=DLEQ_PROOF_BYTES)

    def to_wire(self) -> list[WireValue]:
        return [self.slot.to_wire(), self.share, self.proof]

    @classmethod
    def from_wire(cls, value: WireValue) -> DecryptionShare:
        """Raises: InvalidMessage: malformed."""
        slot, share, proof = fields.array(value, 3, "decryption_share")
        return cls(Slot.from_wire(slot), fields.blob(share, "a decryption share", size=POINT_BYTES),
                   fields.blob(proof, "a DLEQ proof", size=DLEQ_PROOF_BYTES))

    def describe(self, names: Names) -> str:
        return (f"gave a decryption share for shuffle {self.slot.shuffle}, "
                f"position {self.slot.position}")
