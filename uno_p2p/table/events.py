"""What a table peer tells its UI, CLI or bot driver: typed, frozen events.

docs/protocol/table.md §9. The ledger produces the public facts (every peer
of the same log produces the same ones, in the same order); the peer adds
what only it knows (its hand, its turn, its waits).
"""

from __future__ import annotations

from dataclasses import dataclass

from uno_p2p.crypto.identity import PeerId
from uno_p2p.rules.actions import Action
from uno_p2p.rules.events import Event
from uno_p2p.rules.options import Options
from uno_p2p.rules.state import State
from uno_p2p.wire.envelope import Entry, Message


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    """``name`` took a place in the lobby."""

    peer: PeerId
    name: str


@dataclass(frozen=True, slots=True)
class OptionsChanged:
    """The host's preset and options, shown to everyone before the start."""

    preset: str
    options: Options


@dataclass(frozen=True, slots=True)
class PlayerReady:
    peer: PeerId
    name: str
    ready: bool


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """A peer left (``kicked``: the host removed it before the start)."""

    peer: PeerId
    name: str
    kicked: bool
    reason: str


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The seats are fixed (seat 0 first) and key setup begins."""

    players: tuple[str, ...]
    options: Options


@dataclass(frozen=True, slots=True)
class MovePlayed:
    """Something happened at the table, in plain words (``Ann played Red 7``)."""

    seat: int
    description: str
    entry: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """Round ``round`` is scored; ``winner`` is -1 for a void round."""

    round: int
    winner: int
    changes: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """Every reveal is in. ``winner`` is -1 when the game stopped early.

    ``audit`` is empty when every shuffle re-executed from its revealed seed,
    else what could not be proven or who cheated.
    """

    winner: int
    scores: tuple[int, ...]
    stopped: str
    audit: str


@dataclass(frozen=True, slots=True)
class PeerMisbehaved:
    """``peer`` broke the protocol or the rules; ``evidence`` shows it to anyone."""

    peer: PeerId | None
    name: str
    entry: int | None
    code: str
    reason: str
    evidence: tuple[Entry | Message, ...] = ()


@dataclass(frozen=True, slots=True)
class SequencerChanged:
    """The sequencer role moved on from ``old`` to ``new`` at ``entry`` (table.md §13)."""

    old: PeerId
    new: PeerId
    old_name: str
    new_name: str
    term: int
    entry: int


@dataclass(frozen=True, slots=True)
class PlayerRemoved:
    """``peer`` vanished and was removed at ``entry``; round ``round`` is void (§14)."""

    peer: PeerId
    name: str
    round: int
    entry: int
    reason: str


@dataclass(frozen=True, slots=True)
class YourTurn:
    """This peer's player must act; ``actions`` are its legal moves."""

    actions: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class ActionApplied:
    """One engine action as this seated peer's engine applied it at ``entry``: the state
    before, the action, the engine's events, the state after. It is for this peer's
    player's own narration ("You are skipped", the starter, the dealer draw) and the
    round-end hands the reveal opened, told with the same words as offline
    (``ui.words.Narrator``). Per peer: the states hold only the faces it may know."""

    before: State
    action: Action
    events: tuple[Event, ...]
    after: State
    entry: int


@dataclass(frozen=True, slots=True)
class HandChanged:
    """This peer's hand as it now knows it (card ids)."""

    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ChatSaid:
    """A chat line (table.md §15); ``mine`` when this peer wrote it."""

    peer: PeerId
    name: str
    text: str
    mine: bool


@dataclass(frozen=True, slots=True)
class Progress:
    """A long wait, e.g. ``waiting for Bob to shuffle``."""

    what: str


TableEvent = (
    PlayerJoined | OptionsChanged | PlayerReady | PlayerLeft | GameStarted | MovePlayed
    | RoundEnded | GameEnded | PeerMisbehaved | YourTurn | HandChanged | Progress
    | SequencerChanged | PlayerRemoved | ChatSaid | ActionApplied
)
