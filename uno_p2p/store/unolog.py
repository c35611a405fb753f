"""The ``.unolog`` file: one game's entries, append-only, safe across crashes.

docs/protocol/wire.md §8. Layout::

    header:  "UNOLOG\\r\\n" (8 bytes)  format version u16 BE (1)  flags u16 BE (0)
    record:  length u32 BE (1..max)  entry bytes  CRC-32 u32 BE over length + entry

Every record is written with one ``write`` and flushed to the OS at once;
``sync()`` forces it to the disk (the table calls it at least at each round
end). A crash can only leave the *last* record short or garbled: reopening
detects that, reports it, and (when opening to append) truncates exactly that
tail; nothing before it is ever rewritten in place. A bad record anywhere else
is not a crash but damage, and the file is refused as unreadable. The CRC only
detects accidents; tampering is the chain's job (``uno_p2p.wire.chain``).

The one exception to append-only is a log whose tail the table replaced (a
woken old host's entries that a hand-over superseded, table.md §13.4): the
file must hold exactly the peer's chain, so ``GameLog.replace`` writes the
whole new chain to a temporary file, syncs it and renames it over the old
one. A crash at any moment leaves either the old file or the new, never a
torn mix of both.
"""

from __future__ import annotations

import contextlib
import os
import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from uno_p2p.errors import InvalidMessage, UnoError
from uno_p2p.wire.codec import DEFAULT_LIMITS
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.registry import BODIES, Registry

MAGIC = b"UNOLOG\r\n"
FORMAT_VERSION = 1
HEADER = MAGIC + struct.pack(">HH", FORMAT_VERSION, 0)
LENGTH = struct.Struct(">I")
CHECKSUM = struct.Struct(">I")
#: A record never exceeds the largest entry a peer may send.
MAX_RECORD = DEFAULT_LIMITS.max_frame
SUFFIX = ".unolog"


class UnreadableLog(UnoError):
    """A file that is not a ``.unolog`` we can read, or is damaged before its end."""

    code = "unreadable_log"


class MalformedRecord(UnreadableLog):
    """A record whose CRC holds but whose bytes are not a valid entry.

    It keeps what the audit needs to judge it (docs/protocol/verdicts.md §8):
    the entries before it, its number and bytes, and the torn tail after the
    last whole record.
    """

    def __init__(self, message: str, *, entries: tuple[Entry, ...], number: int,
                 record: bytes, torn_bytes: int) -> None:
        super().__init__(message)
        self.entries = entries
        self.number = number
        self.record = record
        self.torn_bytes = torn_bytes


@dataclass(frozen=True, slots=True)
class LogContents:
    """What a log file holds: its entries, and how many torn bytes follow them."""

    entries: tuple[Entry, ...]
    #: Byte length of the valid part (header and whole records).
    valid_length: int
    #: Bytes of a partial last record left by a crash (0 for a clean file).
    torn_bytes: int


