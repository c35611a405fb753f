"""The .unolog file: entries survive, a crash loses at most the torn last record."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from uno_p2p.store.unolog import (
    HEADER,
    GameLog,
    UnreadableLog,
    games_dir,
    new_log_path,
    read_log,
)
from uno_p2p.wire.chain import verify_chain
from uno_p2p.wire.samples import sample_log

LOG = sample_log(players=3, turns=3)


def write(path: Path, count: int = len(LOG)) -> None:
    with GameLog.create(path) as log:
        for entry in LOG[:count]:
            log.append(entry)


def test_entries_written_are_read_back_and_verify(tmp_path: Path) -> None:
    path = tmp_path / "game.unolog"
    write(path)
    contents = read_log(path)
    assert contents.entries == tuple(LOG)
    assert contents.torn_bytes == 0
    verify_chain(contents.entries)


def test_every_entry_is_on_disk_as_soon_as_it_is_appended(tmp_path: Path) -> None:
    path = tmp_path / "game.unolog"
    log = GameLog.create(path)
    for count, entry in enumerate(LOG[:5], start=1):
        log.append(entry)
        assert read_log(path).entries == tuple(LOG[:count])
    log.sync()
    log.close()
    log.close()


def test_a_crash_at_any_byte_of_the_last_record_loses_only_that_record(tmp_path: Path) -> None:
    path = tmp_path / "game.unolog"
    write(path)
    full = path.read_bytes()
    write(tmp_path / "short.unolog", len(LOG) - 1)
    before_last = len((tmp_path / "short.unolog").read_bytes())
    for cut in range(before_last, len(full)):
        path.write_bytes(full[:cut])
        log, contents = GameLog.resume(path)
        assert contents.entries == tuple(LOG[:-1])
        assert contents.torn_bytes == cut - before_last
        assert path.read_bytes() == full[:before_last]  # nothing earlier rewritten
        log.append(LOG[-1])  # the peer resumes its seat and goes on
        log.close()
        assert path.read_bytes() == full


def test_a_garbled_last_record_is_treated_as_torn(tmp_path: Path) -> None:
    path = tmp_path / "game.unolog"
    write(path)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    contents = read_log(path)
    assert contents.entries == tuple(LOG[:-1])
    assert contents.torn_bytes > 0
    path.write_bytes(bytes(data) + bytes(300))
    with pytest.raises(UnreadableLog, match="damaged"):
        read_log(path)


def test_zeros_after_the_last_record_are_a_torn_write(tmp_path: Path) -> None:
    path = tmp_path / "game.unolog"
    write(path)
    path.write_bytes(path.read_bytes() + bytes(50))
    log, contents = GameLog.resume(path)
    log.close()
    assert contents.entries == tuple(LOG)
    assert read_log(path).torn_bytes == 0


def test_damage_before_the_last_record_is_refused_not_truncated(tmp_path: Path) -> None:
    path = tmp_path / "game.unolog"
    write(path)
    data = bytearray(path.read_bytes())
    data[len(HEADER) + 30] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(UnreadableLog, match="damaged at byte"):
        GameLog.resume(path)
    assert path.read_bytes() == bytes(data)


def test_files_that_are_not_logs_are_refused(tmp_path: Path) -> None:
    cases = {
        "missing.unolog": None,
        "text.unolog": b"hello, world\n",
        "empty.unolog": b"",
        "half-header.unolog": HEADER[:10],
        "future.unolog": HEADER[:8] + b"\x00\x02\x00\x00",
    }
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(UnreadableLog):
            read_log(path)


def test_a_record_that_is_not_an_entry_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.unolog"
    with GameLog.create(path) as log:
        log.append_bytes(b"\x93\x01\x02\x03")
    with pytest.raises(UnreadableLog, match="record 0 is not a valid entry"):
        read_log(path)


def test_a_replaced_log_holds_exactly_the_new_entries_and_goes_on_appending(
        tmp_path: Path) -> None:
    path = tmp_path / "game.unolog"
    write(path)
    path.chmod(0o600)
    with GameLog.create(tmp_path / "expected.unolog") as expected:
        for entry in LOG[:4]:
            expected.append(entry)
    log, _ = GameLog.resume(path)
    log.replace(LOG[:3])
    log.append(LOG[3])
    log.close()
    assert path.read_bytes() == (tmp_path / "expected.unolog").read_bytes()
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".new")] == []


def test_a_replace_the_disk_refuses_leaves_the_old_log_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "game.unolog"
    write(path)
    before = path.read_bytes()
    log, _ = GameLog.resume(path)

    def full_disk(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("uno_p2p.store.unolog.os.replace", full_disk)
    with pytest.raises(UnreadableLog, match="cannot rewrite"):
        log.replace(LOG[:2])
    log.close()
    assert path.read_bytes() == before
    assert not path.with_name(path.name + ".new").exists()


def test_create_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "game.unolog"
    write(path, 2)
    before = path.read_bytes()
    with pytest.raises(UnreadableLog):
        GameLog.create(path)
    assert path.read_bytes() == before


def test_logs_go_under_the_xdg_data_directory(tmp_path: Path) -> None:
    assert games_dir({"XDG_DATA_HOME": "/data"}) == Path("/data/uno-lan/games")
    home = Path("/home/alice")
    assert games_dir({}, home) == home / ".local/share/uno-lan/games"
    assert games_dir({"XDG_DATA_HOME": "relative"}, home) == home / ".local/share/uno-lan/games"
    path = new_log_path(bytes.fromhex("1a2b3c4d") + bytes(12), datetime(2026, 11, 30, 17, 5, 1),
                        tmp_path)
    assert path == tmp_path / "20261130-170501-1a2b3c4d.unolog"


def test_an_endless_file_that_is_no_log_is_refused_at_once() -> None:
    """``log show /dev/zero`` must not try to read the whole device into memory."""
    with pytest.raises(UnreadableLog, match="not an uno-lan game log"):
        read_log(Path("/dev/zero"))
