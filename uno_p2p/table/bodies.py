"""The table protocol's message bodies: kinds 64 and up.

docs/protocol/table.md §3. Each body is a frozen dataclass with a
fixed-order array as its wire form, registered in the shared ``BODIES``
registry, so the envelope decodes it and refuses anything malformed. Crypto
values (points, proofs, ciphertexts) are carried as the deck's own wire
forms and parsed into checked group elements by the ledger, which knows who
sent them (so a bad point names its peer).
"""

from __future__ import annotations

from dataclasses import dataclass

from uno_p2p.crypto.channel import CHANNEL_KEY_BYTES
from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.shuffle import CIPHERTEXT_BYTES
from uno_p2p.crypto.shuffle_proof import MAX_PROOF_BYTES
from uno_p2p.errors import InvalidMessage
from uno_p2p.rules.actions import (
    Action,
    CatchUno,
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Draw,
    Pass,
    Play,
    SayUno,
    TimeOut,
    action_from_wire,
)
from uno_p2p.rules.cards import CARD_COUNT, COLOUR_NAMES, long_name
from uno_p2p.rules.codec import MAX_SEATS, MAX_SHUFFLES, Slot
from uno_p2p.wire import fields
from uno_p2p.wire.codec import WireValue
from uno_p2p.wire.registry import BODIES, Names

POINT_BYTES = 32
PROOF_BYTES = 64
KEY_ANNOUNCEMENT_ITEMS = 3
#: A batch of shares: every card of a deal to 9 others plus a starter, with room.
MAX_SHARES = 2 * CARD_COUNT
#: Purposes of a share on the wire (docs/protocol/deck.md §2).
PURPOSES = ("deal", "open", "private")
MAX_REASON = 200
MAX_NOW_MS = (1 << 53) - 1
NO_SEAT = -1
#: Fields of a version 2 ``shuffle_deck`` (version 1 has 3).
VERSION_2_FIELDS = 6


def _seat(value: object, item: str, *, optional: bool = False) -> int:
    return fields.integer(value, item, lo=NO_SEAT if optional else 0, hi=MAX_SEATS - 1)


@dataclass(frozen=True, slots=True)
class ShareItem:
    """One proven decryption share: ``[shuffle, prover, purpose, recipient, [p, D, proof]]``.

    ``prover`` is the seat whose key made the share (the author, except for a
    private share forwarded as evidence); ``recipient`` is the seat a deal or
    private share is for, ``-1`` for an open (public) share.
    """

    shuffle: int
    prover: int
    purpose: str
    recipient: int
    position: int
    share: bytes
    proof: bytes

    def __post_init__(self) -> None:
        fields.integer(self.shuffle, "a shuffle number", lo=0, hi=MAX_SHUFFLES)
        _seat(self.prover, "a prover seat")
        _seat(self.recipient, "a recipient seat", optional=True)
        if self.purpose not in PURPOSES:
            raise InvalidMessage(f"a share's purpose is one of {PURPOSES}")
        if (self.purpose == "open") != (self.recipient == NO_SEAT):
            raise InvalidMessage("an open share has no recipient; deal and private ones have one")
        fields.integer(self.position, "a deck position", lo=0, hi=CARD_COUNT - 1)
        fields.blob(self.share, "a decryption share", size=POINT_BYTES)
        fields.blob(self.proof, "a DLEQ proof", size=PROOF_BYTES)

    def to_wire(self) -> list[WireValue]:
        return [self.shuffle, self.prover, self.purpose, self.recipient,
                [self.position, self.share, self.proof]]

    @classmethod
    def from_wire(cls, value: WireValue) -> ShareItem:
        """Raises: InvalidMessage: malformed."""
        shuffle, prover, purpose, recipient, share = fields.array(value, 5, "a share item")
        position, point, proof = fields.array(share, 3, "a decryption share")
        return cls(
            fields.integer(shuffle, "a shuffle number", lo=0, hi=MAX_SHUFFLES),
            _seat(prover, "a prover seat"),
            fields.text(purpose, "a purpose", max_chars=8),
            _seat(recipient, "a recipient seat", optional=True),
            fields.integer(position, "a deck position", lo=0, hi=CARD_COUNT - 1),
            fields.blob(point, "a decryption share", size=POINT_BYTES),
            fields.blob(proof, "a DLEQ proof", size=PROOF_BYTES),
        )

    @property
    def share_wire(self) -> list[object]:
        """The deck's ``DecryptionShare`` wire form."""
        return [self.position, self.share, self.proof]


