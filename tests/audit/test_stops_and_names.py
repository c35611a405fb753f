"""How the report says why a game stopped, and how it names a peer (verdicts.md §1-§3,
wire.md §4.1, table.md §7.3 and §8).

- ``stopped`` is "why the game stopped or ended early, in words" (verdicts.md §3): a
  sentence; after an unproven accusation it names the accuser, "the one who stopped
  the game" (table.md §7.3); a log that merely stops names who the table waits for
  and blames nobody (table.md §8).
- A countersigned entry with a bad head is the sequencer's fault (wire.md §4.1, the
  note under the table): the reason says the sequencer countersigned it.
- The replay met alone, without the first stage, still names the sequencer for a
  misplaced entry (``bad_sequence`` names the sequencer, wire.md §4.1).
- A peer is named as ``seat 2, Cy (fingerprint)``, with ", the host" for the host and
  no seat before the start (``Player.label``).

The logs are the honest 3-player reference log, cut or forged as
``tests/audit/test_fault_codes.py`` does; expected values are read off the log.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.audit.test_fault_codes import BOB, CY, FIRST_MOVE, HOST, LOG, PEOPLE, forge, reveal_of
from uno_p2p.audit import Status, audit_entries, audit_file, revealed_knowledge, walk
from uno_p2p.audit.core import _Audit
from uno_p2p.audit.report import Player, fingerprint_of
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Abort, Clock
from uno_p2p.table.state import Misbehaviour
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.private import Sealed

DATA = Path(__file__).resolve().parent.parent / "data"


def a_sentence(text: str) -> bool:
    """Starts with a capitalised word and ends with a full stop."""
    return re.match(r"[A-Z][a-z]* ", text) is not None and text.endswith(".")


def test_a_log_cut_at_an_unproven_accusation_names_whom_the_table_waits_for() -> None:
    """table.md §8: a log that merely stops blames nobody; the table was waiting for every
    seat's reveal (an accusation without evidence excuses nobody, table.md §7.3)."""
    entries = read_log(DATA / "cheat-false-accusation.unolog").entries
    index = next(e.seq for e in entries if isinstance(e.body, Abort))
    report = audit_entries(entries[:index + 1])
    assert report.status == Status.UNFINISHED
    assert report.violation is None
    assert a_sentence(report.stopped), report.stopped
    for player in report.players:
        assert re.search(rf"\b{player.name}\b", report.stopped), report.stopped


def _closed_after_an_unproven_accusation() -> list[Entry]:
    """Ann, the host, stops the game accusing Cy without evidence; Ann and Bob reveal;
    Cy never does, and Ann's closing entry names her (table.md §7.3, §8)."""
    log = forge(LOG, FIRST_MOVE, 0, Abort(CY, "unresponsive", "no answer", b""))
    for seat in (0, 1):
        log = forge(log, len(log), seat, reveal_of(seat)[1])
    return forge(log, len(log), 0, Abort(CY, "missing_reveal", "never revealed", b""))


def test_an_aborted_game_says_who_stopped_it_and_where() -> None:
    """verdicts.md §1: an accusation without evidence left unsettled is ``aborted``, naming
    the first accused (stage ``table``, not proven); ``stopped`` says why in words: the
    accuser stopped the game (table.md §7.3), at the accusation's entry."""
    log = _closed_after_an_unproven_accusation()
    report = audit_entries(log)
    assert report.status == Status.ABORTED
    finding = report.violation
    assert finding is not None
    assert (finding.stage, finding.code, finding.entry, finding.proven) == (
        "table", "unresponsive", FIRST_MOVE, False)
    assert finding.peer is not None
    assert finding.peer.key == CY.key
    assert a_sentence(report.stopped), report.stopped
    assert re.search(r"\bAnn\b", report.stopped), "the accuser stopped the game"
    assert re.search(rf"\bentry {FIRST_MOVE}\b", report.stopped)


