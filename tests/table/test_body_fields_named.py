"""A malformed table body is refused naming the field at fault (wire.md §3: bad bytes
become a named fault, never a traceback; table.md §2-§8 name each body's fields).

Each case takes a valid body of the honest reference log, breaks one field
of its wire form (wrong type or size) and decodes it, then builds the same
body directly with the broken value: both refuse with ``InvalidMessage``,
in a sentence that goes on the log as a refusal's reason (so it starts in
lower case, after "entry N: ") and names the field in the spec's words
("a DLEQ proof", "a shuffle seed", "a time"...).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace

import pytest

from tests.audit.test_fault_codes import BOB, HOST, LOG, PEOPLE
from tests.table.prose import reads_on
from uno_p2p.errors import InvalidMessage
from uno_p2p.table.bodies import (
    Abort,
    Clock,
    Handover,
    KeySetup,
    RevealSecrets,
    Shares,
    ShuffleDeck,
)
from uno_p2p.table.frames import (
    FRAME_SYNC,
    DropNotice,
    decode_drop,
    decode_sync,
    drop_notice,
    frame,
)
from uno_p2p.table.handover import Vote
from uno_p2p.wire.codec import WireValue, pack, unpack
from uno_p2p.wire.registry import BODIES

SHARES = next(e.body for e in LOG if isinstance(e.body, Shares))
ITEM = SHARES.items[0]
KEYS = next(e.body for e in LOG if isinstance(e.body, KeySetup))
SHUFFLE = next(e.body for e in LOG if isinstance(e.body, ShuffleDeck))
REVEAL = next(e.body for e in LOG if isinstance(e.body, RevealSecrets))
ABORT = Abort(BOB, "illegal_move", "played out of turn", b"")
HANDOVER = Handover(1, HOST, BOB, ((BOB, bytes(64)),))


def _set(value: WireValue, path: tuple[int, ...], new: WireValue) -> WireValue:
    out = copy.deepcopy(value)
    inner = out
    for index in path[:-1]:
        assert isinstance(inner, list)
        inner = inner[index]
    assert isinstance(inner, list)
    inner[path[-1]] = new
    return out


#: (decoder, valid wire form, path of the field, broken value, the field's words)
WIRE_CASES: list[tuple[Callable[[WireValue], object], WireValue, tuple[int, ...], WireValue,
                       str]] = [
    (Clock.from_wire, Clock(5).to_wire(), (0,), "5", "time"),
    (Clock.from_wire, Clock(5).to_wire(), (0,), -1, "time"),
    (type(ITEM).from_wire, ITEM.to_wire(), (0,), "0", "shuffle number"),
    (type(ITEM).from_wire, ITEM.to_wire(), (1,), "0", "prover seat"),
    (type(ITEM).from_wire, ITEM.to_wire(), (2,), 7, "purpose"),
    (type(ITEM).from_wire, ITEM.to_wire(), (3,), "x", "recipient seat"),
    (type(ITEM).from_wire, ITEM.to_wire(), (4, 0), "x", "deck position"),
    (type(ITEM).from_wire, ITEM.to_wire(), (4, 1), b"\x01", "decryption share"),
    (type(ITEM).from_wire, ITEM.to_wire(), (4, 2), b"\x01", "DLEQ proof"),
    (type(ITEM).from_wire, ITEM.to_wire(), (4,), [0, b""], "decryption share"),
    (KeySetup.from_wire, KEYS.to_wire(), (0, 0), b"\x01", "public key"),
    (KeySetup.from_wire, KEYS.to_wire(), (0, 1), b"\x01", "seed commitment"),
    (KeySetup.from_wire, KEYS.to_wire(), (0, 2), b"\x01", "key proof"),
    (ShuffleDeck.from_wire, SHUFFLE.to_wire(), (0,), "0", "shuffle number"),
    (ShuffleDeck.from_wire, SHUFFLE.to_wire(), (1, 0), b"\x01", "ciphertext"),
    (ShuffleDeck.from_wire, SHUFFLE.to_wire(), (2,), "proof", "proof of shuffle"),
    (ShuffleDeck.from_wire, SHUFFLE.to_wire(), (1,), "deck", "a shuffled deck"),
    (RevealSecrets.from_wire, REVEAL.to_wire(), (0,), b"\x01", "key share"),
    (RevealSecrets.from_wire, REVEAL.to_wire(), (1,), b"\x01", "shuffle seed"),
    (RevealSecrets.from_wire, REVEAL.to_wire(), (2,), b"\x01", "channel seed"),
    (Abort.from_wire, ABORT.to_wire(), (1,), "", "code"),
    (Abort.from_wire, ABORT.to_wire(), (2,), "x" * 5000, "reason"),
    (Abort.from_wire, ABORT.to_wire(), (3,), "evidence", "evidence"),
    # table.md §13.2: terms count from 1, at most MAX_TERM = 40.
    (Handover.from_wire, HANDOVER.to_wire(), (0,), 41, "a term"),
    (Handover.from_wire, HANDOVER.to_wire(), (0,), "1", "a term"),
    (Handover.from_wire, HANDOVER.to_wire(), (3, 0, 1), bytes(63), "a vote signature"),
]


@pytest.mark.parametrize(("decode", "wire", "path", "bad", "words"), WIRE_CASES)
def test_a_broken_field_is_refused_by_name(decode: Callable[[WireValue], object],
                                           wire: WireValue, path: tuple[int, ...],
                                           bad: WireValue, words: str) -> None:
    decode(wire)  # the valid form decodes
    with pytest.raises(InvalidMessage) as caught:
        decode(_set(wire, path, bad))
    text = str(caught.value)
    assert words in text, text
    assert text[0].islower(), f"it follows 'entry N: ': {text!r}"


@pytest.mark.parametrize(("make", "words"), [
    (lambda: Clock(-1), "time"),
    (lambda: replace(ITEM, shuffle=-1), "shuffle number"),
    (lambda: replace(ITEM, prover=-1), "prover seat"),
    (lambda: replace(ITEM, recipient=-2), "recipient seat"),
    (lambda: replace(ITEM, position=108), "deck position"),
    (lambda: replace(ITEM, share=b"\x01"), "decryption share"),
    (lambda: replace(ITEM, proof=b"\x01"), "DLEQ proof"),
    # table.md §5: an open share is for everyone; a deal or private share names its seat.
    (lambda: replace(ITEM, recipient=1), "an open share has no recipient"),
    (lambda: replace(ITEM, purpose="deal"), "deal and private ones have one"),
    (lambda: replace(KEYS, public_key=b"\x01"), "public key"),
    (lambda: replace(KEYS, commitment=b"\x01"), "seed commitment"),
    (lambda: replace(KEYS, proof=b"\x01"), "key proof"),
    (lambda: replace(SHUFFLE, shuffle=-1), "shuffle number"),
    (lambda: replace(SHUFFLE, proof="x"), "proof of shuffle"),  # type: ignore[arg-type]
    (lambda: replace(SHUFFLE, ciphertexts=(b"\x01",)), "a ciphertext"),
    (lambda: replace(REVEAL, key_share=b"\x01"), "key share"),
    (lambda: replace(REVEAL, shuffle_master=b"\x01"), "shuffle seed"),
    (lambda: replace(REVEAL, channel_seed=b"\x01"), "channel seed"),
    (lambda: replace(ABORT, code=""), "code"),
    (lambda: replace(ABORT, reason="x" * 5000), "reason"),
    # protocol/wire.cddl: abort evidence is bstr .size (0..1048576).
    (lambda: replace(ABORT, evidence=bytes((1 << 20) + 1)), "evidence"),
    # table.md §13.2: MAX_TERM = 40 hand-overs in one game; terms count from 1.
    (lambda: Handover(41, HOST, BOB, ((BOB, bytes(64)),)), "a term"),
    (lambda: Handover(0, HOST, BOB, ((BOB, bytes(64)),)), "a term"),
    (lambda: Handover(1, HOST, BOB, ((BOB, bytes(63)),)), "a vote signature"),
])
def test_a_body_built_with_a_broken_field_is_refused_by_name(make: Callable[[], object],
                                                             words: str) -> None:
    with pytest.raises(InvalidMessage) as caught:
        make()
    text = str(caught.value)
    assert words in text, text
    assert text[0].islower(), text


#: table.md's body kinds (wire.md §5's registry numbers), with how many fields each
#: body's array holds.
KINDS = [(64, "key_setup", 1), (65, "shuffle_deck", 3), (66, "shares", 1), (67, "move", 2),
         (68, "private_shares", 1), (69, "clock", 1), (70, "reveal_secrets", 3),
         (71, "abort", 4), (72, "handover", 4), (73, "remove", 2)]


@pytest.mark.parametrize(("number", "name", "count"), KINDS)
def test_a_body_of_the_wrong_shape_is_refused_by_its_kind(number: int, name: str,
                                                          count: int) -> None:
    cases: list[tuple[WireValue, str]] = [
        ([0] * (count + 1), f"{name} must have {count} fields, not {count + 1}"),
        ([0] * (count - 1), f"{name} must have {count} fields, not {count - 1}"),
        ("x", f"{name} must be an array")]
    for bad, words in cases:
        with pytest.raises(InvalidMessage) as caught:
            BODIES.decode(number, bad)
        assert str(caught.value) == words


VOTE = Vote.sign(PEOPLE[2], LOG[0].message.table_id, 1, HOST, BOB, LOG[30].message.head)


@pytest.mark.parametrize(("index", "bad", "words"), [
    (0, 0, "a term"), (0, 41, "a term"), (3, -1, "a head"), (4, b"\x01", "a head hash"),
    (6, b"\x01" * 63, "a signature"), (7, 0, "a hand-over vote must have 7 fields, not 8"),
])
def test_a_broken_vote_is_refused_by_the_name_of_its_field(index: int, bad: WireValue,
                                                           words: str) -> None:
    """table.md §13.1's ``V`` frame: ``[term, old, new, seen, head hash, voter, signature]``."""
    wire = unpack(VOTE.encode())
    assert isinstance(wire, list)
    assert Vote.decode(pack(wire)) == VOTE
    if index < len(wire):
        wire[index] = bad
    else:
        wire.append(bad)
    with pytest.raises(InvalidMessage) as caught:
        Vote.decode(pack(wire))
    text = str(caught.value)
    assert text.startswith(words), text