def _share_items(value: WireValue, item: str) -> tuple[ShareItem, ...]:
    return tuple(ShareItem.from_wire(v) for v in fields.items(value, item, max_len=MAX_SHARES))


def _check_items(items: tuple[ShareItem, ...], item: str) -> None:
    if type(items) is not tuple or len(items) > MAX_SHARES or not all(
        isinstance(i, ShareItem) for i in items
    ):
        raise InvalidMessage(f"{item} must be a tuple of at most {MAX_SHARES} share items")


@BODIES.kind(64, "key_setup")
@dataclass(frozen=True, slots=True)
class KeySetup:
    """A seated peer's key announcement: ``[[h_i, commitment, proof]]`` (deck.md §4.2)."""

    public_key: bytes
    commitment: bytes
    proof: bytes

    def __post_init__(self) -> None:
        fields.blob(self.public_key, "a public key", size=POINT_BYTES)
        fields.blob(self.commitment, "a seed commitment", size=32)
        fields.blob(self.proof, "a key proof", size=PROOF_BYTES)

    def to_wire(self) -> list[WireValue]:
        return [[self.public_key, self.commitment, self.proof]]

    @classmethod
    def from_wire(cls, value: WireValue) -> KeySetup:
        """Raises: InvalidMessage: malformed."""
        (announcement,) = fields.array(value, 1, "key_setup")
        key, commitment, proof = fields.array(announcement, KEY_ANNOUNCEMENT_ITEMS,
                                              "a key announcement")
        return cls(fields.blob(key, "a public key", size=POINT_BYTES),
                   fields.blob(commitment, "a seed commitment", size=32),
                   fields.blob(proof, "a key proof", size=PROOF_BYTES))

    def describe(self, names: Names) -> str:
        return "announced its deck key and shuffle commitment"


@dataclass(frozen=True, slots=True)
class DeckStart:
    """What a version 2 shuffle names of its deck (deck.md §6.1, table.md §4.1): the
    round the deck was requested in and the engine's request, so that a verifier
    without the rules engine can rebuild the proof's context and starting list.

    ``sources`` are the old slots the deck is made of (none: a fresh deck of 108),
    ``faces`` their public faces in the same order (none: the carried ciphertexts
    of a Wild Draw Four sent back).
    """

    round: int
    sources: tuple[Slot, ...] = ()
    faces: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        fields.integer(self.round, "a round", lo=0, hi=MAX_SHUFFLES)
        one_each = not self.faces or len(self.faces) == len(self.sources)
        if type(self.sources) is not tuple or type(self.faces) is not tuple or \
                len(self.sources) > CARD_COUNT or not one_each:
            raise InvalidMessage("a deck's sources and faces are two lists of at most "
                                 f"{CARD_COUNT}, the faces empty or one per source")
        for slot in self.sources:
            fields.integer(slot.shuffle, "a source shuffle", lo=0, hi=MAX_SHUFFLES)
            fields.integer(slot.position, "a source position", lo=0, hi=CARD_COUNT - 1)
        for card in self.faces:
            fields.integer(card, "a card id", lo=0, hi=CARD_COUNT - 1)

    def to_wire(self) -> list[WireValue]:
        return [self.round, [[s.shuffle, s.position] for s in self.sources], list(self.faces)]

    @classmethod
    def from_wire(cls, round_: WireValue, sources: WireValue, faces: WireValue) -> DeckStart:
        """Raises: InvalidMessage: malformed."""
        slots = []
        for pair in fields.items(sources, "a deck's sources", max_len=CARD_COUNT):
            shuffle, position = fields.array(pair, 2, "a source slot")
            slots.append(Slot(fields.integer(shuffle, "a source shuffle", lo=0, hi=MAX_SHUFFLES),
                              fields.integer(position, "a source position", lo=0,
                                             hi=CARD_COUNT - 1)))
        cards = tuple(fields.integer(c, "a card id", lo=0, hi=CARD_COUNT - 1)
                      for c in fields.items(faces, "a deck's faces", max_len=CARD_COUNT))
        return cls(fields.integer(round_, "a round", lo=0, hi=MAX_SHUFFLES), tuple(slots), cards)


