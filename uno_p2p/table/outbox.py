"""One message in flight (docs/protocol/table.md §3.1), stated in one place.

The ``Outbox`` owns this peer's next message number, the one message it has sent
that is neither logged nor dropped, whether it waits for a resync's answer
(§9), and when that message is shown to every peer (§6.2). Re-using a number
for another message is the ``equivocation`` fault the protocol punishes, so the
number moves only here: on signing, on our own entry logged, on a drop notice
that names the very message we sent, on the sequencer's "synced", and when a
new term voids what was signed before (§13.3). The host's ``Sequencer`` signs
its own messages with the same outbox, so the host keeps no second count.

Sans-IO and pure: it signs and answers; the peer sends the frames.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from uno_p2p.crypto.identity import Identity
from uno_p2p.table.frames import DropNotice
from uno_p2p.wire.envelope import Head, Message
from uno_p2p.wire.limits import RELAY_AFTER_MS
from uno_p2p.wire.registry import Body

#: The code of the sequencer's last frame in answer to a sync request.
SYNCED = "synced"


@dataclass(frozen=True, slots=True)
class InFlight:
    """Our one message neither logged nor dropped yet (table.md §3.1): when we sent
    it, and whether we have relayed it to every peer yet (§6.2)."""

    message: Message
    at_ms: int
    relayed: bool = False


class Outbox:
    """This peer's message numbers and its one message in flight (table.md §3.1)."""

    def __init__(self) -> None:
        #: The number our next message takes.
        self.counter = 0
        self.in_flight: InFlight | None = None
        #: A sync request is out (§9): send nothing until the sequencer says "synced",
        #: or a message sent before the link broke, if logged, would share its number.
        self.syncing = False

    @property
    def outstanding(self) -> int | None:
        """The number of our message in flight, if any."""
        return None if self.in_flight is None else self.in_flight.message.counter

    @property
    def busy(self) -> bool:
        """Whether this peer must wait before it signs another message."""
        return self.in_flight is not None or self.syncing

    def sign(self, identity: Identity, table_id: bytes, head: Head,
             make: Callable[[int], Body], *, version: int, now_ms: int) -> Message:
        """Sign our next message (``make`` builds its body for its number) and hold it
        in flight until it is logged or dropped."""
        counter = self.counter
        message = Message.sign(identity, table_id, counter, head, make(counter), version=version)
        self.counter += 1
        self.in_flight = InFlight(message, now_ms)
        return message

    def sign_logged(self, identity: Identity, table_id: bytes, head: Head,
                    make: Callable[[int], Body], *, version: int) -> Message:
        """The sequencer's own message, logged as it is signed: no flight, no number
        taken until ``logged`` says it entered the log."""
        return Message.sign(identity, table_id, self.counter, head, make(self.counter),
                            version=version)

    def logged(self, counter: int) -> None:
        """A message of ours entered the log under ``counter``: it is no longer in
        flight, and the next number follows it."""
        self.counter = max(self.counter, counter + 1)
        self.in_flight = None

    def dropped(self, notice: DropNotice) -> bool:
        """The sequencer's ``D`` frame (§3.1). True when it drops the very message we
        sent (its number and digest): that number is ours to use again, for a new
        decision. Any other notice (a forgery in our name earned it, or it is stale)
        changes nothing, or we would sign one number twice. A "synced" ends a resync:
        the sequencer's count is the truth, and a message of ours it never logged
        (lost with a broken link) is void; a late one (we no longer wait for it)
        says nothing about a message sent since."""
        if notice.code == SYNCED:
            if self.syncing:
                self.syncing = False
                self.counter = notice.counter
                self.in_flight = None
            return False
        sent = self.in_flight
        if sent is None or sent.message.counter != notice.counter or \
                sent.message.hash != notice.digest:
            return False
        self.in_flight = None
        self.counter = notice.counter
        return True

    def start_sync(self) -> None:
        """A sync request goes out (§9, §13.4): send nothing until it is answered."""
        self.syncing = True

    def new_term(self, counter: int) -> None:
        """A hand-over: what we signed before it is void (§13.3); our next number is
        the one after our last logged message, ``counter``."""
        self.counter = counter
        self.in_flight = None
        self.syncing = False

    def relay_at(self) -> int | None:
        """When our message in flight, still not logged, goes to every peer (§6.2)."""
        sent = self.in_flight
        return None if sent is None or sent.relayed else sent.at_ms + RELAY_AFTER_MS

    def relay_due(self, now_ms: int) -> Message | None:
        """Our message in flight, if it is time to show it to every peer (once)."""
        due = self.relay_at()
        sent = self.in_flight
        if due is None or sent is None or now_ms < due:
            return None
        self.in_flight = InFlight(sent.message, sent.at_ms, relayed=True)
        return sent.message
