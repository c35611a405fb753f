"""Verifying the hash chain: one entry, a whole log, and proofs of cheating.

docs/protocol/wire.md §4. Every failure is a ``RemoteProtocolError`` with a
``code``, the ``peer`` at fault (a key fingerprint) and the ``entry`` number;
a bad signature (``bad_signature``, ``bad_countersignature``) is raised by the
envelope itself, and every other failure is a ``ChainError`` that also holds
the entries that prove it. The peer named is the one whose signature vouches
for the broken fact:

- the sequencer for an entry's place: ``wrong_table``, ``bad_sequence``,
  ``bad_prev_hash``, ``bad_first_entry``, ``bad_countersignature``, ``counter_gap``,
  ``replayed_message`` (it must check all of these before countersigning),
  ``sequencer_fork`` (two countersigned entries at one number), and, in a
  countersigned entry, ``head_ahead``, ``head_mismatch``, ``head_regressed``
  (an honest sequencer refuses such a message, so countersigning it shows
  another history or a skipped check);
- the author for what it signed: ``bad_signature``, ``equivocation`` (two
  messages with one counter), and the ``head_*`` codes of a message not yet
  sequenced (``check_message``: the sequencer judging a message it received).

Sans-IO and pure: a verifier only ever sees entries passed in, and an entry
that fails leaves the verifier unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import LocalProtocolError, RemoteProtocolError
from uno_p2p.wire.envelope import Entry, Head, Message, genesis_hash


class ChainError(RemoteProtocolError):
    """An entry that breaks the chain; ``evidence`` holds the entries that show it."""

    code = "chain_error"

    def __init__(
        self,
        message: str,
        *,
        peer: PeerId,
        entry: int | None,
        code: str,
        evidence: tuple[Entry | Message, ...] = (),
    ) -> None:
        super().__init__(message, peer=peer.fingerprint, entry=entry, code=code)
        #: The key of the peer at fault (``peer`` is its fingerprint).
        self.peer_key = peer
        self.evidence = evidence


class EquivocationError(ChainError):
    """An author signed two different messages with one counter."""


class ForkError(ChainError):
    """The sequencer countersigned two different entries at one sequence number."""


def check_equivocation(first: Message, second: Message) -> None:
    """Raise if ``first`` and ``second`` together prove their author equivocated.

    Two validly signed messages by one author, for one table, with one
    counter and different contents. Equal contents (even with different
    signature bytes) are a replay, not equivocation.

    Raises:
        EquivocationError: code ``equivocation``, naming the author.
        RemoteProtocolError: ``bad_signature`` if either signature is invalid.
    """
    same_slot = (first.table_id, first.author, first.counter) == (
        second.table_id, second.author, second.counter)
    if not same_slot or first.digest == second.digest:
        return
    first.verify()
    second.verify()
    raise EquivocationError(
        f"{second.author.fingerprint} signed two different messages as its message "
        f"number {second.counter}", peer=second.author, entry=None, code="equivocation",
        evidence=(first, second),
    )


def check_fork(first: Entry, second: Entry, sequencer: PeerId) -> None:
    """Raise if two entries prove that ``sequencer`` forked the log.

    Raises:
        ForkError: code ``sequencer_fork``: both countersigned, same table and
            number, different entries.
        RemoteProtocolError: ``bad_countersignature`` if either is not the
            sequencer's (then nothing is proven against it).
    """
    same_place = (first.message.table_id, first.seq) == (second.message.table_id, second.seq)
    if not same_place or first.hash == second.hash:
        return
    first.verify_countersignature(sequencer)
    second.verify_countersignature(sequencer)
    raise ForkError(
        f"the sequencer {sequencer.fingerprint} countersigned two different entries "
        f"at number {first.seq}", peer=sequencer, entry=first.seq, code="sequencer_fork",
        evidence=(first, second),
    )


@dataclass(slots=True)
class _AuthorState:
    """What the chain has recorded of one author so far."""

    next_counter: int = 0
    seen: int = 0


class ChainVerifier:
    """Accepts a table's entries one by one, refusing any that break the chain.

    ``sequencer`` is the peer that countersigns (the host: the author of entry
    0). The table layer feeds every entry it receives to ``accept``; a
    sequencer calls ``check_message`` before it countersigns.

    ``successor`` (from the table layer, which knows the bodies) says whether an
    entry hands the sequencer role on (table.md §13): it returns the new
    sequencer, which countersigns that entry and every later one, or None.
    The verifier only follows it; the table's rules judge whether the hand-over
    was allowed.
    """

    def __init__(self, table_id: bytes, sequencer: PeerId,
                 successor: Callable[[Entry], PeerId | None] | None = None) -> None:
        self.table_id = table_id
        self.sequencer = sequencer
        self.successor = successor
        #: ``(first entry, sequencer)``: who countersigns from which number on.
        self.terms: list[tuple[int, PeerId]] = [(0, sequencer)]
        self._entries: list[Entry] = []
        self._hashes: list[bytes] = [genesis_hash(table_id)]
        self._authors: dict[bytes, _AuthorState] = {}
        self._by_counter: dict[tuple[bytes, int], Entry] = {}

    @property
    def head(self) -> Head:
        """This peer's view, to put in its own next message."""
        return Head(len(self._entries), self._hashes[-1])

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every accepted entry (a copy: use ``len`` and ``entry`` in hot paths)."""
        return tuple(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def entry(self, seq: int) -> Entry:
        """The accepted entry number ``seq``.

        Raises:
            IndexError: no such entry yet.
        """
        if not 0 <= seq < len(self._entries):
            raise IndexError(f"no entry {seq} in a log of {len(self._entries)}")
        return self._entries[seq]

    def next_counter(self, author: PeerId) -> int:
        """The counter ``author``'s next message must carry, as far as this log knows."""
        state = self._authors.get(author.key)
        return state.next_counter if state else 0

    def sequence(self, sequencer: Identity, message: Message) -> Entry:
        """As the sequencer: check ``message``, place it next, countersign and accept it.

        Raises:
            LocalProtocolError: ``sequencer`` is not this log's sequencer.
            ChainError: the message may not be placed (see ``check_message``).
        """
        if sequencer.peer != self.sequencer:
            raise LocalProtocolError("only the table's sequencer can place entries")
        self.check_message(message)
        head = self.head
        entry = Entry.countersign(sequencer, head.seen, head.hash, message)
        self.accept(entry)
        return entry

    def accept(self, entry: Entry) -> None:
        """Append ``entry`` if it is the valid next one, else leave everything unchanged.

        Raises:
            ChainError: any check fails (see the module docstring for codes).
            EquivocationError: the author reused a counter with new contents.
        """
        new = None if self.successor is None else self.successor(entry)
        counter_signer = self.sequencer if new is None else new
        _check_place(entry, self.table_id, len(self._entries), self._hashes[-1], self.sequencer)
        entry.message.verify(entry=entry.seq)
        entry.verify_countersignature(counter_signer)
        self._check_author(entry.message, entry.seq, entry)
        if new is not None:
            self.sequencer = new
            self.terms.append((entry.seq, new))
        self._entries.append(entry)
        self._hashes.append(entry.hash)
        state = self._authors.setdefault(entry.author.key, _AuthorState())
        state.next_counter += 1
        state.seen = entry.message.head.seen
        self._by_counter[(entry.author.key, entry.message.counter)] = entry

    def check_message(self, message: Message) -> None:
        """What the sequencer checks before it places ``message`` next.

        Raises:
            ChainError: as ``accept`` would for this message at the next number.
        """
        if message.table_id != self.table_id:
            raise ChainError("a message for another table", peer=message.author,
                             entry=None, code="wrong_table", evidence=(message,))
        self._check_author(message, len(self._entries), None)

    def holds(self, head: Head) -> bool:
        """Whether ``head`` is a view of this log (its ``seen`` entries are ours): a
        message signed at another head was signed on a chain this log does not hold
        (table.md §7.2, after a hand-over it has not seen, §13.4)."""
        return head.seen < len(self._hashes) and head.hash == self._hashes[head.seen]

    def sequencer_at(self, seq: int) -> PeerId:
        """The sequencer that countersigned (or countersigns) entry ``seq``."""
        owner = self.terms[0][1]
        for first, peer in self.terms:
            if first <= seq:
                owner = peer
        return owner

    def compare(self, other: Entry) -> None:
        """Compare an entry seen elsewhere (another peer's log) with ours at its number.

        Raises:
            ForkError: the sequencer countersigned a different entry there.
        """
        if other.seq < len(self._entries):
            check_fork(self._entries[other.seq], other, self.sequencer_at(other.seq))

    def truncate(self, seq: int) -> None:
        """Forget the entries from ``seq`` on (an entry the table's rules refused, or a
        suffix that a hand-over replaced, table.md §13.4)."""
        keep = self._entries[:seq]
        self._entries, self._hashes = [], self._hashes[:1]
        self._authors, self._by_counter = {}, {}
        self.terms = self.terms[:1]
        self.sequencer = self.terms[0][1]
        for entry in keep:
            self.accept(entry)

    def _check_author(self, message: Message, seq: int, entry: Entry | None) -> None:
        if entry is None:
            message.verify()
        author = message.author
        state = self._authors.get(author.key, _AuthorState())
        where = f"entry {seq}: " if entry is not None else ""
        evidence: tuple[Entry | Message, ...] = (entry,) if entry is not None else (message,)
        if message.counter < state.next_counter:
            earlier = self._by_counter[(author.key, message.counter)]
            if earlier.message.digest != message.digest:
                raise EquivocationError(
                    f"{where}{author.fingerprint} signed two different messages as its message "
                    f"number {message.counter} (the other is entry {earlier.seq})", peer=author,
                    entry=seq, code="equivocation", evidence=(earlier, *evidence))
            raise ChainError(f"{where}a replay of entry {earlier.seq}", peer=self.sequencer,
                             entry=seq, code="replayed_message", evidence=(earlier, *evidence))
        if message.counter > state.next_counter:
            raise ChainError(
                f"{where}{author.fingerprint}'s message {state.next_counter} is missing",
                peer=self.sequencer, entry=seq, code="counter_gap", evidence=evidence)
        # wire.md §4.1: a countersigned bad head is the sequencer's (it must refuse it).
        culprit = author if entry is None else self.sequencer
        self._check_head(message.head, seq, state, culprit, where, evidence)

    def _check_head(self, head: Head, seq: int, state: _AuthorState, culprit: PeerId,
                    where: str, evidence: tuple[Entry | Message, ...]) -> None:
        if head.seen > seq:
            raise ChainError(f"{where}its author claims to have seen {head.seen} entries",
                             peer=culprit, entry=seq, code="head_ahead", evidence=evidence)
        if head.hash != self._hashes[head.seen]:
            raise ChainError(
                f"{where}its author saw a different entry {head.seen - 1} than this log has",
                peer=culprit, entry=seq, code="head_mismatch", evidence=evidence)
        if head.seen < state.seen:
            raise ChainError(f"{where}its author's view went back to {head.seen} entries",
                             peer=culprit, entry=seq, code="head_regressed", evidence=evidence)