def games_dir(environ: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """Where game logs live: ``$XDG_DATA_HOME/uno-lan/games``, by default
    ``~/.local/share/uno-lan/games`` (a relative ``XDG_DATA_HOME`` is ignored,
    as the XDG base directory spec says)."""
    env = os.environ if environ is None else environ
    data_home = env.get("XDG_DATA_HOME", "")
    base = Path(data_home) if data_home and Path(data_home).is_absolute() else None
    if base is None:
        base = (home or Path.home()) / ".local" / "share"
    return base / "uno-lan" / "games"


def new_log_path(table_id: bytes, started: datetime, directory: Path | None = None) -> Path:
    """A fresh file name for a game: ``20261130-170501-1a2b3c4d.unolog``."""
    stamp = started.strftime("%Y%m%d-%H%M%S")
    return (directory or games_dir()) / f"{stamp}-{table_id[:4].hex()}{SUFFIX}"


def _record(data: bytes) -> bytes:
    framed = LENGTH.pack(len(data)) + data
    return framed + CHECKSUM.pack(zlib.crc32(framed))


def _scan(raw: bytes, path: Path) -> tuple[list[bytes], int]:
    """Split a file into whole records; return them and the valid length.

    Raises:
        UnreadableLog: bad header, or a damaged record that is not the last.
    """
    if raw[: len(MAGIC)] != MAGIC:
        raise UnreadableLog(f"{path} is not an uno-lan game log")
    if len(raw) < len(HEADER):
        raise UnreadableLog(f"{path} ends inside its header")
    version, _flags = struct.unpack(">HH", raw[len(MAGIC) : len(HEADER)])
    if version != FORMAT_VERSION:
        raise UnreadableLog(f"{path} is a version {version} log; this program reads version 1")
    records: list[bytes] = []
    offset = len(HEADER)
    while offset < len(raw):
        end = _record_end(raw, offset)
        if end is None:
            if _is_last(raw, offset):
                break
            raise UnreadableLog(f"{path} is damaged at byte {offset} (record {len(records)})")
        records.append(raw[offset + LENGTH.size : end - CHECKSUM.size])
        offset = end
    return records, offset


def _record_end(raw: bytes, offset: int) -> int | None:
    """End offset of the whole, intact record at ``offset``, or None."""
    if offset + LENGTH.size > len(raw):
        return None
    (length,) = LENGTH.unpack_from(raw, offset)
    end = offset + LENGTH.size + length + CHECKSUM.size
    if not 0 < length <= MAX_RECORD or end > len(raw):
        return None
    (checksum,) = CHECKSUM.unpack_from(raw, end - CHECKSUM.size)
    return end if zlib.crc32(raw[offset : end - CHECKSUM.size]) == checksum else None


def _is_last(raw: bytes, offset: int) -> bool:
    """Whether a bad record at ``offset`` could be a torn last write.

    True when the rest of the file is zeros (a file system that grew the file
    before writing it), when the length field itself is cut short, or when a
    plausible length runs to or past the end of the file (the write stopped
    part way, or completed in size but not in content). A length we never
    write (0, or over the limit) before the end is damage, not a crash.
    """
    if offset + LENGTH.size > len(raw) or not raw[offset:].strip(b"\x00"):
        return True
    (length,) = LENGTH.unpack_from(raw, offset)
    end = offset + LENGTH.size + int(length) + CHECKSUM.size
    return 0 < length <= MAX_RECORD and end >= len(raw)


def _decode(records: list[bytes], path: Path, registry: Registry,
            torn_bytes: int) -> tuple[Entry, ...]:
    entries: list[Entry] = []
    for number, record in enumerate(records):
        try:
            entries.append(Entry.decode(record, registry))
        except InvalidMessage as error:
            why = f"{path}: record {number} is not a valid entry ({error})"
            raise MalformedRecord(why, entries=tuple(entries), number=number, record=record,
                                  torn_bytes=torn_bytes) from error
    return tuple(entries)


def read_log(path: Path, registry: Registry = BODIES) -> LogContents:
    """Read every whole entry of a log file, leaving the file untouched.

    Raises:
        UnreadableLog: missing, not a log, or damaged before its last record;
            ``MalformedRecord`` (a subclass) for a whole record whose bytes
            are not an entry.
    """
    try:
        with path.open("rb") as file:
            # The magic first: a big or endless file that is no log (a typo'd
            # path, /dev/zero) is refused without reading it all into memory.
            raw = file.read(len(MAGIC))
            if raw == MAGIC:
                raw += file.read()
    except OSError as error:
        raise UnreadableLog(f"cannot read {path}: {error.strerror}") from error
    records, valid = _scan(raw, path)
    return LogContents(_decode(records, path, registry, len(raw) - valid), valid,
                       len(raw) - valid)


class GameLog:
    """An open ``.unolog`` file being appended to (one per game, one writer)."""

    def __init__(self, path: Path, file: BinaryIO) -> None:
        self.path = path
        self._file = file

    @classmethod
    def create(cls, path: Path) -> GameLog:
        """Start a new log file (never overwriting one), its directory made if needed.

        Raises:
            UnreadableLog: the file exists or cannot be written.
        """
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            file = path.open("xb")
            file.write(HEADER)
            file.flush()
            os.fsync(file.fileno())
        except OSError as error:
            raise UnreadableLog(f"cannot create {path}: {error.strerror}") from error
        _sync_directory(path.parent)
        return cls(path, file)

    @classmethod
    def resume(cls, path: Path, registry: Registry = BODIES) -> tuple[GameLog, LogContents]:
        """Reopen a log to go on appending, after a clean exit or a crash.

        A torn last record is cut off (and only that); the entries before it
        are returned so the peer can rebuild its seat.

        Raises:
            UnreadableLog: as ``read_log``, or the file cannot be reopened.
        """
        contents = read_log(path, registry)
        try:
            if contents.torn_bytes:
                os.truncate(path, contents.valid_length)
            file = path.open("ab")
            os.fsync(file.fileno())
        except OSError as error:
            raise UnreadableLog(f"cannot reopen {path}: {error.strerror}") from error
        return cls(path, file), contents

    def append(self, entry: Entry) -> None:
        """Write one entry as one record and flush it to the OS.

        Raises:
            UnreadableLog: the disk refused the write.
        """
        self.append_bytes(entry.encode())

    def append_bytes(self, data: bytes) -> None:
        """Write one already-encoded entry (as received) as one record.

        Raises:
            UnreadableLog: empty, too big, or the disk refused the write.
        """
        if not 0 < len(data) <= MAX_RECORD:
            raise UnreadableLog(f"an entry of {len(data)} bytes cannot be logged")
        try:
            self._file.write(_record(data))
            self._file.flush()
        except OSError as error:
            raise UnreadableLog(f"cannot write to {self.path}: {error.strerror}") from error

    def replace(self, entries: Sequence[Entry]) -> None:
        """Make the file hold exactly ``entries`` (a chain whose tail was replaced),
        atomically: written to ``<name>.new`` with the file's mode, synced, renamed over
        the log, the directory synced; then appending goes on in the new file.

        Raises:
            UnreadableLog: an entry cannot be logged, or the disk refused (the old
                file is then left whole).
        """
        records = [entry.encode() for entry in entries]
        if any(not 0 < len(data) <= MAX_RECORD for data in records):
            raise UnreadableLog(f"an entry of {self.path} cannot be logged")
        temporary = self.path.with_name(self.path.name + ".new")
        try:
            mode = os.stat(self.path).st_mode & 0o777
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
            with os.fdopen(fd, "wb") as file:
                file.write(HEADER + b"".join(_record(data) for data in records))
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
            fresh = self.path.open("ab")
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise UnreadableLog(f"cannot rewrite {self.path}: {error.strerror}") from error
        _sync_directory(self.path.parent)
        self._file.close()
        self._file = fresh

    def sync(self) -> None:
        """Force everything written so far onto the disk (at least at round end).

        Raises:
            UnreadableLog: the disk refused.
        """
        try:
            os.fsync(self._file.fileno())
        except OSError as error:
            raise UnreadableLog(f"cannot sync {self.path}: {error.strerror}") from error

    def close(self) -> None:
        """Sync and close; closing twice is harmless."""
        if not self._file.closed:
            self.sync()
            self._file.close()

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def _sync_directory(directory: Path) -> None:
    """fsync a directory so a new file's name survives a crash (best effort)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
