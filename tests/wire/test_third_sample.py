"""What a third random sample of mutants (seed 18) found untested (docs/testing.md).

The words of a refusal are what a player reads (``uno-lan log show``, the
audit's finding, the CLI's one sentence): "entry N: " and then a sentence
that names the field or the fact in the protocol's words (wire.md §3-§7),
lower case first. These tests hold the sentences whole, so a field's name
lost, shouted or replaced is caught. Also: a message's author and head must
be of their types; a decryption share and its DLEQ proof have their sizes
(wire.md §5.3: 32 and 64 bytes) however the body is made; kind numbers run
from 0 (``open_table``, wire.md §5.1) to 65535 (``protocol/wire.cddl``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.wire.test_codec_words import Tag
from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.wire.chain import ChainError, ChainVerifier, verify_chain
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.game import DecryptionShare, Slot
from uno_p2p.wire.lobby import Join, Leave, SetOptions, Start, options_from_wire
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.registry import Registry
from uno_p2p.wire.samples import SampleTable, sample_log, sample_play

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


def test_kind_numbers_run_from_0_to_65535() -> None:
    registry = Registry()
    registry.add(0, "first", Tag)
    assert 0 in registry
    assert registry.decode(0, [5]) == Tag(5)
    assert [info.number for info in registry] == [0]
    registry2 = Registry()
    registry2.add(65535, "last", Tag)
    assert registry2.by_name("last").number == 65535
    for bad in (-1, 65536):
        with pytest.raises(LocalProtocolError):
            Registry().add(bad, "bad", Tag)
