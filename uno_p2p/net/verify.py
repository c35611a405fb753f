"""Heavy cryptography away from the event loop: check proofs and prove duties in a worker.

docs/protocol/net.md §7.1. A proof of shuffle takes ~0.09 s to check and
~0.055 s to make (108 cards); run inline in ``TablePeer.receive`` it blocks
the node's event loop, so heartbeats, time-outs and the screen wait (at 10
players a deck's turns block it for ~1 s). The core names that work without
doing any I/O (``uno_p2p.table.offload``); this module does it elsewhere:

- every incoming frame waits its turn in one queue per node (arrival order,
  across all links), then its expensive statements are checked in a worker
  (in one trip per frame) and the keys of those that verified go into the
  memo the ledger consults (each statement's ``memo``: proofs of shuffle,
  share proofs, re-executions); only then does ``receive`` run, on the loop,
  and find them checked. A statement that failed is not recorded: the ledger
  checks it again inline and names the same culprit with the same fault;
- a heavy duty of the peer (``duties.take()``: a proven shuffle turn,
  decryption shares, its reveal) is computed in a worker thread and given back with
  ``TablePeer.duty_done``; it goes ahead of the frames queued behind the one
  that caused it, so the peer sees its inputs in the order it would inline.
  The peer's own statements in it are recorded in the duty worker: its share
  proofs checked, its proof of shuffle only if this process did not make it
  (``PROVEN_TURNS.made_here``: a proof the honest prover made is true, and its
  check would cost more than making it); before the body is given back at the
  sequencer, which logs it at once; after it at a joiner (``check_first``),
  whose body leaves for the sequencer and comes back as an entry only later.
  A joiner's check runs off the frames' queue (``check_sent``): the frames
  behind the duty (another seat's deal shares, a move) go on to the check
  worker meanwhile, and only the entry that brings those statements back
  waits for it (issue 28: 22 share proofs of a 4-seat deal held every frame
  behind them, on the way to a round's first move);
- a frame that brings the shuffle turn just before this seat's (``offload.
  frame_turn_ahead``) starts this seat's turn in the duty worker; the turn
  is kept (``duties.PROVEN_TURNS``). A joiner sends it as soon as it is made
  and only then checks the frame: the turn is the critical path, the
  frame's check only this seat's way to its shares. The sequencer checks
  the frame beside making its turn, which its duty finds made (deck.md
  §6.3, "What may overlap"; issue 28).

A few shares (``DutyJob.light``: a draw's one) are made, and checked at a joiner, in a
third thread, beside the duty thread rather than behind a turn it makes ahead (55 ms):
a drawn card waits for every other seat's share. A frame bringing a few shares
(``offload.few_shares``) is checked on the loop: the hop to a worker and back would
cost more wall time than the check.

Modes (``UNO_LAN_VERIFY``): ``thread`` (the default: a check thread, a duty thread and
a shares thread; libsodium releases the GIL and the GIL's switch interval keeps the loop
responsive), ``process`` (statements in one worker process, duties in a
thread), ``inline`` (no worker: ``receive`` as before, for comparison).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Protocol, TypeVar

from uno_p2p.crypto.context import VerifiedStatements
from uno_p2p.errors import ConfigError
from uno_p2p.table.duties import PROVEN_TURNS
from uno_p2p.table.offload import Duty, DutyJob, few_shares

VERIFY_ENV = "UNO_LAN_VERIFY"
MODES = ("thread", "process", "inline")
Finish = Callable[[DutyJob, Duty], None]
T = TypeVar("T")


class Statement(Protocol):
    """A check that is a pure function of its bytes (``table.offload.Statement``)."""

    @property
    def memo(self) -> VerifiedStatements:
        """Where a verified statement is recorded (the memo the ledger consults)."""

    def key(self) -> bytes:
        """Its memo key."""

    def check(self) -> bytes | None:
        """Its memo key if it verifies, else None (any thread or process)."""


@dataclass(frozen=True, slots=True)
class Ahead:
    """Work a frame starts beside its check (the seat's next shuffle turn, ``offload.
    TurnAhead``): ``work`` in the duty worker, then ``then`` on the loop once it is done
    (a joiner sends the turn, ``TablePeer.send_turn_ahead``, if the frame is still being
    checked)."""

    work: Callable[[], None]
    then: Callable[[], None] | None = None


@dataclass(slots=True)
class _Frame:
    statements: Callable[[], Sequence[Statement]]
    deliver: Callable[[], None]
    done: asyncio.Future[None]
    ahead: Callable[[], Ahead | None] | None = None


@dataclass(slots=True)
class _Duty:
    job: DutyJob
    finish: Finish
    check_first: bool


def check_all(statements: Sequence[Statement]) -> list[bytes | None]:
    """In the worker: each statement's key if it verifies (one trip per frame)."""
    return [s.check() for s in statements]


