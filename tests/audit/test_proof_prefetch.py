"""The audit's prefetch checks every proof of shuffle ahead of the replay (parallel.py).

Its promise (the module docstring, deck.md §6.4): as soon as the replay
creates a deck, every turn of it is sent to the pool as a statement (the
deck it starts from, the turn's ciphertexts and proof, the joint key, the
table, round, deck, shuffler and turn), and when the replay reaches that
turn its verdict is waited for and, if the proof verified, recorded in the
memo, where the ledger finds it. With fewer than ``MIN_SHUFFLES`` turns no
pool is made, and none for a log whose every proof the memo already holds
(a game this process just played). A statement built wrong would not break a verdict (the
ledger checks what the memo lacks), only waste the pool: so the pool here
is a recorder that runs each statement at once, and every statement an
honest log yields must verify and land in the memo.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest

from uno_p2p.audit.parallel import MIN_SHUFFLES, ProofPrefetch
from uno_p2p.audit.walk import walk
from uno_p2p.crypto.shuffle_proof import VERIFIED, ShuffleStatement, check_statement
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import ShuffleDeck
from uno_p2p.wire.envelope import Entry

DATA = Path(__file__).resolve().parent.parent / "data"


class Recorder(Executor):
    """A pool that runs each job at once, in this process, and keeps its statement."""

    def __init__(self, limit: int) -> None:
        #: More jobs than the log has turns: a turn sent twice (stop before it drags on).
        self.limit = limit
        self.statements: list[ShuffleStatement] = []
        self.results: list[bytes | None] = []
        self.closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        assert fn is check_statement
        assert len(self.statements) < self.limit, "a turn sent twice"
        self.statements.append(args[0])
        future: Future[Any] = Future()
        result = fn(*args, **kwargs)
        self.results.append(result)
        future.set_result(result)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.closed = True


@pytest.fixture
def empty_memo() -> Iterator[None]:
    VERIFIED.clear()
    yield
    VERIFIED.clear()


def _replay(entries: tuple[Entry, ...], prefetch: ProofPrefetch,
            recorder: Recorder) -> list[bool]:
    """``_Audit.replay``'s loop: after each step, send; before each entry, collect. Says,
    for each turn, whether its statement's verdict was in the memo when its turn came."""
    following = iter(entries[1:])
    turns: dict[int, int] = {}
    recorded = []
    for step in walk(entries):
        prefetch.after(step.after)
        upcoming = next(following, None)
        if upcoming is None:
            continue
        VERIFIED.clear()  # what the ledger verified itself does not count here
        prefetch.before(upcoming)
        if isinstance(upcoming.body, ShuffleDeck):
            deck = upcoming.body.shuffle
            turn = turns[deck] = turns.get(deck, -1) + 1
            sent = [i for i, s in enumerate(recorder.statements)
                    if (s.deck, s.turn) == (deck, turn)]
            key = recorder.results[sent[0]] if len(sent) == 1 else None
            recorded.append(key is not None and key in VERIFIED)
    return recorded


@pytest.mark.parametrize("name", ["honest-4p-party.unolog", "honest-2p-official.unolog"])
def test_every_turn_is_sent_as_a_statement_that_verifies(name: str, empty_memo: None) -> None:
    entries = read_log(DATA / name).entries
    turns = [e for e in entries if isinstance(e.body, ShuffleDeck)]
    recorder = Recorder(len(turns))
    asked: list[int] = []

    def pool(workers: int) -> Executor:
        asked.append(workers)
        return recorder

    prefetch = ProofPrefetch(entries, workers=1, pool=pool)
    memo = _replay(entries, prefetch, recorder)
    if len(turns) < MIN_SHUFFLES:
        assert (asked, recorder.statements) == ([], []), "no pool below MIN_SHUFFLES turns"
        return
    assert asked == [1], "one pool, of the workers asked for"
    assert len(recorder.statements) == len(turns), "every turn sent once"
    assert all(result is not None for result in recorder.results), "each one verifies"
    assert memo == [True] * len(turns), "each verdict recorded when its turn comes"
    # Each statement is its turn's: the shuffler, ciphertexts, proof and place in the deck.
    by_deck: dict[int, list[Entry]] = {}
    for entry in turns:
        assert isinstance(entry.body, ShuffleDeck)
        by_deck.setdefault(entry.body.shuffle, []).append(entry)
    sent = {(s.deck, s.turn): s for s in recorder.statements}
    for deck, its_turns in by_deck.items():
        for turn, entry in enumerate(its_turns):
            statement = sent[(deck, turn)]
            body = entry.body
            assert isinstance(body, ShuffleDeck)
            assert statement.shuffler == entry.author.key
            assert statement.shuffled == body.ciphertexts
            assert statement.proof == body.proof
            assert statement.table == entries[0].message.table_id
            if turn:
                previous = its_turns[turn - 1].body
                assert isinstance(previous, ShuffleDeck)
                assert statement.previous == previous.ciphertexts
    prefetch.close()
    assert recorder.closed