def _check_place(entry: Entry, table_id: bytes, seq: int, prev_hash: bytes,
                 sequencer: PeerId) -> None:
    """Is ``entry`` the one the sequencer may put at ``seq`` after ``prev_hash``? (wire.md §4.1)

    Raises:
        ChainError: ``wrong_table``, ``bad_sequence``, ``bad_prev_hash`` or
            ``bad_first_entry``, all naming the sequencer.
    """
    checks = (
        (entry.message.table_id != table_id, "wrong_table", "it belongs to another table"),
        (entry.seq != seq, "bad_sequence", f"expected entry number {seq}"),
        (entry.prev_hash != prev_hash, "bad_prev_hash", "it does not follow the previous entry"),
        # wire.md §4: the sequencer opens the table, so entry 0 is its own.
        (entry.seq == 0 and entry.author != sequencer, "bad_first_entry",
         "the first entry is not the sequencer's"),
    )
    for failed, code, why in checks:
        if failed:
            raise ChainError(f"entry {entry.seq}: {why}", peer=sequencer, entry=entry.seq,
                             code=code, evidence=(entry,))


def verify_entry(entry: Entry, previous: Entry | None, sequencer: PeerId) -> None:
    """Check ``entry`` against the one before it alone (no per-author history).

    Raises:
        ChainError: wrong place (as ``ChainVerifier.accept``, entry 0 included),
            a bad signature, or a head from the future.
    """
    if previous is None:
        table_id = entry.message.table_id
        _check_place(entry, table_id, 0, genesis_hash(table_id), sequencer)
    else:
        _check_place(entry, previous.message.table_id, previous.seq + 1, previous.hash, sequencer)
    entry.message.verify(entry=entry.seq)
    entry.verify_countersignature(sequencer)
    head = entry.message.head
    if head.seen > entry.seq or (head.seen == entry.seq and head.hash != entry.prev_hash):
        raise ChainError(f"entry {entry.seq}: its author's view is not of this log",
                         peer=sequencer, entry=entry.seq, code="head_mismatch",
                         evidence=(entry,))


def verify_chain(entries: Iterable[Entry], sequencer: PeerId | None = None,
                 successor: Callable[[Entry], PeerId | None] | None = None) -> ChainVerifier:
    """Verify a whole log from entry 0, returning the verifier at its head.

    ``sequencer`` defaults to the author of entry 0 (the host opens the table);
    ``successor`` follows hand-overs of the role (``ChainVerifier``).

    Raises:
        ChainError: the first entry that breaks the chain; an empty log is
            refused with code ``empty_log``.
    """
    iterator = iter(entries)
    first = next(iterator, None)
    if first is None:
        raise RemoteProtocolError("the log has no entries", code="empty_log")
    verifier = ChainVerifier(first.message.table_id, sequencer or first.author, successor)
    verifier.accept(first)
    for entry in iterator:
        verifier.accept(entry)
    return verifier
