"""``scripts/bench-lan``'s floor: the CPU a slice of the log's proofs and shares cost.

Issue 28 states it: each shuffle turn made once and checked by every other peer,
in proportion to its deck's size; each decryption share made once and checked by
every other peer; the sum over the machine's cores. A shuffle's first turn
starts from the open deck and costs its own check. The costs here are powers of
ten, so every term of the sum shows in its own digit.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from uno_p2p.crypto.cards import CARD_COUNT
from uno_p2p.crypto.group import OPS, Point, Scalar, base_mul
from uno_p2p.rules.actions import Draw
from uno_p2p.table.bodies import Move, ShareItem, Shares, ShuffleDeck
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.samples import SampleTable

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
COSTS = {"prove_s": 1.0, "first_check_s": 10.0, "check_s": 100.0, "share_s": 1000.0,
         "share_check_s": 10000.0}


@pytest.fixture(scope="module")
def bench_lan() -> ModuleType:
    sys.path.insert(0, str(SCRIPTS))  # it imports its sibling bench_lan_load
    try:
        spec = importlib.util.spec_from_file_location("bench_lan", SCRIPTS / "bench_lan.py")
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(SCRIPTS))


#: A signed log whose entries carry the bodies the floor reads (the chain checks only its
#: links and signatures: these decks and shares are no game's, and need not be).
TABLE = SampleTable(2)
ITEM = ShareItem(0, 1, "deal", 2, 0, bytes(32), bytes(64))


def turn(shuffle: int, cards: int = CARD_COUNT) -> Entry:
    return TABLE.append(0, ShuffleDeck(shuffle, (bytes(64),) * cards, b"p"))


def shares(count: int) -> Entry:
    return TABLE.append(1, Shares((ITEM,) * count))


def test_each_turn_is_made_once_and_checked_by_every_other_peer(
        bench_lan: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_lan.os, "cpu_count", lambda: 2)
    entries = [turn(0), turn(0), turn(0), turn(0)]
    # 4 made; 3 peers check the first turn, 3 each of the other three.
    assert bench_lan.proof_floor_s(entries, 4, COSTS) == (4 * 1 + 3 * 10 + 9 * 100) / 2


def test_a_smaller_deck_costs_its_share_of_a_whole_one(
        bench_lan: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_lan.os, "cpu_count", lambda: 1)
    entries = [turn(3, CARD_COUNT // 2), turn(3, CARD_COUNT // 2)]
    assert bench_lan.proof_floor_s(entries, 2, COSTS) == 0.5 * (2 * 1 + 10 + 100)


def test_every_shuffle_in_the_slice_has_its_own_first_turn(
        bench_lan: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_lan.os, "cpu_count", lambda: 1)
    entries = [turn(0), turn(0), turn(1), turn(1), turn(0)]
    assert bench_lan.proof_floor_s(entries, 2, COSTS) == 5 * 1 + 2 * 10 + 3 * 100


def test_shares_and_the_shares_a_move_shows_are_made_once_and_checked_by_the_others(
        bench_lan: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_lan.os, "cpu_count", lambda: 1)
    played = TABLE.append(1, Move(Draw(0), (ITEM, ITEM)))
    entries = [shares(3), played]
    assert bench_lan.proof_floor_s(entries, 3, COSTS) == 5 * (1000 + 2 * 10000)


def test_a_check_is_timed_on_points_it_meets_for_the_first_time(bench_lan: ModuleType) -> None:
    # A peer checks each point of a new turn once (deck.md §1); the process's memo
    # of valid points must not let a timed check skip that on its second run.
    point = base_mul(Scalar.of(7)).data
    before = OPS.validations
    bench_lan.best_cpu_s(lambda: Point.from_wire(point, peer=None, item="p"), 3,
                         fresh_points=True)
    assert OPS.validations - before == 3
