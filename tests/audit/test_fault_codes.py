"""Every table fault code the audit can print, produced by a log a malicious host writes.

Each case takes the honest 3-player reference log, keeps it up to an entry,
and writes there what a colluding host and peer could: a message with some
body, signed by its author's own key with the right counter and head,
countersigned by the host. The audit must name the code of
docs/protocol/verdicts.md and the peer the chapter says it names. Expected
values come from the chapter, not from the code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from uno_p2p.audit import Knowledge, Status, audit_entries, audit_file, revealed_knowledge
from uno_p2p.audit.core import _Audit, _deck_record
from uno_p2p.audit.report import Finding
from uno_p2p.crypto.cards import card_of, card_point
from uno_p2p.crypto.group import Scalar, base_mul
from uno_p2p.crypto.identity import Identity
from uno_p2p.crypto.shuffle import Ciphertext
from uno_p2p.errors import CryptoError
from uno_p2p.rules.actions import Draw, Play, Reveal, TimeOut
from uno_p2p.rules.codec import Slot
from uno_p2p.store.unolog import GameLog, UnreadableLog, read_log
from uno_p2p.table import bodies  # noqa: F401 (registers the table's body kinds)
from uno_p2p.table.bodies import (
    Abort,
    Clock,
    KeySetup,
    Move,
    RevealSecrets,
    Shares,
    ShuffleDeck,
)
from uno_p2p.table.game import check_opened_once
from uno_p2p.table.memnet import seeded
from uno_p2p.table.state import DeckState, Misbehaviour
from uno_p2p.wire.codec import WireValue, pack
from uno_p2p.wire.envelope import Entry, Head, Message, entry_hash, genesis_hash
from uno_p2p.wire.game import PlayCard
from uno_p2p.wire.game import Slot as SampleSlot
from uno_p2p.wire.lobby import Join, Kick, Leave, OpenTable, Ready, SetOptions, Start
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.registry import Body

DATA = Path(__file__).resolve().parent.parent / "data"
LOG = tuple(read_log(DATA / "honest-3p-house.unolog").entries)
SEED = b"uno-lan/reference/honest-3p"
#: Seats 0-2 of the log (Ann the host, Bob, Cy), and a stranger who never joined.
PEOPLE = [Identity(seeded(SEED, f"identity {i}")) for i in range(3)] + \
    [Identity(b"\x07" * 32)]
HOST, BOB, CY, STRANGER = (p.peer for p in PEOPLE)
#: Where the honest log's phases are (see the entry list in tests/data).
FIRST_JOIN, START, FIRST_KEY, FIRST_SHUFFLE, FIRST_SHARES, FIRST_MOVE = 1, 5, 7, 10, 13, 24
#: The sequencer's start clock (table.md §6.1), logged right after the start.
START_CLOCK = START + 1
assert [type(LOG[i].body) for i in (FIRST_JOIN, START, FIRST_KEY, FIRST_SHUFFLE,
                                     FIRST_SHARES, FIRST_MOVE)] == \
    [Join, Start, KeySetup, ShuffleDeck, Shares, Move]
FIRST_PLAY = FIRST_MOVE + 1
REVEALS = [e.seq for e in LOG if isinstance(e.body, RevealSecrets)]


def forge(entries: Sequence[Entry], index: int, who: int, body: Body) -> list[Entry]:
    """``entries[:index]`` then ``body`` by person ``who``, signed and countersigned."""
    kept = list(entries[:index])
    author = PEOPLE[who]
    counter = sum(e.author == author.peer for e in kept)
    prev = kept[-1].hash if kept else genesis_hash(LOG[0].message.table_id)
    message = Message.sign(author, LOG[0].message.table_id, counter, Head(index, prev), body,
                           version=LOG[0].message.version)
    return [*kept, Entry.countersign(PEOPLE[0], index, prev, message)]


def rechain(entries: Sequence[Entry], index: int, changed: Body, upto: int) -> list[Entry]:
    """The log with entry ``index``'s body changed and entries up to ``upto`` re-signed."""
    out = list(entries[:index])
    for seq in range(index, upto + 1):
        body = changed if seq == index else entries[seq].body
        who = next(i for i, p in enumerate(PEOPLE) if p.peer == entries[seq].author)
        out = forge(out, seq, who, body)
    return out


