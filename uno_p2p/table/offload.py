"""The expensive work of a peer, named so that a shell may do it away from its event loop.

docs/protocol/net.md §7.1. Two kinds of work dominate a peer's CPU, and both
are pure functions of values the core already holds:

- checking a proof of shuffle (deck.md §6.4, ~0.09 s for 108 cards) when a
  ``ShuffleDeck`` arrives, as an entry (every peer) or a message (the
  sequencer). ``frame_statements`` extracts, from one incoming frame and
  the state it will meet, the ``ShuffleStatement`` that ``apply_shuffle``
  will check; a shell verifies it elsewhere (``check_statement``) and puts
  its key in the memo (``shuffle_proof.VERIFIED``) that ``apply_shuffle``
  consults. A statement it did not verify, or that failed, is simply not in
  the memo: the ledger checks it inline and names the culprit exactly as
  without a shell, so correctness never depends on the shell.
- checking a batch of decryption shares (deck.md §7, ~0.4 ms each, up to a
  deal's 63 per body at 10 players): ``ShareStatement``, memo
  ``shares.VERIFIED_SHARES``;
- re-executing a seat's shuffles from its revealed seed (deck.md §9, ~0.02
  s per shuffle, every shuffle of the game at once) when its reveal arrives:
  ``ReexecutionStatement``, memo ``crypto.audit.REEXECUTED``;
- proving this seat's own duty: a proven shuffle turn (~0.055 s) or a batch
  of decryption shares. ``DutyJob`` is ``public_duty`` of one exact state:
  a peer asked to (``TablePeer.offload_duties``) hands the job to its shell
  instead of computing it, and takes the body back with
  ``TablePeer.duty_done``; the body is the one it would have computed
  inline, byte for byte, because the job is deterministic in its inputs.

Nothing here does I/O, reads a clock or starts a thread.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from uno_p2p.crypto.audit import ReexecutionStatement
from uno_p2p.crypto.cards import CARD_COUNT
from uno_p2p.crypto.group import Point
from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.crypto.shares import ShareStatement
from uno_p2p.crypto.shuffle import ShuffleMessage, initial_deck
from uno_p2p.crypto.shuffle_proof import ShuffleStatement
from uno_p2p.errors import UnoError
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.state import Phase
from uno_p2p.table.bodies import KeySetup, RevealSecrets, Shares, ShuffleDeck
from uno_p2p.table.duties import (
    PROVEN_TURNS,
    public_duty,
    public_shares_owed,
    shuffle_due,
    waiting_for,
)
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_MESSAGE, FRAME_RELAY
from uno_p2p.table.game import owed_items, share_context, table_key
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.registry import Body

Duty = KeySetup | ShuffleDeck | Shares | RevealSecrets | None
#: A check that is a pure function of wire bytes: ``key()``, ``check()``, ``memo``.
Statement = ShuffleStatement | ReexecutionStatement | ShareStatement


def shuffle_statement(ts: TableState, shuffler: bytes, body: ShuffleDeck
                      ) -> ShuffleStatement | None:
    """The statement ``game.apply_shuffle`` checks for ``body`` by ``shuffler`` in ``ts``.

    None when the body has no place in ``ts`` or it is not ``shuffler``'s turn: the
    ledger refuses it before its proof, so a turn out of turn costs no check.
    """
    if ts.phase != TablePhase.PLAYING or not ts.void_decks <= body.shuffle < len(ts.decks):
        return None
    deck = ts.decks[body.shuffle]
    seat = ts.seat_of(shuffler)
    if seat is None or deck.next_shuffler != seat:
        return None
    return ShuffleStatement(
        previous=tuple(c.to_wire() for c in deck.ciphertexts),
        shuffled=tuple(body.ciphertexts), proof=body.proof,
        joint_key=table_key(ts).to_wire(), table=ts.table_id, round_number=deck.round,
        deck=deck.number, shuffler=shuffler, turn=len(deck.done))


def reveal_statements(ts: TableState, author: bytes, body: RevealSecrets
                      ) -> tuple[ReexecutionStatement, ...]:
    """The re-executions ``game.convict_shuffles`` runs for a seat's reveal (deck.md §9):
    every shuffle that seat made, outside a void round. None for a reveal the ledger
    refuses first (``ledger._reveal``: a seat that revealed already), so a reveal sent
    again costs no re-execution."""
    seat = ts.seat_of(author)
    if seat is None or seat in ts.reveals or ts.engine is None or \
            any(k is None for k in ts.keys):
        return ()
    key = table_key(ts).to_wire()
    return tuple(
        ReexecutionStatement(tuple(c.to_wire() for c in deck.input_of(turn)),
                             tuple(c.to_wire() for c in deck.shuffles[turn]),
                             body.shuffle_master, deck.round, deck.number, key)
        for deck in ts.decks[ts.void_decks:]
        for turn, shuffler in enumerate(deck.done) if shuffler == seat)


def share_statements(ts: TableState, author: bytes, body: Shares
                     ) -> tuple[ShareStatement, ...]:
    """The share proofs ``game.apply_shares`` checks (``verify_item``): those of the
    items ``author``'s seat owes (``game.owed_items``) that name a seat and a shuffled
    card. The ledger refuses a batch at its first item not owed, before that item's
    proof, so shares nobody asked for cost no check, however many a batch holds."""
    seat = ts.seat_of(author)
    if seat is None:
        return ()
    found = []
    for item in owed_items(ts, seat, body):  # each by ``seat``: its prover is ``seat``
        slot = Slot(item.shuffle, item.position)
        if item.recipient >= len(ts.seats) or not ts.slot_ready(slot) or ts.keys[seat] is None:
            continue
        context = share_context(ts, slot, seat, item.purpose, item.recipient)
        found.append(ShareStatement(item.share, item.proof,
                                    ts.key(seat).value.public_key.to_wire(),
                                    ts.ciphertext(slot).c1.to_wire(), context))
    return tuple(found)


def body_statements(ts: TableState, author: bytes, body: Body) -> tuple[Statement, ...]:
    """The expensive statements the ledger will check for ``body`` applied to ``ts``."""
    if isinstance(body, Shares) and ts.phase == TablePhase.PLAYING:
        return share_statements(ts, author, body)
    if isinstance(body, ShuffleDeck):
        statement = shuffle_statement(ts, author, body)
        return () if statement is None else (statement,)
    if isinstance(body, RevealSecrets):
        return reveal_statements(ts, author, body)
    return ()


def frame_statements(ts: TableState, data: bytes, *, sequencer: bool
                     ) -> tuple[Statement, ...]:
    """The expensive statements ``TablePeer.receive(data)`` will check in state ``ts``.

    An entry counts only if it is the next one (an early entry meets another
    state); a message only at the sequencer (``sequencer``), which checks it
    against its current state (table.md §7). Bytes that do not decode have
    none: ``receive`` names them.
    """
    tag, payload = data[:1], data[1:]
    try:
        if tag == FRAME_ENTRY:
            entry = Entry.decode(payload)
            if entry.seq != ts.seq:
                return ()
            return body_statements(ts, entry.author.key, entry.body)
        if tag in (FRAME_MESSAGE, FRAME_RELAY) and sequencer:
            message = Message.decode(payload)
            return body_statements(ts, message.author.key, message.body)
    except UnoError:
        return ()
    return ()


@dataclass(frozen=True, slots=True)
class TurnAhead:
    """This seat's proven turn on a deck that has arrived and is not yet accepted
    (issue 28; deck.md §6.3, "What may overlap"): made in the shell's worker while the
    arrived turn's proof is checked, kept in ``duties.PROVEN_TURNS``, sent only once
    the peer's accepted state asks for it (``public_duty``)."""

    arrived: tuple[bytes, ...]
    author: str
    secrets: PeerSecrets
    table: bytes
    round_number: int
    deck: int
    turn: int
    joint_key: Point
    #: The arrived entry (None: a message at the sequencer), for the turn sent ahead
    #: (``TablePeer.send_turn_ahead``).
    entry: Entry | None = None

    def run(self) -> None:
        """Prove the turn and keep it (nothing if the arrived deck does not decode: the
        ledger names its author)."""
        try:
            previous = ShuffleMessage.from_wire(list(self.arrived), peer=self.author)
        except UnoError:
            return
        PROVEN_TURNS.prove(previous.ciphertexts, self.secrets, self.table, self.round_number,
                           self.deck, self.turn, self.joint_key, ahead=True)



