"""What a peer keeps on disk (docs/protocol/net.md §8): private files, and a seat
that brings the same peer back."""

from __future__ import annotations

import secrets
import stat
from pathlib import Path

import pytest

from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import ConfigError, InvalidMessage
from uno_p2p.net.seats import LogSaver, Seat, latest_seat, player_identity, seat_path
from uno_p2p.store.unolog import GameLog, read_log
from uno_p2p.wire.chain import ChainVerifier
from uno_p2p.wire.codec import pack, unpack
from uno_p2p.wire.samples import SampleTable, sample_play


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_player_keeps_one_key_in_a_private_file(data_home: Path) -> None:
    first = player_identity("Ann")
    assert player_identity("Ann") == first
    assert player_identity("Bob") != first
    key = data_home / "uno-lan" / "keys" / "Ann.key"
    assert mode(key) == 0o600
    assert mode(key.parent) == 0o700


def _seat(name: str) -> Seat:
    identity, table = Identity(secrets.token_bytes(32)), secrets.token_bytes(16)
    host = Identity(secrets.token_bytes(32)).peer
    return Seat(identity, secrets.token_bytes(32), table, host, name, "heuristic",
                "127.0.0.1:4000", "tulip-42", seat_path(table, identity, name))


def test_a_seat_file_is_private_and_brings_back_the_same_peer() -> None:
    seat = _seat("Zed")
    seat.save()
    assert mode(seat.path) == 0o600
    back = latest_seat("Zed")
    assert back.identity == seat.identity
    assert back.entropy == seat.entropy
    assert (back.table_id, back.host, back.bot, back.address, back.code) == (
        seat.table_id, seat.host, seat.bot, seat.address, seat.code)
    assert back.log_path.suffix == ".unolog"


def test_an_ended_seat_is_not_resumed() -> None:
    seat = _seat("Zed")
    seat.save()
    seat.ended()
    with pytest.raises(ConfigError, match="no unfinished game for Zed"):
        latest_seat("Zed")


def test_a_damaged_seat_file_is_one_sentence() -> None:
    seat = _seat("Zed")
    seat.save()
    seat.path.write_bytes(b"\x93junk")
    with pytest.raises(ConfigError, match="not a seat file"):
        latest_seat("Zed")


def _members(count: int) -> dict[bytes, tuple[str, int]]:
    return {Identity(bytes([i + 1]) * 32).peer.key: ("127.0.0.1", 40000 + i) for i in range(count)}


def test_a_seat_keeps_where_the_members_listen() -> None:
    seat = _seat("Zed").with_members(_members(3))
    seat.save()
    back = latest_seat("Zed")
    assert back.member_addresses() == _members(3)
    keys = [member.key for member, _ in back.members]
    assert keys == sorted(keys)


def test_a_seat_rewritten_with_news_is_read_back_with_them() -> None:
    seat = _seat("Zed").with_members(_members(2))
    seat.save()
    news = {**_members(2), next(iter(_members(1))): ("10.0.0.7", 7777)}
    seat.with_members(news).save()
    assert latest_seat("Zed").member_addresses() == news
    assert not seat.path.with_name(seat.path.name + ".new").exists()


def _v1_bytes(seat: Seat) -> bytes:
    return pack(["uno-lan seat", 1, seat.identity.seed, seat.entropy, seat.table_id,
                 seat.host.key, seat.name, seat.bot, seat.address, seat.code])


def test_a_version_1_seat_file_is_still_read() -> None:
    seat = _seat("Zed")
    seat.path.parent.mkdir(parents=True)
    seat.path.write_bytes(_v1_bytes(seat))
    back = latest_seat("Zed")
    assert (back.identity, back.entropy, back.host, back.address, back.code) == (
        seat.identity, seat.entropy, seat.host, seat.address, seat.code)
    assert back.members == ()


def _with_members(seat: Seat, members: object, version: int = 2) -> bytes:
    fields = unpack(_v1_bytes(seat))
    assert isinstance(fields, list)
    fields[1] = version
    return pack([*fields, members])  # type: ignore[list-item]


KEY = Identity(b"\x01" * 32).peer.key
#: (what is wrong, the members' list, what the sentence says)
HOSTILE = [
    ("too many members", [[Identity(bytes([i + 1]) * 32).peer.key, f"10.0.0.{i}:1"]
                          for i in range(11)], "11 elements, more than 10"),
    ("a key of the wrong size", [[b"\x01" * 31, "127.0.0.1:1"]], "32 bytes, not 31"),
    ("a key that is no key", [[b"\x00" * 32, "127.0.0.1:1"]], "not a valid Ed25519"),
    ("an address too long", [[KEY, "a" * 200 + ":1"]], "0 to 70 characters"),
    ("no port", [[KEY, "127.0.0.1"]], "not a member's address"),
    ("a port out of range", [[KEY, "127.0.0.1:70000"]], "not a member's address"),
    ("a port of other digits", [[KEY, "127.0.0.1:\u0664\u0660"]], "not a member's address"),
    ("an address that is bytes", [[KEY, b"127.0.0.1:1"]], "must be a string"),
    ("a pair of three", [[KEY, "127.0.0.1:1", 5]], "must have 2 fields"),
    ("twice the same key", [[KEY, "127.0.0.1:1"], [KEY, "127.0.0.1:2"]], "each once"),
    ("keys out of order", [[k, "127.0.0.1:1"] for k in sorted(_members(2), reverse=True)],
     "sorted by key"),
    ("not a list", "127.0.0.1:1", "must be an array"),
    ("a control character", [[KEY, "127.0.0.1\x1b:1"]], "unprintable character U\\+001B"),
]