@BODIES.kind(65, "shuffle_deck")
@dataclass(frozen=True, slots=True)
class ShuffleDeck:
    """A peer's turn in joint shuffle number ``shuffle``: the re-encrypted deck and its
    proof of shuffle (deck.md §6.3-§6.4).

    The proof's length depends on the deck's size, which only the log knows; here
    it is a bin of at most the 108-card length, and an empty one is a shuffle
    without a proof, which the table refuses naming its author.

    ``start`` is ``None`` in the version 1 form ``[shuffle, deck, proof]``; a
    version 2 table's shuffle names its deck (``DeckStart``) in the form
    ``[shuffle, round, sources, faces, deck, proof]`` (wire.md §5.4): the table
    refuses the form of the other version (``bad_shuffle``).
    """

    shuffle: int
    ciphertexts: tuple[bytes, ...]
    proof: bytes = b""
    start: DeckStart | None = None

    def __post_init__(self) -> None:
        fields.integer(self.shuffle, "a shuffle number", lo=0, hi=MAX_SHUFFLES)
        if type(self.ciphertexts) is not tuple or not 1 <= len(self.ciphertexts) <= CARD_COUNT:
            raise InvalidMessage(f"a shuffle holds 1..{CARD_COUNT} ciphertexts")
        for ciphertext in self.ciphertexts:
            fields.blob(ciphertext, "a ciphertext", size=CIPHERTEXT_BYTES)
        fields.blob(self.proof, "a proof of shuffle", max_size=MAX_PROOF_BYTES)
        if self.start is not None and not isinstance(self.start, DeckStart):
            raise InvalidMessage("a shuffle's deck is named by a DeckStart")

    def to_wire(self) -> list[WireValue]:
        deck: list[WireValue] = [list(self.ciphertexts), self.proof]
        if self.start is None:
            return [self.shuffle, *deck]
        return [self.shuffle, *self.start.to_wire(), *deck]

    @classmethod
    def from_wire(cls, value: WireValue) -> ShuffleDeck:
        """Raises: InvalidMessage: malformed."""
        if isinstance(value, list) and len(value) == VERSION_2_FIELDS:
            shuffle, round_, sources, faces, deck, proof = value
            start: DeckStart | None = DeckStart.from_wire(round_, sources, faces)
        else:
            shuffle, deck, proof = fields.array(value, 3, "shuffle_deck")
            start = None
        items = fields.items(deck, "a shuffled deck", max_len=CARD_COUNT)
        return cls(fields.integer(shuffle, "a shuffle number", lo=0, hi=MAX_SHUFFLES),
                   tuple(fields.blob(c, "a ciphertext", size=CIPHERTEXT_BYTES) for c in items),
                   fields.blob(proof, "a proof of shuffle", max_size=MAX_PROOF_BYTES), start)

    def describe(self, names: Names) -> str:
        return f"shuffled deck {self.shuffle} ({len(self.ciphertexts)} cards)"


@BODIES.kind(66, "shares")
@dataclass(frozen=True, slots=True)
class Shares:
    """A batch of the author's public shares: deals to others and public openings (§4)."""

    items: tuple[ShareItem, ...]

    def __post_init__(self) -> None:
        _check_items(self.items, "shares")
        if not self.items:
            raise InvalidMessage("a shares message carries at least one share")

    def to_wire(self) -> list[WireValue]:
        return [[item.to_wire() for item in self.items]]

    @classmethod
    def from_wire(cls, value: WireValue) -> Shares:
        """Raises: InvalidMessage: malformed."""
        (items,) = fields.array(value, 1, "shares")
        return cls(_share_items(items, "shares"))

    def describe(self, names: Names) -> str:
        return f"gave {len(self.items)} decryption shares"


@BODIES.kind(67, "move")
@dataclass(frozen=True, slots=True)
class Move:
    """An engine action, with the shares that prove the faces it shows (§5).

    A play carries the author's open shares of the played cards; a guilty
    challenge verdict carries the challenged player's private share as
    received (docs/protocol/deck.md §7).
    """

    action: Action
    shares: tuple[ShareItem, ...] = ()

    def __post_init__(self) -> None:
        _check_items(self.shares, "a move's shares")

    def to_wire(self) -> list[WireValue]:
        action: WireValue = self.action.to_wire()  # type: ignore[assignment]
        return [action, [item.to_wire() for item in self.shares]]

    @classmethod
    def from_wire(cls, value: WireValue) -> Move:
        """Raises: InvalidMessage: malformed action or shares."""
        action, shares = fields.array(value, 2, "move")
        return cls(action_from_wire(action), _share_items(shares, "a move's shares"))

    def describe(self, names: Names) -> str:
        return describe_action(self.action)


