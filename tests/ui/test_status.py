"""The network table's status in words: players, progress, waits, the stop, chat."""

from __future__ import annotations

import re

import pytest

from uno_p2p.ui import words
from uno_p2p.ui.render import plain_text
from uno_p2p.ui.status import (
    CHAT_MAX,
    ChatLine,
    Presence,
    Progress,
    Stopped,
    TableStatus,
    chat_pane,
    check_chat,
    presence_line,
    progress_bar,
    stopped_rows,
    waits,
)


def test_missing_players_stand_out() -> None:
    status = TableStatus(players=(Presence("Ann", True), Presence("Bob", False),
                                  Presence("Bot 1", True, bot=True)))
    shown = [words.PRESENT.format(name="Ann"), words.MISSING.format(name="Bob"),
             words.PRESENT.format(name="Bot 1") + words.A_BOT]
    assert plain_text([presence_line(status)]) == words.PLAYERS + "  ".join(shown)
    assert status.missing == ("Bob",)
    assert presence_line(TableStatus()) == []


def test_progress_fills_in_proportion() -> None:
    assert plain_text([progress_bar(Progress("Shuffling", 0, 4))]) == \
        "Shuffling ░░░░░░░░░░░░ 0/4"
    assert plain_text([progress_bar(Progress("Shuffling", 4, 4))]) == \
        "Shuffling ▓▓▓▓▓▓▓▓▓▓▓▓ 4/4"
    assert plain_text([progress_bar(Progress("Dealing"))]) == "Dealing…"
    with pytest.raises(ValueError, match="makes no sense"):
        Progress("Shuffling", 5, 4)


def test_waits_count_the_turn_timer_down() -> None:
    wait = "waiting for Bob to deal"  # the session's words, given as they are
    status = TableStatus(waiting_for=wait, turn_ends_ms=10_000)
    assert plain_text(waits(status, 0)).splitlines() == [
        wait.replace("w", "W", 1) + "…", words.TURN_TIMER.format(left=10)]
    assert plain_text(waits(status, 9_500)).endswith(words.TURN_TIMER.format(left=1))
    assert plain_text(waits(status, 12_000)).endswith(words.TURN_TIMER.format(left=0))


def test_a_stop_names_who_why_and_what_remains_provable() -> None:
    why, provable = "sent a shuffle whose proof fails", "that Cy cheated, from entry 12"
    text = plain_text(stopped_rows(Stopped("Cy", why, provable)))
    assert text.splitlines() == [words.GAME_STOPPED.format(said=f"Cy: {why}"), "",
                                 words.STILL_PROVABLE.format(what=provable)]
    stopped = plain_text(stopped_rows(Stopped("Cy", why, provable + ".")))
    assert stopped.splitlines()[-1] == words.STILL_PROVABLE.format(what=provable), "one stop"
    nobody = plain_text(stopped_rows(Stopped("", "everyone else left")))
    assert nobody == words.GAME_STOPPED.format(said="Everyone else left")


def test_chat_wraps_and_shows_the_newest() -> None:
    chat = [ChatLine("Bob", f"message {i}") for i in range(10)]
    long = "a long message that needs two rows here"
    chat.append(ChatLine("Ann", long, mine=True))
    rows = plain_text(chat_pane(chat, 3, 30)).splitlines()
    assert len(rows) == 3, "the newest message takes two rows, the one before it one"
    assert rows[0] == words.CHAT_LINE.format(who="Bob", text="message 9")
    assert rows[2].startswith("  ")
    assert all(len(row) <= 30 for row in rows)
    assert " ".join(row.strip() for row in rows[1:]) == words.CHAT_LINE.format(
        who=words.CHAT_YOU, text=long)


@pytest.mark.parametrize(("text", "said"), [
    ("   ", words.SAY_SOMETHING),
    ("x" * (CHAT_MAX + 1), words.CHAT_TOO_LONG.format(most=CHAT_MAX)),
    ("a\x1bb", words.NO_CONTROL_CHARACTERS),
])
def test_a_bad_chat_message_is_refused(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(said)}$"):
        check_chat(text)
    assert check_chat("  hi  ") == "hi"
