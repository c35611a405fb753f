"""Tampering with the chain: every change is refused, naming the right peer and entry."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import InvalidMessage, LocalProtocolError, RemoteProtocolError
from uno_p2p.wire.chain import (
    ChainError,
    EquivocationError,
    ForkError,
    check_equivocation,
    check_fork,
    verify_chain,
    verify_entry,
)
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.game import PlayCard, Slot
from uno_p2p.wire.lobby import Leave
from uno_p2p.wire.samples import SampleTable, sample_log, sample_play, sample_seed

LOG = sample_log(players=3, turns=4)
HOST = LOG[0].author
ENCODED = [entry.encode() for entry in LOG]


def refused_code(entries: list[Entry]) -> tuple[str, str | None, int | None]:
    with pytest.raises(RemoteProtocolError) as caught:
        verify_chain(entries, HOST)
    return caught.value.code, caught.value.peer, caught.value.entry


def test_the_honest_log_verifies() -> None:
    verifier = verify_chain(LOG)
    assert verifier.head.seen == len(LOG)
    assert verifier.head.hash == LOG[-1].hash
    for previous, entry in zip([None, *LOG], LOG, strict=False):
        verify_entry(entry, previous, HOST)


@pytest.mark.parametrize("index", [5, 6, 7, 8])
def test_flipping_any_byte_of_an_entry_is_refused(index: int) -> None:
    """Entries 5-8: start, share, sealed share, play. Every byte, flipped."""
    verifier = verify_chain(LOG[:index])
    data = ENCODED[index]
    for offset in range(len(data)):
        tampered = bytearray(data)
        tampered[offset] ^= 0x01
        try:
            entry = Entry.decode(bytes(tampered))
        except InvalidMessage:
            continue
        with pytest.raises(RemoteProtocolError):
            verifier.accept(entry)
    assert verifier.head.seen == index  # nothing refused was applied
    verifier.accept(LOG[index])


@given(st.integers(0, len(LOG) - 1), st.data())
@settings(max_examples=200, deadline=None)
def test_any_byte_changed_anywhere_in_the_log_is_refused(index: int, data: st.DataObject) -> None:
    encoded = bytearray(ENCODED[index])
    offset = data.draw(st.integers(0, len(encoded) - 1))
    encoded[offset] ^= data.draw(st.integers(1, 255))
    try:
        tampered = Entry.decode(bytes(encoded))
    except InvalidMessage:
        return
    with pytest.raises(RemoteProtocolError):
        verify_chain([*LOG[:index], tampered, *LOG[index + 1 :]], HOST)


def test_tampered_fields_name_the_right_fault() -> None:
    entry = LOG[8]
    message = entry.message
    wire = entry.to_wire()
    message_wire = message.to_wire()
    forged_sig = [*message_wire[:8], bytes(64)]
    cases = {
        "bad_signature": [wire[0], wire[1], forged_sig, wire[3]],
        "bad_countersignature": [wire[0], wire[1], wire[2], bytes(64)],
        "bad_prev_hash": [wire[0], bytes(32), wire[2], wire[3]],
        "bad_sequence": [9, wire[1], wire[2], wire[3]],
    }
    for code, tampered in cases.items():
        forged = Entry.from_wire(tampered)
        got = refused_code([*LOG[:8], forged])
        assert got[0] == code
        assert got[2] in (8, 9)
        expected_peer = entry.author if code == "bad_signature" else HOST
        assert got[1] == expected_peer.fingerprint


def test_dropped_reordered_and_duplicated_entries_are_refused() -> None:
    assert refused_code([*LOG[:6], *LOG[7:]])[:3] == ("bad_sequence", HOST.fingerprint, 7)
    swapped = [*LOG[:6], LOG[7], LOG[6], *LOG[8:]]
    assert refused_code(swapped)[0] == "bad_sequence"
    assert refused_code([*LOG[:7], LOG[6], *LOG[7:]])[0] == "bad_sequence"


def test_a_log_must_start_at_entry_zero() -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        verify_chain(LOG[1:], HOST)
    assert caught.value.code == "bad_sequence"
    with pytest.raises(RemoteProtocolError, match="no entries"):
        verify_chain([])


def test_splicing_two_logs_is_refused() -> None:
    other_table = SampleTable(3, table_id=sample_seed("other table")[:16])
    other = other_table.lobby()
    for _ in range(4):
        other.append(other_table.append(0, sample_play(1)))
    assert refused_code([*LOG[:6], *other[6:]])[0] == "wrong_table"
    # A fork of the same table: same start, different entry 6 onwards.
    fork = SampleTable(3)
    forked = fork.lobby()
    forked.append(fork.append(2, Leave("bored")))
    forked.append(fork.append(1, sample_play(3)))
    assert forked[:6] == LOG[:6]
    assert refused_code([*LOG[:7], *forked[7:]])[0] == "bad_prev_hash"


def test_a_forged_signature_by_another_key_is_refused() -> None:
    table = SampleTable(3)
    entries = table.lobby()
    mallory = Identity(sample_seed("mallory"))
    honest = table.message(1, sample_play(0))
    forged = Message(honest.table_id, honest.author, honest.counter, honest.head, honest.kind,
                     honest.body, mallory.sign(honest.digest))
    head = table.verifier.head
    entry = Entry.countersign(table.peers[0].identity, head.seen, head.hash, forged)
    with pytest.raises(RemoteProtocolError) as caught:
        table.verifier.accept(entry)
    assert (caught.value.code, caught.value.peer) == ("bad_signature", honest.author.fingerprint)
    by_mallory = Entry.countersign(mallory, head.seen, head.hash, honest)
    with pytest.raises(RemoteProtocolError) as caught:
        table.verifier.accept(by_mallory)
    assert caught.value.code == "bad_countersignature"
    assert len(table.verifier.entries) == len(entries)


def test_two_countersigned_entries_at_one_number_prove_a_fork() -> None:
    table = SampleTable(3)
    table.lobby()
    head = table.verifier.head
    host = table.peers[0].identity
    first = Entry.countersign(host, head.seen, head.hash, table.message(1, sample_play(0)))
    second = Entry.countersign(host, head.seen, head.hash, table.message(2, sample_play(1)))
    with pytest.raises(ForkError) as caught:
        check_fork(first, second, host.peer)
    assert caught.value.code == "sequencer_fork"
    assert caught.value.peer == host.peer.fingerprint
    assert caught.value.entry == head.seen
    assert caught.value.evidence == (first, second)
    check_fork(first, first, host.peer)  # the same entry twice proves nothing
    table.verifier.accept(first)
    with pytest.raises(ForkError):
        table.verifier.compare(second)
    # An entry not countersigned by the sequencer proves nothing against it.
    framed = Entry.countersign(Identity(sample_seed("mallory")), second.seq, second.prev_hash,
                               second.message)
    with pytest.raises(RemoteProtocolError) as refused:
        check_fork(first, framed, host.peer)
    assert refused.value.code == "bad_countersignature"


def test_an_author_reusing_a_counter_is_caught_equivocating() -> None:
    table = SampleTable(3)
    table.lobby()
    first = table.message(1, sample_play(0))
    table.counters[1] -= 1
    second = table.message(1, sample_play(1))
    with pytest.raises(EquivocationError) as direct:
        check_equivocation(first, second)
    assert direct.value.peer == table.peers[1].identity.peer.fingerprint
    table.place(first)
    table.place(table.message(2, sample_play(2)))
    head = table.verifier.head
    entry = Entry.countersign(table.peers[0].identity, head.seen, head.hash, second)
    with pytest.raises(EquivocationError) as caught:
        table.verifier.accept(entry)
    assert caught.value.code == "equivocation"
    assert caught.value.peer == table.peers[1].identity.peer.fingerprint
    assert caught.value.entry == head.seen


def test_a_replayed_message_is_refused() -> None:
    table = SampleTable(3)
    table.lobby()
    message = table.message(1, sample_play(0))
    table.place(message)
    head = table.verifier.head
    replay = Entry.countersign(table.peers[0].identity, head.seen, head.hash, message)
    with pytest.raises(ChainError) as caught:
        table.verifier.accept(replay)
    assert (caught.value.code, caught.value.peer) == ("replayed_message",
                                                      table.peers[0].identity.peer.fingerprint)
    check_equivocation(message, message)  # identical: a replay, not equivocation


def test_a_skipped_author_counter_is_refused() -> None:
    table = SampleTable(3)
    table.lobby()
    table.counters[2] += 1
    message = table.message(2, sample_play(0))
    with pytest.raises(ChainError) as caught:
        table.verifier.check_message(message)
    assert caught.value.code == "counter_gap"
    with pytest.raises(ChainError):
        table.place(message)


def _signed_with_head(table: SampleTable, author: int, head: Head) -> Message:
    peer = table.peers[author].identity
    message = Message.sign(peer, table.table_id, table.counters[author], head,
                           PlayCard(Slot(0, 1), 5))
    table.counters[author] += 1
    return message


def _bad_heads(head: Head) -> dict[str, Head]:
    """Heads not in a log whose head is ``head``, by the code each earns (wire.md §4.1)."""
    return {"head_ahead": Head(head.seen + 1, head.hash),
            "head_mismatch": Head(head.seen, bytes(32))}


def test_an_author_head_that_is_not_this_log_is_refused() -> None:
    table = SampleTable(3)
    table.lobby()
    head = table.verifier.head
    for code, bad_head in _bad_heads(head).items():
        message = _signed_with_head(table, 1, bad_head)
        table.counters[1] -= 1
        with pytest.raises(ChainError) as caught:
            table.place(message)
        assert (caught.value.code, caught.value.peer) == (
            code, table.peers[1].identity.peer.fingerprint)
    # Out-of-turn messages over an older head are fine; going back is not.
    table.place(_signed_with_head(table, 1, Head(3, table.verifier.entries[2].hash)))
    regressed = _signed_with_head(table, 1, Head(2, table.verifier.entries[1].hash))
    with pytest.raises(ChainError) as caught:
        table.place(regressed)
    assert caught.value.code == "head_regressed"


def test_a_countersigned_bad_head_names_the_sequencer() -> None:
    """wire.md §4.1: the sequencer must refuse a head not in its log, so once it has
    countersigned one, the fault is the sequencer's, not the author's."""
    table = SampleTable(3)
    table.lobby()
    head = table.verifier.head
    host = table.peers[0].identity
    for code, bad_head in _bad_heads(head).items():
        message = _signed_with_head(table, 1, bad_head)
        table.counters[1] -= 1
        entry = Entry.countersign(host, head.seen, head.hash, message)
        with pytest.raises(ChainError) as caught:
            table.verifier.accept(entry)
        assert (caught.value.code, caught.value.peer) == (code, host.peer.fingerprint)
    bad = Entry.countersign(host, head.seen, head.hash,
                            _signed_with_head(table, 1, Head(head.seen, bytes(32))))
    with pytest.raises(ChainError) as alone:
        verify_entry(bad, table.verifier.entry(head.seen - 1), host.peer)
    assert (alone.value.code, alone.value.peer) == ("head_mismatch", host.peer.fingerprint)


def test_verify_entry_checks_one_entry_against_the_previous() -> None:
    verify_entry(LOG[0], None, HOST)
    verify_entry(LOG[7], LOG[6], HOST)
    with pytest.raises(ChainError) as caught:
        verify_entry(LOG[7], LOG[5], HOST)
    assert caught.value.code == "bad_sequence"
    with pytest.raises(RemoteProtocolError) as refused:
        verify_entry(LOG[7], LOG[6], LOG[1].author)
    assert refused.value.code == "bad_countersignature"


def test_the_sequencer_helper_places_checks_and_refuses() -> None:
    table = SampleTable(3)
    table.lobby()
    bob = table.peers[1].identity.peer
    assert table.verifier.next_counter(bob) == 2
    entry = table.place(table.message(1, sample_play(0)))
    assert table.verifier.entry(entry.seq) == entry
    assert len(table.verifier) == entry.seq + 1
    assert table.verifier.next_counter(bob) == 3
    with pytest.raises(IndexError):
        table.verifier.entry(entry.seq + 1)
    with pytest.raises(LocalProtocolError):
        table.verifier.sequence(table.peers[1].identity, table.message(1, sample_play(1)))
    stale = table.message(2, sample_play(2))
    table.counters[2] -= 1
    table.place(table.message(2, sample_play(3)))
    with pytest.raises(EquivocationError):
        table.place(stale)


def test_the_first_entry_must_be_the_sequencers() -> None:
    table = SampleTable(3)
    bob = table.peers[1]
    message = table.message(1, Leave(""))
    entry = Entry.countersign(table.peers[0].identity, 0, table.verifier.head.hash, message)
    with pytest.raises(ChainError) as caught:
        table.verifier.accept(entry)
    assert caught.value.code == "bad_first_entry"
    with pytest.raises(ChainError) as alone:
        verify_entry(entry, None, table.verifier.sequencer)
    assert alone.value.code == "bad_first_entry"
    with pytest.raises(ChainError):
        verify_chain(LOG, bob.identity.peer)