def channel(seat: int) -> bytes:
    body = LOG[0].body if seat == 0 else next(e.body for e in LOG if isinstance(e.body, Join)
                                              and e.author == PEOPLE[seat].peer)
    assert isinstance(body, OpenTable | Join)
    return body.channel_key


def reveal_of(seat: int) -> tuple[int, RevealSecrets]:
    entry = next(LOG[i] for i in REVEALS if LOG[i].author == PEOPLE[seat].peer)
    assert isinstance(entry.body, RevealSecrets)
    return entry.seq, entry.body


def open_table(**changes: object) -> OpenTable:
    body = LOG[0].body
    assert isinstance(body, OpenTable)
    return replace(body, **changes)  # type: ignore[arg-type]


def key_setup(seat: int) -> KeySetup:
    body = next(e.body for e in LOG
                if isinstance(e.body, KeySetup) and e.author == PEOPLE[seat].peer)
    assert isinstance(body, KeySetup)
    return body


def mover(seq: int) -> int:
    """The seat (and person) whose move entry ``seq`` logs."""
    body = LOG[seq].body
    assert isinstance(body, Move)
    assert isinstance(body.action, Play | Draw)
    return body.action.seat


def _time_out_without_start_clock() -> list[Entry]:
    """The honest log re-signed without its start clock, then a host's time-out."""
    entries = list(LOG[:START_CLOCK])
    for entry in LOG[START_CLOCK + 1:FIRST_MOVE]:
        who = next(i for i, p in enumerate(PEOPLE) if p.peer == entry.author)
        entries = forge(entries, len(entries), who, entry.body)
    return forge(entries, len(entries), 0, Move(TimeOut(mover(FIRST_MOVE))))


def play_at(seq: int) -> Play:
    body = LOG[seq].body
    assert isinstance(body, Move)
    assert isinstance(body.action, Play)
    return body.action


def shuffle_of(seq: int) -> ShuffleDeck:
    body = LOG[seq].body
    assert isinstance(body, ShuffleDeck)
    return body


def _reveal_case(seat: int, **changes: bytes) -> list[Entry]:
    seq, body = reveal_of(seat)
    return forge(LOG, seq, seat, replace(body, **changes))


def _other_reveal(seat: int) -> list[Entry]:
    seq, _ = reveal_of(seat)
    return forge(LOG, seq, seat, reveal_of((seat + 1) % 3)[1])


def _false_accusation() -> list[Entry]:
    valid = LOG[FIRST_MOVE].message  # a valid move, logged honestly right there
    return forge(LOG, FIRST_MOVE, 0, Abort(valid.author, "illegal_move", "a lie", valid.encode()))


def _table_full() -> list[Entry]:
    log = forge([], 0, 0, open_table(max_players=2))
    log = forge(log, 1, 1, Join("Bob", channel(1)))
    return forge(log, 2, 2, Join("Cy", channel(2)))


def _wrong_version() -> list[Entry]:
    """Bob's join signed as version 2 at the log's version 1 table (wire.md §3)."""
    kept = list(LOG[:FIRST_JOIN])
    message = Message.sign(PEOPLE[1], LOG[0].message.table_id, 0, Head(FIRST_JOIN, kept[-1].hash),
                           Join("Bob", channel(1)), version=2)
    return [*kept, Entry.countersign(PEOPLE[0], FIRST_JOIN, kept[-1].hash, message)]


def _clock_backwards() -> list[Entry]:
    return forge(forge(LOG, FIRST_SHUFFLE, 0, Clock(1000)), FIRST_SHUFFLE + 1, 0, Clock(5))


