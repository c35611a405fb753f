"""What a peer keeps on disk to come back after a crash: keys, seat files, logs.

docs/protocol/net.md §8. Under ``$XDG_DATA_HOME/uno-lan`` (by default
``~/.local/share/uno-lan``), every file mode 0600, every directory 0700:

- ``keys/<player>.key``: a player's long-term Ed25519 seed (32 bytes), made on
  first use, so the same player is the same key from game to game;
- ``games/<stamp>-<table>-<player>.unolog``: the game log (``store.unolog``);
- ``games/<stamp>-<table>-<player>.seat``: what ``join --resume`` needs to
  rebuild the same peer (table.md §9): the identity seed, the game's entropy,
  the table id and host key, the name, the bot kind, the host's address, the
  join code, and where the other members listen (version 2). The members'
  addresses are rewritten as the mesh learns them: after a hand-over the host's
  address leads nowhere, and a resumed peer dials the sequencer the log names
  at its saved address (net.md §5.3). Version 1 files, without them, are still
  read. It is renamed ``.seat-ended`` when the game ends.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from uno_p2p.crypto.identity import SEED_BYTES, Identity, PeerId
from uno_p2p.errors import ConfigError, InvalidMessage, UnoError
from uno_p2p.store.unolog import SUFFIX, GameLog, games_dir
from uno_p2p.wire import fields
from uno_p2p.wire.chain import ChainVerifier
from uno_p2p.wire.codec import Limits, WireValue, pack, unpack
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import MAX_PLAYERS

SEAT_SUFFIX = ".seat"
ENDED_SUFFIX = ".seat-ended"
SEAT_MAGIC = "uno-lan seat"
SEAT_VERSION = 2
#: Fields of a version 1 seat file; version 2 adds the members' addresses.
V1_FIELDS = 10
#: ``host:port``: a host of at most 64 characters, as in the mesh's ``a`` frame (§5.1).
MAX_HOST_CHARS = 64
MAX_ADDRESS_CHARS = MAX_HOST_CHARS + len(":65535")
#: A seat file is small: a damaged or hostile one is refused before it is decoded.
SEAT_LIMITS = Limits(max_frame=16384, max_array=V1_FIELDS + 1, max_str=1024, max_bin=64,
                     max_depth=3)
FILE_MODE = 0o600
DIR_MODE = 0o700


def data_dir() -> Path:
    """``$XDG_DATA_HOME/uno-lan`` (the parent of ``store.games_dir``)."""
    return games_dir().parent


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner may read (0600), atomically.

    Raises:
        ConfigError: the disk refused.
    """
    try:
        path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".new")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror}") from error


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:32] or "player"


def player_identity(name: str) -> Identity:
    """The player's long-term identity, made and saved on first use.

    Raises:
        ConfigError: the key file is damaged or cannot be written.
    """
    path = data_dir() / "keys" / f"{_safe(name)}.key"
    if path.exists():
        seed = path.read_bytes()
        if len(seed) != SEED_BYTES:
            raise ConfigError(f"{path} is not a key file (it should hold 32 bytes)")
        return Identity(seed)
    seed = secrets.token_bytes(SEED_BYTES)
    write_private(path, seed)
    return Identity(seed)


@dataclass(frozen=True, slots=True)
class Seat:
    """One peer's place at one table, as saved for ``join --resume``.

    Raises (on construction):
        InvalidMessage: more members than a table seats, out of order or twice, or an
            address that is not ``host:port``.
    """

    identity: Identity
    entropy: bytes = field(repr=False)
    table_id: bytes
    host: PeerId
    name: str
    bot: str
    address: str
    code: str = field(repr=False, default="")
    path: Path = Path()
    #: Where the other members listen, ``host:port`` by key, sorted by key (net.md §8).
    members: tuple[tuple[PeerId, str], ...] = ()

    def __post_init__(self) -> None:
        if len(self.members) > MAX_PLAYERS:
            raise InvalidMessage(f"a seat lists {len(self.members)} members' addresses, "
                                 f"more than a table's {MAX_PLAYERS}")
        keys = [member.key for member, _ in self.members]
        if keys != sorted(set(keys)):
            raise InvalidMessage("a seat's members must be sorted by key, each once")
        for _, address in self.members:
            split_address(address)

    def to_bytes(self) -> bytes:
        members: list[WireValue] = [[m.key, a] for m, a in self.members]
        return pack([SEAT_MAGIC, SEAT_VERSION, self.identity.seed, self.entropy, self.table_id,
                     self.host.key, self.name, self.bot, self.address, self.code, members])

    @classmethod
    def from_bytes(cls, data: bytes, path: Path) -> Seat:
        """Decode a seat file, version 2 or 1 (which lists no members).

        Raises:
            ConfigError: not a seat file this version reads.
        """
        try:
            items = fields.items(unpack(data, SEAT_LIMITS), "a seat file", max_len=V1_FIELDS + 1)
            if len(items) < 2 or items[0] != SEAT_MAGIC or type(items[1]) is not int or \
                    items[1] not in (1, SEAT_VERSION):
                raise InvalidMessage("not a version 1 or 2 seat file")
            version = items[1]
            items = fields.array(items, V1_FIELDS if version == 1 else V1_FIELDS + 1,
                                 "a seat file")
            _, _, seed, entropy, table_id, host, name, bot, address, code = items[:V1_FIELDS]
            members = _members(items[V1_FIELDS]) if len(items) > V1_FIELDS else ()
            return cls(Identity(_bytes(seed)), _bytes(entropy), _bytes(table_id),
                       PeerId.from_wire(host), _text(name), _text(bot), _text(address),
                       _text(code), path, members)
        except UnoError as error:
            raise ConfigError(f"{path} is not a seat file we can read: {error}") from error

    def with_members(self, addresses: Mapping[bytes, tuple[str, int]]) -> Seat:
        """The same seat, knowing where ``addresses``' members listen (sorted by key).

        Raises:
            InvalidMessage: too many, or an address too long.
        """
        return replace(self, members=tuple((PeerId(key), f"{host}:{port}")
                                           for key, (host, port) in sorted(addresses.items())))

    def with_usable_members(self, addresses: Mapping[bytes, tuple[str, int]]) -> Seat:
        """``with_members``, leaving out any address a seat file cannot hold: the mesh
        learns addresses from other members' ``a`` frames (an empty host passes there),
        and one member's bad address must not stop the others being kept."""
        usable = {}
        for key, (host, port) in addresses.items():
            try:
                usable[key] = split_address(f"{host}:{port}")
            except InvalidMessage:
                continue
        return self.with_members(usable)

    def member_addresses(self) -> dict[bytes, tuple[str, int]]:
        """Where the other members listened when the seat was last saved, by key."""
        return {member.key: split_address(address) for member, address in self.members}

    @property
    def log_path(self) -> Path:
        return self.path.with_suffix(SUFFIX)

    def save(self) -> None:
        """Write (or rewrite) the seat file, 0600.

        Raises:
            ConfigError: the disk refused.
        """
        write_private(self.path, self.to_bytes())

    def ended(self) -> None:
        """The game is over: this seat can no longer be resumed."""
        if self.path.exists():
            self.path.replace(self.path.with_suffix(ENDED_SUFFIX))

    def forget(self) -> None:
        """The game never started (the player left the lobby, or the table closed before
        its start): there is nothing to resume or audit, so neither the seat file nor the
        log stays behind (issue 25: one file per lobby visit piled up)."""
        for path in (self.path, self.log_path):
            path.unlink(missing_ok=True)