@pytest.mark.parametrize(("members", "says"), [h[1:] for h in HOSTILE],
                         ids=[h[0] for h in HOSTILE])
def test_a_hostile_member_list_is_refused_in_one_sentence(members: object, says: str) -> None:
    seat = _seat("Zed")
    seat.path.parent.mkdir(parents=True)
    seat.path.write_bytes(_with_members(seat, members))
    with pytest.raises(ConfigError, match="is not a seat file we can read") as error:
        latest_seat("Zed")
    error.match(says)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("data", [
    pack(["uno-lan seat", 3]),
    pack(["uno-lan seat", True, b"", b"", b"", b"", "", "", "", ""]),
    pack(["uno-lan seat"]),
    pack([]),
    b"\x91" + b"\xc4\xff" + b"x" * 255,
    b"\xdc\xff\xff" + b"\xc0" * 65535,
], ids=["version 3", "a bool for a version", "no version", "empty", "a big bin",
        "a long array"])
def test_a_seat_file_of_no_known_version_or_shape_is_refused(data: bytes) -> None:
    seat = _seat("Zed")
    seat.path.parent.mkdir(parents=True)
    seat.path.write_bytes(data)
    with pytest.raises(ConfigError, match="is not a seat file we can read"):
        latest_seat("Zed")


def test_a_version_1_file_with_members_is_refused() -> None:
    seat = _seat("Zed")
    seat.path.parent.mkdir(parents=True)
    seat.path.write_bytes(_with_members(seat, [], version=1))
    with pytest.raises(ConfigError, match="must have 10 fields"):
        latest_seat("Zed")


def test_a_seat_never_holds_more_members_than_a_table_seats() -> None:
    with pytest.raises(InvalidMessage, match="more than a table's 10"):
        _seat("Zed").with_members(_members(11))


def _chain(plays: range | list[int]) -> ChainVerifier:
    """The sample lobby of three, then ``plays`` (sample plays by turn): two chains
    with the same lobby and other plays share a prefix and differ after it."""
    table = SampleTable(3)
    table.lobby()
    for turn in plays:
        table.append(turn % 3, sample_play(turn))
    return table.verifier


def _saved(path: Path) -> tuple[bytes, ...]:
    return tuple(e.encode() for e in read_log(path).entries)


def _encoded(chain: ChainVerifier) -> tuple[bytes, ...]:
    return tuple(e.encode() for e in chain.entries)


def test_the_log_file_grows_in_place_while_the_chain_grows(data_home: Path) -> None:
    path = data_home / "game.unolog"
    saver = LogSaver.create(path)
    short, long = _chain(range(2)), _chain(range(5))
    saver.save(short)
    inode = path.stat().st_ino
    saver.save(long)
    saver.close()
    assert _saved(path) == _encoded(long)
    assert path.stat().st_ino == inode, "appended, not rewritten"


def test_a_replaced_tail_is_replaced_on_disk_never_spliced(data_home: Path) -> None:
    # A woken old host logged plays 0-4 alone; the table's chain went on from play 2
    # with other plays (table.md §13.4): the file must hold the table's chain only.
    path = data_home / "game.unolog"
    saver = LogSaver.create(path)
    alone, table = _chain(range(5)), _chain([*range(2), *range(50, 56)])
    saver.save(alone)
    saver.save(table)
    assert _saved(path) == _encoded(table)
    assert mode(path) == 0o600
    saver.save(_chain(range(2)))  # the tail forgotten before its replacement came
    saver.close()
    assert _saved(path) == _encoded(_chain(range(2)))
    assert list(data_home.glob("*.new")) == []


def test_a_resumed_saver_knows_what_its_file_holds(data_home: Path) -> None:
    path = data_home / "game.unolog"
    first = LogSaver.create(path)
    first.save(_chain(range(4)))
    first.close()
    log, contents = GameLog.resume(path)
    saver = LogSaver(log, contents.entries)
    table = _chain([*range(2), 60, 61, 62])  # same length and more: a replaced tail
    saver.save(table)
    saver.close()
    assert _saved(path) == _encoded(table)
