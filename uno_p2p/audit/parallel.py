"""Checking a log's proofs of shuffle on every core, ahead of the replay.

The audit replays the log through the table's own ledger, one entry after
the other, and the ledger checks each proof of shuffle as it comes
(docs/protocol/deck.md §6.4): about 0.1 s per turn, most of a full game's
audit. The proofs of one deck are independent of each other, and each one's
statement is known as soon as the deck exists in the replayed state (its
starting list, round and number) because the inputs of the later turns are
the earlier turns' outputs, already in the log. So, as soon as the replay
creates a deck, ``ProofPrefetch`` sends every turn of it to a pool of worker
processes; when the replay reaches a turn, it waits for that result and, if
the proof verified, records the statement in the process's memo
(``shuffle_proof.VERIFIED``), where the ledger finds it. A proof that fails
in a worker is simply not recorded: the ledger then checks it itself and
names the cheat exactly as without the pool. A statement the memo already
holds (the process checked it while it played the game it now audits, as a
host does at the end and the in-memory tests do after every game) is not
sent, and the pool is only started for the first statement it must check:
an audit of a game this process just played starts no process at all.
The statement and its check
(``ShuffleStatement``, ``check_statement``) are the ones the network shell
uses to check proofs off its event loop (``uno_p2p.net.verify``). Only the
audit and net layers use processes or threads; the core stays pure.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from uno_p2p.crypto.shuffle_proof import VERIFIED, ShuffleStatement, check_statement
from uno_p2p.table.bodies import ShuffleDeck
from uno_p2p.table.game import table_key
from uno_p2p.table.state import DeckState, TableState
from uno_p2p.wire.envelope import Entry

#: Below this many shuffles a pool costs more than it saves.
MIN_SHUFFLES = 8


class ProofPrefetch:
    """Verifies a log's proofs of shuffle in worker processes ahead of the replay."""

    def __init__(self, entries: Sequence[Entry], workers: int | None = None,
                 pool: Callable[[int], Executor] = ProcessPoolExecutor) -> None:
        """``pool`` makes the executor from a number of workers, when the first statement
        the memo lacks comes: a process pool, or a stand-in that tests can watch."""
        self._turns: dict[int, list[Entry]] = {}
        for entry in entries:
            if isinstance(entry.body, ShuffleDeck):
                self._turns.setdefault(entry.body.shuffle, []).append(entry)
        self._sent: set[int] = set()
        self._pending: dict[int, Future[bytes | None]] = {}
        count = sum(len(turns) for turns in self._turns.values())
        self._make_pool: Callable[[int], Executor] | None = None
        if count >= MIN_SHUFFLES and VERIFIED.enabled:
            self._make_pool = pool
        self._workers = workers or max(1, min(os.cpu_count() or 1, 8))
        self._pool: Executor | None = None

    def after(self, state: TableState) -> None:
        """The replay reached ``state``: send every turn of each deck created since."""
        if self._make_pool is None or state.engine is None:
            return
        for deck in state.decks:
            if deck.number not in self._sent and deck.start:
                self._sent.add(deck.number)
                self._send(state, deck)

    def _send(self, state: TableState, deck: DeckState) -> None:
        key = table_key(state).to_wire()
        previous = tuple(c.to_wire() for c in deck.start)
        for turn, entry in enumerate(self._turns.get(deck.number, [])):
            body = entry.body
            assert isinstance(body, ShuffleDeck)  # noqa: S101 (indexed above)
            statement = ShuffleStatement(previous, body.ciphertexts, body.proof, key,
                                         state.table_id, deck.round, deck.number,
                                         entry.author.key, turn)
            previous = body.ciphertexts
            if statement.key() in VERIFIED:
                continue  # this process checked it already: the ledger will find it
            pool = self._started()
            if pool is None:
                return
            try:
                self._pending[entry.seq] = pool.submit(check_statement, statement)
            except (BrokenProcessPool, RuntimeError):
                self.close()
                return

    def _started(self) -> Executor | None:
        """The pool, started on first use; None once it could not start or was closed."""
        if self._pool is None and self._make_pool is not None:
            try:
                self._pool = self._make_pool(self._workers)
            except (OSError, ValueError, NotImplementedError):
                self._make_pool = None  # no processes here: the ledger checks every proof
        return self._pool

    def before(self, entry: Entry) -> None:
        """The replay is about to apply ``entry``: if it is a prefetched turn, wait for its
        verdict and, when it verified, let the ledger find it in the memo."""
        future = self._pending.pop(entry.seq, None)
        if future is None:
            return
        try:
            key = future.result()
        except (BrokenProcessPool, OSError, RuntimeError):
            return  # the ledger checks it itself
        if key is not None:
            VERIFIED.add(key)

    def close(self) -> None:
        """Stop the workers (pending jobs are dropped); none start after this."""
        self._make_pool = None
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._pending.clear()