def _bytes(value: object) -> bytes:
    if type(value) is not bytes:
        raise InvalidMessage("a bin field was expected")
    return value


def _text(value: object) -> str:
    if type(value) is not str:
        raise InvalidMessage("a str field was expected")
    return value


def _members(value: object) -> tuple[tuple[PeerId, str], ...]:
    """``[[key, "host:port"], ...]`` (checked again, with the order, by ``Seat``)."""
    pairs = fields.items(value, "the members' addresses", max_len=MAX_PLAYERS)
    out = []
    for pair in pairs:
        key, address = fields.array(pair, 2, "a member's address")
        out.append((PeerId(fields.blob(key, "a member's key", size=32)),
                    fields.text(address, "a member's address", max_chars=MAX_ADDRESS_CHARS)))
    return tuple(out)


def split_address(text: str) -> tuple[str, int]:
    """``host:port`` (a v6 host keeps its colons) as ``(host, port)``.

    Raises:
        InvalidMessage: not of that form, or too long.
    """
    host, _, port = text.rpartition(":")
    if not host or len(host) > MAX_HOST_CHARS or not (port.isascii() and port.isdigit()) or \
            len(port) > 5 or not 0 < int(port) < 65536:
        raise InvalidMessage(f"{text[:MAX_ADDRESS_CHARS]!r} is not a member's address "
                             "(host:port)")
    return host, int(port)


def seat_path(table_id: bytes, identity: Identity, name: str) -> Path:
    """``games/<stamp>-<table 8 hex>-<player>-<key 4 hex>.seat``: unique per peer."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    key = identity.peer.key[:2].hex()
    return games_dir() / f"{stamp}-{table_id[:4].hex()}-{_safe(name)}-{key}{SEAT_SUFFIX}"


def latest_seat(name: str | None = None) -> Seat:
    """The newest seat not yet ended (of player ``name``, if given).

    Raises:
        ConfigError: there is none.
    """
    found = sorted(games_dir().glob(f"*{SEAT_SUFFIX}"), key=lambda p: p.stat().st_mtime,
                   reverse=True)
    for path in found:
        seat = Seat.from_bytes(path.read_bytes(), path)
        if name is None or seat.name == name:
            return seat
    who = f" for {name}" if name else ""
    raise ConfigError(f"there is no unfinished game{who} to resume in {games_dir()}")


class LogSaver:
    """Keeps the peer's ``.unolog`` file equal to its chain, mode 0600: each entry the
    peer accepted is appended and flushed at once; a chain whose tail was replaced (a
    hand-over superseded what a woken old host logged alone, table.md §13.4) is
    rewritten whole and atomically (``GameLog.replace``), never spliced."""

    def __init__(self, log: GameLog, written: Sequence[Entry] = ()) -> None:
        self.log = log
        self.written = len(written)
        #: The hash of the last entry on disk: it commits to every entry before it, so
        #: the chain still extends the file exactly when its entry there hashes the same.
        self._last = written[-1].hash if written else None

    @classmethod
    def create(cls, path: Path) -> LogSaver:
        """A new log file.

        Raises:
            UnreadableLog: it exists or cannot be written.
        """
        log = GameLog.create(path)
        os.chmod(path, FILE_MODE)
        return cls(log)

    def save(self, chain: ChainVerifier) -> None:
        """Make the file hold ``chain``: append the entries not yet written, or, if the
        chain no longer extends what the file holds, rewrite the file with it.

        Raises:
            UnreadableLog: the disk refused.
        """
        if self.written and (len(chain) < self.written or
                             chain.entry(self.written - 1).hash != self._last):
            self.log.replace(chain.entries)
        else:
            for seq in range(self.written, len(chain)):
                self.log.append(chain.entry(seq))
        self.written = len(chain)
        self._last = chain.entry(len(chain) - 1).hash if len(chain) else None

    def close(self) -> None:
        self.log.close()
