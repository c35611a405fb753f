"""The audit: anyone checks a finished game from its log alone (issue 6).

``audit_file(path)`` / ``audit_entries(entries)`` return an ``AuditReport``
(``uno_p2p.audit.report``): ``OK`` with a summary, or the first violation
naming the entry, the peer and the rule or proof broken. The replay is the
table's own (``uno_p2p.audit.walk``); ``uno_p2p.audit.text`` prints a game
move by move for ``uno-lan replay --text``.
"""

from __future__ import annotations

from uno_p2p.audit.core import (
    audit_entries,
    audit_file,
    audit_with_knowledge,
    revealed_knowledge,
)
from uno_p2p.audit.report import AuditReport, Finding, Player, RoundResult, Status
from uno_p2p.audit.walk import Knowledge, Step, walk

__all__ = [
    "AuditReport",
    "Finding",
    "Knowledge",
    "Player",
    "RoundResult",
    "Status",
    "Step",
    "audit_entries",
    "audit_file",
    "audit_with_knowledge",
    "revealed_knowledge",
    "walk",
]
