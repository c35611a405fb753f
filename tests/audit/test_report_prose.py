"""Every report the audit writes reads as prose, and its figures are the log's.

Fresh mutant samples of the audit kept finding words no test read: a line
of ``verified`` wrapped in ``XX`` or shouted, a ``stopped`` sentence in
lower case, a count of signatures or proofs off by one (docs/testing.md).
So here every reference log, and logs cut short, torn or empty, is audited
and every text of its report checked the way a reader would:

- verdicts.md §2-§3: the headline is the status word, then a phrase; the
  finding is one paragraph of sentences; ``stopped`` says why in a
  sentence; ``verified`` and ``unverified`` are lists of phrases the
  summary joins with ``;`` into one sentence each;
- the figures are counted here from the log itself: its entries, its
  ``move`` entries, its proofs of shuffle, its sealed private reveals, its
  clocks; the players are its seats with their fingerprints (wire.md §2)
  and the host (the author of entry 0, wire.md §4);
- RULES.md "Scoring": each round's totals are the previous totals plus its
  changes, and the final scores are the last round's totals;
- the text of ``uno-lan replay --text`` holds one line per entry, in order.

Each test audits its log itself (no shared fixture), so that mutmut credits
every function it reaches to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.audit.test_fault_codes import CASES, CY, FIRST_KEY, LOG, contradicted, forge
from uno_p2p.audit import (
    AuditReport,
    Status,
    audit_entries,
    audit_file,
    audit_with_knowledge,
)
from uno_p2p.audit.codes import CODES
from uno_p2p.audit.text import replay_lines
from uno_p2p.crypto.identity import PeerId
from uno_p2p.rules.options import preset
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Clock, Handover, Move, Remove, ShuffleDeck
from uno_p2p.table.memnet import NAMES, TableSetup, seat_table
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.private import Sealed

DATA = Path(__file__).resolve().parent.parent / "data"
LOGS = sorted(path.name for path in DATA.glob("*.unolog"))

#: The status words of the headlines (verdicts.md §2; "stopped" is still OK).
HEADS = {Status.OK: "OK", Status.STOPPED: "OK", Status.VIOLATION: "VIOLATION",
         Status.ABORTED: "ABORTED", Status.UNFINISHED: "UNFINISHED"}
#: Words that are capitals by nature in a report or the replay's text.
CAPITALS = {"OK", "VIOLATION", "ABORTED", "UNFINISHED", "DLEQ", "UNO", "AUDIT", "STOP"}


def plain(text: str) -> None:
    """No mutation marks, nothing shouted but the words that are capitals by nature."""
    assert "XX" not in text, text
    shouted = [w for w in re.findall(r"[A-Za-z]{3,}", text) if w.isupper() and w not in CAPITALS]
    assert not shouted, text


def sentences(text: str) -> None:
    """One or more sentences: each begins with a capital or a figure, the last ends in '.'."""
    plain(text)
    assert text.endswith("."), text
    for sentence in text[:-1].split(". "):
        assert sentence[:1].isupper() or sentence[:1].isdigit(), (sentence, text)


def phrase(text: str) -> None:
    """A phrase that goes on a list: lower case first, no full stop, no list separator."""
    plain(text)
    assert text[:1].islower(), text
    assert not text.endswith("."), text
    assert "; " not in text, text


def check_report(report: AuditReport, entries: Sequence[Entry]) -> list[str]:
    """Check every text of ``report`` against ``entries``; return its lines."""
    lines = report.lines()
    for line in lines:
        plain(line)
    head, _, rest = lines[0].partition(": ")
    assert head == HEADS[report.status], lines[0]
    assert rest[:1].islower(), lines[0]
    assert rest.endswith("."), lines[0]
    if report.violation is not None:
        paragraph = report.violation.paragraph()
        assert lines[1] == paragraph
        sentences(paragraph)
        assert f"code {report.violation.code}" in paragraph
        if report.violation.entry is not None:
            assert f"ntry {report.violation.entry}" in paragraph
        plain(report.violation.reason)
    if report.stopped:
        assert report.stopped in lines
        sentences(report.stopped)
    assert report.to_json()["stopped"] == (report.stopped or None)
    for item in (*report.verified, *report.unverified):
        phrase(item)
    if len(report.verified) >= 2:
        # The replay ran: the public digest after every entry (verdicts.md §5).
        assert len(report.digests) == report.entries == len(entries)
    summary = lines[lines.index(next(line for line in lines if line.startswith("Entries: "))):]
    moves = sum(isinstance(e.body, Move) for e in entries)
    assert summary[0].startswith(f"Entries: {len(entries)}; moves: {moves}; duration: "), \
        summary[0]
    clocks = [e.body.now_ms for e in entries if isinstance(e.body, Clock)]
    if len(clocks) < 2:
        assert summary[0].endswith("duration: not recorded.")
    else:
        assert "not recorded" not in summary[0]
    for line in summary:
        sentence = line.strip()
        assert sentence[:1].isupper() or sentence.startswith("seat "), line
    if report.verified:
        said = [line for line in summary if line.startswith("Verified: ")]
        assert said == ["Verified: " + "; ".join(report.verified) + "."]
    if report.unverified:
        said = [line for line in summary if line.startswith("Not verifiable: ")]
        assert said == ["Not verifiable: " + "; ".join(report.unverified) + "."]
    return lines


def check_players(report: AuditReport, entries: Sequence[Entry], *, seated: bool = True
                  ) -> None:
    """The players, each named by seat (once seated), name and fingerprint; the host is
    entry 0's author. ``seated``: the game started, so they are listed in seat order."""
    lines = report.lines()
    if not report.players:
        return
    start = lines.index("Players:") + 1
    shown = lines[start:start + len(report.players)]
    host = entries[0].author.key
    for index, (player, line) in enumerate(zip(report.players, shown, strict=True)):
        fingerprint = PeerId(player.key).fingerprint
        role = ", the host" if player.key == host else ""
        where = "" if player.seat is None else f"seat {player.seat}, "
        assert line == f"  {where}{player.name} ({fingerprint}{role})", line
        if seated:
            assert player.seat == index
        assert player.host == (player.key == host)
    assert sum(p.host for p in report.players) == (host in {p.key for p in report.players})