def test_the_widest_vote_and_hand_over_decode() -> None:
    """The bounds are inclusive: term 40 (MAX_TERM, table.md §13.2) and a head at entry 0
    (a vote's ``seen`` counts entries, from 0, wire.md §4) are valid."""
    assert Handover(40, HOST, BOB, ((BOB, bytes(64)),)).term == 40
    wire = unpack(VOTE.encode())
    assert isinstance(wire, list)
    wire[0], wire[3] = 40, 0
    vote = Vote.decode(pack(wire))
    assert (vote.term, vote.head.seen) == (40, 0)


def test_a_frame_of_an_unknown_kind_is_refused_naming_its_tag() -> None:
    """table.md §3.1 lists the frame kinds; making any other is a caller's bug, said with
    the tag it was given."""
    with pytest.raises(InvalidMessage) as refused:
        frame(b"Z", b"\x90")
    assert str(refused.value) == "unknown frame tag b'Z'"
    assert frame(FRAME_SYNC, b"\x91\x05") == b"S\x91\x05"


def test_a_drop_notice_for_message_zero_decodes() -> None:
    """table.md §3.1: a drop notice names the dropped message's counter, and a peer's
    first message is number 0."""
    assert decode_drop(pack([0, "race", "a move already made", bytes(32)])) == DropNotice(
        0, "race", "a move already made", bytes(32))