#: code -> (the forged log, the person the chapter says is named: 0-3, None for nobody).
CASES: dict[str, tuple[Callable[[], list[Entry]], int | None]] = {
    "after_end": (lambda: forge(LOG, len(LOG), 0, Clock(1)), 0),
    "no_table": (lambda: forge([], 0, 0, Join("Ann", channel(0))), 0),
    "wrong_version": (_wrong_version, 1),
    "unexpected": (lambda: forge(LOG, FIRST_JOIN, 0, PlayCard(SampleSlot(0, 1), 5)), 0),
    "not_lobby": (lambda: forge(LOG, FIRST_KEY, 1, Ready(True)), 1),
    "not_host": (lambda: forge(LOG, FIRST_JOIN, 1, SetOptions("house", ())), 1),
    "bad_options": (lambda: forge(LOG, FIRST_JOIN, 0, SetOptions("x", (("target", 0),))), 0),
    "reopened": (lambda: forge(LOG, FIRST_JOIN, 0, open_table()), 0),
    "joined_twice": (lambda: forge(LOG, FIRST_JOIN + 1, 1, Join("Bobby", channel(1))), 1),
    "table_full": (_table_full, 2),
    "name_taken": (lambda: forge(LOG, FIRST_JOIN, 1, Join("Ann", channel(1))), 1),
    "not_joined": (lambda: forge(LOG, FIRST_JOIN, 1, Ready(True)), 1),
    "bad_kick": (lambda: forge(LOG, FIRST_JOIN, 0, Kick(CY, "no")), 0),
    "not_seated": (lambda: forge(LOG, FIRST_KEY, 3, Leave("bye")), 3),
    "bad_seats": (lambda: forge(LOG, START, 0, Start((CY, BOB, HOST))), 0),
    "not_ready": (lambda: forge(LOG, START - 1, 0, Start((HOST, BOB, CY))), 0),
    "unexpected_key": (lambda: forge(LOG, FIRST_JOIN, 0, key_setup(0)), 0),
    "bad_key": (lambda: forge(LOG, FIRST_KEY, 1, key_setup(0)), 1),
    "not_sequencer": (lambda: forge(LOG, FIRST_SHUFFLE, 1, Clock(5)), 1),
    "no_start_clock": (_time_out_without_start_clock, 0),
    "bad_close": (lambda: forge(LOG, REVEALS[0], 1, Abort(CY, "missing_reveal", "", b"")), 1),
    "clock_backwards": (_clock_backwards, 0),
    "unexpected_reveal": (lambda: forge(LOG, FIRST_JOIN, 0, reveal_of(0)[1]), 0),
    "invalid_scalar": (lambda: _reveal_case(1, key_share=b"\xff" * 32), 1),
    "key_mismatch": (lambda: _other_reveal(1), 1),
    "commitment_mismatch": (lambda: _reveal_case(1, shuffle_master=bytes(32)), 1),
    "channel_mismatch": (lambda: _reveal_case(1, channel_seed=bytes(32)), 1),
    "bad_evidence": (lambda: forge(LOG, FIRST_MOVE, 0, Abort(BOB, "illegal_move", "x",
                                                             b"\x93\x01\x02\x03")), 0),
    "false_accusation": (_false_accusation, 0),
    "unexpected_share": (lambda: forge(LOG, FIRST_MOVE, 1, LOG[FIRST_SHARES + 1].body), 1),
    "out_of_turn": (lambda: forge(LOG, FIRST_SHUFFLE, 1, shuffle_of(FIRST_SHUFFLE + 1)), 1),
    "bad_shuffle": (lambda: forge(LOG, FIRST_SHUFFLE, 0, ShuffleDeck(
        0, shuffle_of(FIRST_SHUFFLE).ciphertexts[:-1])), 0),
    "unexpected_private": (lambda: forge(LOG, FIRST_MOVE, 1,
                                         Sealed(HOST, bytes(12), bytes(16))), 1),
    "not_a_move": (lambda: forge(LOG, FIRST_MOVE, 1, Move(Reveal(()))), 1),
    "wrong_seat": (lambda: forge(LOG, FIRST_MOVE, 1, Move(Draw(2))), 1),
    "unproven_face": (lambda: forge(LOG, FIRST_PLAY, mover(FIRST_PLAY),
                                    Move(play_at(FIRST_PLAY))), mover(FIRST_PLAY)),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_a_forged_entry_is_named_as_the_chapter_says(code: str) -> None:
    make, named = CASES[code]
    entries = make()
    report = audit_entries(entries)
    assert report.status == Status.VIOLATION, report.lines()
    finding = report.violation
    assert finding is not None
    assert (finding.code, finding.entry) == (code, len(entries) - 1), report.lines()
    if named is None:
        assert finding.peer is None
    else:
        assert finding.peer is not None
        assert finding.peer.key == PEOPLE[named].peer.key


def test_a_time_out_by_a_player_is_not_sequencer() -> None:
    report = audit_entries(forge(LOG, FIRST_MOVE, 1, Move(TimeOut(1))))
    assert report.violation is not None
    assert (report.violation.code, report.violation.peer and report.violation.peer.key) == (
        "not_sequencer", BOB.key)


def _faces_of_deck_zero() -> dict[int, int]:
    found = revealed_knowledge(LOG)
    assert found is not None
    return {slot.position: card for slot, card in found.faces.items() if slot.shuffle == 0}


def _shuffler_of(seq: int) -> bytes:
    return LOG[seq].author.key


def _assert_refused_shuffle(last: int, cts: list[bytes]) -> None:
    """The log with shuffle ``last`` holding ``cts`` instead is a ``bad_shuffle`` by its
    shuffler (deck.md §6.4: the proof fails on arrival)."""
    entries = rechain(LOG, last, replace(shuffle_of(last), ciphertexts=tuple(cts)),
                      FIRST_SHARES + 2)
    report = audit_entries(entries)
    assert report.violation is not None
    assert report.violation.code == "bad_shuffle"
    assert report.violation.peer is not None
    assert report.violation.peer.key == _shuffler_of(last)


def test_a_shuffled_non_card_is_refused_by_the_proof_of_shuffle() -> None:
    """deck.md §6.4: a shuffle hiding a point that is no card is no permutation of its
    input, so its proof fails on arrival and names the shuffler (before any opening)."""
    last = FIRST_SHUFFLE + 2
    cts = list(shuffle_of(last).ciphertexts)
    ct = Ciphertext.from_wire(cts[0], peer=None, item="test")
    cts[0] = Ciphertext(ct.c1, ct.c2 + base_mul(Scalar(1))).to_wire()
    _assert_refused_shuffle(last, cts)


def test_a_point_that_is_no_card_is_unknown_card_naming_nobody() -> None:
    """deck.md §7: behind the proofs, an opened point that encodes no card is still a
    named fault (``unknown_card``) and never a crash; the opening alone names nobody."""
    with pytest.raises(CryptoError) as caught:
        card_of(card_point(5) + base_mul(Scalar(1)))
    assert caught.value.code == "unknown_card"
    assert caught.value.peer is None


def test_two_positions_of_one_card_are_refused_by_the_proof_of_shuffle() -> None:
    faces = _faces_of_deck_zero()
    last = FIRST_SHUFFLE + 2
    cts = list(shuffle_of(last).ciphertexts)
    ct = Ciphertext.from_wire(cts[1], peer=None, item="test")
    cts[1] = Ciphertext(ct.c1, ct.c2 - card_point(faces[1]) + card_point(faces[0])).to_wire()
    _assert_refused_shuffle(last, cts)


def test_one_card_opened_twice_in_a_deck_is_duplicate_card_naming_nobody() -> None:
    """deck.md §7: two slots of one deck opening to one card is named at once."""
    opened = {Slot(1, 3): 17}
    check_opened_once(opened, Slot(1, 3), 17, 40)  # the same slot again is no fault
    check_opened_once(opened, Slot(2, 4), 17, 40)  # another deck may hold it
    with pytest.raises(Misbehaviour) as caught:
        check_opened_once(opened, Slot(1, 4), 17, 40)
    assert caught.value.code == "duplicate_card"
    assert caught.value.culprit is None


def contradicted() -> tuple[Slot, Finding]:
    """The reveal stage's finding when the first card opened in play is given another
    face than the re-executed deck proves (only broken cryptography could give it)."""
    found = revealed_knowledge(LOG)
    assert found is not None
    audit = _Audit(LOG, 0)
    public = audit.replay()
    assert public.state is not None
    slot = min(public.state.opened)
    wrong = {**found.faces, slot: (found.faces[slot] + 1) % 108}
    finding = audit._check_faces(public, Knowledge(wrong, found.decks))
    assert finding is not None
    return slot, finding


def test_a_revealed_face_against_a_proven_one_is_contradiction() -> None:
    """verdicts.md: a face opened in play that the re-executed deck contradicts."""
    _, finding = contradicted()
    assert (finding.code, finding.peer) == ("contradiction", None)


def test_a_deck_carrying_an_unshuffled_deck_is_bad_deck() -> None:
    deck = DeckState(1, 1, (), (Slot(7, 0),), (), (0, 1))
    with pytest.raises(CryptoError) as caught:
        _deck_record(deck, {})
    assert caught.value.code == "bad_deck"


def test_an_unsettled_private_accusation_blames_nobody() -> None:
    """table.md §7.3: an abort without evidence, before the reveal can settle it, is an
    unproven accusation: a log that stops there is unfinished and blames nobody."""
    entries = read_log(DATA / "cheat-false-accusation.unolog").entries
    index = next(e.seq for e in entries if isinstance(e.body, Abort))
    report = audit_entries(entries[:index + 1])
    assert report.status == Status.UNFINISHED
    assert report.violation is None
    assert "nobody is blamed" in report.stopped


def _write(path: Path, entries: Sequence[Entry], extra: bytes) -> Path:
    with GameLog.create(path) as log:
        for entry in entries:
            log.append(entry)
        log.append_bytes(extra)
    return path


def _framed_record(kind: int, body: list[WireValue], *, sign: bool = True) -> bytes:
    """Entry 21 as a well-framed entry whose message has ``kind`` and ``body``."""
    previous = LOG[FIRST_MOVE - 1]
    table_id = previous.message.table_id
    message: list[WireValue] = [1, table_id, BOB.key, 6, FIRST_MOVE, previous.hash, kind, body,
                                bytes(64)]
    message_hash = hashlib.sha256(b"uno-lan/v1/message-hash\x00" + pack(message)).digest()
    link = entry_hash(table_id, FIRST_MOVE, previous.hash, message_hash)
    countersignature = PEOPLE[0].sign(link) if sign else bytes(64)
    return pack([FIRST_MOVE, previous.hash, message, countersignature])


def test_a_countersigned_record_that_is_no_entry_is_malformed_entry(tmp_path: Path) -> None:
    """verdicts.md §8: the sequencer countersigned a message it had to refuse."""
    cases: list[tuple[int, list[WireValue]]] = [(999, []), (67, ["not an action"])]
    for kind, body in cases:
        path = _write(tmp_path / f"{kind}.unolog", LOG[:FIRST_MOVE], _framed_record(kind, body))
        report = audit_file(path)
        assert report.status == Status.VIOLATION
        assert report.violation is not None
        assert (report.violation.code, report.violation.entry) == ("malformed_entry", FIRST_MOVE)
        assert report.violation.peer is not None
        assert report.violation.peer.key == HOST.key


def test_an_uncountersigned_or_unframed_record_is_not_the_sequencers(tmp_path: Path) -> None:
    path = _write(tmp_path / "forged.unolog", LOG[:FIRST_MOVE],
                  _framed_record(999, [], sign=False))
    report = audit_file(path)
    assert report.violation is not None
    assert report.violation.code == "bad_countersignature"
    garbage = _write(tmp_path / "garbage.unolog", LOG[:FIRST_MOVE], b"\x93\x01\x02\x03")
    with pytest.raises(UnreadableLog):
        audit_file(garbage)
