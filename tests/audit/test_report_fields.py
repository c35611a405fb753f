"""The report's fields, words and JSON as docs/protocol/verdicts.md §2-§3 define them.

§3's table names every key of ``--json`` (a removal: ``entry``, ``name``,
``round``; ``violation``: the finding, or null); §2 gives each status its
headline; a finding reads as a paragraph that names the entry, the peer,
the code and the reason, and says whether the audit checked the evidence
(``proven``) or nothing proves a fault. The full-knowledge walk
(``walk(entries, knowledge)``) shows every face the reveal proved.
Expected values come from the spec and the log, not from the code.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.audit.test_fault_codes import BOB, CY, FIRST_KEY, LOG, forge, reveal_of
from uno_p2p.audit import AuditReport, Knowledge, Status, audit_entries, audit_file, walk
from uno_p2p.audit.core import LOG_ENDS_WAITING
from uno_p2p.audit.report import Finding, RemovalResult, _duration
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Abort, Move, Remove
from uno_p2p.table.ledger import digest
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import Join, Leave
from uno_p2p.wire.private import Sealed

pytestmark = pytest.mark.xdist_group("audit_small_game")

DATA = Path(__file__).resolve().parent.parent / "data"


def test_a_removal_in_json_has_the_keys_verdicts_md_names() -> None:
    removal = RemovalResult(57, "Cy", 2)
    assert removal.to_json() == {"entry": 57, "name": "Cy", "round": 2}


def test_the_violation_in_json_is_the_finding() -> None:
    report = audit_file(DATA / "cheat-card-not-held.unolog")
    finding = report.violation
    assert finding is not None
    shown = report.to_json()["violation"]
    assert isinstance(shown, dict)
    assert (shown["code"], shown["entry"], shown["stage"]) == (finding.code, finding.entry,
                                                               finding.stage)
    # verdicts.md §3: ``peer`` is the player at fault, the entry's author here.
    assert finding.peer is not None
    peer = shown["peer"]
    assert isinstance(peer, dict)
    assert (peer["name"], peer["key"]) == (finding.peer.name, finding.peer.key.hex())
    entries = read_log(DATA / "cheat-card-not-held.unolog").entries
    assert finding.entry is not None
    assert peer["key"] == entries[finding.entry].author.key.hex()


def test_each_status_has_its_own_headline() -> None:
    base = AuditReport(Status.OK, 0)
    heads = {status: replace(base, status=status).lines()[0] for status in Status}
    for status, head in heads.items():
        assert head.startswith(f"{'OK' if status == Status.STOPPED else status.name}:"), head
    assert len(set(heads.values())) == len(heads), "no two statuses read alike"


def test_durations_read_in_seconds_then_minutes() -> None:
    assert _duration(None) == "not recorded"
    assert _duration(1500) == "1.5 s"
    assert _duration(59_900) == "59.9 s"
    assert _duration(61_000) == "1 min 1 s"
    assert _duration(3_600_000) == "60 min 0 s"


def test_a_paragraph_keeps_the_reason_whole() -> None:
    # A reason that ends in a capital X (a player's name) keeps it; only a full stop goes.
    finding = Finding("rules", "illegal_move", 5, None, "entry 5: it is not the turn of MAX.")
    text = finding.paragraph()
    assert "MAX." in text
    assert "MAX.." not in text
    assert text.startswith("Entry 5 ")


def test_a_table_finding_says_whether_its_evidence_was_checked() -> None:
    proven = Finding("table", "bad_share", 9, None, "a bad share", proven=True).paragraph()
    unproven = Finding("table", "unresponsive", 9, None, "no answer", proven=False).paragraph()
    assert "entry 9" in proven
    assert "checked" in proven
    assert "evidence" in proven
    assert "checked" not in unproven
    assert "Nothing in the log proves a fault" in unproven
    for text in (proven, unproven):
        sentences = [s for s in text.split(". ") if s]
        assert all(s[0].isupper() for s in sentences), text
        assert text.endswith(".")


def test_a_torn_tail_is_said_in_a_sentence(tmp_path: Path) -> None:
    whole = (DATA / "honest-2p-official.unolog").read_bytes()
    path = tmp_path / "torn.unolog"
    path.write_bytes(whole[:-7])
    report = audit_file(path)
    assert report.torn_bytes > 0
    said = [line for line in report.lines() if str(report.torn_bytes) in line
            and "byte" in line]
    assert said, report.lines()
    assert said[0][0].isupper()
    assert said[0].endswith(".")


def test_the_full_knowledge_walk_shows_every_face(small_log: tuple[Entry, ...],
                                                  small_audit: tuple[AuditReport, Knowledge]
                                                  ) -> None:
    report, knowledge = small_audit
    steps = list(walk(small_log, knowledge))
    # The faces are private knowledge: the public digest is every peer's (test_agreement).
    assert [digest(step.after) for step in steps] == list(report.digests)
    seen = 0
    for step in steps:
        engine = step.after.engine
        if engine is None:
            continue
        for hand in engine.hands:
            for slot in hand:
                assert engine.known.get(slot) == knowledge.faces[slot], slot
                seen += 1
    assert seen


def test_a_removal_is_reported_at_its_entry() -> None:
    """table.md §14: the sequencer removes a seat that vanished (here during key setup,
    Cy's key never came); verdicts.md §3: ``removed`` gives its entry, name and round, the
    seat is no longer among the players, and what only its reveal proves is unverified."""
    at = FIRST_KEY + 2
    log = forge(LOG, at, 0, Remove(CY, "vanished"))
    report = audit_entries(log)
    assert isinstance(log[at].body, Remove)
    assert [(r.entry, r.name, r.round) for r in report.removed] == [(at, "Cy", 0)]
    assert [p.name for p in report.players] == ["Ann", "Bob"]
    assert any("Cy" in item and f"entry {at}" in item for item in report.unverified)
    assert any(line.startswith(f"Entry {at}: Cy") for line in report.lines())


def test_every_unverified_item_is_listed_apart() -> None:
    log = forge(LOG, FIRST_KEY + 2, 0, Remove(CY, "vanished"))
    report = audit_entries(log)
    assert len(report.unverified) >= 2
    line = next(x for x in report.lines() if x.startswith("Not verifiable: "))
    assert f"{report.unverified[0]}; {report.unverified[1]}" in line
    assert line.endswith(".")


def test_a_bad_private_reveal_names_its_recipient_and_why() -> None:
    """verdicts.md §7: ``bad_private_reveal``, a sealed reveal that does not open to what
    its recipient was owed; the reason names the recipient and what failed."""
    path = DATA / "cheat-bad-private-reveal.unolog"
    entries = read_log(path).entries
    report = audit_file(path)
    finding = report.violation
    assert finding is not None
    assert finding.code == "bad_private_reveal"
    assert finding.entry is not None
    sealed = entries[finding.entry].body
    assert isinstance(sealed, Sealed)
    recipient = next(p.name for p in report.players if p.key == sealed.recipient.key)
    assert f"to {recipient}" in finding.reason
    assert f"entry {finding.entry}" in finding.reason
    assert "proof" in finding.reason, "what did not verify"
    assert "None" not in finding.reason


def test_a_leaver_who_never_reveals_is_named_by_the_closing_entry() -> None:
    """verdicts.md §1: a table ended with a reveal missing is ``aborted``, naming the seat
    the sequencer's closing entry names (table.md §8), even after a leave during key
    setup, when no deck was ever shuffled; not ``stopped``, which needs every reveal."""
    log = forge(LOG, FIRST_KEY + 2, 1, Leave("bye"))
    log = forge(log, len(log), 0, reveal_of(0)[1])
    log = forge(log, len(log), 0, Abort(BOB, "missing_reveal", "never revealed", b""))
    report = audit_entries(log)
    assert report.status == Status.ABORTED
    finding = report.violation
    assert finding is not None
    assert (finding.code, finding.entry, finding.proven) == ("missing_reveal", len(log) - 1,
                                                             False)
    assert finding.peer is not None
    assert finding.peer.key == BOB.key


#: A two-player game (Ann the host, Bob): the frozen version 2 vector.
TWO = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "games" / "v2"


def test_an_unfinished_log_names_whom_the_table_waits_for() -> None:
    """verdicts.md §3 ``waiting``, table.md §14.1: a log that ends after Ann's move, the
    next entry Bob's own move, ends while the table waits for Bob's decision (his turn):
    a fact of the log, named in the sentence and in ``--json``, blaming nobody."""
    log = read_log(TWO / "2p-official.unolog").entries
    ann = log[0].author  # entry 0 opens Ann's table
    bob = next(e.author for e in log if isinstance(e.body, Join) and e.body.name == "Bob")
    cut = next(e.seq for e in log[1:-1] if _is_move(e) and e.author == ann
               and _is_move(log[e.seq + 1]) and log[e.seq + 1].author == bob)
    report = audit_entries(log[:cut + 1])
    assert report.status == Status.UNFINISHED
    assert report.violation is None
    assert report.stopped == LOG_ENDS_WAITING.format(names="Bob")
    assert report.waiting == ("Bob",)
    assert report.to_json()["waiting"] == ["Bob"]
    assert "waiting" not in audit_entries(log).to_json(), "only an unfinished report has it"


def _is_move(entry: Entry) -> bool:
    return isinstance(entry.body, Move)