@pytest.mark.parametrize(("decode", "payload", "words"), [
    (decode_drop, pack([3, "race"]), "a drop notice"),
    (decode_drop, pack([3, 4, "x"]), "a drop notice"),
    (decode_sync, pack([5, 6]), "a sync request"),
    (decode_sync, pack([-1]), "a sync point"),
])
def test_a_broken_notice_is_refused_naming_it(decode: Callable[[bytes], object],
                                              payload: bytes, words: str) -> None:
    """table.md §3.1: the sequencer's drop notice ``D`` is ``[counter, code, reason]``
    and a sync request ``S`` is ``[seen]``; anything else is refused, naming the frame
    in words that read on."""
    with pytest.raises(InvalidMessage) as refused:
        decode(payload)
    text = str(refused.value)
    assert text.startswith(words), text
    reads_on(text)


def test_a_drop_notice_is_four_fields_the_last_the_message_digest() -> None:
    """table.md §3.1 / wire.cddl ``drop-frame``, in bytes from the msgpack spec: fixarray
    of 4, fixint counter, fixstr code, fixstr reason, bin 8 of 32 bytes (or of 0)."""
    digest = bytes(range(32))
    expected = b"\x94\x03\xa4race\xa1r\xc4\x20" + digest
    assert drop_notice(3, "race", "r", digest) == expected
    assert decode_drop(expected) == DropNotice(3, "race", "r", digest)
    assert drop_notice(7, "synced", "") == b"\x94\x07\xa6synced\xa0\xc4\x00"
    with pytest.raises(InvalidMessage, match="digest"):
        decode_drop(b"\x94\x03\xa4race\xa1r\xc4\x05" + bytes(5))
