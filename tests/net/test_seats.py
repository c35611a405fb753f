"""What a peer keeps on disk (docs/protocol/net.md §8): private files, and a seat
that brings the same peer back."""

from __future__ import annotations

import secrets
import stat
from pathlib import Path

import pytest

from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import ConfigError
from uno_p2p.net.seats import Seat, latest_seat, player_identity, seat_path


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
