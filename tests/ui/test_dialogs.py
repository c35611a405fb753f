"""The boxes over the table: the round's score table and the end of the game."""

from __future__ import annotations

from tests.ui.helpers import names_to_cards
from uno_p2p.rules import preset
from uno_p2p.ui import words
from uno_p2p.ui.dialogs import boxed, game_over, round_table
from uno_p2p.ui.render import Seats, plain_text, width_of, wrap_line
from uno_p2p.ui.session import RoundSummary
from uno_p2p.ui.status import Stopped, TableStatus, stopped_rows, verdict_rows

NAMES = tuple(["You"] + [f"Bot {i}" for i in range(1, 10)])
SEATS = Seats(NAMES, 0)
BIG_HAND = tuple(names_to_cards("W+4", "W+4", "W", "R-skip", "Y+2", "B-rev", "G9", "G9", "R8",
                                "Y7", "B6", "G5", "R4"))


def summary(game_winner: int = -1) -> RoundSummary:
    hands = tuple(() if seat == 3 else BIG_HAND[:seat + 1] for seat in range(10))
    points = [sum(p for p in (50, 50, 50, 20, 20, 20, 9, 9, 8, 7, 6, 5, 4)[:len(h)])
              for h in hands]
    changes = tuple(sum(points) if seat == 3 else 0 for seat in range(10))
    scores = tuple(c + 10 * seat for seat, c in enumerate(changes))
    return RoundSummary(4, 3, hands, changes, scores, game_winner)


def test_round_table_lists_every_hand_and_fits_80_columns() -> None:
    box = boxed("Round over", round_table(summary(), SEATS, preset("official")), "Enter")
    assert max(width_of(line) for line in box) <= 80
    text = plain_text(box)
    assert "Bot 3 won round 4." in text
    lines = text.splitlines()
    mine = next(line for line in lines if line.startswith("│ You "))
    assert "W+4" in mine
    at = next(i for i, line in enumerate(lines) if line.startswith("│ Bot 9 "))
    # 10 cards, written as in the hand, wrapped onto a second row: every card shown
    bot9 = " ".join(lines[at:at + 2]).replace("│", " ").split()[5:]  # after name and numbers
    assert bot9 == ["W+4", "W+4", "W", "R-skip", "Y+2", "B-rev", "G9", "G9", "R8", "Y7"]
    winner = next(line for line in lines if line.startswith("│ Bot 3 ") and "won" not in line)
    assert f"+{sum(summary().hand_points)}" in winner
    assert "the game ends at 500" in text


def test_game_over_orders_the_scores_and_gives_the_seed() -> None:
    text = plain_text(game_over(summary(3), SEATS, preset("official"), "abc"))
    assert text.splitlines()[0] == words.WINS_THE_GAME.format(name="Bot 3")
    places = [line.split()[1:3] for line in text.splitlines() if line.strip()[:2].rstrip(".")
              .isdigit()]
    assert places[0] == ["Bot", "3"]
    assert "--seed abc" in text
    losses = plain_text(game_over(summary(0), SEATS, preset("official", ["scoring=losses"]),
                                  "x"))
    assert losses.splitlines()[0] == words.YOU_WIN
    first = next(line for line in losses.splitlines() if line.strip().startswith("1."))
    assert "You" in first  # fewest points first under losses


LONG_LOG = ("/home/someone/.local/share/uno-lan/games/"
            "20261204-093857-c5cc7f2f-Annabelle-Longname-e40e.unolog")


def test_a_stopped_game_box_wraps_its_reason_and_path_inside_80_columns() -> None:
    # Issue 25: the box lost its right border and its reason at 80 and 120 columns.
    why = "Bo's link broke and nobody could reach Bo again within the table's time-out"
    box = boxed("Game stopped", stopped_rows(Stopped("Bo", why, "every move so far",
                                                     LONG_LOG)), "q: quit")
    assert max(width_of(line) for line in box) <= 80  # the narrowest terminal it must fit
    lines = plain_text(box).splitlines()
    assert all(line.endswith(("│", "╮", "╯")) for line in lines), "every row has its border"
    inside = " ".join(line.strip("│ ") for line in lines[1:-1])
    assert "time-out." in inside, "the whole reason is shown"
    assert LONG_LOG in inside.replace("/ ", "/"), "the path is whole, broken after a /"
    assert lines[-2].strip("│ ") == "q: quit"


def test_wrap_line_keeps_styles_and_breaks_long_words_after_a_slash() -> None:
    rows = wrap_line([("class:uno", "Stopped: "), ("class:muted", f"see {LONG_LOG} now")], 40)
    assert all(width_of(row) <= 40 for row in rows)
    assert rows[0][0] == ("class:uno", "Stopped:")
    assert "".join(plain_text(rows).split()) == "".join(f"Stopped: see {LONG_LOG} now".split())
    assert any(text.endswith("/") for row in rows for _, text in row), "split at a folder"


def test_a_footer_that_fits_keeps_its_spacing() -> None:
    box = plain_text(boxed("Quit?", [[("", "Leave?")]], "y: quit    n: go on playing"))
    assert "│ y: quit    n: go on playing │" in box


def test_a_ten_player_network_game_over_fits_80_by_24() -> None:
    status = TableStatus(verdict="OK: the game is valid from the first entry to the final "
                                 "scores.", log=LONG_LOG)
    box = boxed("Game over", game_over(summary(3), SEATS, preset("official"), "")
                + verdict_rows(status), "q: quit")
    assert max(width_of(line) for line in box) <= 80
    assert len(box) <= 24, plain_text(box)
    inside = "".join(plain_text(box).replace("│", "").split())
    assert f"uno-lan audit {LONG_LOG}".replace(" ", "") in inside