def check_counts(report: AuditReport, entries: Sequence[Entry]) -> None:
    """The figures ``verified`` gives are the log's, counted here."""
    if not report.verified:
        return
    assert report.verified[0] == (f"the chain and all {len(entries)} signatures and "
                                  "countersignatures")
    shuffles = sum(isinstance(e.body, ShuffleDeck) for e in entries)
    proofs = [item for item in report.verified if "proofs of shuffle" in item]
    if proofs:
        assert proofs[0].startswith(f"all {shuffles} proofs of shuffle ("), proofs[0]
    sealed = sum(isinstance(e.body, Sealed) for e in entries)
    opened = [item for item in report.verified if "private reveals" in item]
    if opened:
        assert opened[0].startswith(f"all {sealed} private reveals, "), opened[0]


def check_rounds(report: AuditReport) -> None:
    """RULES.md "Scoring": running totals; the final scores are the last round's."""
    lines = report.lines()
    totals: list[int] | None = None
    for result in report.rounds:
        totals = [a + b for a, b in zip(totals or [0] * len(result.changes), result.changes,
                                        strict=True)]
        assert list(result.scores) == totals, result
        won = "void round" if result.winner is None else f"won by {result.winner}"
        assert (f"Round {result.number}: {won}; changes {list(result.changes)}; "
                f"scores {totals}") in lines
    if totals is not None and not report.removed:
        assert list(report.scores) == totals
    if report.scores:
        final = [line for line in lines if line.startswith("Final scores: ")]
        assert len(final) == 1
        assert final[0].startswith(f"Final scores: {list(report.scores)}")
        assert final[0].endswith(f"; winner {report.winner}." if report.winner else "].")


