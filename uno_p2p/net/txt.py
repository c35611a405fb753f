"""The TXT record of a table advert: strict, bounded encoding and decoding.

docs/protocol/discovery.md §3. A TXT record is bytes anyone on the LAN can
send, so decoding is strict and bounded: every key once, every value in its
range, the whole record at most ``MAX_TXT_BYTES``. A record that breaks any
rule raises ``InvalidMessage`` and the browser ignores that advert; it never
reaches the game. No I/O here, so the rules are tested and fuzzed directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.net.adverts import SERVICE_TYPE, TableAdvert, TablePhaseName
from uno_p2p.wire import fields
from uno_p2p.wire.envelope import PROTOCOL_VERSION
from uno_p2p.wire.lobby import MAX_NAME_CHARS, MAX_OPTION_KEY_CHARS, MAX_PLAYERS, MIN_PLAYERS

#: The layout of the TXT record itself (RFC 6763 §6.7); a different value is
#: a layout this code cannot read, and the advert is ignored (discovery.md §3.3).
TXT_VERSION = 1
#: RFC 6763 §6.2: a TXT record should fit in one packet with its siblings.
MAX_TXT_BYTES = 1300
#: Known keys plus room for keys a later version adds (ignored when unknown).
MAX_TXT_STRINGS = 32
#: Highest table protocol version a TXT record may claim (it is a uint16).
MAX_PROTOCOL_VERSION = 0xFFFF
#: A DNS label is at most 63 bytes (RFC 1035 §2.3.4); leave room for the
#: "-N" a responder appends when it renames a clashing instance (RFC 6762 §9).
MAX_INSTANCE_BYTES = 56

#: The keys of discovery.md §3.1, in the order we write them.
KEYS = ("txtvers", "proto", "table", "host", "taken", "free", "preset", "phase", "code", "fp")

_DECIMAL = re.compile(r"(?:0|[1-9][0-9]{0,4})\Z")
_FINGERPRINT = re.compile(r"[0-9a-f]{4}(?:-[0-9a-f]{4}){3}\Z")
_PHASES: tuple[TablePhaseName, ...] = ("lobby", "playing")


@dataclass(frozen=True, slots=True)
class TxtFields:
    """What a table's TXT record says, checked (everything but where it listens)."""

    protocol_version: int
    table_name: str
    host_player: str
    seats_taken: int
    seats_free: int
    preset: str
    phase: TablePhaseName
    join_code: bool
    host_fingerprint: str

    def advert(self, instance: str, addresses: tuple[str, ...], port: int) -> TableAdvert:
        """The full advert, once SRV and A/AAAA records say where the table listens."""
        return TableAdvert(
            instance=instance, table_name=self.table_name, host_player=self.host_player,
            addresses=addresses, port=port, protocol_version=self.protocol_version,
            seats_taken=self.seats_taken, seats_free=self.seats_free, preset=self.preset,
            phase=self.phase, join_code=self.join_code, host_fingerprint=self.host_fingerprint,
        )


def encode_txt(advert: TableAdvert) -> bytes:
    """The TXT rdata of ``advert``: length-prefixed ``key=value`` strings.

    Raises:
        LocalProtocolError: the advert breaks a rule of discovery.md §3.2 (our bug).
    """
    values = {
        "txtvers": str(TXT_VERSION), "proto": str(advert.protocol_version),
        "table": advert.table_name, "host": advert.host_player,
        "taken": str(advert.seats_taken), "free": str(advert.seats_free),
        "preset": advert.preset, "phase": advert.phase,
        "code": "1" if advert.join_code else "0", "fp": advert.host_fingerprint,
    }
    strings = [f"{key}={values[key]}".encode() for key in KEYS]
    rdata = b"".join(bytes([len(item)]) + item for item in strings if len(item) <= 255)
    try:
        decoded = decode_txt(rdata)
    except InvalidMessage as error:
        raise LocalProtocolError(f"our own table advert is invalid: {error}") from error
    if decoded != txt_fields_of(advert):
        raise LocalProtocolError("our own table advert does not survive its TXT encoding")
    return rdata


def txt_fields_of(advert: TableAdvert) -> TxtFields:
    """The TXT part of ``advert`` (for comparing what was sent with what was read)."""
    return TxtFields(
        protocol_version=advert.protocol_version, table_name=advert.table_name,
        host_player=advert.host_player, seats_taken=advert.seats_taken,
        seats_free=advert.seats_free, preset=advert.preset, phase=advert.phase,
        join_code=advert.join_code, host_fingerprint=advert.host_fingerprint,
    )


