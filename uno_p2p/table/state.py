"""The table's state as the log has built it: lobby, keys, decks, shares, engine.

docs/protocol/table.md §2. A ``TableState`` is an immutable value, like the
engine's ``State``: ``uno_p2p.table.ledger.apply_entry`` returns a new one, so
an entry that fails a check leaves the old state exactly as it was, and the
sequencer can try an entry before it countersigns it. Mappings inside are
never mutated: they are copied on write.

Everything here is public (the same for every peer of the same log) except
``engine.known``, which holds the faces this viewer has learned.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from uno_p2p.crypto.context import Verified
from uno_p2p.crypto.group import Point
from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.keys import KeyAnnouncement, SecretsReveal
from uno_p2p.crypto.shuffle import Ciphertext
from uno_p2p.errors import LocalProtocolError, RemoteProtocolError
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.options import Options
from uno_p2p.rules.state import State
from uno_p2p.wire.envelope import Entry, Message


class TablePhase(Enum):
    """Where the table stands (docs/protocol/table.md §2)."""

    LOBBY = "lobby"          # joining, options, ready; the host may kick
    KEYS = "keys"            # every seat announces its deck key and commitment
    PLAYING = "playing"      # the engine runs: shuffles, deals, turns, rounds
    REVEALING = "revealing"  # game over or stopped: every seat reveals its secrets
    ENDED = "ended"          # every reveal is in and every shuffle re-executed


#: The only phase changes the table makes (h11-style).
TRANSITIONS: dict[TablePhase, frozenset[TablePhase]] = {
    TablePhase.LOBBY: frozenset({TablePhase.KEYS, TablePhase.ENDED}),
    TablePhase.KEYS: frozenset({TablePhase.PLAYING, TablePhase.REVEALING}),
    TablePhase.PLAYING: frozenset({TablePhase.REVEALING}),
    TablePhase.REVEALING: frozenset({TablePhase.ENDED}),
    TablePhase.ENDED: frozenset(),
}


def check_transition(old: TablePhase, new: TablePhase) -> None:
    """Raises: LocalProtocolError: the table tried a transition it does not list."""
    if new not in TRANSITIONS[old]:
        raise LocalProtocolError(f"no table transition from {old.value} to {new.value}")


class Misbehaviour(RemoteProtocolError):
    """An entry or message that breaks the table protocol, naming who broke it.

    ``peer`` is the culprit's fingerprint, ``culprit`` its key (``None`` when
    only the end-of-game reveal can say who), ``entry`` the sequence number of
    the evidence (``None`` for a message never logged), ``evidence`` the
    signed entries or messages that show it.
    """

    def __init__(self, message: str, *, culprit: PeerId | None, entry: int | None, code: str,
                 evidence: tuple[Entry | Message, ...] = ()) -> None:
        super().__init__(message, peer=None if culprit is None else culprit.fingerprint,
                         entry=entry, code=code)
        self.culprit = culprit
        self.evidence = evidence


@dataclass(frozen=True, slots=True)
class DeckState:
    """One joint shuffle as the log has it (docs/protocol/deck.md §6, §8).

    ``start`` is the starting list (carried ciphertexts, then the known
    ``card_ids`` ascending); ``ciphertexts`` the current one; ``shufflers``
    the seats that still have to shuffle, in order; ``shuffles`` the accepted
    messages as ciphertext tuples, ``proofs`` their proofs of shuffle (as
    sent) and ``entries`` the log entries that carried them, for the reveal's
    re-execution and the audit.
    """

    number: int
    round: int
    card_ids: tuple[int, ...]
    carried: tuple[Slot, ...]
    ciphertexts: tuple[Ciphertext, ...]
    shufflers: tuple[int, ...]
    done: tuple[int, ...] = ()
    shuffles: tuple[tuple[Ciphertext, ...], ...] = ()
    start: tuple[Ciphertext, ...] = ()
    proofs: tuple[bytes, ...] = ()
    entries: tuple[int, ...] = ()
    #: The engine's request as a version 2 shuffle names it (table.md §4.1): the old
    #: slots the deck is made of, and their public faces in the same order.
    sources: tuple[Slot, ...] = ()
    faces: tuple[int, ...] = ()

    def input_of(self, turn: int) -> tuple[Ciphertext, ...]:
        """The deck the ``turn``-th shuffle of this deck took: the start, or the one before."""
        return self.start if turn == 0 else self.shuffles[turn - 1]

    @property
    def next_shuffler(self) -> int | None:
        return self.shufflers[0] if self.shufflers else None

    @property
    def ready(self) -> bool:
        """Every seat has shuffled: positions may be dealt and opened."""
        return not self.shufflers


@dataclass(frozen=True, slots=True)
class PrivateDue:
    """``owed`` seats must send ``to`` their private shares of ``slots`` (a sealed body)."""

    to: int
    slots: tuple[Slot, ...]
    owed: frozenset[int]
    reason: str


@dataclass(frozen=True, slots=True)
class Stop:
    """Why play stopped before the game's end: a culprit named, or a peer that left."""

    code: str
    culprit: PeerId | None
    reason: str
    entry: int
    #: An accusation without evidence (table.md §7.3): who made it, whom it names.
    #: ``culprit`` is then None: an unproven accusation excuses nobody.
    accuser: PeerId | None = None
    accused: PeerId | None = None


