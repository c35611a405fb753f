"""What a peer sends: destinations, derived secrets, and bodies sealed at their counter.

docs/protocol/table.md §2.1 and §3.1.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from uno_p2p.crypto.channel import ChannelKey, Party
from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.errors import LocalProtocolError
from uno_p2p.table.bodies import PrivateShares
from uno_p2p.wire.envelope import TABLE_ID_BYTES
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


#: The least entropy a peer derives its secrets from (table.md §2.1).
ENTROPY_MIN = 32


@dataclass(frozen=True, slots=True)
class SeatSecrets:
    """Every secret of one peer for one game (§2.1), each derived for its purpose: the
    deck's key share and shuffle master, the channel key, the bot's seed."""

    deck: PeerSecrets
    channel_seed: bytes
    channel: ChannelKey
    bot_seed: bytes

    @classmethod
    def derive(cls, entropy: bytes, *, table_id: bytes, nonce: bytes, peer: bytes) -> SeatSecrets:
        """``peer``'s secrets at table ``table_id``, bound to its fresh ``nonce``.

        Raises:
            LocalProtocolError: too little entropy, or a table id or nonce of a wrong size.
        """
        if len(entropy) < ENTROPY_MIN or len(table_id) != TABLE_ID_BYTES or \
                len(nonce) not in (0, NONCE_BYTES):
            raise LocalProtocolError("a peer needs 32+ bytes of entropy, a 16-byte table id "
                                     "and a 16-byte nonce (or none, to simulate)")
        deck = PeerSecrets.from_seed(derive(entropy, "deck", table_id, nonce),
                                     table=table_id, peer=peer)
        channel_seed = derive(entropy, "channel", table_id, nonce)
        return cls(deck, channel_seed, ChannelKey(channel_seed),
                   derive(entropy, "bot", table_id, nonce))


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
