"""Walking a log as an observer, with the very code the live peers run.

Every entry goes through the table's ``Ledger`` (chain, then the table's
rules, the engine and the deck's proofs), exactly as at the table: there is
no second rules or deck replayer here. Two things are added on top, and only
once the end-of-game reveal has made them possible (docs/protocol/deck.md
§9):

- *faces*: the card at every position of every deck, from the re-executed
  shuffles. They are fed to the observer's engine with ``learn`` as soon as
  a deck exists, just as a player learns its own cards; with every face
  known, the engine itself refuses a false hidden claim (a Wild Draw Four
  while holding the colour, a false "not guilty", a kept playable card) at
  the entry that made it, and reports a contradiction as ``ClaimViolated``.
- *channel seeds*: with every seat's revealed channel seed, each sealed
  private reveal is opened and checked as its recipient checked it: the
  author's own proven shares of exactly the cards it owed to that recipient.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from uno_p2p.crypto.channel import ChannelKey, Party
from uno_p2p.errors import CryptoError, IllegalAction, InvalidMessage, RemoteProtocolError
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.engine import learn
from uno_p2p.rules.events import ClaimViolated
from uno_p2p.table.bodies import PrivateShares
from uno_p2p.table.events import TableEvent
from uno_p2p.table.game import verify_item
from uno_p2p.table.knowledge import check_covers
from uno_p2p.table.ledger import Ledger
from uno_p2p.table.state import Misbehaviour, TableState
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.private import Sealed, open_body


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What the end-of-game reveal taught the audit: faces and channel seeds."""

    faces: Mapping[Slot, int] = field(default_factory=dict)
    #: Deck numbers whose every position is in ``faces``.
    decks: frozenset[int] = frozenset()
    #: Seat -> revealed channel seed (to open sealed private reveals).
    channel_seeds: Mapping[int, bytes] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Step:
    """One applied entry: the state before and after, and what it made happen."""

    entry: Entry
    before: TableState
    after: TableState
    events: tuple[TableEvent, ...]
    #: The public digest after this entry, as the ledger (and every live peer) computed it.
    digest: bytes = b""
    #: Claims the revealed faces prove false, learned after this entry.
    violations: tuple[ClaimViolated, ...] = ()
    #: For a sealed private reveal: the table at its author's head (None if forgotten).
    seen: TableState | None = None


def observer(entries: Sequence[Entry]) -> Ledger:
    """A ledger for someone who holds no seat: the audit's seat at the table.

    The host (the sequencer) is the author of entry 0 (docs/protocol/wire.md §4).

    Raises:
        LocalProtocolError: an empty log (nothing to observe).
    """
    first = entries[0]
    return Ledger(first.message.table_id, first.author, None)


def walk(entries: Sequence[Entry], knowledge: Knowledge | None = None) -> Iterator[Step]:
    """Apply ``entries`` in order as an observer, yielding one ``Step`` per entry.

    Raises:
        ChainError: an entry breaks the chain (wire.md §4.1).
        Misbehaviour: an entry breaks the table's rules, the engine's or a proof;
            with ``knowledge``, also a sealed private reveal that is not what its
            recipient was owed (code ``bad_private_reveal``), or a revealed face
            that contradicts a proven one (``contradiction``).
    """
    if not entries:
        return
    ledger = observer(entries)
    learned: set[int] = set()
    for entry in entries:
        before = ledger.state
        seen = ledger.state_at(entry.message.head.seen) if isinstance(entry.body, Sealed) \
            else None
        if knowledge is not None and knowledge.channel_seeds and isinstance(entry.body, Sealed):
            check_private_reveal(before, entry, knowledge.channel_seeds, seen)
        events = tuple(ledger.accept(entry))
        violations: tuple[ClaimViolated, ...] = ()
        if knowledge is not None:
            violations = _learn_decks(ledger, entry, knowledge, learned)
        yield Step(entry, before, ledger.state, events, ledger.digests[-1], violations, seen)


def _learn_decks(ledger: Ledger, entry: Entry, knowledge: Knowledge,
                 learned: set[int]) -> tuple[ClaimViolated, ...]:
    """Teach the observer's engine every face of every deck the log has created so far."""
    state = ledger.state
    if state.engine is None:
        return ()
    fresh = [deck.number for deck in state.decks
             if deck.number in knowledge.decks and deck.number not in learned]
    if not fresh:
        return ()
    faces = [(slot, card) for slot, card in knowledge.faces.items() if slot.shuffle in fresh]
    try:
        engine, violations = learn(state.engine, faces)
    except IllegalAction as error:
        # A proven face differs from the re-executed deck: the shares and the
        # shuffles cannot both be right, and both were verified. Nobody can be named.
        raise Misbehaviour(f"entry {entry.seq}: {error}", culprit=None, entry=entry.seq,
                           code="contradiction", evidence=(entry,)) from error
    learned.update(fresh)
    ledger.state = replace(state, engine=engine)
    return tuple(violations)


def check_private_reveal(state: TableState, entry: Entry, seeds: Mapping[int, bytes],
                         seen: TableState | None = None) -> None:
    """Open a sealed private reveal with the recipient's revealed seed and check it.

    It must open, hold ``private_shares`` by its author for its recipient, each
    of a card the author owed that recipient at this point (``state.privates``,
    docs/protocol/table.md §4.3), each with a valid proof.

    Raises:
        Misbehaviour: code ``bad_private_reveal`` naming the author.
    """
    body = entry.body
    assert isinstance(body, Sealed)  # noqa: S101 (the caller checked)
    author, recipient = entry.author, body.recipient
    seat, to, lobby = state.seat_of(author.key), state.seat_of(recipient.key), state.lobby
    if seat is None or to is None or lobby is None or to not in seeds:
        return  # the ledger refuses a sealed body from or to a stranger; no seed, no check
    try:
        _check_private_items(state, seen, entry, ChannelKey(seeds[to]), seat, to)
    except (CryptoError, InvalidMessage, RemoteProtocolError) as error:
        raise Misbehaviour(
            f"entry {entry.seq}: the private reveal to {state.name_of(recipient.key)} is not "
            f"what was owed: {str(error).removeprefix(f'entry {entry.seq}: ')}",
            culprit=author, entry=entry.seq,
            code="bad_private_reveal", evidence=(entry,)) from error


def _check_private_items(state: TableState, seen: TableState | None, entry: Entry,
                         key: ChannelKey, seat: int, to: int) -> None:
    """Open the sealed body as its recipient and check every share in it.

    Raises:
        CryptoError / InvalidMessage / RemoteProtocolError: it does not open, is
            not a private reveal, or holds a share not owed or not proven.
    """
    lobby, recipient = state.lobby, state.seats[to]
    assert lobby is not None  # noqa: S101 (the caller checked)
    inner = open_body(entry.message, key=key, sender_channel=lobby.channels[entry.author.key],
                      recipient=Party(recipient.key, key.public))
    if not isinstance(inner, PrivateShares):
        raise InvalidMessage("a sealed body that is not a private reveal")
    given = set()
    for item in inner.items:
        slot = Slot(item.shuffle, item.position)
        if item.prover != seat or item.recipient != to:
            raise InvalidMessage(f"a private share of {tuple(slot)} for someone else")
        verify_item(state, item, entry, entry.seq)
        given.add(slot)
    check_covers(state, seen, seat, to, given)  # every card owed, and no other
