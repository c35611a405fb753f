"""Deterministic sample logs from fixed seeds, for tests, vectors and benchmarks.

Nothing here is used in a real game: keys come from public seeds. A sample log
is a short, valid lobby (open, joins, ready, start) followed by plays,
decryption shares and a sealed message, every entry signed and countersigned.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from uno_p2p.crypto.channel import ChannelKey, Party
from uno_p2p.crypto.identity import Identity
from uno_p2p.wire.chain import ChainVerifier
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.game import DecryptionShare, PlayCard, Slot
from uno_p2p.wire.lobby import Join, OpenTable, Ready, Start
from uno_p2p.wire.private import seal_body
from uno_p2p.wire.registry import Body

SAMPLE_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")


def sample_seed(label: str) -> bytes:
    """A public 32-byte seed: SHA-256 of ``uno-lan/sample/<label>``."""
    return hashlib.sha256(b"uno-lan/sample/" + label.encode()).digest()


@dataclass(frozen=True, slots=True)
class SamplePeer:
    """A sample player: name, identity and channel key from public seeds."""

    name: str
    identity: Identity
    channel: ChannelKey

    @classmethod
    def make(cls, index: int) -> SamplePeer:
        name = SAMPLE_NAMES[index]
        return cls(name, Identity(sample_seed(f"identity/{name}")),
                   ChannelKey(sample_seed(f"channel/{name}")))

    @property
    def party(self) -> Party:
        return Party(self.identity.peer.key, self.channel.public)


class SampleTable:
    """A sequencer (peer 0) and its peers appending valid entries to one log."""

    def __init__(self, players: int = 3, table_id: bytes | None = None) -> None:
        self.peers = [SamplePeer.make(index) for index in range(players)]
        self.table_id = table_id or sample_seed("table")[:16]
        self.verifier = ChainVerifier(self.table_id, self.peers[0].identity.peer)
        self.counters = [0] * players

    def message(self, author: int, body: Body) -> Message:
        """Sign ``body`` by peer ``author`` over the current head (not yet placed)."""
        peer = self.peers[author]
        # The wire vectors are version 1's bytes (wire.md §9): frozen, so signed as then.
        message = Message.sign(peer.identity, self.table_id, self.counters[author],
                               self.verifier.head, body, version=1)
        self.counters[author] += 1
        return message

    def place(self, message: Message) -> Entry:
        """Countersign ``message`` as the next entry and accept it."""
        return self.verifier.sequence(self.peers[0].identity, message)

    def append(self, author: int, body: Body) -> Entry:
        return self.place(self.message(author, body))

    def lobby(self) -> list[Entry]:
        """Open, join, ready and start: the usual first entries."""
        host = self.peers[0]
        entries = [self.append(0, OpenTable(host.name, host.channel.public, "classic",
                                            (("jump_in", True), ("target_score", 500)), 10))]
        for index, peer in enumerate(self.peers[1:], start=1):
            entries.append(self.append(index, Join(peer.name, peer.channel.public)))
        entries += [self.append(index, Ready()) for index in range(1, len(self.peers))]
        seats = tuple(peer.identity.peer for peer in self.peers)
        entries.append(self.append(0, Start(seats)))
        return entries

    def sealed_share(self, author: int, recipient: int, position: int) -> Entry:
        """A decryption share sealed from ``author`` to ``recipient``."""
        share = sample_share(author, position)
        sender, to = self.peers[author], self.peers[recipient]
        body = seal_body(share, key=sender.channel, sender=sender.party, recipient=to.party,
                         table_id=self.table_id, counter=self.counters[author])
        return self.append(author, body)


def sample_share(author: int, position: int) -> DecryptionShare:
    """A share with fixed bytes of the right sizes (not a real point or proof)."""
    digest = hashlib.sha512(f"share/{author}/{position}".encode()).digest()
    return DecryptionShare(Slot(0, position), digest[:32], digest[:64])


def sample_play(turn: int) -> PlayCard:
    """The ``turn``-th sample play: cycles through every card id."""
    card = (turn * 37) % 108
    return PlayCard(Slot(0, turn % 108), card, turn % 4 if card >= 100 else None)


def sample_log(players: int = 3, turns: int = 12) -> list[Entry]:
    """A valid log: the lobby, then ``turns`` rounds of share, sealed share and play.

    In round ``t``, with ``p = t mod players`` (seats counted mod ``players``):
    seat ``p + 1`` posts a decryption share for position ``t``, seat ``p + 2``
    seals one to seat ``p``, and seat ``p`` plays.
    """
    table = SampleTable(players)
    entries = table.lobby()
    for turn in range(turns):
        author = turn % players
        entries.append(table.append((author + 1) % players, sample_share(author, turn)))
        entries.append(table.sealed_share((author + 2) % players, author, turn))
        entries.append(table.append(author, sample_play(turn)))
    return entries
