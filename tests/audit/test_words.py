"""The audit's own sentences a player reads, pinned in one place.

Other tests assert through these names (``tests/audit/test_report_fields``,
``test_audit_core``); a change of wording is a change of this file (STYLE.md:
a player's sentences are pinned in one words test per words module).
"""

from __future__ import annotations

from uno_p2p.audit import core


def test_an_unfinished_log_blames_nobody_in_words() -> None:
    # table.md §8, verdicts.md §3: a log that merely stops names whom the table waited for.
    assert core.LOG_ENDS == "The log ends; the game had not ended."
    assert core.LOG_ENDS_WAITING.format(names="Bob") == (
        "The log ends while the table waits for Bob; with no closing entry, nobody is "
        "blamed.")
    assert core.LOG_ENDS_WAITING.format(names="Ann, Cy") == (
        "The log ends while the table waits for Ann, Cy; with no closing entry, nobody is "
        "blamed.")
