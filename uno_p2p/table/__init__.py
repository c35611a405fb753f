"""The table protocol: N peers play whole games, every peer verifying every move.

docs/protocol/table.md. Sans-IO: ``TablePeer`` (bytes in, bytes and events
out, moves in, timers; what its seat decides is its ``Player``'s), the
``Sequencer`` role the host's peer holds, the pure ``apply_entry`` every peer
and the audit run (``replay``), and an
in-memory ``Network`` for tests, ``uno-lan simulate`` and benchmarks.
Importing this package registers the table's body kinds (64 and up).
"""

from __future__ import annotations

from uno_p2p.table.bodies import (
    Abort,
    Clock,
    KeySetup,
    Move,
    PrivateShares,
    RevealSecrets,
    ShareItem,
    Shares,
    ShuffleDeck,
)
from uno_p2p.table.events import (
    ChatSaid,
    GameEnded,
    GameStarted,
    HandChanged,
    MovePlayed,
    OptionsChanged,
    PeerMisbehaved,
    PlayerJoined,
    PlayerLeft,
    PlayerReady,
    Progress,
    RoundEnded,
    TableEvent,
    YourTurn,
)
from uno_p2p.table.ledger import Ledger, apply_entry, check_message, digest, initial_state
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.player import BotPlayer, Player, Seat
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.sequencer import Sequencer
from uno_p2p.table.state import Misbehaviour, TablePhase, TableState

__all__ = [
    "Abort",
    "BotPlayer",
    "ChatSaid",
    "Clock",
    "GameEnded",
    "GameStarted",
    "HandChanged",
    "KeySetup",
    "Ledger",
    "Misbehaviour",
    "Move",
    "MovePlayed",
    "OptionsChanged",
    "Outgoing",
    "PeerMisbehaved",
    "Player",
    "PlayerJoined",
    "PlayerLeft",
    "PlayerReady",
    "PrivateShares",
    "Progress",
    "RevealSecrets",
    "RoundEnded",
    "Seat",
    "Sequencer",
    "ShareItem",
    "Shares",
    "ShuffleDeck",
    "TableEvent",
    "TablePeer",
    "TablePhase",
    "TableState",
    "YourTurn",
    "apply_entry",
    "check_message",
    "digest",
    "initial_state",
]
