"""Every bound on what a peer may make us hold, in one place (wire.md §7, table.md §12).

The h11 invariant of the whole table: whatever bytes arrive, decoding, the
table peer, the sequencer and the audit either accept them or name a fault;
they never raise, never recurse without bound, and never hold more memory
than a fixed multiple of these limits. The codec's ``Limits`` bound one
frame; the constants below bound what a peer keeps across frames.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what a peer may make us decode (docs/protocol/wire.md §7).

    The frame bound caps memory: every element costs at least one byte, so no
    array can claim more elements than the frame has bytes.
    """

    #: Largest encoded entry, in bytes. A shuffle with its proof is the biggest.
    max_frame: int = 4 * 1024 * 1024
    #: Longest array.
    max_array: int = 65_536
    #: Longest str, in bytes (names, reasons, option keys).
    max_str: int = 1024
    #: Longest bin, in bytes.
    max_bin: int = 4 * 1024 * 1024
    #: Deepest nesting of arrays (an entry's body sits at depth 3).
    max_depth: int = 16
    #: Most arrays in one frame (a real entry holds under 100). Every array costs
    #: one byte on the wire but ~60 bytes decoded: without this bound 4 MiB of
    #: empty arrays decoded into hundreds of MB before any signature check.
    max_arrays: int = 4096
    #: Most array elements in one frame, all arrays together.
    max_elements: int = 131_072


DEFAULT_LIMITS = Limits()


#: Entries ahead of a peer's log it keeps until the gap fills (table.md §12):
#: at most this many, of at most ``MAX_EARLY_BYTES`` together, each verified
#: (author and sequencer signatures) before it is kept.
MAX_EARLY_ENTRIES = 64
MAX_EARLY_BYTES = 8 * 1024 * 1024
#: Relayed messages a peer keeps as evidence of censorship: one per author,
#: each at most a frame (table.md §6.2).
MAX_RELAYED_PER_AUTHOR = 1
#: An ``abort``'s evidence is one message; that message may not itself be an
#: ``abort`` that carries evidence (no nesting, so no recursion, table.md §7.2).
MAX_EVIDENCE_DEPTH = 1
#: How far the table clock may gain on a peer's own clock before that peer
#: doubts the sequencer (table.md §6.1).
CLOCK_TOLERANCE_MS = 5_000
#: A peer's own messages in flight whose sending time it keeps, to bound the
#: table clock (table.md §6.1); more than one only across drops and resyncs.
MAX_CLOCK_SAMPLES = 256
#: How long a peer that doubts the table clock holds the ``clock`` entry back
#: while its vote stands (table.md §6.1); then it follows the table.
CLOCK_DOUBT_MS = 15_000
#: A peer relays its own message to every peer when the sequencer has neither
#: logged nor dropped it after this long (table.md §6.2).
RELAY_AFTER_MS = 5_000
#: A peer whose log has a gap (entries kept ahead of it) this long asks every
#: member for the entries after its head, and again each time this passes
#: (table.md §12): the sequencer's direct link may have lost them, and a
#: forwarding member carries only what comes after.
GAP_FILL_AFTER_MS = 1_000