def decode_txt(rdata: bytes) -> TxtFields:
    """Read and check a TXT record received from the network (discovery.md §3.2).

    Raises:
        InvalidMessage: too long, badly framed, a key missing or repeated, or a
            value out of its range; the advert is to be ignored.
    """
    pairs = _split_pairs(rdata)
    if pairs.get("txtvers") != str(TXT_VERSION):
        raise InvalidMessage(f"TXT layout 'txtvers={pairs.get('txtvers')}' is not {TXT_VERSION}")
    missing = [key for key in KEYS if key not in pairs]
    if missing:
        raise InvalidMessage(f"TXT record lacks {', '.join(missing)}")
    taken = _count(pairs["taken"], "taken")
    free = _count(pairs["free"], "free")
    if not MIN_PLAYERS <= taken + free <= MAX_PLAYERS:
        raise InvalidMessage(f"taken+free must be {MIN_PLAYERS} to {MAX_PLAYERS} seats")
    return TxtFields(
        protocol_version=_protocol_version(pairs["proto"]),
        table_name=_name(pairs["table"], "the table name"),
        host_player=_name(pairs["host"], "the host's name"),
        seats_taken=taken, seats_free=free,
        preset=fields.text(pairs["preset"], "the preset", min_chars=1,
                           max_chars=MAX_OPTION_KEY_CHARS),
        phase=_phase(pairs["phase"]), join_code=_flag(pairs["code"], "code"),
        host_fingerprint=_fingerprint(pairs["fp"]),
    )


def _split_pairs(rdata: bytes) -> dict[str, str]:
    """RFC 6763 §6.3-6.5 framing, strictly: keys lowercased, each key once."""
    if type(rdata) is not bytes or len(rdata) > MAX_TXT_BYTES:
        raise InvalidMessage(f"a TXT record must be bytes, at most {MAX_TXT_BYTES}")
    pairs: dict[str, str] = {}
    offset = 0
    while offset < len(rdata):
        if len(pairs) >= MAX_TXT_STRINGS:
            raise InvalidMessage(f"a TXT record holds at most {MAX_TXT_STRINGS} strings")
        size = rdata[offset]
        item = rdata[offset + 1 : offset + 1 + size]
        if len(item) != size:
            raise InvalidMessage("a TXT string runs past the end of the record")
        offset += 1 + size
        key, value = _pair(item)
        if key in pairs:
            raise InvalidMessage(f"TXT key {key!r} appears twice")
        pairs[key] = value
    return pairs


def _pair(item: bytes) -> tuple[str, str]:
    raw_key, equals, raw_value = item.partition(b"=")
    key = raw_key.decode("latin-1")
    if not equals or not key or not key.isascii() or not key.isprintable():
        raise InvalidMessage("a TXT string must be key=value with a printable ASCII key")
    try:
        value = raw_value.decode("utf-8", errors="strict")
    except UnicodeDecodeError as error:
        raise InvalidMessage("a TXT value is not UTF-8") from error
    return key.lower(), value


def _name(value: str, item: str) -> str:
    name = fields.text(value, item, min_chars=1, max_chars=MAX_NAME_CHARS)
    if name != name.strip():
        raise InvalidMessage(f"{item} must not start or end with spaces")
    return name


def _decimal(value: str, item: str, high: int) -> int:
    if not _DECIMAL.match(value) or int(value) > high:
        raise InvalidMessage(f"TXT {item} must be a decimal from 0 to {high}")
    return int(value)


def _count(value: str, item: str) -> int:
    return _decimal(value, item, MAX_PLAYERS)


def _protocol_version(value: str) -> int:
    version = _decimal(value, "proto", MAX_PROTOCOL_VERSION)
    if version == 0:
        raise InvalidMessage("TXT proto must be at least 1")
    return version


def _phase(value: str) -> TablePhaseName:
    for phase in _PHASES:
        if value == phase:
            return phase
    raise InvalidMessage("TXT phase must be 'lobby' or 'playing'")


def _flag(value: str, item: str) -> bool:
    if value not in ("0", "1"):
        raise InvalidMessage(f"TXT {item} must be 0 or 1")
    return value == "1"


def _fingerprint(value: str) -> str:
    if not _FINGERPRINT.match(value):
        raise InvalidMessage("TXT fp must be a key fingerprint like 1a2b-3c4d-5e6f-7a8b")
    return value


def instance_label(table_name: str) -> str:
    """A DNS-SD instance label for a table: its name, made safe and short.

    The label only has to be unique and recognisable; the table's real name
    travels in TXT ``table``. Dots (label separators to many tools), control
    characters and backslashes become '-', and the result is cut to
    ``MAX_INSTANCE_BYTES`` of UTF-8 on a character boundary.
    """
    safe = "".join("-" if char in ".\\" or not char.isprintable() else char
                   for char in table_name).strip() or "uno-lan table"
    while len(safe.encode()) > MAX_INSTANCE_BYTES:
        safe = safe[:-1]
    return safe.rstrip() or "uno-lan table"


def instance_of(service_name: str) -> str | None:
    """The instance label of a full service name, or None if it is not ours."""
    suffix = "." + SERVICE_TYPE
    if not service_name.lower().endswith(suffix.lower()) or len(service_name) <= len(suffix):
        return None
    return service_name[: -len(suffix)]


#: What this code writes as ``proto`` (the table protocol, wire.md §3).
OUR_PROTOCOL_VERSION = PROTOCOL_VERSION
