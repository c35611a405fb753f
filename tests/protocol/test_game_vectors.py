"""The whole-game vectors (protocol/vectors/games/, docs/protocol/verdicts.md §6).

Two sets: version 1's (``games/``) and version 2's (``games/v2/``, wire.md §3),
both read by the same audit. The vectors are frozen: this test reads the
committed logs and ``games.json``
and re-derives every value from the spec's words, by hand where the spec
gives bytes (the file format and its CRC, entry hashes, countersignatures,
the table digest before the engine runs, the engine digest from its
preimage, the reseat draw), and through the audit for the rest (the digest
after every entry, the verdict). It never rewrites a vector:
``scripts/make-game-vectors`` does, after a deliberate protocol change.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import struct
from pathlib import Path
from typing import Any

import msgpack
import nacl.bindings
import pytest

from uno_p2p.audit import Step, audit_file, walk
from uno_p2p.store.unolog import read_log
from uno_p2p.table import bodies  # noqa: F401 (registers the table's body kinds)
from uno_p2p.table.bodies import Abort
from uno_p2p.table.state import Misbehaviour
from uno_p2p.wire.envelope import Message

ROOT = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "games"
#: Each protocol version's set of games: its directory and its games.json.
SETS = {1: ROOT, 2: ROOT / "v2"}
VECTORS: dict[int, dict[str, Any]] = {
    version: json.loads((folder / "games.json").read_text()) for version, folder in SETS.items()}
#: Every vector game as "v<version>/<file>".
NAMES = [f"v{version}/{game['file']}" for version, doc in VECTORS.items()
         for game in doc["games"]]


def _game(name: str) -> dict[str, Any]:
    version, file = _split(name)
    return next(g for g in VECTORS[version]["games"] if g["file"] == file)


def _split(name: str) -> tuple[int, str]:
    version, file = name.split("/")
    return int(version[1:]), file


def _path(name: str) -> Path:
    version, file = _split(name)
    return SETS[version] / file


def crc32(data: bytes) -> int:
    """CRC-32 as wire.md §8 defines it: polynomial 0x04C11DB7 reflected (0xEDB88320),
    init 0xFFFFFFFF, input and output reflected, final xor 0xFFFFFFFF."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def records(raw: bytes) -> list[bytes]:
    """The file's records, split by hand (wire.md §8), every CRC checked."""
    assert raw[:8] == b"UNOLOG\r\n"
    assert struct.unpack(">HH", raw[8:12]) == (1, 0)
    out, offset = [], 12
    while offset < len(raw):
        (length,) = struct.unpack_from(">I", raw, offset)
        body = raw[offset + 4:offset + 4 + length]
        (crc,) = struct.unpack_from(">I", raw, offset + 4 + length)
        assert crc == crc32(raw[offset:offset + 4 + length])
        out.append(body)
        offset += 8 + length
    assert offset == len(raw)
    return out


HANDOVER_KIND = 72


def test_the_crc_is_the_standard_crc32() -> None:
    assert crc32(b"123456789") == 0xCBF43926  # the catalogue's check value


@pytest.mark.parametrize("name", NAMES)
def test_every_entry_hash_and_countersignature_by_hand(name: str) -> None:
    game = _game(name)
    version, _ = _split(name)
    raw = _path(name).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == game["sha256"]
    table_id = bytes.fromhex(game["table_id"])
    prev = hashlib.sha256(b"uno-lan/v1/genesis\x00" + table_id).digest()
    sequencer = None
    found = records(raw)
    assert len(found) == len(game["entries"])
    for record, expected in zip(found, game["entries"], strict=True):
        seq, prev_hash, message, countersignature = msgpack.unpackb(record, raw=False)
        assert msgpack.packb([seq, prev_hash, message, countersignature],
                             use_bin_type=True) == record  # canonical
        assert (seq, prev_hash, message[1]) == (expected["seq"], prev, table_id)
        assert message[6] == expected["kind"]
        assert message[0] == version  # wire.md §3: every message in its table's version
        sequencer = sequencer or message[2]  # wire.md §4: the author of entry 0
        if message[6] == HANDOVER_KIND:
            # wire.md §4.4: the hand-over entry and every later one are countersigned
            # by the new sequencer its body names, [term, old, new, votes].
            sequencer = message[7][2]
        if "countersigner" in expected:
            assert sequencer.hex() == expected["countersigner"]
        message_hash = hashlib.sha256(b"uno-lan/v1/message-hash\x00"
                                      + msgpack.packb(message, use_bin_type=True)).digest()
        link = hashlib.sha256(b"uno-lan/v1/entry\x00" + table_id + seq.to_bytes(8, "big")
                              + prev_hash + message_hash).digest()
        assert link.hex() == expected["entry_hash"]
        nacl.bindings.crypto_sign_open(countersignature + link, sequencer)
        prev = link