def turn_ahead(ts: TableState, author: bytes, body: Body, secrets: PeerSecrets,
               entry: Entry | None = None) -> TurnAhead | None:
    """The turn this seat (``secrets.peer``) takes right after ``body`` by ``author``, if
    ``body`` is the awaited turn of a deck in ``ts`` and this seat shuffles next: in
    ``entry`` at a joiner (sent ahead), in a message at the sequencer (checked ahead)."""
    if not isinstance(body, ShuffleDeck) or shuffle_statement(ts, author, body) is None:
        return None
    deck = ts.decks[body.shuffle]
    seat, shuffler = ts.seat_of(secrets.peer), ts.seat_of(author)
    if seat is None or deck.next_shuffler != shuffler or deck.shufflers[1:2] != (seat,):
        return None
    return TurnAhead(body.ciphertexts, author.hex()[:16], secrets, ts.table_id, deck.round,
                     deck.number, len(deck.done) + 1, table_key(ts), entry)


def frame_turn_ahead(ts: TableState, data: bytes, secrets: PeerSecrets, *, sequencer: bool
                     ) -> TurnAhead | None:
    """``turn_ahead`` for one incoming frame, read as ``frame_statements`` reads it."""
    tag, payload = data[:1], data[1:]
    try:
        if tag == FRAME_ENTRY:
            entry = Entry.decode(payload)
            if entry.seq == ts.seq:
                return turn_ahead(ts, entry.author.key, entry.body, secrets, entry)
        if tag in (FRAME_MESSAGE, FRAME_RELAY) and sequencer:
            message = Message.decode(payload)
            return turn_ahead(ts, message.author.key, message.body, secrets)
    except UnoError:
        return None
    return None