def _watched_pool(asked: list[int]) -> Callable[[int], Executor]:
    """A pool maker that notes each pool asked for (and would fail any job sent)."""
    def pool(workers: int) -> Executor:
        asked.append(workers)
        return Recorder(0)
    return pool


def _audit_walk(entries: tuple[Entry, ...], prefetch: ProofPrefetch) -> None:
    following = iter(entries[1:])
    for step in walk(entries):
        prefetch.after(step.after)
        upcoming = next(following, None)
        if upcoming is not None:
            prefetch.before(upcoming)
    prefetch.close()


def test_below_min_shuffles_no_pool_is_made(empty_memo: None) -> None:
    entries = read_log(DATA / "cheat-bad-shuffle.unolog").entries
    turns = sum(isinstance(e.body, ShuffleDeck) for e in entries)
    assert 0 < turns < MIN_SHUFFLES
    asked: list[int] = []
    _audit_walk(entries, ProofPrefetch(entries, pool=_watched_pool(asked)))
    assert asked == []


def test_a_log_whose_proofs_this_process_checked_starts_no_pool(empty_memo: None) -> None:
    """A host audits the game it just played: every proof is in its memo already."""
    entries = read_log(DATA / "honest-4p-party.unolog").entries
    assert sum(isinstance(e.body, ShuffleDeck) for e in entries) >= MIN_SHUFFLES
    for _ in walk(entries):
        pass  # the replay checks every proof, as playing the game did
    asked: list[int] = []
    _audit_walk(entries, ProofPrefetch(entries, pool=_watched_pool(asked)))
    assert asked == [], "no statement the memo holds is sent, so no pool is started"
    # Forget one deck's proofs: that deck alone goes to a pool, and it verifies there.
    VERIFIED.clear()
    for step in walk(entries):
        if step.after.decks and len(step.after.decks) > 1:
            break
    recorder = Recorder(sum(isinstance(e.body, ShuffleDeck) for e in entries))
    _audit_walk(entries, ProofPrefetch(entries, pool=lambda n: recorder))
    assert recorder.statements, "what the memo lacks is sent"
    assert all(result is not None for result in recorder.results)


def test_a_machine_without_processes_tries_once_and_leaves_the_proofs_to_the_ledger(
        empty_memo: None) -> None:
    entries = read_log(DATA / "honest-4p-party.unolog").entries
    tried: list[int] = []

    def no_processes(workers: int) -> Executor:
        tried.append(workers)
        raise OSError("no process pool on this machine")

    _audit_walk(entries, ProofPrefetch(entries, pool=no_processes))
    assert tried == [tried[0]], "one try; the ledger checks each proof itself"


def test_a_log_that_ends_before_a_new_deck_s_first_turn_is_prefetched_to_its_end(
        empty_memo: None) -> None:
    """An unfinished log (a seat's, at a stop): the last deck it creates has no turns."""
    entries = read_log(DATA / "honest-3p-bluffs.unolog").entries  # 12 turns before the last
    turns = [(i, e.body.shuffle) for i, e in enumerate(entries) if isinstance(e.body, ShuffleDeck)]
    last_deck = turns[-1][1]
    cut = next(i for i, deck in turns if deck == last_deck)
    recorder = Recorder(len(turns))
    assert sum(deck != last_deck for _, deck in turns) >= MIN_SHUFFLES, "a pool is made"
    _audit_walk(entries[:cut], ProofPrefetch(entries[:cut], pool=lambda n: recorder))
    assert recorder.statements, "the decks before it were sent"
    assert last_deck not in {s.deck for s in recorder.statements}
    assert all(result is not None for result in recorder.results)