def _run_duty(job: DutyJob, *, check: bool) -> tuple[Duty, list[tuple[Statement, bytes]]]:
    """In the worker: the duty's body, and with ``check`` the memo keys of its own
    statements (the sequencer logs its own body at once, so it knows them first)."""
    body = job.run()
    return body, check_own(job.statements(body)) if check else []


def check_own(statements: Sequence[Statement]) -> list[tuple[Statement, bytes]]:
    """In the duty worker: the memo keys of this seat's own statements that verify. A
    shuffle turn this process made (``PROVEN_TURNS.made_here``) is true by the proof's
    completeness and is not checked (issue 28: the check costs more than the proof);
    its share proofs, cheap, are."""
    checked = [(s, k if PROVEN_TURNS.made_here(k := s.key()) else s.check())
               for s in statements]
    return [(s, k) for s, k in checked if k is not None]


def _quietly(done: asyncio.Future[None]) -> None:
    """A head start that failed is only a head start lost (its exception retrieved)."""
    if not done.cancelled():
        done.exception()


class Offloader:
    """One node's queue of frames and duties, and the workers that do their heavy part."""

    def __init__(self, mode: str = "thread") -> None:
        if mode not in MODES:
            raise ConfigError(f"{VERIFY_ENV} is one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self._duties: ThreadPoolExecutor | None = None
        self._shares: ThreadPoolExecutor | None = None
        self._checks: Executor | None = None
        if mode != "inline":
            # Two threads: a turn made ahead (duties) overlaps the check of the deck it
            # follows (checks); libsodium releases the GIL (issue 28).
            self._duties = ThreadPoolExecutor(1, thread_name_prefix="uno-duty")
            # A few shares (``DutyJob.light``) beside the shuffle turns, not behind them.
            self._shares = ThreadPoolExecutor(1, thread_name_prefix="uno-shares")
        if mode == "thread":
            self._checks = ThreadPoolExecutor(1, thread_name_prefix="uno-check")
        if mode == "process":
            self._checks = ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("forkserver"))
        self._items: deque[_Frame | _Duty] = deque()
        self._worker: asyncio.Task[None] | None = None
        #: Statements checked off the loop (and how many verified), duties computed.
        self.checked = 0
        self.verified = 0
        self.duties = 0
        #: Shuffle turns started ahead of the check of the deck they follow.
        self.ahead = 0
        #: Turns started ahead of any frame, by why (``start_ahead``): "head start" (the
        #: shuffler before sent its turn), "next round" (the next round's first turn).
        self.started: Counter[str] = Counter()
        #: Wall seconds the queue spent waiting for workers.
        self.waited_s = 0.0
        #: This seat's own statements being checked in the duty worker (``check_sent``),
        #: by memo key: the entry bringing them back waits for that check instead of
        #: making the same one again in the check worker.
        self._own_checks: dict[bytes, asyncio.Future[list[tuple[Statement, bytes]]]] = {}

    @classmethod
    def from_env(cls) -> Offloader:
        """The mode ``UNO_LAN_VERIFY`` names (``thread`` if unset).

        Raises:
            ConfigError: an unknown mode.
        """
        return cls(os.environ.get(VERIFY_ENV, "") or "thread")

    @property
    def offloads(self) -> bool:
        return self.mode != "inline"

    async def receive(self, statements: Callable[[], Sequence[Statement]],
                      deliver: Callable[[], None],
                      ahead: Callable[[], Ahead | None] | None = None) -> None:
        """Check ``statements()`` (evaluated when this frame's turn comes) in a worker,
        then call ``deliver`` on the loop; frames are delivered in the order they came.
        ``ahead()``, evaluated then too, may name work to start in the duty worker
        meanwhile (the peer's next shuffle turn, ``offload.TurnAhead``), and what to do
        on the loop once it is done, while this frame is still being checked (``Ahead.
        then``); the duty that wants it later queues behind it there.

        Raises:
            Whatever ``deliver`` raises (the host's ``LinkLost`` for a bad frame).
        """
        if not self.offloads:
            deliver()
            return
        done = asyncio.get_running_loop().create_future()
        self._items.append(_Frame(statements, deliver, done, ahead))
        self._start()
        await done

    def duty(self, job: DutyJob, finish: Finish, *, check_first: bool = True) -> None:
        """Compute ``job`` in a worker, then ``finish(job, body)`` on the loop, before any
        frame still waiting (inline, the peer would have computed it right away).

        The job's own statements are checked in the worker before ``finish`` with
        ``check_first`` (the sequencer: it logs its own body at once), else just after
        it and off the frames' queue (a joiner: its body goes out first; the frames
        behind it do not wait for this check, and the entry bringing the body back
        waits for it, ``check_sent``, so the ledger still finds it checked)."""
        self._items.appendleft(_Duty(job, finish, check_first))
        self._start()

    def _start(self) -> None:
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        while self._items:
            item = self._items.popleft()
            if isinstance(item, _Duty):
                await self._compute(item)
            elif not item.done.cancelled():
                sent_ahead = self._start_ahead(item)
                if sent_ahead is not None:
                    # A joiner's next turn, made ahead on this frame's deck and sent at
                    # once, is the setup's critical path; the frame's own check is not
                    # (it holds back only this seat's shares, deck.md §6.3). Check it
                    # once the turn is out: it then shares the cores with the
                    # sequencer's check of that turn, not with its making (issue 28).
                    with contextlib.suppress(Exception):
                        await sent_ahead
                await self._check(item.statements())
                try:
                    item.deliver()
                except Exception as error:  # handed to the frame's reader
                    if not item.done.done():
                        item.done.set_exception(error)
                    continue
                if not item.done.done():
                    item.done.set_result(None)
            # One item per turn of the loop: a frame with nothing to check must not
            # carry the queue through the loop's other work in one go.
            await asyncio.sleep(0)

    def _start_ahead(self, item: _Frame) -> asyncio.Future[None] | None:
        """Start the work ``item`` names ahead of its check, if any; its future if it
        sends something once done (``Ahead.then``: a joiner's turn). At the sequencer
        (no ``then``) the frame's check is the path itself: it logs the frame first."""
        try:
            work = None if item.ahead is None else item.ahead()
        except Exception:  # only a head start lost: the frame is judged as ever
            return None
        if work is None or self._duties is None:
            return None
        self.ahead += 1
        future = asyncio.get_running_loop().run_in_executor(self._duties, work.work)

        def then(done: asyncio.Future[None]) -> None:
            # A failure only loses the head start: the duty is then made as usual; a
            # frame already delivered leaves nothing to do ahead of it.
            if done.cancelled() or done.exception() is not None or work.then is None or \
                    item.done.done():
                return
            work.then()

        future.add_done_callback(then)
        return None if work.then is None else future

    def start_ahead(self, work: Callable[[], None], why: str) -> None:
        """Start ``work`` (a turn made on a head start, ``offload.head_start``, or the next
        round's first turn, ``offload.next_round_turn``) in the duty worker now, queued
        behind nothing: no frame waits for it, and the duty that wants the turn later
        queues behind it there and finds it made."""
        if self._duties is None:
            return
        self.started[why] += 1
        future = asyncio.get_running_loop().run_in_executor(self._duties, work)
        future.add_done_callback(_quietly)

    def check_sent(self, statements: Sequence[Statement], *, light: bool = False) -> None:
        """Check this seat's own statements of a body it has sent (a turn sent ahead, a
        joiner's duty) in the duty worker, off the frames' queue; the entry bringing
        it back finds them checked, or waits for this check if it is still running."""
        if not statements or self._duties is None:
            return
        future = asyncio.get_running_loop().run_in_executor(
            self._shares if light else self._duties, partial(check_own, statements))
        keys = [statement.key() for statement in statements]
        self._own_checks.update(dict.fromkeys(keys, future))

        def remember(done: asyncio.Future[list[tuple[Statement, bytes]]]) -> None:
            for key in keys:
                if self._own_checks.get(key) is done:
                    del self._own_checks[key]
            if not done.cancelled() and done.exception() is None:
                self._remember(done.result())

        future.add_done_callback(remember)

    async def _in_worker(self, executor: Executor | None, call: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        try:
            return await loop.run_in_executor(executor, call)
        finally:
            self.waited_s += time.monotonic() - started

    async def _check(self, statements: Sequence[Statement]) -> None:
        own = {id(f): f for s in statements if (f := self._own_checks.get(s.key())) is not None}
        if own:
            # Our own turn, still being checked in the duty worker: its result is ours.
            with contextlib.suppress(Exception):
                await asyncio.wait(own.values())
        todo = [s for s in statements if s.key() not in s.memo]
        if not todo:
            return
        self.checked += len(todo)
        try:
            # A draw's share or two: on the loop, not worth the hop (``LIGHT_SHARES``).
            keys = check_all(todo) if few_shares(todo) else \
                await self._in_worker(self._checks, partial(check_all, todo))
        except Exception:  # a broken worker: the ledger checks the statements inline
            return
        for statement, key in zip(todo, keys, strict=True):
            if key is not None:
                self.verified += 1
                statement.memo.add(key)

    async def _compute(self, item: _Duty) -> None:
        self.duties += 1
        executor = self._shares if item.job.light else self._duties
        try:
            result = await self._in_worker(
                executor, partial(_run_duty, item.job, check=item.check_first))
        except Exception:  # a broken worker: compute it here, as inline
            result = (item.job.run(), [])
        body, keys = result
        self._remember(keys)
        item.finish(item.job, body)
        if not item.check_first:
            # Off the frames' queue (issue 28): a frame behind this duty that does not
            # bring these statements back (another seat's shares, a move) need not wait
            # for their check; the entry that brings them back waits for it (``_check``).
            try:
                own = item.job.statements(body)
            except Exception:  # unlisted: the ledger checks them inline
                return
            self.check_sent(own, light=item.job.light)

    def _remember(self, keys: list[tuple[Statement, bytes]]) -> None:
        self.verified += len(keys)
        for statement, key in keys:
            statement.memo.add(key)

    def close(self) -> None:
        """Stop the workers (frames still queued are dropped: the node is closing)."""
        if self._worker is not None:
            self._worker.cancel()
        for item in self._items:
            if isinstance(item, _Frame):
                item.done.cancel()  # its reader ends with the node
        self._items.clear()
        for executor in {self._duties, self._shares, self._checks}:
            if executor is not None:
                with contextlib.suppress(Exception):
                    executor.shutdown(wait=False, cancel_futures=True)
        self._duties = self._checks = None
