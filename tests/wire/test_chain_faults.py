"""Every chain fault, named in full: code, peer, entry, evidence (docs/protocol/wire.md §4).

A fault the audit reports is only as good as what it names. For each way an
entry or a message can break the chain, this checks the code, the peer at
fault (the one whose signature vouches for the broken fact, wire.md §4.1),
the entry number, the evidence that proves it, a sentence that says where,
and that the verifier is left exactly as it was. Older heads get their own
cases: an author may sign over any earlier entry (out-of-turn messages), but
only with that entry's true hash.
"""

from __future__ import annotations

import pytest

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import RemoteProtocolError
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
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.game import PlayCard, Slot
from uno_p2p.wire.samples import SampleTable, sample_log, sample_play

LOG = sample_log(players=3, turns=6)
HOST = LOG[0].author


def table_after_lobby() -> SampleTable:
    table = SampleTable(3)
    table.lobby()
    for turn in range(4):
        table.append(1 + turn % 2, sample_play(turn))
    return table


def signed(table: SampleTable, author: int, head: Head, counter: int | None = None) -> Message:
    peer = table.peers[author].identity
    number = table.counters[author] if counter is None else counter
    return Message.sign(peer, table.table_id, number, head, PlayCard(Slot(0, 1), 5))


def as_entry(table: SampleTable, message: Message) -> Entry:
    head = table.verifier.head
    return Entry.countersign(table.peers[0].identity, head.seen, head.hash, message)


def refusal(verifier: ChainVerifier, item: Entry | Message) -> ChainError:
    """The error ``item`` earns, checking that the verifier did not move."""
    head, size = verifier.head, len(verifier)
    check = verifier.accept if isinstance(item, Entry) else verifier.check_message
    with pytest.raises(ChainError) as caught:
        check(item)  # type: ignore[arg-type]
    assert (verifier.head, len(verifier)) == (head, size)
    return caught.value


def assert_names(error: ChainError, code: str, peer: PeerId, entry: int | None,
                 evidence: tuple[object, ...], *, where: bool | None = None) -> None:
    """``where``: the sentence starts with "entry N: " (default: when an entry is judged)."""
    assert error.code == code
    assert error.peer_key == peer
    assert error.peer == peer.fingerprint
    assert error.entry == entry
    assert error.evidence == evidence
    if where is None:
        where = isinstance(evidence[-1], Entry)
    assert str(error).startswith(f"entry {entry}: ") == where, str(error)


@pytest.mark.parametrize("through", ["entry", "message"])
def test_an_older_head_must_carry_that_entrys_true_hash(through: str) -> None:
    table = table_after_lobby()
    seq = len(table.verifier)
    host, bob = table.peers[0].identity.peer, table.peers[1].identity.peer
    # wire.md §4.1: checked before countersigning, a message names its author; once
    # countersigned, the sequencer vouched for a head not of its log and is named.
    named = host if through == "entry" else bob
    entries = table.verifier.entries
    for seen in range(3, seq):  # every older view Bob may still sign over
        for wrong in (entries[seen].hash, entries[seen - 2].hash, bytes(32)):
            message = signed(table, 1, Head(seen, wrong))
            item = as_entry(table, message) if through == "entry" else message
            error = refusal(table.verifier, item)
            assert_names(error, "head_mismatch", named, seq, (item,))
            assert f"a different entry {seen - 1} than" in str(error)
    good = signed(table, 1, Head(seq - 2, entries[seq - 3].hash))
    table.verifier.check_message(good)
    table.place(good)


def test_a_head_from_the_future_and_a_head_going_back_name_the_sequencer_once_countersigned(
        ) -> None:
    # wire.md §4.1 (*): countersigned, the entry names the sequencer; the message alone,
    # checked before countersigning, names its author.
    table = table_after_lobby()
    seq = len(table.verifier)
    host, bob = table.peers[0].identity.peer, table.peers[1].identity.peer
    early = signed(table, 1, Head(seq + 1, table.verifier.head.hash))
    ahead = as_entry(table, early)
    assert_names(refusal(table.verifier, ahead), "head_ahead", host, seq, (ahead,))
    assert_names(refusal(table.verifier, early), "head_ahead", bob, seq, (early,))
    table.place(signed(table, 1, table.verifier.head))
    table.counters[1] += 1
    entries = table.verifier.entries
    going_back = signed(table, 1, Head(seq - 1, entries[seq - 2].hash))
    back = as_entry(table, going_back)
    assert_names(refusal(table.verifier, back), "head_regressed", host, seq + 1, (back,))
    assert_names(refusal(table.verifier, going_back), "head_regressed", bob, seq + 1,
                 (going_back,))


def test_counter_faults_name_the_sequencer_or_the_author_with_both_messages() -> None:
    table = table_after_lobby()
    seq = len(table.verifier)
    host, bob = table.peers[0].identity.peer, table.peers[1].identity.peer
    head = table.verifier.head
    earlier = next(e for e in table.verifier.entries if e.author == bob
                   and e.message.counter == table.counters[1] - 1)
    gap = as_entry(table, signed(table, 1, head, table.counters[1] + 1))
    assert_names(refusal(table.verifier, gap), "counter_gap", host, seq, (gap,))
    replay = as_entry(table, earlier.message)
    assert_names(refusal(table.verifier, replay), "replayed_message", host, seq,
                 (earlier, replay))
    twin = as_entry(table, signed(table, 1, head, table.counters[1] - 1))
    error = refusal(table.verifier, twin)
    assert isinstance(error, EquivocationError)
    assert_names(error, "equivocation", bob, seq, (earlier, twin))
    message = signed(table, 1, head, table.counters[1] - 1)
    assert_names(refusal(table.verifier, message), "equivocation", bob, seq,
                 (earlier, message))


