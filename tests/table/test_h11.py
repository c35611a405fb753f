"""The h11 invariant for the whole table (issue 10), as hypothesis properties.

Whatever bytes arrive, a seated ``TablePeer``, the host with its sequencer, the
audit, ``log show`` and ``replay`` either accept them or name a fault; nothing
escapes as an exception, and what they hold stays within a fixed multiple of
the frame limit (``uno_p2p.wire.limits``).
"""

from __future__ import annotations

import random
import tracemalloc
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uno_p2p.audit.core import audit_entries
from uno_p2p.cli import main
from uno_p2p.errors import InvalidMessage
from uno_p2p.store.unolog import GameLog, read_log
from uno_p2p.table.fuzzing import FrameTarget, make_target, mutate
from uno_p2p.table.ledger import HISTORY, Ledger
from uno_p2p.table.replay import replay
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.limits import DEFAULT_LIMITS, MAX_EARLY_BYTES

pytestmark = pytest.mark.game

DATA = Path(__file__).resolve().parent.parent / "data"
#: What one frame may make a peer hold, beyond what it held: a fixed multiple of the
#: frame limit (decoding) plus the early-entry buffer.
MEMORY_BOUND = 8 * DEFAULT_LIMITS.max_frame + MAX_EARLY_BYTES
#: Derandomised, so the same frames every run: a fixed regression set. Fuzzing at scale,
#: with fresh frames, is ``scripts/fuzz-table``.
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@cache
def target() -> FrameTarget:
    return make_target()


def _deliver_bounded(data: bytes) -> None:
    tracemalloc.start()
    try:
        target().deliver(data)  # no exception may escape
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BOUND + 64 * len(data)


@SETTINGS
@given(st.binary(max_size=4096))
def test_arbitrary_frames_to_a_seated_peer_and_the_host_never_raise(data: bytes) -> None:
    _deliver_bounded(data)


@SETTINGS
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_mutated_real_frames_never_raise(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(4):
        _deliver_bounded(mutate(rng, target().seeds))


@cache
def reference_entries() -> tuple[Entry, ...]:
    return read_log(DATA / "honest-2p-official.unolog").entries


def _mutated_log(seed: int) -> list[Entry]:
    """The reference log with a few entries mutated at the byte level (those that still
    decode), dropped, repeated or moved."""
    rng = random.Random(seed)
    entries = list(reference_entries())
    seeds = [e.encode() for e in entries]
    for _ in range(rng.randint(1, 3)):
        where = rng.randrange(len(entries))
        choice = rng.randrange(4)
        if choice == 0:
            try:
                entries[where] = Entry.decode(mutate(rng, seeds)[1:])
            except InvalidMessage:
                continue
        elif choice == 1:
            del entries[where:]
        elif choice == 2:
            entries.insert(where, entries[rng.randrange(len(entries))])
        else:
            entries.insert(rng.randrange(len(entries)), entries.pop(where))
        if not entries:
            break
    return entries


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_the_audit_and_replay_name_a_fault_for_any_mutated_log(seed: int) -> None:
    entries = _mutated_log(seed)
    report = audit_entries(entries)  # never raises: a report with a status
    assert report.status.value in {"ok", "stopped", "violation", "aborted", "unfinished"}
    if entries:
        replay(entries)  # names the first violation instead of raising


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.binary(max_size=64))
def test_the_cli_reads_any_file_as_a_verdict_or_one_sentence(
        tmp_path_factory: pytest.TempPathFactory, seed: int, noise: bytes) -> None:
    path = tmp_path_factory.mktemp("h11") / "game.unolog"
    with GameLog.create(path) as log:
        for entry in _mutated_log(seed)[:80]:
            log.append(entry)
    if noise:
        with path.open("ab") as raw:
            raw.write(noise)
    for argv in (["audit", "--json", str(path)], ["audit", str(path)],
                 ["log", "show", str(path)], ["log", "show", "--json", str(path)],
                 ["replay", "--text", str(path)]):
        assert main(argv) in (0, 1, 2), argv


def test_a_long_game_leaves_a_peer_only_the_last_states_it_may_need() -> None:
    """A peer keeps the table's state after each of the last ``HISTORY`` entries (what a
    late message's head may point at, ``Ledger.state_at``), never every state of a
    long game: what it holds stays bounded (issue 10's h11 invariant)."""
    entries = read_log(DATA / "honest-3p-bluffs.unolog").entries
    assert len(entries) > HISTORY + 50
    ledger = Ledger(entries[0].message.table_id, entries[0].author)
    for entry in entries:
        ledger.accept(entry)
    last = len(entries)
    assert ledger.state_at(last) is ledger.state
    assert ledger.state_at(last - HISTORY + 1) is not None
    assert ledger.state_at(last - HISTORY) is None
    assert ledger.state_at(0) is None
