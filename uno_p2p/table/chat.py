"""Table chat: short lines among the table's members, signed and never logged (table.md §15).

Why never logged: chat changes nothing in the game, and the log is what every
peer keeps and anyone audits; banter does not belong in that evidence. Why
signed by the author's identity key: in a star every line passes through the
host, which must not be able to put words in another player's mouth or replay
an old line. Why a clock-based counter: a peer that restarts from disk has no
memory of the counters it used, but its clock has moved on, so its lines stay
fresh without a counter in the log.

Every member that hears a line it has not heard before shows it and passes it
on to every other member, so a line travels over whatever links there are
(the host's star, or peer links) and stops at the first repeat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError
from uno_p2p.table.events import ChatSaid
from uno_p2p.table.frames import FRAME_CHAT, frame
from uno_p2p.table.handover import members
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.state import TableState
from uno_p2p.wire import fields
from uno_p2p.wire.codec import pack, unpack

#: Domain separation for a chat line's signature (table.md §15).
CHAT_LABEL = b"uno-lan/table/v1/chat\x00"
#: The longest line, in characters (the UI's input stops there too).
MAX_CHAT_CHARS = 200
#: A counter is a clock in milliseconds: below 2^48 for ~8900 years.
MAX_COUNTER = (1 << 48) - 1
#: An author's counters step by at least this, and run at most ``MAX_AHEAD_MS`` ahead of
#: the hearer's clock: a flood is held to 4 lines a second after a bounded burst.
MIN_GAP_MS = 250
MAX_AHEAD_MS = 60_000


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One line as signed: who wrote it, its counter, its words."""

    author: PeerId
    counter: int
    text: str
    signature: bytes

    def encode(self) -> bytes:
        """The ``C`` frame's payload: ``[author, counter, text, signature]``."""
        return pack([self.author.to_wire(), self.counter, self.text, self.signature])

    @classmethod
    def decode(cls, payload: bytes) -> ChatLine:
        """Raises: InvalidMessage: not four well-formed fields."""
        author, counter, text, signature = fields.array(unpack(payload), 4, "a chat line")
        words = fields.text(text, "a chat line's text", max_chars=MAX_CHAT_CHARS, min_chars=1)
        fields.check_printable(words, "a chat line's text")
        return cls(PeerId.from_wire(author),
                   fields.integer(counter, "a chat counter", lo=0, hi=MAX_COUNTER),
                   words, fields.blob(signature, "a chat signature", size=64))


def signed_bytes(table_id: bytes, author: PeerId, counter: int, text: str) -> bytes:
    """What the author signs: the label, the table id, then ``[author, counter, text]``."""
    return CHAT_LABEL + table_id + pack([author.to_wire(), counter, text])


#: What the peer does with a line: the frame to pass on (if anyone is left to tell)
#: and the line to show (if it is new to us).
Said = tuple[Outgoing | None, ChatSaid | None]


@dataclass
class Chat:
    """One peer's chat: the lines it writes and the newest counter heard from each author.

    ``say`` and ``receive`` are what the peer calls; ``write`` and ``hear`` judge a line.
    """

    table_id: bytes
    identity: Identity
    heard: dict[bytes, int] = field(default_factory=dict)

    def say(self, text: str, state: TableState, now_ms: int) -> Said:
        """Our line, shown here at once and sent to every other member.

        Raises:
            LocalProtocolError: no place at the table yet, or a line the chat refuses
                (empty, too long, control characters).
        """
        me = self.identity.peer
        if me not in members(state):
            raise LocalProtocolError("the chat opens once you have a place at the table")
        line = self.write(text, now_ms)
        return self._pass_on(line, state, None), ChatSaid(me, state.name_of(me.key),
                                                           line.text, True)

    def receive(self, payload: bytes, state: TableState, now_ms: int,
                sender: PeerId | None) -> Said:
        """A ``C`` frame: a line new to us is shown and passed on; anything else is dropped
        quietly: chat is no evidence, and a bad line must not stop the game or blame
        its carrier."""
        try:
            line = ChatLine.decode(payload)
            fresh = self.hear(line, state, now_ms)
        except InvalidMessage:
            return None, None
        if not fresh or line.author == self.identity.peer:
            return None, None
        return self._pass_on(line, state, sender), ChatSaid(
            line.author, state.name_of(line.author.key), line.text, False)

    def _pass_on(self, line: ChatLine, state: TableState,
                 came_from: PeerId | None) -> Outgoing | None:
        skip = (self.identity.peer, line.author, came_from)
        others = tuple(p for p in members(state) if p not in skip)
        return Outgoing(others, frame(FRAME_CHAT, line.encode())) if others else None

    def write(self, text: str, now_ms: int) -> ChatLine:
        """A new line of ours, its counter past every one we used (even across a restart).

        Raises:
            LocalProtocolError: empty, too long, or holding control characters.
        """
        me = self.identity.peer
        try:
            words = fields.text(text.strip(), "a chat line", max_chars=MAX_CHAT_CHARS,
                                min_chars=1)
            fields.check_printable(words, "a chat line")
        except InvalidMessage as error:
            raise LocalProtocolError(str(error)) from error
        counter = min(MAX_COUNTER, max(now_ms, self.heard.get(me.key, -MIN_GAP_MS) + MIN_GAP_MS))
        self.heard[me.key] = counter
        return ChatLine(me, counter, words, self.identity.sign(
            signed_bytes(self.table_id, me, counter, words)))

    def hear(self, line: ChatLine, state: TableState, now_ms: int) -> bool:
        """Whether ``line`` is new: by a member, signed by it, past its last counter.

        A repeat is not new (it came by another path) and is dropped quietly.

        Raises:
            InvalidMessage: not a member's line, too soon after the author's last one or
                too far ahead of our clock (a flood), or a bad signature.
        """
        if line.author not in members(state):
            raise InvalidMessage("a chat line from a peer who is not at the table")
        last = self.heard.get(line.author.key)
        if last is not None and line.counter <= last:
            return False
        if last is not None and line.counter < last + MIN_GAP_MS:
            raise InvalidMessage("a chat line too soon after its author's last one")
        if line.counter > now_ms + MAX_AHEAD_MS:
            raise InvalidMessage("a chat line dated over a minute ahead of our clock")
        try:
            line.author.verify(signed_bytes(self.table_id, line.author, line.counter,
                                            line.text),
                               line.signature, item="a chat line's signature")
        except CryptoError as error:
            raise InvalidMessage(str(error)) from error
        self.heard[line.author.key] = line.counter
        return True
