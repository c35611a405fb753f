"""Wire format: canonical msgpack, the signed envelope and the hash-chained log.

docs/protocol/wire.md. Importing this package registers every body kind it
defines (lobby, sealed, the sample game bodies) in ``BODIES``.
"""

from __future__ import annotations

from uno_p2p.wire import game, lobby, private
from uno_p2p.wire.chain import (
    ChainError,
    ChainVerifier,
    EquivocationError,
    ForkError,
    check_equivocation,
    check_fork,
    verify_chain,
    verify_entry,
)
from uno_p2p.wire.codec import DEFAULT_LIMITS, Limits, WireValue, pack, unpack
from uno_p2p.wire.envelope import PROTOCOL_VERSION, Entry, Head, Message, genesis_hash
from uno_p2p.wire.registry import BODIES, Body, Registry

__all__ = [
    "BODIES",
    "DEFAULT_LIMITS",
    "PROTOCOL_VERSION",
    "Body",
    "ChainError",
    "ChainVerifier",
    "Entry",
    "EquivocationError",
    "ForkError",
    "Head",
    "Limits",
    "Message",
    "Registry",
    "WireValue",
    "check_equivocation",
    "check_fork",
    "game",
    "genesis_hash",
    "lobby",
    "pack",
    "private",
    "unpack",
    "verify_chain",
    "verify_entry",
]
