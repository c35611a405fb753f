"""The lobby and sample bodies in words, and refused naming the field at fault.

A transcript line reads ``entry 3, seat 1 (Bob): joined as Bob``: the words
go on after the author's name (lower case first) and name what a reader
needs: the table's name and size, the preset and every option as
``key=value`` (booleans in lower case, ``true``/``false``), the
seats in order, the peer kicked and why, the card played (RULES.md's names)
and the colour named. A malformed body is refused with ``InvalidMessage``
naming its field in wire.md §5's words. Expected words come from the bodies'
own values and the spec, not from the code.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from tests.audit.test_fault_codes import BOB, CY, HOST, LOG
from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import InvalidMessage
from uno_p2p.rules.cards import Rank, colour_of, rank_of
from uno_p2p.wire.codec import WireValue
from uno_p2p.wire.game import DecryptionShare, PlayCard, Slot
from uno_p2p.wire.lobby import Join, Kick, Leave, OpenTable, Ready, SetOptions, Start

NAMES = {HOST.key: "Ann", BOB.key: "Bob", CY.key: "Cy"}


def _open() -> OpenTable:
    body = LOG[0].body
    assert isinstance(body, OpenTable)
    return body


def _join() -> Join:
    body = LOG[1].body
    assert isinstance(body, Join)
    return body


OPEN, JOIN = _open(), _join()


def name(key: bytes) -> str:
    return NAMES.get(key, "someone")


def _reads_on(text: str) -> None:
    assert text
    assert text[0].islower(), f"continues a sentence after a name: {text!r}"


def test_opening_the_table_names_its_host_size_preset_and_options() -> None:
    text = OPEN.describe(name)
    _reads_on(text)
    assert OPEN.name in text
    assert f"up to {OPEN.max_players} players" in text
    assert f"preset {OPEN.preset}" in text
    for key, value in OPEN.options:
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        assert f"{key}={shown}" in text, key
    bare = OpenTable(OPEN.name, OPEN.channel_key, "", (), 4).describe(name)
    assert "no preset" in bare
    assert "=" not in bare, "no options, none listed"


def test_setting_the_rules_lists_them() -> None:
    text = SetOptions("house", (("jump_in", True), ("target", 300))).describe(name)
    _reads_on(text)
    assert "preset house" in text
    assert "jump_in=true" in text
    assert "target=300" in text
    assert text.index("jump_in") < text.index("target"), "in the body's order"


def test_lobby_moves_in_words() -> None:
    joined = JOIN.describe(name)
    _reads_on(joined)
    assert JOIN.name in joined
    assert "joined" in joined
    for ready, words in ((True, "is ready"), (False, "no longer ready")):
        text = Ready(ready).describe(name)
        _reads_on(text)
        assert words in text
    assert "no longer" not in Ready(True).describe(name)
    start = Start((HOST, BOB, CY)).describe(name)
    _reads_on(start)
    assert "3 players" in start
    assert "Ann, Bob, Cy" in start, "the seats in order"
    kick = Kick(CY, "asleep").describe(name)
    _reads_on(kick)
    assert "Cy" in kick
    assert "asleep" in kick
    assert "Cy" in Kick(CY, "").describe(name)
    assert not Kick(CY, "").describe(name).endswith(":")
    left = Leave("tea time").describe(name)
    _reads_on(left)
    assert "left" in left
    assert "tea time" in left
    assert Leave().describe(name).endswith("left the table")


def _card(rank: Rank, colour: int) -> int:
    return next(c for c in range(108) if rank_of(c) == rank and colour_of(c) == colour)


def test_bodies_describe_themselves_for_the_transcript() -> None:
    assert PlayCard(Slot(0, 3), 25 * 0 + 13, None).describe(bytes.hex) == "played Red 7"
    wild = PlayCard(Slot(0, 3), 104, 3)
    assert wild.describe(bytes.hex) == "played Wild Draw Four and named Blue"
    peer = Identity(bytes(32)).peer
    other = Identity(bytes([1]) * 32).peer
    assert Start((peer, other)).describe(lambda key: "A" if key == peer.key else "B") == (
        "started the game with 2 players: A, B")


def test_a_sample_play_and_share_in_words() -> None:
    red5 = PlayCard(Slot(0, 4), _card(Rank.FIVE, 0)).describe(name)
    _reads_on(red5)
    assert "Red 5" in red5
    assert "named" not in red5
    wild = PlayCard(Slot(0, 5), _card(Rank.WILD, -1), colour=3).describe(name)
    assert "Wild" in wild
    assert "named Blue" in wild
    share = DecryptionShare(Slot(2, 17), b"\x00" * 32, b"\x00" * 64).describe(name)
    _reads_on(share)
    assert "shuffle 2" in share
    assert "position 17" in share


def _set(value: WireValue, index: int, new: WireValue) -> WireValue:
    out = copy.deepcopy(value)
    assert isinstance(out, list)
    out[index] = new
    return out


@pytest.mark.parametrize(("decode", "wire", "index", "bad", "words"), [
    (OpenTable.from_wire, OPEN.to_wire(), 0, "", "player name"),
    (OpenTable.from_wire, OPEN.to_wire(), 0, " Ann", "spaces"),
    (OpenTable.from_wire, OPEN.to_wire(), 1, b"\x01", "channel key"),
    (OpenTable.from_wire, OPEN.to_wire(), 2, 7, "preset"),
    (OpenTable.from_wire, OPEN.to_wire(), 3, [["target", 1.5]], "option value"),
    (OpenTable.from_wire, OPEN.to_wire(), 3, [["", 1]], "option key"),
    (OpenTable.from_wire, OPEN.to_wire(), 4, 1, "max players"),
    (Join.from_wire, JOIN.to_wire(), 1, b"\x01", "channel key"),
    (Kick.from_wire, Kick(CY, "x").to_wire(), 1, 5, "reason"),
    (Leave.from_wire, Leave("x").to_wire(), 0, "x" * 5000, "reason"),
])
def test_a_broken_lobby_field_is_refused_by_name(decode: Callable[[WireValue], object],
                                                 wire: WireValue, index: int, bad: WireValue,
                                                 words: str) -> None:
    decode(wire)
    with pytest.raises(InvalidMessage) as caught:
        decode(_set(wire, index, bad))
    text = str(caught.value)
    assert words in text, text
    assert text[0].islower(), text