@BODIES.kind(68, "private_shares")
@dataclass(frozen=True, slots=True)
class PrivateShares:
    """Shares for one peer's eyes only; always sent inside a ``Sealed`` body (§4.3)."""

    items: tuple[ShareItem, ...]

    def __post_init__(self) -> None:
        _check_items(self.items, "private shares")
        if not self.items or any(item.purpose != "private" for item in self.items):
            raise InvalidMessage("private shares carry one or more shares of purpose private")

    def to_wire(self) -> list[WireValue]:
        return [[item.to_wire() for item in self.items]]

    @classmethod
    def from_wire(cls, value: WireValue) -> PrivateShares:
        """Raises: InvalidMessage: malformed."""
        (items,) = fields.array(value, 1, "private_shares")
        return cls(_share_items(items, "private shares"))

    def describe(self, names: Names) -> str:
        return f"revealed {len(self.items)} cards privately"


@BODIES.kind(69, "clock")
@dataclass(frozen=True, slots=True)
class Clock:
    """The sequencer's signed time: the log's ``now_ms`` from here on (§6)."""

    now_ms: int

    def __post_init__(self) -> None:
        fields.integer(self.now_ms, "a time", lo=0, hi=MAX_NOW_MS)

    def to_wire(self) -> list[WireValue]:
        return [self.now_ms]

    @classmethod
    def from_wire(cls, value: WireValue) -> Clock:
        """Raises: InvalidMessage: malformed."""
        (now_ms,) = fields.array(value, 1, "clock")
        return cls(fields.integer(now_ms, "a time", lo=0, hi=MAX_NOW_MS))

    def describe(self, names: Names) -> str:
        return f"the table clock reads {self.now_ms} ms"


@BODIES.kind(70, "reveal_secrets")
@dataclass(frozen=True, slots=True)
class RevealSecrets:
    """``[x_i, m_i, channel seed]``: at the end of the game, or on leaving (§8)."""

    key_share: bytes
    shuffle_master: bytes
    channel_seed: bytes

    def __post_init__(self) -> None:
        fields.blob(self.key_share, "a key share", size=32)
        fields.blob(self.shuffle_master, "a shuffle seed", size=32)
        fields.blob(self.channel_seed, "a channel seed", size=CHANNEL_KEY_BYTES)

    def to_wire(self) -> list[WireValue]:
        return [self.key_share, self.shuffle_master, self.channel_seed]

    @classmethod
    def from_wire(cls, value: WireValue) -> RevealSecrets:
        """Raises: InvalidMessage: malformed."""
        key, master, channel = fields.array(value, 3, "reveal_secrets")
        return cls(fields.blob(key, "a key share", size=32),
                   fields.blob(master, "a shuffle seed", size=32),
                   fields.blob(channel, "a channel seed", size=CHANNEL_KEY_BYTES))

    def describe(self, names: Names) -> str:
        return "revealed its key share, shuffle seed and channel key"


@BODIES.kind(71, "abort")
@dataclass(frozen=True, slots=True)
class Abort:
    """Stop the game and name ``culprit`` for ``code`` (§7).

    ``evidence`` is the culprit's signed message the sequencer refused (empty
    for an accusation about a private share or an unresponsive peer).
    """

    culprit: PeerId
    code: str
    reason: str
    evidence: bytes = b""

    def __post_init__(self) -> None:
        if not isinstance(self.culprit, PeerId):
            raise InvalidMessage("an abort names the culprit's identity")
        fields.text(self.code, "a code", min_chars=1, max_chars=48)
        fields.text(self.reason, "a reason", max_chars=MAX_REASON)
        fields.blob(self.evidence, "evidence", max_size=1 << 20)

    def to_wire(self) -> list[WireValue]:
        return [self.culprit.to_wire(), self.code, self.reason, self.evidence]

    @classmethod
    def from_wire(cls, value: WireValue) -> Abort:
        """Raises: InvalidMessage: malformed."""
        culprit, code, reason, evidence = fields.array(value, 4, "abort")
        return cls(PeerId.from_wire(culprit), fields.text(code, "a code", min_chars=1,
                                                         max_chars=48),
                   fields.text(reason, "a reason", max_chars=MAX_REASON),
                   fields.blob(evidence, "evidence", max_size=1 << 20))

    def describe(self, names: Names) -> str:
        return f"stopped the game: {names(self.culprit.key)} broke the protocol ({self.code})"