@dataclass(frozen=True, slots=True)
class Seating:
    """The lobby as the log has built it."""

    host: PeerId
    names: Mapping[bytes, str]
    channels: Mapping[bytes, bytes]
    joined: tuple[PeerId, ...]
    ready: frozenset[bytes]
    preset: str
    options: tuple[tuple[str, int | bool | str], ...]
    max_players: int


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything the log says, after ``seq`` entries. Build with ``initial_state``."""

    table_id: bytes
    me: bytes | None
    phase: TablePhase
    seq: int = 0
    lobby: Seating | None = None
    seats: tuple[PeerId, ...] = ()
    options: Options | None = None
    keys: tuple[Verified[KeyAnnouncement] | None, ...] = ()
    engine: State | None = None
    decks: tuple[DeckState, ...] = ()
    shares: Mapping[Slot, Mapping[int, Point]] = field(default_factory=dict)
    opened: Mapping[Slot, int] = field(default_factory=dict)
    deals: tuple[tuple[int, tuple[Slot, ...]], ...] = ()
    privates: tuple[PrivateDue, ...] = ()
    clock_ms: int = 0
    #: Whether the sequencer set the table clock since the start (table.md §6.1): the
    #: start clock every peer measures the table clock's progress from.
    clock_started: bool = False
    reveals: Mapping[int, Verified[SecretsReveal]] = field(default_factory=dict)
    channel_seeds: Mapping[int, bytes] = field(default_factory=dict)
    stop: Stop | None = None
    audit_error: str = ""
    #: The seat the sequencer's closing entry named (its reveal never came), or -1.
    closed: int = -1
    #: How many times the sequencer role moved on (table.md §13), and each hand-over:
    #: ``(entry, old sequencer, new sequencer)``.
    term: int = 0
    handovers: tuple[tuple[int, PeerId, PeerId], ...] = ()
    #: Seats removed because they vanished (table.md §14): ``(entry, peer, round)``;
    #: the decks before ``void_decks`` belong to the seating before the last removal.
    removed: tuple[tuple[int, PeerId, int], ...] = ()
    void_decks: int = 0
    #: The table protocol version: entry 0's message version (wire.md §3), which
    #: every later message must carry (``wrong_version``); before entry 0, the one
    #: this peer signs in (``initial_state``).
    version: int = 1

    # -- seats -------------------------------------------------------------------------------
    def seat_of(self, peer: bytes) -> int | None:
        """The seat of a peer key, or None for a peer without one."""
        for seat, seated in enumerate(self.seats):
            if seated.key == peer:
                return seat
        return None

    @property
    def my_seat(self) -> int | None:
        return None if self.me is None else self.seat_of(self.me)

    def name_of(self, peer: bytes) -> str:
        """A peer's lobby name, or its key's start."""
        if self.lobby is not None and peer in self.lobby.names:
            return self.lobby.names[peer]
        return f"peer {peer[:4].hex()}"

    @property
    def player_names(self) -> tuple[str, ...]:
        return tuple(self.name_of(peer.key) for peer in self.seats)

    @property
    def host(self) -> PeerId | None:
        """The sequencer now: the host, or whoever took over from it (table.md §13)."""
        return None if self.lobby is None else self.lobby.host

    @property
    def game(self) -> State:
        """The engine's state.

        Raises:
            LocalProtocolError: the game has not started (a caller's bug).
        """
        if self.engine is None:
            raise LocalProtocolError("the game has not started")
        return self.engine

    @property
    def rules(self) -> Options:
        """The options fixed at the start.

        Raises:
            LocalProtocolError: the game has not started.
        """
        if self.options is None:
            raise LocalProtocolError("the options are fixed at the start")
        return self.options

    def key(self, seat: int) -> Verified[KeyAnnouncement]:
        """A seat's verified key.

        Raises:
            LocalProtocolError: the seat has not announced one.
        """
        key = self.keys[seat] if 0 <= seat < len(self.keys) else None
        if key is None:
            raise LocalProtocolError(f"seat {seat} has no key yet")
        return key

    # -- cards -------------------------------------------------------------------------------
    def ciphertext(self, slot: Slot) -> Ciphertext:
        """The shuffled ciphertext at ``slot``.

        Raises:
            LocalProtocolError: no such shuffle or position, or it is not shuffled yet.
        """
        if not 0 <= slot.shuffle < len(self.decks):
            raise LocalProtocolError(f"no shuffle {slot.shuffle}")
        deck = self.decks[slot.shuffle]
        if not deck.ready or not 0 <= slot.position < len(deck.ciphertexts):
            raise LocalProtocolError(f"slot {tuple(slot)} is not a shuffled position")
        return deck.ciphertexts[slot.position]

    def slot_ready(self, slot: Slot) -> bool:
        """Whether ``slot`` belongs to a finished shuffle (its shares can be made)."""
        return 0 <= slot.shuffle < len(self.decks) and self.decks[slot.shuffle].ready

    def missing_shares(self, slot: Slot) -> list[int]:
        """Seats whose public share of ``slot`` is not in the log yet."""
        have = self.shares.get(slot, {})
        return [seat for seat in range(len(self.seats)) if seat not in have]

    @property
    def reveals_expected(self) -> frozenset[int]:
        """The seats whose secrets the end of the game waits for (a culprit's are not)."""
        culprit = None if self.stop is None or self.stop.culprit is None else \
            self.seat_of(self.stop.culprit.key)
        if self.engine is None and not all(self.keys):
            # Stopped during key setup: only the seats that announced have secrets to show.
            return frozenset(s for s, key in enumerate(self.keys) if key and s != culprit)
        return frozenset(s for s in range(len(self.seats)) if s != culprit)
