"""table.md §3.1 in one place: the outbox's numbers, its one message in flight, drop
notices, resync (§9), the relay (§6.2) and a new term (§13.3)."""

from __future__ import annotations

from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.options import preset
from uno_p2p.table.frames import DropNotice
from uno_p2p.table.memnet import TableSetup, seat_table
from uno_p2p.table.outbox import SYNCED, Outbox
from uno_p2p.wire.envelope import Head
from uno_p2p.wire.limits import RELAY_AFTER_MS
from uno_p2p.wire.lobby import Ready

TABLE = bytes(16)
ME = Identity(b"\x01" * 32)


def _sent(outbox: Outbox, now_ms: int = 1_000, ready: bool = True) -> bytes:
    message = outbox.sign(ME, TABLE, Head.genesis(TABLE), lambda _: Ready(ready),
                          version=2, now_ms=now_ms)
    return message.hash


def test_a_signed_message_takes_the_next_number_and_is_in_flight_until_logged() -> None:
    outbox = Outbox()
    _sent(outbox)
    assert (outbox.counter, outbox.outstanding, outbox.busy) == (1, 0, True)
    outbox.logged(0)
    assert (outbox.counter, outbox.outstanding, outbox.busy) == (1, None, False)


def test_a_drop_notice_naming_our_message_frees_its_number_for_a_new_decision() -> None:
    outbox = Outbox()
    digest = _sent(outbox)
    assert outbox.dropped(DropNotice(0, "illegal_move", "not your turn", digest))
    assert (outbox.counter, outbox.outstanding) == (0, None)


def test_a_drop_notice_for_another_message_or_number_changes_nothing() -> None:
    # A notice a forgery in our name earned, or a stale one: signing the number again
    # would put two messages of ours under one number (equivocation).
    outbox = Outbox()
    digest = _sent(outbox)
    assert not outbox.dropped(DropNotice(0, "illegal_move", "forged", b"\x07" * len(digest)))
    assert not outbox.dropped(DropNotice(1, "illegal_move", "stale", digest))
    assert (outbox.counter, outbox.outstanding) == (1, 0)


def test_synced_ends_a_resync_with_the_sequencers_count_and_voids_our_message() -> None:
    outbox = Outbox()
    _sent(outbox)
    outbox.start_sync()
    assert outbox.busy
    assert not outbox.dropped(DropNotice(0, SYNCED, "these are all the entries"))
    assert (outbox.counter, outbox.in_flight, outbox.busy) == (0, None, False)
    assert outbox.relay_at() is None, "a void message is never shown as ours"


def test_a_late_synced_says_nothing_about_a_message_sent_since() -> None:
    outbox = Outbox()
    _sent(outbox)
    assert not outbox.dropped(DropNotice(0, SYNCED, "these are all the entries"))
    assert (outbox.counter, outbox.outstanding) == (1, 0)


def test_our_message_is_relayed_once_after_the_relay_time() -> None:
    outbox = Outbox()
    _sent(outbox, now_ms=1_000)
    assert outbox.relay_at() == 1_000 + RELAY_AFTER_MS
    assert outbox.relay_due(1_000 + RELAY_AFTER_MS - 1) is None
    relayed = outbox.relay_due(1_000 + RELAY_AFTER_MS)
    assert relayed is not None
    assert relayed.counter == 0
    assert outbox.relay_due(1_000 + 2 * RELAY_AFTER_MS) is None
    assert outbox.relay_at() is None
    assert outbox.outstanding == 0, "relayed, still in flight"


def test_a_new_term_voids_what_was_signed_before_it() -> None:
    outbox = Outbox()
    _sent(outbox)
    _sent(outbox)
    outbox.start_sync()
    outbox.new_term(1)
    assert (outbox.counter, outbox.in_flight, outbox.busy) == (1, None, False)


def test_the_host_counts_its_messages_once_whoever_signs_them() -> None:
    """The host's peer and its sequencer sign from one outbox: after a whole lobby the
    next number is the count of the host's entries in the log, with no copy to sync."""
    net = seat_table(TableSetup(2, preset("official", ["target=30"]), b"one count"))
    host = net.host
    assert host.sequencer is not None
    assert host.sequencer.outbox is host.outbox
    own = sum(1 for e in net.entries() if e.author == host.peer_id)
    assert host.outbox.counter == own
    assert host.ledger.chain.next_counter(host.peer_id) == own