def test_place_faults_name_the_sequencer_and_hold_the_entry() -> None:
    foreign = SampleTable(3, table_id=b"\x09" * 16).lobby()[1]
    verifier = verify_chain(LOG[:5], HOST)
    assert_names(refusal(verifier, LOG[6]), "bad_sequence", HOST, 6, (LOG[6],))
    relinked = Entry.countersign(SampleTable(3).peers[0].identity, 5, bytes(32), LOG[5].message)
    error = refusal(verifier, relinked)
    assert error.code in ("bad_prev_hash", "bad_countersignature")
    spliced = verify_chain(LOG[:1], HOST)
    with pytest.raises(ChainError) as caught:
        spliced.accept(Entry.from_wire([1, *foreign.to_wire()[1:]]))
    assert caught.value.code in ("wrong_table", "bad_prev_hash")
    assert caught.value.peer_key == HOST


def test_a_foreign_message_is_refused_before_it_is_placed() -> None:
    table = table_after_lobby()
    stranger = SampleTable(3, table_id=b"\x07" * 16)
    message = Message.sign(table.peers[1].identity, stranger.table_id, table.counters[1],
                           table.verifier.head, PlayCard(Slot(0, 1), 5))
    error = refusal(table.verifier, message)
    assert_names(error, "wrong_table", table.peers[1].identity.peer, None, (message,))


def test_verify_entry_refuses_a_head_that_is_not_of_this_log() -> None:
    table = table_after_lobby()
    previous = table.verifier.entries[-1]
    seq = previous.seq + 1
    host = table.peers[0].identity.peer
    for head in (Head(seq, bytes(32)), Head(seq + 1, previous.hash)):
        entry = as_entry(table, signed(table, 1, head))
        with pytest.raises(ChainError) as caught:
            verify_entry(entry, previous, table.verifier.sequencer)
        # a countersigned entry: the sequencer vouched for the head (wire.md §4.1)
        assert_names(caught.value, "head_mismatch", host, seq, (entry,))
    # One entry alone cannot judge an older head; its own view (seen == seq) it can.
    fine = as_entry(table, signed(table, 1, Head(seq, previous.hash)))
    verify_entry(fine, previous, table.verifier.sequencer)
    older = as_entry(table, signed(table, 1, Head(seq - 3, bytes(32))))
    verify_entry(older, previous, table.verifier.sequencer)


def test_proofs_of_cheating_hold_both_items_and_only_prove_what_they_prove() -> None:
    table = table_after_lobby()
    head = table.verifier.head
    first = signed(table, 1, head)
    second = Message.sign(table.peers[1].identity, table.table_id, table.counters[1], head,
                          PlayCard(Slot(0, 2), 6))
    with pytest.raises(EquivocationError) as caught:
        check_equivocation(first, second)
    assert_names(caught.value, "equivocation", table.peers[1].identity.peer, None,
                 (first, second), where=False)
    check_equivocation(first, first)  # the same message twice is a replay, not a proof
    check_equivocation(first, signed(table, 1, head, table.counters[1] + 1))
    check_equivocation(first, signed(table, 2, head, table.counters[1]))
    host = table.peers[0].identity
    a = Entry.countersign(host, head.seen, head.hash, first)
    b = Entry.countersign(host, head.seen, head.hash, table.message(2, sample_play(9)))
    with pytest.raises(ForkError) as forked:
        check_fork(a, b, host.peer)
    assert_names(forked.value, "sequencer_fork", host.peer, head.seen, (a, b), where=False)
    check_fork(a, a, host.peer)
    later = Entry.countersign(host, head.seen + 1, a.hash, second)
    check_fork(a, later, host.peer)  # different numbers: no fork
    table.verifier.compare(later)  # beyond our log: nothing to compare


def test_an_empty_log_is_refused_with_its_own_code() -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        verify_chain([])
    assert caught.value.code == "empty_log"
    assert caught.value.entry is None
    assert verify_chain(LOG).head == Head(len(LOG), LOG[-1].hash)


def test_a_message_with_a_bad_signature_is_refused_before_it_is_placed() -> None:
    table = table_after_lobby()
    honest = signed(table, 1, table.verifier.head)
    forged = Message(honest.table_id, honest.author, honest.counter, honest.head, honest.kind,
                     honest.body, bytes(64))
    with pytest.raises(RemoteProtocolError) as caught:
        table.verifier.check_message(forged)
    assert caught.value.code == "bad_signature"
    entry = as_entry(table, forged)
    with pytest.raises(RemoteProtocolError) as alone:
        verify_entry(entry, table.verifier.entries[-1], table.verifier.sequencer)
    assert (alone.value.code, alone.value.entry) == ("bad_signature", entry.seq)


def test_the_log_answers_by_number_and_counter() -> None:
    verifier = verify_chain(LOG, HOST)
    assert verifier.entry(0) == LOG[0]
    assert verifier.entry(len(LOG) - 1) == LOG[-1]
    for missing in (-1, len(LOG)):
        with pytest.raises(IndexError, match=f"no entry {missing} in a log of {len(LOG)}"):
            verifier.entry(missing)
    stranger = SampleTable(4).peers[3].identity.peer
    assert verifier.next_counter(stranger) == 0
    assert verifier.next_counter(HOST) == sum(e.author == HOST for e in LOG)
    beyond = Entry.countersign(SampleTable(3).peers[0].identity, len(LOG), LOG[-1].hash,
                               LOG[-1].message)
    verifier.compare(beyond)  # nothing at that number yet: nothing to compare
