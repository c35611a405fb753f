"""The table fuzzer's target (``uno_p2p.table.fuzzing``), which the h11 properties stand on.

What its docstrings promise, checked from outside: the peers under test are seat 1
and the host copied *in the middle of* a game, so that valid next entries exist
among the seeds (a peer copied at the end takes nothing and fuzzes little); every
frame of the whole game is a seed; each input meets a copy, never the template
itself; and a frame may arrive late enough to reach the table's turn timer.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable

import pytest

from uno_p2p.errors import InvalidMessage
from uno_p2p.table.frames import (
    FRAME_DROP,
    FRAME_ENTRY,
    FRAME_MESSAGE,
    FRAME_RELAY,
    FRAME_SYNC,
    decode_drop,
    decode_sync,
    frame,
)
from uno_p2p.table.fuzzing import REUSE, FrameTarget, make_target, mutate
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Entry, Message

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("test_fuzz_target")]

#: make_target's table: ``turn_timer=60`` (RULES.md: seconds a player has to act).
TURN_TIMER_MS = 60_000
CUT = 40


@pytest.fixture(scope="module")
def made() -> FrameTarget:
    """One game per test session, not per import (``functools.cache``): mutmut forks
    each mutant's run from a process that already imported this module, so a cached
    target, and the live copies it hands out, would be the unmutated code's."""
    return make_target(cut=CUT)


@pytest.fixture
def target(made: FrameTarget) -> FrameTarget:
    """The same templates and seeds, with no live copy handed out yet."""
    return FrameTarget(made.guest, made.host, made.seeds, made.now_ms)


def _entry_seeds(t: FrameTarget) -> list[Entry]:
    """The seeds that are whole entries (the corpus also holds a few damaged frames)."""
    entries = []
    for seed in t.seeds:
        if seed[:1] == FRAME_ENTRY:
            with contextlib.suppress(InvalidMessage):
                entries.append(Entry.decode(seed[1:]))
    return entries


def test_the_fuzzed_peers_are_seat_1_and_the_host_copied_mid_game() -> None:
    # Its own game, not the fixture's: mutmut credits a module fixture's work to the
    # first test that asked for it, and runs only the credited tests on a mutant.
    t = make_target(cut=CUT)
    assert t.host.is_host
    assert t.host.state.my_seat == 0
    assert t.guest.state.my_seat == 1
    for peer in (t.guest, t.host):
        assert peer.stopped is None
        assert peer.state.phase == TablePhase.PLAYING, "copied mid-game, not at its end"
    assert t.host.state.seq > CUT, "copied after the cut"
    entries = _entry_seeds(t)
    assert [e.seq for e in entries] == list(range(len(entries))), "every entry is a seed"
    assert entries[-1].seq > t.host.state.seq + 40, "the game went on well past the copies"


def test_the_next_entry_among_the_seeds_is_taken_by_a_copy_and_the_template_stays(
        target: FrameTarget) -> None:
    t = target
    before = t.guest.state.seq
    entry = _entry_seeds(t)[before]
    peer = t.deliver(bytes([0]) + frame(FRAME_ENTRY, entry.encode()))  # to seat 1
    assert peer is not t.guest
    assert peer.stopped is None
    assert peer.state.seq == before + 1, "a valid next entry exists and is taken"
    assert t.guest.state.seq == before, "the template is never the peer under test"
    assert t.guest.ledger.chain.entries[-1].seq == before - 1


def test_a_frame_may_arrive_past_the_turn_timer(
        target: FrameTarget) -> None:
    t = target
    peer = t.deliver(bytes([0xFC]))  # the latest a selector can make a frame arrive
    assert peer.now_ms > t.now_ms + TURN_TIMER_MS


def test_a_copy_takes_reuse_inputs_then_a_fresh_copy_replaces_it(target: FrameTarget) -> None:
    """The docstring's promise: one copy for ``REUSE`` inputs, so a state an input left
    behind reaches at most ``REUSE - 1`` more; the host's copies are counted apart."""
    copies = [target.peer(False) for _ in range(2 * REUSE + 1)]
    assert len({id(c) for c in copies[:REUSE]}) == 1
    assert copies[REUSE] is not copies[0]
    assert all(c is copies[REUSE] for c in copies[REUSE:2 * REUSE])
    assert copies[2 * REUSE] is not copies[REUSE]
    host = target.peer(True)
    assert host is not copies[-1]
    assert host.is_host
    assert target.peer(False) is copies[2 * REUSE], "the guest's count went on alone"


def test_an_input_is_a_selector_then_a_seed_with_up_to_four_edits(target: FrameTarget) -> None:
    """``mutate``'s promise: a selector byte below 16 (``deliver`` reads it), then a seed
    frame with none to four edits, so both valid and damaged frames reach the peers."""
    rng = random.Random(7)
    seeds = set(target.seeds)
    inputs = [mutate(rng, target.seeds) for _ in range(400)]
    assert {data[0] for data in inputs} == set(range(16))
    unedited = sum(data[1:] in seeds for data in inputs)
    assert 0 < unedited < len(inputs) // 2, unedited
    # The generator alone decides, so a failing input can be made again from its seed.
    assert mutate(random.Random(7), target.seeds) == inputs[0]


def test_the_seeds_hold_a_well_formed_frame_of_every_kind(target: FrameTarget) -> None:
    """The corpus starts from valid frames of every kind the table reads (table.md §3.1:
    E, M, R, D, S), so that edits explore around what a peer accepts; the few damaged
    frames are extra. Each kind has a seed its own decoder takes whole."""
    decoders: dict[bytes, Callable[[bytes], object]] = {
        FRAME_ENTRY: Entry.decode, FRAME_MESSAGE: Message.decode,
        FRAME_RELAY: Message.decode, FRAME_DROP: decode_drop, FRAME_SYNC: decode_sync}
    for tag, decode in decoders.items():
        whole = []
        for seed in target.seeds:
            if seed[:1] == tag:
                with contextlib.suppress(InvalidMessage):
                    whole.append(decode(seed[1:]))
        assert whole, f"no well-formed {tag!r} frame among the seeds"