@pytest.mark.game
@pytest.mark.parametrize("name", LOGS)
def test_a_reference_logs_report_reads_as_prose_with_the_logs_figures(name: str) -> None:
    entries = read_log(DATA / name).entries
    report = audit_file(DATA / name)
    check_report(report, entries)
    check_players(report, entries)
    check_counts(report, entries)
    check_rounds(report)
    if report.status == Status.OK:
        # An honest game that ended: every stage verified something (verdicts.md §1).
        assert len(report.verified) >= 5, report.verified
        assert not report.unverified
        assert report.winner is not None
        assert report.violation is None


def test_an_empty_log_says_so_in_a_sentence() -> None:
    report = audit_entries(())
    assert report.status == Status.UNFINISHED
    sentences(report.stopped)
    assert "no entries" in report.stopped
    check_report(report, ())


@pytest.mark.parametrize("keep", [2, 10, 48, 100, 158, 160])
def test_a_log_cut_short_reads_as_prose(keep: int) -> None:
    """Cut in the lobby, at key setup, mid-round, in the last round, during the reveals."""
    entries = read_log(DATA / "honest-3p-house.unolog").entries
    cut = entries[:keep]
    report = audit_entries(cut)
    assert report.status == Status.UNFINISHED
    assert report.violation is None
    lines = check_report(report, cut)
    check_players(report, cut, seated=all(p.seat is not None for p in report.players))
    check_counts(report, cut)
    check_rounds(report)
    # table.md §8: with no closing entry nobody is blamed; the stop says so.
    assert report.stopped in lines
    assert "log ends" in report.stopped
    sentences(report.stopped)
    waited = re.search(r"waits for ([^;]*);", report.stopped)
    if waited is not None:
        names = {p.name for p in report.players}
        assert set(waited.group(1).split(", ")) <= names, report.stopped
        assert "nobody is blamed" in report.stopped


