"""Nothing the peers send, log or tell changes while ``TablePeer`` is cut into parts
(issue 26): each recorded scenario, played again, gives every peer's ``.unolog``,
event stream and sent frames byte for byte as recorded (``tests/table/goldens.py``)."""

from __future__ import annotations

import pytest

from tests.table.goldens import GOLDEN, SCENARIOS, record

KINDS = ("unolog", "events", "sent")
#: The longest replays (2.3 to 5.6 s of CPU each, 26 s of the 42 s all of them take) run
#: in the whole suite only: ``scripts/test --quick`` keeps an honest game, the hand-over
#: and every short adversary, which catch a changed byte as surely in the edit-test loop.
SLOW = frozenset({"honest-3p", "honest-4p", "removal", "bluffer", "eager", "lying-challenger",
                  "forks"})


def test_every_scenario_has_its_recording_and_nothing_else_is_kept() -> None:
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(SCENARIOS)
    assert SCENARIOS.keys() > SLOW, "a slow scenario is one that exists, and not all are"


@pytest.mark.game
@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else []) for name in SCENARIOS])
def test_a_recorded_game_plays_again_byte_for_byte(name: str) -> None:
    folder = GOLDEN / name
    played = record(name)
    kept = sorted(p.name for p in folder.iterdir())
    assert kept == sorted(f"{r.stem}.{kind}" for r in played for kind in KINDS)
    for item in played:
        assert item.sent == (folder / f"{item.stem}.sent").read_bytes(), \
            f"{name}: {item.stem} sent other frames than recorded"
        assert item.unolog == (folder / f"{item.stem}.unolog").read_bytes(), \
            f"{name}: {item.stem}'s log differs from the recording"
        want = (folder / f"{item.stem}.events").read_bytes().splitlines()
        got = item.events.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                     min(len(got), len(want)))
        assert got == want, f"{name}: {item.stem}'s events differ from event {first} on"