def next_shuffler_after(ts: TableState, author: bytes, deck_number: int) -> int | None:
    """The seat that shuffles deck ``deck_number`` right after ``author``'s turn, if any
    (its order is the turns done, then the seats still to shuffle)."""
    if not ts.void_decks <= deck_number < len(ts.decks):
        return None
    deck, seat = ts.decks[deck_number], ts.seat_of(author)
    order = (*deck.done, *deck.shufflers)
    if seat is None or seat not in order[len(deck.done):]:
        return None
    turn = order.index(seat, len(deck.done))
    return order[turn + 1] if turn + 1 < len(order) else None


def head_start(ts: TableState, data: bytes, secrets: PeerSecrets, sender: bytes
               ) -> TurnAhead | None:
    """This seat's turn made ahead on a shuffler's message that came straight from it
    (an ``M`` frame at a peer that is not the sequencer, deck.md §6.3, "A head start"):
    made while the sequencer checks that message, and sent only once the entry that
    logs it arrives (``turn_ahead``), where the duty finds it made if the deck is the
    same. The accepted state may still lack turns before the message's (their checks
    run): the turn's number is the sender's place in the deck's order, plus one.

    None unless the frame is a ``ShuffleDeck`` signed message whose author is
    ``sender`` (a link says who is at its other end; a forward or a forgery starts
    nothing), for a deck of ``ts`` whose turn by it is not accepted yet and after
    which this seat shuffles. Its signature is not checked here: the link vouches
    for the sender, and nothing made from it is sent before the entry arrives."""
    if data[:1] != FRAME_MESSAGE:
        return None
    try:
        message = Message.decode(data[1:])
    except UnoError:
        return None
    body, author = message.body, message.author.key
    if author != sender or not isinstance(body, ShuffleDeck) or ts.phase != TablePhase.PLAYING:
        return None
    me = ts.seat_of(secrets.peer)
    if me is None or next_shuffler_after(ts, author, body.shuffle) != me:
        return None
    deck = ts.decks[body.shuffle]
    turn = (*deck.done, *deck.shufflers).index(me)
    return TurnAhead(body.ciphertexts, author.hex()[:16], secrets, ts.table_id, deck.round,
                     deck.number, turn, table_key(ts))


