"""``uno-lan replay FILE --text``: the game move by move, every hand once the reveal allows."""

from __future__ import annotations

from pathlib import Path

import pytest

from uno_p2p.cli import main
from uno_p2p.rules.cards import short_name
from uno_p2p.store.unolog import read_log

DATA = Path(__file__).resolve().parent.parent / "data"


def test_honest_game_shows_every_move_and_every_hand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--text", str(DATA / "honest-3p-house.unolog")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "every hand is shown" in lines[0]
    entries = [line for line in lines if line.startswith("entry ")]
    assert entries[0].startswith("entry 0, Ann: opened the table")
    # Every entry of the log is shown, once.
    assert len(entries) == len(read_log(DATA / "honest-3p-house.unolog").entries)
    hands = [line for line in lines if line.startswith("    | ")]
    assert hands
    assert not any("??" in line for line in hands)
    names = {short_name(card) for card in range(108)}
    dealt = hands[0].split(": ", 1)[1].split()
    assert dealt
    assert set(dealt) <= names | {"(none)"}
    assert "game over, won by" in out


def test_without_reveal_hidden_cards_stay_hidden(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--text", str(DATA / "cheat-refused-reveal.unolog")]) == 0
    out = capsys.readouterr().out
    assert "hidden cards are shown as ??" in out
    assert "??" in out


def test_replay_stops_at_a_bad_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--text", str(DATA / "cheat-card-not-held.unolog")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-2].startswith("STOP:")
    assert "Bob" in out[-2]
    assert out[-1].startswith("VIOLATION")


def test_replay_needs_text(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["replay", str(DATA / "honest-3p-house.unolog")])


def test_hidden_cheat_is_marked_where_it_happened_and_the_game_goes_on(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--text", str(DATA / "cheat-wild-draw-four.unolog")]) == 0
    lines = capsys.readouterr().out.splitlines()
    marked = next(i for i, line in enumerate(lines) if line.startswith("    !! AUDIT:"))
    entry_line = next(line for line in reversed(lines[:marked]) if line.startswith("entry "))
    assert "played Wild Draw Four" in entry_line
    assert "Cy" in lines[marked]
    cy_hand = next(line for line in reversed(lines[:marked]) if line.startswith("    | Cy: "))
    assert "W+4" in cy_hand
    assert lines[-1].startswith("VIOLATION")
    assert any(line.startswith("    game over") for line in lines[marked:])
