"""What a player reads at a table's doors (issue 24; net.md §4, §6.1), pinned here:
one sentence each, saying what to do next."""

from __future__ import annotations

from uno_p2p.net import accepting, doors


def test_the_words_at_the_doors() -> None:
    assert doors.SOURCE_LOCKED.format(source="192.168.1.7", seconds=59.6) == (
        "too many wrong join codes from 192.168.1.7; try again in 60 s")
    assert doors.TABLE_LOCKED.format(seconds=12.2) == (
        "too many wrong join codes at this table; try again in 12 s")
    assert doors.LOBBY_FULL == ("the lobby has too many links that have not joined; "
                                "connect again when you mean to join")
    assert accepting.SENTENCE == (
        "this machine ran out of open files: the table takes no new connection for a "
        "moment (raise the limit with 'ulimit -n' if it lasts)")
