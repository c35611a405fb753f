"""The shell around ``doors.HandshakeSlots`` for one listener: it takes a slot for each
new connection's handshake, closes the connection it refuses, and cancels the
handshake of a slot evicted to make room (docs/protocol/net.md §5.2, §6.1).
The host's port and every joiner's peer-link port each have one."""

from __future__ import annotations

import asyncio
import time

from uno_p2p.net.doors import HandshakeSlots, Slot, source_of

#: Unfinished handshakes on a joiner's peer-link port: only the table's members
#: (at most 10) ever dial it, each once per broken link.
PEER_PENDING = 16
#: The kernel's queue of connections waiting on a joiner's peer-link port: asyncio
#: accepts up to this many in one turn of the loop, each holding a file until it is
#: closed in the next, so a flood of connections costs at most this many files at a
#: time beyond the slots. Every member dialling at once (at most 9) fits.
PEER_BACKLOG = 16


class Gate:
    """Handshake slots of one listener, with the tasks to stop when one is evicted."""

    def __init__(self, slots: HandshakeSlots) -> None:
        self.slots = slots
        self._handshakes: dict[Slot, asyncio.Task[None]] = {}

    def enter(self, writer: asyncio.StreamWriter) -> Slot | None:
        """A slot for the handshake on ``writer``'s connection, run by the current task;
        None when its address holds its share already (the connection is closed)."""
        source = source_of(writer.get_extra_info("peername"))
        admission = self.slots.take(source, time.monotonic())
        evicted = None if admission.evict is None else \
            self._handshakes.pop(admission.evict, None)
        if evicted is not None:
            evicted.cancel()  # the oldest of the address holding most makes room
        if admission.slot is None:
            writer.close()
            return None
        task = asyncio.current_task()
        if task is not None:
            self._handshakes[admission.slot] = task
        return admission.slot

    def leave(self, slot: Slot) -> None:
        """The handshake of ``slot`` ended, either way."""
        self._handshakes.pop(slot, None)
        self.slots.give_back(slot)