@dataclass(frozen=True, slots=True)
class NextRoundTurn:
    """Seat 0's turn on the next round's deck, made as this round nears its end (deck.md
    §6.3, "The next round's first turn"): that deck's input is public and known in
    advance (all 108 cards, unshuffled, §6.1), and seat 0 shuffles first, so its turn
    is found made (``duties.PROVEN_TURNS``) when the round ends and the deck is asked
    for, instead of opening the pause between rounds with 55 ms that only it can do."""

    secrets: PeerSecrets
    table: bytes
    round_number: int
    deck: int
    joint_key: Point

    @property
    def place(self) -> tuple[int, int]:
        return self.round_number, self.deck

    def run(self) -> None:
        PROVEN_TURNS.prove(initial_deck(range(CARD_COUNT)), self.secrets, self.table,
                           self.round_number, self.deck, 0, self.joint_key, ahead=True)


def next_round_turn(ts: TableState, secrets: PeerSecrets) -> NextRoundTurn | None:
    """The first turn of the next round's deck, if this seat takes it (seat 0: a round's
    deck is shuffled in seat order, ``game._new_deck``) and the round nears its end: a
    player holds one card or none and nobody owes the table any work, so every deck is
    shuffled and dealt (the turn never delays a deal's shares or another shuffle, and
    shares the cores with the round's last few moves only). Its number is the next
    deck's, unless a reshuffle of the discard pile comes first (it is then made again)."""
    game = ts.engine
    if ts.phase != TablePhase.PLAYING or game is None or game.phase != Phase.PLAYING or \
            ts.seat_of(secrets.peer) != 0 or min(len(hand) for hand in game.hands) > 1 or \
            waiting_for(ts):
        return None
    return NextRoundTurn(secrets, ts.table_id, game.round + 1, len(ts.decks), table_key(ts))


class HeadStarts:
    """Which head starts a peer has taken: one per turn of a deck, the first that came.

    The bound on what a member can make this seat spend through them (net.md §6.1): a
    shuffler that sends its turn twice, two ways (or two turns for one place), costs
    this seat at most the one turn it would have made anyway."""

    KEEP = 16

    __slots__ = ("_taken",)

    def __init__(self) -> None:
        self._taken: OrderedDict[tuple[bytes, int, int, int], None] = OrderedDict()

    def first(self, turn: TurnAhead) -> bool:
        """Whether ``turn`` is the first head start for its place (it is then taken)."""
        place = (turn.table, turn.round_number, turn.deck, turn.turn)
        if place in self._taken:
            return False
        self._taken[place] = None
        while len(self._taken) > self.KEEP:
            self._taken.popitem(last=False)
        return True


class WorkAhead:
    """The turns a shell starts for one peer ahead of any frame (deck.md §6.3), each at
    most once: a head start per place of a deck (``HeadStarts``), and the next round's
    first turn per deck number it may take. The node (``NodeDriver``) and the
    in-memory network (``memnet``) both ask here, so they start the same work."""

    __slots__ = ("_head_starts", "_next_round")

    def __init__(self) -> None:
        self._head_starts = HeadStarts()
        self._next_round: tuple[int, int] | None = None

    def on_frame(self, ts: TableState, data: bytes, secrets: PeerSecrets, sender: bytes
                 ) -> TurnAhead | None:
        """The turn to start on a frame from ``sender``'s link, before it queues."""
        turn = head_start(ts, data, secrets, sender)
        return turn if turn is not None and self._head_starts.first(turn) else None

    def after_pump(self, ts: TableState, secrets: PeerSecrets) -> NextRoundTurn | None:
        """The next round's first turn to start now, if not started for its deck yet."""
        turn = next_round_turn(ts, secrets)
        if turn is None or turn.place == self._next_round:
            return None
        self._next_round = turn.place
        return turn


