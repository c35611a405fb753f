"""The network table's status in words: players, progress, waits, the stop, chat."""

from __future__ import annotations

import pytest

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
    assert plain_text([presence_line(status)]) == \
        "Players: ● Ann  ○ Bob missing  ● Bot 1 (bot)"
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
    status = TableStatus(waiting_for="waiting for Bob to deal", turn_ends_ms=10_000)
    assert plain_text(waits(status, 0)) == "Waiting for Bob to deal…\nTurn timer: 10 s left"
    assert plain_text(waits(status, 9_500)).endswith("Turn timer: 1 s left")
    assert plain_text(waits(status, 12_000)).endswith("Turn timer: 0 s left")


def test_a_stop_names_who_why_and_what_remains_provable() -> None:
    text = plain_text(stopped_rows(Stopped("Cy", "sent a shuffle whose proof fails",
                                           "that Cy cheated, from entry 12")))
    assert text.splitlines() == ["The game stopped. Cy: sent a shuffle whose proof fails.", "",
                                 "The log can still prove that Cy cheated, from entry 12."]
    nobody = plain_text(stopped_rows(Stopped("", "everyone else left")))
    assert nobody == "The game stopped. Everyone else left."


def test_chat_wraps_and_shows_the_newest() -> None:
    chat = [ChatLine("Bob", f"message {i}") for i in range(10)]
    chat.append(ChatLine("Ann", "a long message that needs two rows here", mine=True))
    rows = plain_text(chat_pane(chat, 3, 30)).splitlines()
    assert rows == ["Bob: message 9", "you: a long message that needs", "  two rows here"]


@pytest.mark.parametrize(("text", "said"), [
    ("   ", "type something"), ("x" * (CHAT_MAX + 1), "at most"), ("a\x1bb", "control"),
])
def test_a_bad_chat_message_is_refused(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        check_chat(text)
    assert check_chat("  hi  ") == "hi"
