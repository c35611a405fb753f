"""What a peer sends: destinations, derived secrets, and bodies sealed at their counter.

docs/protocol/table.md §2.1 and §3.1.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from uno_p2p.crypto.channel import ChannelKey, Party
from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import LocalProtocolError
from uno_p2p.table.bodies import PrivateShares
from uno_p2p.wire.private import seal_body
from uno_p2p.wire.registry import Body

DERIVE_LABEL = b"uno-lan/table/v1/derive\x00"


@dataclass(frozen=True, slots=True)
class Outgoing:
    """Bytes to send: to the sequencer (``to`` is None) or to the listed peers."""

    to: tuple[PeerId, ...] | None
    data: bytes


#: Length of a peer's per-game nonce (table.md §2.1).
NONCE_BYTES = 16


def derive(entropy: bytes, label: str, table_id: bytes, nonce: bytes) -> bytes:
    """A 32-byte secret of this peer for one purpose (§2.1): from its entropy, the table
    id and the fresh per-game ``nonce`` the peer itself contributes, so that a host
    that reuses a table id never gets back a secret already published, even from a
    peer whose entropy was reused. An empty nonce is the simulation's (deterministic)."""
    return hashlib.sha256(DERIVE_LABEL + label.encode() + b"\x00" + table_id + nonce
                          + entropy).digest()


@dataclass(frozen=True, slots=True)
class Maker:
    """Builds the body of one message once its counter is known (sealing binds it)."""

    body: Body | None
    private: PrivateShares | None
    to: PeerId | None
    to_channel: bytes
    channel: ChannelKey
    sender: PeerId
    table_id: bytes

    def __call__(self, counter: int) -> Body:
        """The body to sign as message ``counter``.

        Raises:
            LocalProtocolError: neither a body nor a private reveal to a known peer.
        """
        if self.body is not None:
            return self.body
        if self.to is None or self.private is None or not self.to_channel:
            raise LocalProtocolError("a message needs a body, or a recipient with a channel")
        return seal_body(
            self.private, key=self.channel,
            sender=Party(self.sender.key, self.channel.public),
            recipient=Party(self.to.key, self.to_channel),
            table_id=self.table_id, counter=counter)