#: Decryption shares few enough to be light work: a draw's one, a penalty's few (~0.3 ms
#: each to make, ~0.45 ms to check). The shell makes them beside its shuffle turns, not
#: behind them: a turn made ahead (55 ms) would hold a drawn card; and it checks another
#: seat's on its event loop: a hop to the check worker and back costs less CPU, but more
#: wall time on a busy core, and a draw's shares come as three entries in a row (issue 28).
LIGHT_SHARES = 4


def few_shares(statements: Sequence[object]) -> bool:
    """Whether ``statements`` are share proofs only, at most ``LIGHT_SHARES`` of them."""
    return len(statements) <= LIGHT_SHARES and \
        all(isinstance(s, ShareStatement) for s in statements)


def heavy_duty(ts: TableState, seat: int) -> bool:
    """Whether this seat's next public duty is worth computing off the event loop: a
    proven shuffle turn or decryption shares (``public_duty``'s costly branches), or
    its reveal (cheap to make, but the sequencer re-executes the seat's shuffles)."""
    if ts.phase == TablePhase.REVEALING:
        return seat in ts.reveals_expected and seat not in ts.reveals
    return ts.phase == TablePhase.PLAYING and (
        shuffle_due(ts, seat) is not None or bool(public_shares_owed(ts, seat)))


@dataclass(frozen=True, slots=True)
class DutyJob:
    """``public_duty`` of one exact state, to be run by the shell (any thread).

    The state is immutable, so the job reads nothing the peer may change
    meanwhile; ``TablePeer.duty_done`` uses the body only if the peer's state
    is still this very state, else it asks again.
    """

    state: TableState
    secrets: PeerSecrets
    seat: int
    channel_seed: bytes

    def run(self) -> Duty:
        """The body ``public_duty`` gives for this state (deterministic)."""
        return public_duty(self.state, self.secrets, self.seat, self.channel_seed)

    @property
    def light(self) -> bool:
        """Whether the job is a few shares (``LIGHT_SHARES``) and no shuffle turn."""
        ts = self.state
        return ts.phase == TablePhase.PLAYING and shuffle_due(ts, self.seat) is None and \
            len(public_shares_owed(ts, self.seat)) <= LIGHT_SHARES

    def statements(self, body: Duty) -> tuple[Statement, ...]:
        """The statements the ledger will check for this seat's own ``body``."""
        if body is None:
            return ()
        return body_statements(self.state, self.secrets.peer, body)


class Asked:
    """The duty is being computed by the shell: the peer waits for ``duty_done``."""


ASKED = Asked()


class DutyDesk:
    """A peer's heavy duties handed to its shell (off unless ``offload`` is set).

    Each state's duty is asked for once (``take``); the body comes back with
    ``done`` and is used only while the peer is still in that very state.
    """

    __slots__ = ("_answer", "_asked", "_wanted", "offload")

    def __init__(self) -> None:
        self.offload = False
        self._wanted: DutyJob | None = None
        self._asked: TableState | None = None
        self._answer: tuple[TableState, Duty] | None = None

    def next(self, ts: TableState, secrets: PeerSecrets, seat: int,
             channel_seed: bytes) -> Duty | Asked:
        """``public_duty`` inline; or, when offloading a heavy one, the shell's body
        for this very state, or ``ASKED`` (the job waits in ``take``)."""
        if not self.offload or not heavy_duty(ts, seat):
            return public_duty(ts, secrets, seat, channel_seed)
        answer, self._answer = self._answer, None
        if answer is not None and answer[0] is ts:
            return answer[1]
        if self._asked is not ts:
            self._asked = ts
            self._wanted = DutyJob(ts, secrets, seat, channel_seed)
        return ASKED

    def take(self) -> DutyJob | None:
        """The heavy duty the shell should compute now, if any."""
        job, self._wanted = self._wanted, None
        return job

    def done(self, job: DutyJob, body: Duty, now: TableState) -> None:
        """Keep ``body`` for the next ``next`` if the peer is still in the job's state."""
        if job.state is now:
            self._answer = (job.state, body)
