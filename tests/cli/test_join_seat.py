"""What ``uno-lan join`` keeps in its seat file as the mesh learns where members listen
(docs/protocol/net.md §8): rewritten at once, and a disk that refuses is a note."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from uno_p2p.cli.join import keep_members
from uno_p2p.crypto.identity import Identity
from uno_p2p.net.seats import Seat, latest_seat, seat_path

BOB = Identity(b"\x02" * 32).peer.key


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path


def _seat() -> Seat:
    identity, table = Identity(secrets.token_bytes(32)), secrets.token_bytes(16)
    return Seat(identity, secrets.token_bytes(32), table, Identity(b"\x01" * 32).peer, "Zed",
                "", "127.0.0.1:4000", "", seat_path(table, identity, "Zed"))


def test_the_members_addresses_are_saved_as_they_are_learned() -> None:
    held = [_seat()]
    held[0].save()
    keep_members(held, lambda _: None)({BOB: ("127.0.0.1", 41000)})
    assert latest_seat("Zed").member_addresses() == {BOB: ("127.0.0.1", 41000)}
    assert held[0].member_addresses() == {BOB: ("127.0.0.1", 41000)}


def test_before_the_seat_is_made_nothing_is_saved() -> None:
    held: list[Seat] = []
    keep_members(held, lambda _: None)({BOB: ("127.0.0.1", 41000)})
    assert held == []


def test_a_disk_that_refuses_is_a_note_and_the_game_goes_on() -> None:
    held = [_seat()]
    held[0].save()
    # The file is written beside itself first, then renamed: a folder there refuses it.
    held[0].path.with_name(held[0].path.name + ".new").mkdir()
    notes: list[str] = []
    keep_members(held, notes.append)({BOB: ("127.0.0.1", 41000)})
    assert len(notes) == 1
    assert notes[0].startswith("where the members listen is not saved for --resume: cannot write")
    assert latest_seat("Zed").members == ()


def test_an_ended_seat_is_not_written_again() -> None:
    held = [_seat()]
    held[0].save()
    held[0].ended()
    keep_members(held, lambda _: None)({BOB: ("127.0.0.1", 41000)})
    assert not held[0].path.exists()


def test_a_members_unusable_address_is_left_out_and_the_others_kept() -> None:
    """A member's ``a`` frame may carry an empty host (net.md §5.1 bounds only its
    length); the seat file holds ``host:port`` only (§8). That one is left out, and the
    game is not disturbed: the others are saved."""
    cy = Identity(b"\x03" * 32).peer.key
    held = [_seat()]
    held[0].save()
    notes: list[str] = []
    keep_members(held, notes.append)({BOB: ("127.0.0.1", 41000), cy: ("", 41001)})
    assert latest_seat("Zed").member_addresses() == {BOB: ("127.0.0.1", 41000)}
    assert notes == []