def test_a_refused_reveal_says_where_the_game_stopped_in_a_sentence() -> None:
    """verdicts.md §1: a table ended with a reveal missing is ``aborted``; the game itself
    ended without a stop, so ``stopped`` says only where, as a sentence."""
    path = DATA / "cheat-refused-reveal.unolog"
    entries = read_log(path).entries
    closing = next(e.seq for e in entries if isinstance(e.body, Abort))
    report = audit_file(path)
    assert report.status == Status.ABORTED
    assert report.violation is not None
    assert report.violation.entry == closing
    assert a_sentence(report.stopped), report.stopped
    assert re.search(rf"\bentry {closing}\b", report.stopped)


def test_a_countersigned_bad_head_is_the_sequencers_and_the_reason_says_why() -> None:
    """wire.md §4.1: a head from the future (``head_ahead``) in a countersigned entry names
    the sequencer, whose countersignature "proves that it showed the author another
    history or skipped its check"; the reason says the sequencer countersigned it."""
    index = FIRST_MOVE
    kept = list(LOG[:index])
    counter = sum(e.author == BOB for e in kept)
    prev = kept[-1].hash
    table_id = LOG[0].message.table_id
    message = Message.sign(PEOPLE[1], table_id, counter, Head(index + 3, prev), Clock(1),
                           version=LOG[0].message.version)
    log = [*kept, Entry.countersign(PEOPLE[0], index, prev, message)]
    report = audit_entries(log)
    finding = report.violation
    assert finding is not None
    assert (finding.stage, finding.code, finding.entry) == ("chain", "head_ahead", index)
    assert finding.peer is not None
    assert finding.peer.key == HOST.key
    assert re.search(r"\bsequencer countersigned\b", finding.reason), finding.reason


def test_the_replay_alone_names_the_sequencer_for_a_misplaced_entry() -> None:
    """The replay meets a chain error only without the first stage (a log with entry 10
    missing: entry 11 comes next); ``bad_sequence`` names the sequencer (wire.md §4.1)."""
    gap = 10
    entries = [*LOG[:gap], *LOG[gap + 1:gap + 6]]
    finding = _Audit(entries, 0).replay().failure
    assert finding is not None
    assert (finding.stage, finding.code) == ("chain", "bad_sequence")
    assert finding.peer is not None
    assert (finding.peer.key, finding.peer.name) == (HOST.key, "Ann")


def test_a_peer_is_named_by_seat_name_and_fingerprint_and_the_host_says_so() -> None:
    """``Player.label``: "seat 2, Cy (1a2b-3c4d-5e6f-7a8b)", the host marked as such, and
    no seat for a peer named before the start."""
    bob = Player(1, "Bob", BOB.key)
    ann = Player(0, "Ann", HOST.key, host=True)
    dee = Player(None, "Dee", CY.key)
    assert bob.label() == f"seat 1, Bob ({fingerprint_of(BOB.key)})"
    assert ann.label() == f"seat 0, Ann ({fingerprint_of(HOST.key)}, the host)"
    assert dee.label() == f"Dee ({fingerprint_of(CY.key)})"


def test_a_bad_private_reveal_met_in_the_walk_holds_its_entry_as_evidence() -> None:
    """``walk`` with the revealed knowledge raises ``Misbehaviour`` (``bad_private_reveal``)
    at a sealed reveal that is not what its recipient was owed; its ``evidence`` is "the
    signed entries or messages that show it": that sealed entry."""
    entries = read_log(DATA / "cheat-bad-private-reveal.unolog").entries
    knowledge = revealed_knowledge(entries)
    assert knowledge is not None
    sealed = next(e for e in entries if isinstance(e.body, Sealed)
                  and e.author == entries[0].author)  # Ann, the host, sent the bad one
    with pytest.raises(Misbehaviour) as caught:
        for _ in walk(entries, knowledge):
            pass
    error = caught.value
    assert (error.code, error.entry, error.culprit) == ("bad_private_reveal", sealed.seq,
                                                        sealed.author)
    assert error.evidence == (sealed,)