@pytest.mark.game
@pytest.mark.parametrize("name", NAMES)
def test_the_public_digest_after_every_entry(name: str) -> None:
    game = _game(name)
    table_id = bytes.fromhex(game["table_id"])
    entries = read_log(_path(name)).entries
    accepted = [e for e in game["entries"] if e["digest"] is not None]
    refused = [e for e in game["entries"] if e["digest"] is None]
    steps: list[Step] = []
    with contextlib.ExitStack() as stack:
        if refused:  # verdicts.md §6: a refused entry has no state after it
            caught = stack.enter_context(pytest.raises(Misbehaviour))
        steps.extend(walk(entries))
    if refused:
        assert caught.value.code == refused[0]["refused"]
        assert caught.value.entry == refused[0]["seq"]
    assert len(steps) == len(accepted)
    engine_started = False
    for step, expected in zip(steps, accepted, strict=True):
        assert step.digest.hex() == expected["digest"], step.entry.seq
        assert step.after.phase.value == expected["phase"]
        engine_started = engine_started or step.after.engine is not None
        if not engine_started:
            # table.md §2: before the engine, the log's own digest.
            count = expected["seq"] + 1
            by_hand = hashlib.sha256(b"uno-lan/table/v1/digest\x00" + table_id
                                     + count.to_bytes(8, "big")
                                     + expected["phase"].encode()).hexdigest()
            assert by_hand == expected["digest"]
    assert engine_started
    for seq, preimage in game["public_part_msgpack"].items():
        data = bytes.fromhex(preimage)
        assert msgpack.unpackb(data)[0] == "uno-lan/rules/state/v1"
        assert hashlib.sha256(data).hexdigest() == game["entries"][int(seq)]["digest"]


@pytest.mark.game
@pytest.mark.parametrize("name", NAMES)
def test_the_audit_verdict(name: str) -> None:
    game = _game(name)
    report = audit_file(_path(name))
    verdict = game["verdict"]
    violation = report.violation
    assert (report.status.value, report.exit_code) == (verdict["status"], verdict["exit_code"])
    assert (None if violation is None else violation.code) == verdict["code"]
    assert (None if violation is None else violation.entry) == verdict["entry"]
    assert (report.winner, list(report.scores)) == (verdict["winner"], verdict["scores"])
    named = None if violation is None or violation.peer is None else violation.peer.name
    assert named == verdict["peer"]


def reseat_by_hand(table_id: bytes, round_: int, faces: list[list[int]], players: int,
                   teams: int = 0) -> list[int]:
    """table.md §4.2, written from the spec's words alone."""
    seed = hashlib.sha256(b"uno-lan/table/v1/reseat\x00" + table_id + round_.to_bytes(4, "big")
                          + b"".join(b"".join(x.to_bytes(4, "big") for x in face)
                                     for face in sorted(faces))).digest()
    stream = b""
    counter = 0

    def below(bound: int) -> int:
        nonlocal stream, counter
        while True:
            if not stream:
                stream = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
                counter += 1
            word, stream = int.from_bytes(stream[:4], "big"), stream[4:]
            if word < 2**32 - 2**32 % bound:
                return word % bound

    groups = [list(range(players))] if not teams else \
        [[s for s in range(players) if s % teams == t] for t in range(teams)]
    for group in groups:
        for i in range(len(group) - 1, 0, -1):
            j = below(i + 1)
            group[i], group[j] = group[j], group[i]
    return groups[0] if not teams else [groups[i % teams][i // teams] for i in range(players)]


@pytest.mark.game
def test_the_reseat_draw_by_hand() -> None:
    reseated = [g for g in VECTORS[1]["games"] if g["reseats"]]
    assert {draw["teams"] for g in reseated for draw in g["reseats"]} >= {0, 2}
    for game in reseated:
        entries = read_log(ROOT / game["file"]).entries
        steps = {step.entry.seq: step for step in walk(entries)}
        for draw in game["reseats"]:
            order = reseat_by_hand(bytes.fromhex(game["table_id"]), draw["round"],
                                   draw["faces"], game["players"], draw["teams"])
            assert order == draw["order"]
            engine = steps[draw["entry"]].after.engine
            assert engine is not None
            assert list(engine.order) == order


def test_an_abort_citing_a_number_signed_on_another_chain_is_judged_on_its_body() -> None:
    """table.md §7.2, wire.md §4.2, on ``v2/2p-equivocation-elsewhere.unolog``: the last
    entry is the host's ``abort`` naming Bob for equivocation; its evidence is Bob's
    message under the number of his logged move, but signed at a head whose hash is no
    entry of this log. That proves nothing, and a draw on Bob's own turn breaks no rule:
    the abort is a false accusation, naming its author, the host, at its own entry."""
    name = "v2/2p-equivocation-elsewhere.unolog"
    log = read_log(_path(name)).entries
    abort, host = log[-1], log[0].author
    assert abort.author == host
    assert isinstance(abort.body, Abort)
    assert abort.body.code == "equivocation"
    evidence = Message.decode(abort.body.evidence)
    logged = next(e.message for e in log[:-1] if e.author == evidence.author
                  and e.message.counter == evidence.counter)
    assert logged.digest != evidence.digest, "two messages under one number"
    seen = evidence.head.seen
    assert 0 < seen < len(log)
    assert evidence.head.hash not in {e.hash for e in log}, "signed on another chain"
    assert evidence.head.hash != log[seen - 1].hash
    verdict = _game(name)["verdict"]
    assert (verdict["status"], verdict["code"], verdict["entry"], verdict["peer"]) == \
        ("violation", "false_accusation", abort.seq, "Ann")
    report = audit_file(_path(name))
    assert report.violation is not None
    assert (report.violation.code, report.violation.entry) == ("false_accusation", abort.seq)
    assert report.violation.peer is not None
    assert report.violation.peer.key == host.key
