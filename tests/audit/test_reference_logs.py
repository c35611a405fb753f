"""Every reference log under tests/data/ gets the verdict its construction implies.

``scripts/make-reference-logs`` plays each game through the in-memory table
and records in ``expected.json`` who cheated, at which entry and how (from
how the cheat was made, not from running the audit). Here the audit, given
nothing but the file, must reach the same verdict and name the same peer
and entry.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from uno_p2p.audit import Status, audit_file

DATA = Path(__file__).resolve().parent.parent / "data"
EXPECTED: dict[str, dict[str, object]] = json.loads((DATA / "expected.json").read_text())


def test_there_is_a_log_for_every_adversary_and_several_honest_games() -> None:
    names = set(EXPECTED)
    for cheat in ("card-not-held", "out-of-turn", "wrong-face", "bad-share", "challenge-lie",
                  "bad-shuffle", "equivocation", "forked-sequencer", "refused-reveal",
                  "wild-draw-four", "bad-private-reveal", "false-accusation"):
        assert f"cheat-{cheat}.unolog" in names
    assert sum(name.startswith("honest-") for name in names) >= 4
    # RULES.md "may bluff": a game with bluffs, caught and unchallenged, is valid
    assert EXPECTED["honest-3p-bluffs.unolog"]["status"] == "ok"
    assert all((DATA / name).is_file() for name in names)


def test_reference_logs_stay_small() -> None:
    total = sum(path.stat().st_size for path in DATA.iterdir())
    assert total < 2_000_000


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reference_log_verdict(name: str) -> None:
    expected = EXPECTED[name]
    report = audit_file(DATA / name)
    assert report.status == Status(expected["status"]), report.lines()
    if expected["code"] is None:
        assert report.violation is None, report.lines()
        if report.status == Status.OK:
            assert report.winner == expected["peer"]
        return
    finding = report.violation
    assert finding is not None, report.lines()
    assert finding.code == expected["code"], report.lines()
    assert finding.entry == expected["entry"], report.lines()
    assert finding.peer is not None
    assert finding.peer.name == expected["peer"]
    paragraph = finding.paragraph()
    assert f"ntry {expected['entry']}" in paragraph
    assert finding.peer.fingerprint in paragraph
    assert str(expected["peer"]) in paragraph
    assert report.exit_code == 1


def test_the_reveal_stage_catches_what_the_table_could_not_see() -> None:
    """Hidden-information cheats are named at the entry where they happened."""
    for name, stage in (("cheat-wild-draw-four.unolog", "reveal"),
                        ("cheat-bad-shuffle.unolog", "reveal"),
                        ("cheat-bad-private-reveal.unolog", "reveal"),
                        ("cheat-false-accusation.unolog", "reveal")):
        report = audit_file(DATA / name)
        assert report.violation is not None
        assert report.violation.stage == stage, name


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if e["status"] == "ok"))
def test_honest_logs_check_every_stage(name: str) -> None:
    report = audit_file(DATA / name)
    verified = " ".join(report.verified)
    for stage in ("signatures", "rules engine", "proof", "re-executed", "hidden claim"):
        assert stage in verified
    assert report.rounds
    assert report.scores == report.rounds[-1].scores
    assert max(report.scores) >= int(str(dict(report.options)["target"]))


def test_the_generator_makes_logs_the_audit_judges_as_it_says(tmp_path: Path) -> None:
    """scripts/make-reference-logs, run afresh, writes a log and its expected verdict
    that agree with the audit (so regenerating after a protocol change stays honest)."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "make_reference_logs.py"
    subprocess.run([sys.executable, str(script), "--out", str(tmp_path),
                    "--only", "cheat-bad-share", "--only", "cheat-forked-sequencer"],
                   check=True, capture_output=True, timeout=300)
    expected = json.loads((tmp_path / "expected.json").read_text())
    assert set(expected) == {"cheat-bad-share.unolog", "cheat-forked-sequencer.unolog"}
    for name, verdict in expected.items():
        report = audit_file(tmp_path / name)
        assert report.violation is not None
        assert (report.status.value, report.violation.code, report.violation.entry) == (
            verdict["status"], verdict["code"], verdict["entry"])
