"""``uno-lan audit``: exit codes 0/1/2, one paragraph for a violation, one JSON object."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from uno_p2p.cli import main

DATA = Path(__file__).resolve().parent.parent / "data"


def test_honest_log_prints_ok_and_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(DATA / "honest-3p-seeds.unolog")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[1].startswith("OK")
    assert "Players:" in out
    assert "Ann" in out
    assert "Round 1:" in out
    assert "Final scores:" in out
    assert "duration: " in out
    assert "not recorded" not in out


def test_violation_is_one_paragraph_naming_entry_and_peer(
        capsys: pytest.CaptureFixture[str]) -> None:
    expected = json.loads((DATA / "expected.json").read_text())["cheat-bad-share.unolog"]
    assert main(["audit", str(DATA / "cheat-bad-share.unolog")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("VIOLATION")
    assert lines[2].startswith(f"Entry {expected['entry']} ")
    assert expected["peer"] in lines[2]
    assert "bad_share" in lines[2]


def test_json_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--json", str(DATA / "cheat-forked-sequencer.unolog")]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "violation"
    assert report["exit_code"] == 1
    assert report["violation"]["code"] == "sequencer_fork"
    assert report["violation"]["peer"]["host"] is True
    assert len(report["players"]) == 3
    assert all(len(p["fingerprint"]) == 19 for p in report["players"])


def test_unreadable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.unolog"
    junk.write_bytes(b"not a log at all")
    assert main(["audit", str(junk)]) == 2
    assert "not an uno-lan game log" in capsys.readouterr().err
    assert main(["audit", str(tmp_path / "missing.unolog")]) == 2
    assert main(["audit", "--json", str(junk)]) == 2
    assert json.loads(capsys.readouterr().out)["status"] == "unreadable"


def test_aborted_game_names_who_stopped(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(DATA / "cheat-refused-reveal.unolog")]) == 1
    out = capsys.readouterr().out
    assert "ABORTED" in out
    assert "Cy" in out
    assert "never revealed" in out
    assert "Not verifiable:" in out


def test_needs_only_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """No keys, no config, no network: an empty home and a copied file are enough."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    copy = tmp_path / "game.unolog"
    shutil.copyfile(DATA / "honest-3p-house.unolog", copy)
    assert main(["audit", str(copy)]) == 0
    assert "OK" in capsys.readouterr().out
