"""The stage and entry of findings met outside the common paths (issue 16's survivors).

docs/protocol/verdicts.md §1: stage 1 (*chain*) holds the hash chain, the
signatures and ``malformed_entry`` (§8); a finding names the entry that
breaks the chain. ``_deck_record`` refuses a deck carrying a card of a deck
never shuffled (``bad_deck``), naming that deck as the value at fault
(``CryptoError.item``: "which value it was"). The logs are the honest
3-player reference log, cut or forged as ``tests/audit/test_fault_codes.py``
does; every expectation is read off the log's own entries.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_fault_codes import FIRST_MOVE, HOST, LOG, _framed_record, _write
from uno_p2p.audit import Status, audit_entries, audit_file
from uno_p2p.audit.core import _Audit, _deck_record
from uno_p2p.errors import CryptoError
from uno_p2p.rules.codec import Slot
from uno_p2p.table.state import DeckState

DATA = Path(__file__).resolve().parent.parent / "data"


def test_a_malformed_record_is_a_chain_finding(tmp_path: Path) -> None:
    """verdicts.md §1: ``malformed_entry`` is a stage-1 (chain) finding, at its entry."""
    path = _write(tmp_path / "bad.unolog", LOG[:FIRST_MOVE], _framed_record(999, []))
    report = audit_file(path)
    finding = report.violation
    assert report.status == Status.VIOLATION
    assert finding is not None
    assert (finding.stage, finding.code, finding.entry) == ("chain", "malformed_entry",
                                                            FIRST_MOVE)
    assert finding.peer is not None
    assert finding.peer.key == HOST.key, "the sequencer countersigned it"
    assert finding.proven


def test_the_replay_alone_names_the_entry_that_breaks_the_chain() -> None:
    """The replay meets a chain error only if the first stage did not run first; it still
    names the entry and the stage (a log with entry 10 missing: entry 11 comes next)."""
    gap = 10
    entries = [*LOG[:gap], *LOG[gap + 1:gap + 6]]
    public = _Audit(entries, 0).replay()
    finding = public.failure
    assert finding is not None
    assert finding.stage == "chain"
    assert finding.entry == gap + 1, "the first entry out of place"
    assert str(gap) in finding.reason, "it says which number was due"


def test_a_deck_carrying_an_unshuffled_deck_names_the_deck() -> None:
    deck = DeckState(1, 1, (), (Slot(7, 0),), (), (0, 1))
    with pytest.raises(CryptoError) as caught:
        _deck_record(deck, {})
    error = caught.value
    assert error.code == "bad_deck"
    assert error.item is not None
    assert "1" in error.item, "the value at fault is deck 1, the one that carries the card"
    assert "7" in str(error), "the sentence names the deck never shuffled"


def test_an_empty_log_says_so_in_a_sentence() -> None:
    """verdicts.md §2: ``unfinished`` is also a log that holds no entry; the report's
    ``stopped`` is printed as a line of its own, a sentence."""
    report = audit_entries([])
    assert report.stopped[0].isupper()
    assert report.stopped.endswith(".")
    assert "no entr" in report.stopped


def test_each_verified_item_reads_as_a_phrase_of_one_sentence() -> None:
    """The report prints ``Verified: a; b; c.``: each item is a phrase in lower case, and
    an honest finished game verified its chain, its actions, its proofs, its private
    reveals, the re-executed decks with every card opened in play, and the hidden claims
    (verdicts.md §1). (Audited here, not from a shared fixture: mutmut runs only the tests
    that reach the mutated code themselves.)"""
    report = audit_file(DATA / "honest-2p-official.unolog")
    assert report.status == Status.OK
    for item in report.verified:
        assert item == item.lower(), item
        assert not item.endswith((".", ";"))
    said = " ".join(report.verified)
    for words in ("chain", "signatures", "rules engine", "proofs of shuffle", "private reveals",
                  "decryption-share", "re-executed", "opened in play", "hidden claims"):
        assert words in said, words
    line = next(x for x in report.lines() if x.startswith("Verified: "))
    assert line.endswith(".")
