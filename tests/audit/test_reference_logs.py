"""Every reference log under tests/data/ gets the verdict its construction implies.

``scripts/make-reference-logs`` plays each game through the in-memory table;
``expected.json`` says who cheated, at which entry and how, written by hand
from how each cheat was made and checked against the log's entries (the
script never writes it; neither the audit nor any other code computes it).
Here the audit, given nothing but the file, must reach the same verdict and
name the same peer and entry.
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
                  "bad-shuffle", "uncommitted-seed", "equivocation", "forked-sequencer",
                  "refused-reveal",
                  "wild-draw-four", "bad-private-reveal", "false-accusation"):
        assert f"cheat-{cheat}.unolog" in names
    assert sum(name.startswith("honest-") for name in names) >= 4
    # RULES.md "may bluff": a game with bluffs, caught and unchallenged, is valid
    assert EXPECTED["honest-3p-bluffs.unolog"]["status"] == "ok"
    assert all((DATA / name).is_file() for name in names)


def test_reference_logs_stay_small() -> None:
    total = sum(path.stat().st_size for path in DATA.iterdir())
    # Every shuffle turn carries its ~21 KB (deck and proof of shuffle, deck.md §6.4).
    assert total < 4_000_000


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
                        ("cheat-uncommitted-seed.unolog", "reveal"),
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


def test_the_generator_remakes_the_same_logs_and_never_writes_a_verdict(tmp_path: Path) -> None:
    """scripts/make-reference-logs, run afresh, makes byte for byte the stored logs (so the
    hand-written verdicts still hold for what it makes), and writes no expected.json."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "make_reference_logs.py"
    names = ["cheat-bad-share", "cheat-forked-sequencer"]
    run = subprocess.run([sys.executable, str(script), "--out", str(tmp_path),
                          *[arg for name in names for arg in ("--only", name)]],
                         check=True, capture_output=True, timeout=300, text=True)
    assert not (tmp_path / "expected.json").exists()
    assert "edit" in run.stdout  # a fresh directory holds no verdicts: it says so
    for name in names:
        made = tmp_path / f"{name}.unolog"
        assert made.read_bytes() == (DATA / made.name).read_bytes()
        verdict = EXPECTED[made.name]
        report = audit_file(made)
        assert report.violation is not None
        assert (report.status.value, report.violation.code, report.violation.entry) == (
            verdict["status"], verdict["code"], verdict["entry"])


#: The RULES.md rule each illegal move broke, read by hand from how the cheat was made (an
#: out-of-turn play breaks "turn"; a lie in a challenge's verdict breaks "challenge").
RULES_BROKEN = {
    "cheat-out-of-turn.unolog": "turn",
    "cheat-challenge-lie.unolog": "challenge",
    "cheat-bad-share.unolog": None,  # a proof, not a rule
    "cheat-equivocation.unolog": None,
}


@pytest.mark.parametrize("name", sorted(RULES_BROKEN))
def test_the_verdict_names_the_rule_that_was_broken(name: str) -> None:
    report = audit_file(DATA / name)
    assert report.violation is not None
    assert report.violation.rule == RULES_BROKEN[name]
