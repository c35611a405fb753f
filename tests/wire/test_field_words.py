"""Every field of every wire body is refused by its name, decoded or constructed (wire.md §5, §7).

A peer's malformed body reaches a player as one sentence after "entry N: "
(the audit's finding, ``uno-lan log show``), so the sentence must name the
field as wire.md §5 does (a player name, a channel key, a preset, options,
max players, seats, a reason, a slot's shuffle number and deck position, a
card id, a colour, a nonce, a ciphertext) and the bound it breaks (§5.1:
names 1-32 characters without outer spaces, reasons up to 200, presets and
option keys up to 48, option strings up to 64, int32 option values, 2-10
players; §5.3: card ids 0-107, colours 0-3; §6: a 12-byte nonce, a
ciphertext no shorter than its 16-byte tag). Each body checks its fields
twice, when decoded and when constructed, so both are held here: a
sentence changed in either place is caught.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.chain import ChainError, ChainVerifier, verify_chain
from uno_p2p.wire.codec import WireValue
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.game import DecryptionShare, PlayCard, Slot
from uno_p2p.wire.lobby import (
    Join,
    Kick,
    Leave,
    OpenTable,
    Ready,
    SetOptions,
    Start,
    options_from_wire,
)
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.samples import SampleTable, sample_log, sample_play

KEY = b"\x03" * 32
PEERS = [Identity(bytes([i]) * 32).peer for i in (1, 2)]
OPEN: list[WireValue] = ["alice", KEY, "classic", [["jump_in", True]], 4]


def _with(wire: list[WireValue], index: int, value: WireValue) -> list[WireValue]:
    changed = list(wire)
    changed[index] = value
    return changed


#: (what, decode a malformed wire form, the sentence).
DECODED: list[tuple[str, Callable[[], object], str]] = [
    ("name with spaces", lambda: OpenTable.from_wire(_with(OPEN, 0, " alice")),
     "a player name must not start or end with spaces"),
    ("empty name", lambda: OpenTable.from_wire(_with(OPEN, 0, "")),
     "a player name must be 1 to 32 characters long"),
    ("name of 33", lambda: Join.from_wire(["a" * 33, KEY]),
     "a player name must be 1 to 32 characters long"),
    ("name not text", lambda: Join.from_wire([5, KEY]), "a player name must be a string"),
    ("short channel key", lambda: OpenTable.from_wire(_with(OPEN, 1, KEY[:31])),
     "a channel key must be 32 bytes, not 31"),
    ("channel key as text", lambda: Join.from_wire(["bob", "k" * 32]),
     "a channel key must be a bin"),
    ("long preset", lambda: OpenTable.from_wire(_with(OPEN, 2, "p" * 49)),
     "a preset must be 0 to 48 characters long"),
    ("unsorted options", lambda: OpenTable.from_wire(_with(OPEN, 3, [["b", 1], ["a", 2]])),
     "options keys must be sorted and unique ('b', 'a')"),
    ("repeated option", lambda: SetOptions.from_wire(["", [["a", 1], ["a", 2]]]),
     "options keys must be sorted and unique ('a', 'a')"),
    ("option of one field", lambda: OpenTable.from_wire(_with(OPEN, 3, [["a"]])),
     "an option must have 2 fields, not 1"),
    ("empty option key", lambda: OpenTable.from_wire(_with(OPEN, 3, [["", 1]])),
     "an option key must be 1 to 48 characters long"),
    ("option value nil", lambda: OpenTable.from_wire(_with(OPEN, 3, [["a", None]])),
     "an option value must be a string"),
    ("option value past int32", lambda: OpenTable.from_wire(_with(OPEN, 3, [["a", 1 << 31]])),
     "an option value must be in -2147483648..2147483647, not 2147483648"),
    ("long option text", lambda: OpenTable.from_wire(_with(OPEN, 3, [["a", "v" * 65]])),
     "an option value must be 0 to 64 characters long"),
    ("eleven players", lambda: OpenTable.from_wire(_with(OPEN, 4, 11)),
     "max players must be in 2..10, not 11"),
    ("players as a bool", lambda: OpenTable.from_wire(_with(OPEN, 4, True)),
     "max players must be an integer"),
    ("open_table of four fields", lambda: OpenTable.from_wire(OPEN[:4]),
     "open_table must have 5 fields, not 4"),
    ("join of three fields", lambda: Join.from_wire(["bob", KEY, 1]),
     "join must have 2 fields, not 3"),
    ("ready as text", lambda: Ready.from_wire(["yes"]), "ready must be true or false"),
    ("ready not an array", lambda: Ready.from_wire(True), "ready must be an array"),
    ("one seat", lambda: Start.from_wire([[PEERS[0].key]]),
     "seats must list 2-10 distinct peers"),
    ("a seat twice", lambda: Start.from_wire([[PEERS[0].key, PEERS[0].key]]),
     "seats must list 2-10 distinct peers"),
    ("seats not an array", lambda: Start.from_wire([PEERS[0].key]), "seats must be an array"),
    ("a seat as text", lambda: Start.from_wire([["x", PEERS[0].key]]),
     "a peer identity must be a bin of 32 bytes"),
    ("long kick reason", lambda: Kick.from_wire([PEERS[0].key, "r" * 201]),
     "a reason must be 0 to 200 characters long"),
    ("kick of one field", lambda: Kick.from_wire([PEERS[0].key]),
     "kick must have 2 fields, not 1"),
    ("leave reason not text", lambda: Leave.from_wire([b"bye"]), "a reason must be a string"),
    ("card past 107", lambda: PlayCard.from_wire([[0, 1], 108, None]),
     "a card id must be in 0..107, not 108"),
    ("colour 4", lambda: PlayCard.from_wire([[0, 1], 100, 4]),
     "a colour must be in 0..3, not 4"),
    ("position past 107", lambda: PlayCard.from_wire([[0, 108], 5, None]),
     "a deck position must be in 0..107, not 108"),
    ("negative shuffle", lambda: PlayCard.from_wire([[-1, 0], 5, None]),
     f"a shuffle number must be in 0..{1 << 20}, not -1"),
    ("slot of one field", lambda: PlayCard.from_wire([[0], 5, None]),
     "a slot must have 2 fields, not 1"),
    ("play of two fields", lambda: PlayCard.from_wire([[0, 1], 5]),
     "play must have 3 fields, not 2"),
    ("share of two fields", lambda: DecryptionShare.from_wire([[0, 1], KEY]),
     "decryption_share must have 3 fields, not 2"),
    ("short nonce", lambda: Sealed.from_wire([PEERS[0].key, b"\x00" * 11, b"\x00" * 40]),
     "a nonce must be 12 bytes, not 11"),
    ("ciphertext shorter than a tag",
     lambda: Sealed.from_wire([PEERS[0].key, b"\x00" * 12, b"\x00" * 15]),
     "a ciphertext is shorter than its tag"),
    ("ciphertext as text", lambda: Sealed.from_wire([PEERS[0].key, b"\x00" * 12, "x" * 40]),
     "a ciphertext must be a bin"),
    ("sealed of two fields", lambda: Sealed.from_wire([PEERS[0].key, b"\x00" * 12]),
     "sealed must have 3 fields, not 2"),
]

OPTIONS = (("jump_in", True),)

#: (what, construct a malformed body, the sentence): the constructors' own checks.
CONSTRUCTED: list[tuple[str, Callable[[], object], str]] = [
    ("name with spaces", lambda: OpenTable("alice ", KEY, "", OPTIONS, 4),
     "a player name must not start or end with spaces"),
    ("short channel key", lambda: Join("bob", KEY[:31]), "a channel key must be 32 bytes, not 31"),
    ("long preset", lambda: SetOptions("p" * 49, OPTIONS),
     "a preset must be 0 to 48 characters long"),
    ("options as a list", lambda: OpenTable("alice", KEY, "", [("a", 1)], 4),  # type: ignore[arg-type]
     "options must be a tuple of at most 64 pairs"),
    ("an option as a list", lambda: SetOptions("", (["a", 1],)),  # type: ignore[arg-type]
     "an option must be a (key, value) pair"),
    ("empty option key", lambda: SetOptions("", (("", 1),)),
     "an option key must be 1 to 48 characters long"),
    ("unsorted options", lambda: SetOptions("", (("b", 1), ("a", 2))),
     "options keys must be sorted and unique ('b', 'a')"),
    ("one player", lambda: OpenTable("alice", KEY, "", OPTIONS, 1),
     "max players must be in 2..10, not 1"),
    ("ready as text", lambda: Ready("yes"),  # type: ignore[arg-type]
     "ready must be true or false"),
    ("seats as a list", lambda: Start(list(PEERS)),  # type: ignore[arg-type]
     "seats must be a tuple"),
    ("one seat", lambda: Start((PEERS[0],)), "seats must list 2-10 distinct peers"),
    ("kick of a key", lambda: Kick(PEERS[0].key, ""),  # type: ignore[arg-type]
     "kick names a peer identity"),
    ("long kick reason", lambda: Kick(PEERS[0], "r" * 201),
     "a reason must be 0 to 200 characters long"),
    ("long leave reason", lambda: Leave("r" * 201), "a reason must be 0 to 200 characters long"),
    ("card past 107", lambda: PlayCard(Slot(0, 1), 108), "a card id must be in 0..107, not 108"),
    ("colour 4", lambda: PlayCard(Slot(0, 1), 100, 4), "a colour must be in 0..3, not 4"),
    ("position past 107", lambda: Slot(0, 108), "a deck position must be in 0..107, not 108"),
    ("short nonce", lambda: Sealed(PEERS[0], b"\x00" * 11, b"\x00" * 40),
     "a nonce must be 12 bytes, not 11"),
    ("ciphertext shorter than a tag", lambda: Sealed(PEERS[0], b"\x00" * 12, b"\x00" * 15),
     "a ciphertext is shorter than its tag"),
]


@pytest.mark.parametrize(("what", "make", "words"), DECODED, ids=[c[0] for c in DECODED])
def test_a_malformed_field_is_refused_by_its_name_when_decoded(
        what: str, make: Callable[[], object], words: str) -> None:
    with pytest.raises(InvalidMessage) as caught:
        make()
    assert str(caught.value) == words, what


@pytest.mark.parametrize(("what", "make", "words"), CONSTRUCTED,
                         ids=[c[0] for c in CONSTRUCTED])
def test_a_malformed_field_is_refused_by_its_name_when_constructed(
        what: str, make: Callable[[], object], words: str) -> None:
    with pytest.raises(InvalidMessage) as caught:
        make()
    assert str(caught.value) == words, what


def test_the_well_formed_bodies_decode_and_construct() -> None:
    opened = OpenTable.from_wire(OPEN)
    assert opened == OpenTable("alice", KEY, "classic", OPTIONS, 4)
    assert opened.to_wire() == OPEN
    assert Start.from_wire([[p.key for p in PEERS]]) == Start(tuple(PEERS))
    assert Kick.from_wire([PEERS[1].key, ""]) == Kick(PEERS[1], "")


LOG = sample_log(players=3, turns=4)


HOST = LOG[0].author


SHARE, PROOF = b"\x01" * 32, b"\x02" * 64


def _refusal(make: Callable[[], object]) -> str:
    with pytest.raises(InvalidMessage) as caught:
        make()
    return str(caught.value)


def _other_table() -> list[Entry]:
    other = SampleTable(3, table_id=b"\x07" * 16)
    entries = other.lobby()
    entries += [other.append(1 + turn % 2, sample_play(turn)) for turn in range(4)]
    return entries


def test_an_entry_out_of_place_is_refused_in_words() -> None:
    """wire.md §4.1, the first four checks, each naming the entry."""
    lobby = len(SampleTable(3).lobby())
    cases: list[tuple[ChainVerifier, Entry, str, str]] = [
        (verify_chain(LOG[:lobby], HOST), _other_table()[lobby], "wrong_table",
         f"entry {lobby}: it belongs to another table"),
        (verify_chain(LOG[:lobby], HOST), LOG[lobby + 1], "bad_sequence",
         f"entry {lobby + 1}: expected entry number {lobby}"),
        (ChainVerifier(LOG[0].message.table_id, LOG[1].author), LOG[0], "bad_first_entry",
         "entry 0: the first entry is not the sequencer's"),
    ]
    forked = SampleTable(3)
    fork = forked.lobby()
    fork.append(forked.append(2, Leave("bored")))
    fork.append(forked.append(1, sample_play(3)))
    cases.append((verify_chain(LOG[:lobby + 1], HOST), fork[lobby + 1], "bad_prev_hash",
                  f"entry {lobby + 1}: it does not follow the previous entry"))
    for verifier, entry, code, words in cases:
        with pytest.raises(ChainError) as caught:
            verifier.accept(entry)
        assert (caught.value.code, str(caught.value)) == (code, words)


def test_a_message_needs_an_author_identity_and_a_head() -> None:
    good = LOG[3].message
    head_as_pair = (good.head.seen, good.head.hash)
    for author, head in ((good.author, head_as_pair), (good.author.key, good.head)):
        words = _refusal(lambda a=author, h=head: Message(  # type: ignore[misc]
            good.table_id, a, good.counter, h, good.kind, good.body, good.signature))
        assert words == "a message needs an author identity and a head"


def test_a_decryption_share_and_its_proof_have_their_sizes_however_made() -> None:
    slot = Slot(0, 1)
    assert DecryptionShare(slot, SHARE, PROOF).to_wire() == [[0, 1], SHARE, PROOF]
    assert _refusal(lambda: DecryptionShare(slot, SHARE[:31], PROOF)) == \
        "a decryption share must be 32 bytes, not 31"
    assert _refusal(lambda: DecryptionShare(slot, SHARE + b"\x01", PROOF)) == \
        "a decryption share must be 32 bytes, not 33"
    assert _refusal(lambda: DecryptionShare(slot, SHARE, PROOF[:63])) == \
        "a DLEQ proof must be 64 bytes, not 63"
    assert _refusal(lambda: DecryptionShare.from_wire([[0, 1], SHARE, PROOF[:63]])) == \
        "a DLEQ proof must be 64 bytes, not 63"


#: Malformed bodies and the sentence each is refused with (wire.md §5 and §7).
REFUSALS: list[tuple[str, Callable[[], object], str]] = [
    ("a control character in a name", lambda: Join.from_wire(["bo\x1bb", b"\x03" * 32]),
     "a player name contains an unprintable character U+001B"),
    ("a line separator in a reason", lambda: Leave.from_wire(["bye\u2028now"]),
     "a reason contains an unprintable character U+2028"),
    ("eleven seats", lambda: Start.from_wire([[b"\x01" * 32] * 11]),
     "seats has 11 elements, more than 10"),
    ("options not an array", lambda: options_from_wire(b"rules"),
     "options must be an array"),
    ("65 options", lambda: options_from_wire([[f"k{i:02}", True] for i in range(65)]),
     "options has 65 elements, more than 64"),
    ("set_options of one field", lambda: SetOptions.from_wire(["house"]),
     "set_options must have 2 fields, not 1"),
    ("set_options not an array", lambda: SetOptions.from_wire(b"house"),
     "set_options must be an array"),
    ("a sealed body for no one",
     lambda: Sealed(b"\x01" * 32, b"\x00" * 12, b"\x00" * 40),  # type: ignore[arg-type]
     "a sealed body names its recipient's identity"),
    ("a shuffle number too large", lambda: Slot(1 << 21, 0),
     f"a shuffle number must be in 0..{1 << 20}, not {1 << 21}"),
]


@pytest.mark.parametrize(("case", "make", "words"), REFUSALS, ids=[c[0] for c in REFUSALS])
def test_a_malformed_body_is_refused_in_the_words_a_player_reads(
        case: str, make: Callable[[], object], words: str) -> None:
    assert _refusal(make) == words, case


@pytest.mark.parametrize("size", [15, 17])
def test_a_table_id_of_another_size_is_refused_in_words(size: int) -> None:
    """wire.md §4: a message's table id is 16 bytes (tests/wire/test_wire_messages)."""
    wire = LOG[3].message.to_wire()
    assert isinstance(wire, list)
    assert _refusal(lambda: Message.from_wire(_with(wire, 1, b"\x01" * size))) == (
        f"a table id must be 16 bytes, not {size}")