#: Hand-over votes a ``handover`` entry may carry: one per seat at most.
MAX_VOTES = MAX_SEATS


@BODIES.kind(72, "handover")
@dataclass(frozen=True, slots=True)
class Handover:
    """``[term, old, new, [[voter, signature], ...]]``: the sequencer role moves on (§13).

    Authored and countersigned by ``new``; ``votes`` are the seated peers'
    signatures over the hand-over vote (table.md §13.2) for exactly the head this
    entry follows, so the entry proves that a majority of seats agreed on both
    the new sequencer and the last entry of the old one.
    """

    term: int
    old: PeerId
    new: PeerId
    votes: tuple[tuple[PeerId, bytes], ...]

    def __post_init__(self) -> None:
        fields.integer(self.term, "a term", lo=1, hi=MAX_SEATS * 4)
        if not isinstance(self.old, PeerId) or not isinstance(self.new, PeerId):
            raise InvalidMessage("a hand-over names the old and the new sequencer")
        if not 1 <= len(self.votes) <= MAX_VOTES:
            raise InvalidMessage(f"a hand-over carries 1 to {MAX_VOTES} votes")
        for voter, signature in self.votes:
            if not isinstance(voter, PeerId):
                raise InvalidMessage("a vote names its voter")
            fields.blob(signature, "a vote signature", size=64)

    def to_wire(self) -> list[WireValue]:
        votes: list[WireValue] = [[voter.to_wire(), sig] for voter, sig in self.votes]
        return [self.term, self.old.to_wire(), self.new.to_wire(), votes]

    @classmethod
    def from_wire(cls, value: WireValue) -> Handover:
        """Raises: InvalidMessage: malformed."""
        term, old, new, votes = fields.array(value, 4, "handover")
        if not isinstance(votes, list) or len(votes) > MAX_VOTES:
            raise InvalidMessage(f"a hand-over carries at most {MAX_VOTES} votes")
        pairs = []
        for vote in votes:
            voter, signature = fields.array(vote, 2, "a vote")
            pairs.append((PeerId.from_wire(voter),
                          fields.blob(signature, "a vote signature", size=64)))
        return cls(fields.integer(term, "a term", lo=1, hi=MAX_SEATS * 4),
                   PeerId.from_wire(old), PeerId.from_wire(new), tuple(pairs))

    def describe(self, names: Names) -> str:
        return (f"took over as sequencer from {names(self.old.key)} (term {self.term}, "
                f"{len(self.votes)} votes)")


@BODIES.kind(73, "remove")
@dataclass(frozen=True, slots=True)
class Remove:
    """``[peer, reason]``: the sequencer removes a seat that vanished (table.md §14).

    The round under way is void and a new one is dealt among the seats left.
    """

    peer: PeerId
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.peer, PeerId):
            raise InvalidMessage("a removal names the peer removed")
        fields.text(self.reason, "a reason", max_chars=MAX_REASON)

    def to_wire(self) -> list[WireValue]:
        return [self.peer.to_wire(), self.reason]

    @classmethod
    def from_wire(cls, value: WireValue) -> Remove:
        """Raises: InvalidMessage: malformed."""
        peer, reason = fields.array(value, 2, "remove")
        return cls(PeerId.from_wire(peer), fields.text(reason, "a reason", max_chars=MAX_REASON))

    def describe(self, names: Names) -> str:
        return f"removed {names(self.peer.key)} from the table ({self.reason})"


def describe_action(action: Action) -> str:
    """An engine action in plain words, as the transcript shows it."""
    if isinstance(action, Play):
        cards = " and ".join(long_name(card) for card in action.cards)
        named = f", naming {COLOUR_NAMES[action.colour]}" if action.colour >= 0 else ""
        extra = " and said UNO" if action.say_uno else ""
        power = f" ({action.power} seat {action.target})" if action.power else ""
        return f"played {cards}{named}{power}{extra}"
    words = {
        Draw: "drew", Pass: "kept the drawn card", SayUno: "said UNO",
        Challenge: "challenged the Wild Draw Four", TimeOut: "timed out the turn",
    }
    if isinstance(action, CatchUno):
        return f"caught seat {action.target} without UNO"
    if isinstance(action, ChallengeVerdict):
        return "gave the verdict: " + ("guilty" if action.guilty else "not guilty")
    if isinstance(action, ChooseColour):
        return f"named {COLOUR_NAMES[action.colour]} for the starter"
    return words.get(type(action), action.TAG)
