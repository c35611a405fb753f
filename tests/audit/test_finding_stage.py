"""The stage, rule and proof of a finding follow from the log, as verdicts.md §1-§3 say.

§1: a refused entry is stage ``rules``, or ``proofs`` for a code of the
deck's proofs (§7.3); what the table recorded with an ``abort`` carrying
evidence is stage ``table``, with the abort's code and culprit; ``aborted``
names a seat with ``proven: false``. §3: ``rule`` is the RULES.md rule an
engine refusal names, else null. Each expectation is read off the log's own
entries (is the finding's entry an ``abort``? whose, with which code?), not
taken from the audit.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.audit.test_fault_codes import HOST, LOG
from tests.audit.test_report_prose import check_report
from uno_p2p.audit import Status, audit_entries, audit_file
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Abort
from uno_p2p.wire.envelope import Entry

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize("name", ["cheat-bad-shuffle.unolog", "cheat-wrong-face.unolog"])
def test_a_cheat_the_host_stopped_is_the_tables_finding(name: str) -> None:
    entries = read_log(DATA / name).entries
    report = audit_file(DATA / name)
    finding = report.violation
    assert report.status == Status.VIOLATION
    assert finding is not None
    assert finding.entry is not None
    body = entries[finding.entry].body
    assert isinstance(body, Abort), "the host logged an abort with the cheat as evidence"
    assert body.evidence
    assert (finding.stage, finding.code, finding.proven) == ("table", body.code, True)
    assert report.lines()[0].startswith("VIOLATION:"), "the first line names the status"
    assert finding.peer is not None
    assert finding.peer.key == body.culprit.key
    assert finding.rule is None, "no engine refusal, no rule"


@pytest.mark.parametrize(("name", "stage"), [("cheat-bad-share.unolog", "proofs"),
                                             ("cheat-card-not-held.unolog", "rules")])
def test_an_entry_the_log_should_not_hold_is_a_rules_or_proofs_finding(name: str,
                                                                       stage: str) -> None:
    entries = read_log(DATA / name).entries
    report = audit_file(DATA / name)
    finding = report.violation
    assert finding is not None
    assert finding.entry is not None
    entry = entries[finding.entry]
    assert not isinstance(entry.body, Abort), "the cheat itself was logged"
    assert finding.stage == stage
    assert finding.proven
    assert finding.peer is not None
    assert finding.peer.key == entry.author.key
    # §3: the rule an engine refusal names (illegal_move), else none.
    assert (finding.rule is not None) == (finding.code == "illegal_move")


def test_a_reveal_never_made_is_aborted_and_proves_nothing() -> None:
    entries = read_log(DATA / "cheat-refused-reveal.unolog").entries
    report = audit_file(DATA / "cheat-refused-reveal.unolog")
    finding = report.violation
    assert report.status == Status.ABORTED
    assert finding is not None
    assert finding.code == "missing_reveal"
    assert not finding.proven
    assert finding.rule is None
    closing = entries[-1].body
    assert isinstance(closing, Abort), "the sequencer's closing entry (table.md §8)"
    assert not closing.evidence
    assert finding.peer is not None
    assert finding.peer.key == closing.culprit.key
    assert report.winner is None
    assert report.lines()[0].startswith("ABORTED:"), "the first line names the status"


AT = 5  # an entry of the lobby, by the host


def _flip(data: bytes) -> bytes:
    return bytes([data[0] ^ 1]) + data[1:]


def _with(entry: Entry) -> list[Entry]:
    return [*LOG[:entry.seq], entry, *LOG[entry.seq + 1:]]


def test_an_author_signature_that_does_not_verify_is_a_chain_finding_naming_the_author(
        ) -> None:
    entry = LOG[AT]
    bad = replace(entry, message=replace(entry.message, signature=_flip(entry.message.signature)))
    log = _with(bad)
    report = audit_entries(log)
    assert report.status == Status.VIOLATION
    finding = report.violation
    assert finding is not None
    assert (finding.stage, finding.code, finding.entry) == ("chain", "bad_signature", AT)
    assert finding.peer is not None
    assert finding.peer.key == entry.author.key
    shown = report.to_json()["violation"]
    assert isinstance(shown, dict)
    assert shown["stage"] == "chain"
    check_report(report, log)


def test_a_countersignature_that_does_not_verify_names_the_sequencer() -> None:
    entry = LOG[AT + 1]
    log = _with(replace(entry, countersignature=_flip(entry.countersignature)))
    report = audit_entries(log)
    finding = report.violation
    assert finding is not None
    assert (finding.stage, finding.code, finding.entry) == ("chain", "bad_countersignature",
                                                            AT + 1)
    assert finding.peer is not None
    assert finding.peer.key == HOST.key
    check_report(report, log)
