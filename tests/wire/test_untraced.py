"""Wire functions that only other packages' tests reached (mutmut's trace, docs/testing.md).

A mutant runs only its own package's tests, so these had none: the
transcript (wire.md §8: ``entry 41, seat 2 (alice): played Red 7``, a name
alone before the seats are set), a head that has seen nothing (§3: the
genesis hash of §4 when ``seen = 0``), a verifier cut back to an earlier
entry (table.md §13.4: a refused entry or a replaced suffix is forgotten)
and an empty msgpack ext value (§1: no ext types at all).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.chain import verify_chain
from uno_p2p.wire.codec import unpack
from uno_p2p.wire.envelope import Head
from uno_p2p.wire.game import PlayCard
from uno_p2p.wire.lobby import Start
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.samples import SAMPLE_NAMES, sample_log
from uno_p2p.wire.transcript import describe_entries

LOG = sample_log(players=3, turns=3)
VECTORS = json.loads((Path(__file__).resolve().parents[2] / "protocol" / "vectors" /
                      "wire.json").read_text("utf-8"))
#: wire.md §5.3: card id 25*c + k, colours red, yellow, green, blue; k 0 the 0, 1-18
#: the numbers 1-9 twice, 19-20 Skip, 21-22 Reverse, 23-24 Draw Two; 100-103 Wild,
#: 104-107 Wild Draw Four.
COLOURS = ("Red", "Yellow", "Green", "Blue")


def _card_name(card: int) -> str:
    if card >= 100:
        return "Wild" if card < 104 else "Wild Draw Four"
    colour, k = divmod(card, 25)
    face = str((k + 1) // 2) if k <= 18 else ("Skip", "Reverse", "Draw Two")[(k - 19) // 2]
    return f"{COLOURS[colour]} {face}"


def test_the_transcript_names_each_author_by_seat_once_seated() -> None:
    names = {entry.author.key: SAMPLE_NAMES[i] for i, entry in enumerate(LOG[:3])}
    start = next(e.seq for e in LOG if isinstance(e.body, Start))
    seats: dict[bytes, int] = {}
    lines = list(describe_entries(LOG))
    assert len(lines) == len(LOG)
    for entry, line in zip(LOG, lines, strict=True):
        if isinstance(entry.body, Start):
            seats = {peer.key: seat for seat, peer in enumerate(entry.body.seats)}
        name = names[entry.author.key]
        who = name if entry.seq < start else f"seat {seats[entry.author.key]} ({name})"
        prefix = f"entry {entry.seq}, {who}: "
        assert line.startswith(prefix), line
        if isinstance(entry.body, Sealed):
            size = len(entry.body.ciphertext)
            assert line == (f"{prefix}sent a private message to "
                            f"{names[entry.body.recipient.key]} ({size} bytes)")
        if isinstance(entry.body, PlayCard):
            assert line == f"{prefix}played {_card_name(entry.body.card)}"
    assert any("sent a private message" in line for line in lines)


def test_a_head_that_has_seen_nothing_names_the_genesis_hash() -> None:
    table_id = bytes.fromhex(VECTORS["table_id"])
    expected = hashlib.sha256(b"uno-lan/v1/genesis\x00" + table_id).digest()
    assert expected.hex() == VECTORS["genesis_hash"]
    assert Head.genesis(table_id) == Head(0, expected)


def test_a_verifier_cut_back_forgets_the_rest_and_takes_it_again() -> None:
    verifier = verify_chain(LOG, LOG[0].author)
    full_head = verifier.head
    for keep in (len(LOG) - 1, 7, 1):
        verifier.truncate(keep)
        assert len(verifier) == keep
        assert verifier.head == Head(keep, LOG[keep - 1].hash)
        assert tuple(verifier.entries) == tuple(LOG[:keep])
        assert verifier.sequencer == LOG[0].author
        for entry in LOG[keep:]:
            verifier.accept(entry)
        assert verifier.head == full_head
    verifier.truncate(0)
    assert verifier.head == Head.genesis(LOG[0].message.table_id)
    verifier.accept(LOG[0])
    assert len(verifier) == 1


@pytest.mark.parametrize("raw", [b"\xc7\x00\x05", b"\x92\x01\xc7\x00\x05"])
def test_an_empty_ext_value_is_refused_as_an_ext_type(raw: bytes) -> None:
    with pytest.raises(InvalidMessage):  # as an ext type: tests/wire/test_codec_words.py
        unpack(raw)