def test_a_torn_file_reads_as_prose(tmp_path: Path) -> None:
    whole = (DATA / "honest-3p-seeds.unolog").read_bytes()
    path = tmp_path / "torn.unolog"
    path.write_bytes(whole[:len(whole) * 2 // 3])
    entries = read_log(path).entries
    report = audit_file(path)
    assert report.status == Status.UNFINISHED
    assert report.torn_bytes > 0
    lines = check_report(report, entries)
    sentences(report.stopped)
    assert "cut-short" in report.stopped or "cut short" in report.stopped
    tail = [line for line in lines if f"{report.torn_bytes} bytes" in line]
    assert len(tail) == 1
    sentences(tail[0])
    assert f"after entry {len(entries) - 1}" in tail[0]


@pytest.mark.parametrize("name", ["cheat-wild-draw-four.unolog", "stopped-leave.unolog",
                                  "cheat-out-of-turn.unolog", "cheat-refused-reveal.unolog"])
def test_the_replay_text_has_one_plain_line_per_entry(name: str) -> None:
    entries = read_log(DATA / name).entries
    report, knowledge = audit_with_knowledge(entries)
    faces = None if knowledge is None else knowledge.faces
    lines = list(replay_lines(entries, faces, report.violation))
    numbers = [int(m.group(1)) for line in lines if (m := re.match(r"entry (\d+), ", line))]
    assert numbers == list(range(len(numbers)))
    for line in lines:
        plain(line.replace("AUDIT: VIOLATION", "AUDIT:"))
        assert line.startswith(("entry ", "    ", "STOP: ")), line
    if report.violation is not None and report.violation.entry is not None:
        verdict = [line for line in lines if line.startswith("    !! AUDIT: ")]
        assert verdict == [f"    !! AUDIT: {report.violation.paragraph()}"]
    facts = [line[4:] for line in lines if line.startswith("    ") and not line.startswith(
        ("    | ", "    !! "))]
    for result in report.rounds:
        told = f"round {result.number} over, won by {result.winner}: changes " \
            f"{list(result.changes)}, scores {list(result.scores)}"
        assert facts.count(told) == 1, told
    finding = report.violation
    if finding is not None and finding.stage == "table" and finding.peer is not None:
        # The table's own record of the fault, as it happened (table.md §7.3).
        said = [f for f in facts if f.startswith(f"VIOLATION by {finding.peer.name} "
                                                 f"({finding.code}): ")]
        assert len(said) == 1, facts
        plain(said[0].removeprefix("VIOLATION"))
    over = [f for f in facts if f.startswith("game over, ")]
    stopped = [f for f in facts if f.startswith("the game stopped: ")]
    if report.status == Status.STOPPED:
        assert not over
        assert stopped == [f"the game stopped: {report.stopped.removesuffix('.')}"]
    if report.rounds and report.status in (Status.OK, Status.ABORTED):
        last = report.rounds[-1]
        assert len(over) == 1, facts
        assert over[0].startswith(f"game over, won by {last.winner}, scores "
                                  f"{list(last.scores)}; ")
        proven = over[0].endswith("; every shuffle proven")
        assert proven == (report.status == Status.OK), over[0]
        if not proven:
            assert "; reveal: " in over[0]


def test_a_removal_reads_as_prose_with_its_entry_and_round() -> None:
    """table.md §14 and verdicts.md §3: the seat that vanished is named at the entry that
    removed it, the round it voided is said, and what only its reveal proves is listed."""
    at = FIRST_KEY + 2
    log = forge(LOG, at, 0, Remove(CY, "vanished"))
    report = audit_entries(log)
    lines = check_report(report, log)
    check_players(report, log)
    check_rounds(report)
    assert [r.to_json() for r in report.removed] == [{"entry": at, "name": "Cy", "round": 0}]
    told = [line for line in lines if line.startswith(f"Entry {at}: ")]
    assert len(told) == 1
    sentences(told[0])
    assert "Cy" in told[0]
    assert "round 0" in told[0]
    gone = [item for item in report.unverified if f"removed at entry {at}" in item]
    assert len(gone) == 1
    assert "Cy" in gone[0]


def test_a_handover_reads_as_prose_with_its_entry_term_and_names() -> None:
    """table.md §13: the host vanishes during key setup and the next seat takes over with
    a signed hand-over; verdicts.md §3: ``handovers`` gives its entry, term, from, to."""
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), b"prose handover"))
    ann = net.host
    net.run(until=lambda n: ann.state.phase == TablePhase.KEYS and any(ann.state.keys),
            max_steps=100_000)
    net.silent.add(ann.peer_id.key)
    bob = next(p for p in net.peers.values() if p is not ann and p.name == NAMES[1])
    net.run(until=lambda n: bob.state.term >= 1, max_steps=200_000)
    assert bob.state.term == 1
    log = net.entries(bob)
    handovers = [e.seq for e in log if isinstance(e.body, Handover)]
    assert len(handovers) == 1
    report = audit_entries(log)
    lines = check_report(report, log)
    check_players(report, log)
    assert [h.to_json() for h in report.handovers] == [
        {"entry": handovers[0], "term": 1, "from": NAMES[0], "to": NAMES[1]}]
    assert report.to_json()["handovers"] == [h.to_json() for h in report.handovers]
    told = [line for line in lines if line.startswith(f"Entry {handovers[0]}: ")]
    assert len(told) == 1
    sentences(told[0])
    assert told[0].index(NAMES[1]) < told[0].index(NAMES[0]), "who took over, then from whom"
    assert "term 1" in told[0]


@pytest.mark.parametrize("code", sorted(CASES))
def test_a_forged_entrys_report_reads_as_prose_at_the_stage_the_chapter_gives(
        code: str) -> None:
    """Every forged fault of test_fault_codes: the report is prose with the log's figures,
    and the finding's stage is the one verdicts.md §7 lists the code under."""
    make, _ = CASES[code]
    entries = make()
    report = audit_entries(entries)
    check_report(report, entries)
    check_players(report, entries, seated=all(p.seat is not None for p in report.players)
                  and code != "bad_seats")
    check_counts(report, entries)
    finding = report.violation
    assert finding is not None
    assert finding.stage == CODES[code].stage, (code, finding.stage)
    assert report.to_json()["violation"] == finding.to_json()


def test_a_contradiction_names_the_card_in_a_phrase() -> None:
    slot, finding = contradicted()
    assert (finding.stage, finding.code, finding.entry) == ("reveal", "contradiction", None)
    phrase(finding.reason)
    assert str(tuple(slot)) in finding.reason
    sentences(finding.paragraph())
