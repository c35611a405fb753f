"""What one seat owes the table now, computed from the log alone (table.md §4).

A duty is work the game waits for: a key announcement, a turn in a joint
shuffle, decryption shares (deals to others, public openings), private
shares to one viewer, the final reveal. Every peer computes every seat's
duties from the same log, so the sequencer knows whom the table is waiting
for (``waiting_for``) and each peer knows what to send (``public_duty``,
``private_duties``).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from uno_p2p.crypto.context import PURPOSE_DEAL, PURPOSE_OPEN, PURPOSE_PRIVATE
from uno_p2p.crypto.group import Point
from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.crypto.shares import make_share
from uno_p2p.crypto.shuffle import Ciphertext, ShuffleMessage, shuffle_context
from uno_p2p.crypto.shuffle_proof import ShuffleProof, make_proven_shuffle, verified_key
from uno_p2p.errors import LocalProtocolError
from uno_p2p.rules.actions import Action, Play
from uno_p2p.rules.codec import Slot
from uno_p2p.table.bodies import (
    MAX_SHARES,
    NO_SEAT,
    KeySetup,
    RevealSecrets,
    ShareItem,
    Shares,
    ShuffleDeck,
)
from uno_p2p.table.game import named_deck, share_context, table_key
from uno_p2p.table.state import TablePhase, TableState


@dataclass(frozen=True, slots=True)
class Owed:
    """One share this seat owes: ``slot`` for ``purpose`` to ``recipient`` (-1: public)."""

    slot: Slot
    purpose: str
    recipient: int


def public_shares_owed(ts: TableState, seat: int) -> list[Owed]:
    """Deal shares for others' draws and open shares for an awaited public reveal."""
    if ts.phase != TablePhase.PLAYING or ts.engine is None:
        return []
    owed: list[Owed] = []
    seen: set[Slot] = set()
    for to, slots in ts.deals:
        for slot in slots:
            if to != seat and slot not in seen and _lacks(ts, slot, seat):
                owed.append(Owed(slot, PURPOSE_DEAL, to))
                seen.add(slot)
    for slot in ts.engine.awaiting:
        if slot not in seen and _lacks(ts, slot, seat):
            owed.append(Owed(slot, PURPOSE_OPEN, NO_SEAT))
            seen.add(slot)
    return owed


def private_shares_owed(ts: TableState, seat: int) -> dict[int, list[Owed]]:
    """Private shares this seat owes, by recipient seat (one sealed body each)."""
    owed: dict[int, list[Owed]] = {}
    if ts.phase != TablePhase.PLAYING:
        return owed
    for due in ts.privates:
        if seat not in due.owed or not all(ts.slot_ready(s) for s in due.slots):
            continue
        items = owed.setdefault(due.to, [])
        for slot in due.slots:
            if _lacks(ts, slot, seat) and all(o.slot != slot for o in items):
                items.append(Owed(slot, PURPOSE_PRIVATE, due.to))
    return owed


def _lacks(ts: TableState, slot: Slot, seat: int) -> bool:
    return ts.slot_ready(slot) and seat not in ts.shares.get(slot, {})


class ProvenTurns:
    """Proven shuffle turns made ahead (issue 28), by a digest of every input, and the
    turns this process made.

    A seat may prove its turn on a deck that has arrived while it still checks
    that deck's proofs (deck.md §6.3, "What may overlap"); it still sends the
    turn only from its accepted state (``public_duty``), which finds it here.
    The turn is deterministic in its inputs, so a found turn is byte for byte
    the one ``make_proven_shuffle`` would make. A few are kept, each used once.

    Its maker need not check a turn's proof either: ``make_proven_shuffle``
    proves a true statement (the proof system's completeness, deck.md §6.4), so
    the node records the memo key of each turn made here (``made_here``) instead
    of spending a check on it (net.md §7.1; issue 28: a check costs more than the
    proof). Only this honest maker records: a turn made any other way (a
    cheat's, or one read back from disk) is checked like any other seat's.
    """

    __slots__ = ("_made", "_turns", "made", "used")
    KEEP = 4
    #: Memo keys of the last turns made here: a deck's turn, taken seconds later.
    KEEP_MADE = 16

    def __init__(self) -> None:
        self._turns: OrderedDict[bytes, tuple[ShuffleMessage, ShuffleProof]] = OrderedDict()
        self._made: OrderedDict[bytes, None] = OrderedDict()
        #: Turns made here (ahead or not) and turns found made ahead.
        self.made = 0
        self.used = 0

    def prove(self, previous: Sequence[Ciphertext], secrets: PeerSecrets, table: bytes,
              round_number: int, deck: int, turn: int, joint_key: Point, *, ahead: bool = False
              ) -> tuple[ShuffleMessage, ShuffleProof]:
        """This seat's proven turn of ``previous``: one made ahead, or made now (and,
        ``ahead``, kept for the state that will ask for it)."""
        key = _turn_key(previous, secrets, table, round_number, deck, turn, joint_key)
        # Made ahead twice (a head start, then the entry that logs the turn before): the
        # second finds it and leaves it for the duty, which takes it.
        found = self._turns.get(key) if ahead else self._turns.pop(key, None)
        if found is not None:
            self.used += not ahead
            return found
        context = shuffle_context(table, round_number, deck, secrets.peer, turn=turn)
        made = make_proven_shuffle(previous, shuffle_master=secrets.shuffle_master,
                                   round_number=round_number, deck=deck, joint_key=joint_key,
                                   context=context)
        self.made += 1
        message, proof = made
        self._made[verified_key(previous, message.ciphertexts, proof.to_wire(), joint_key,
                                context)] = None
        for stale in list(self._made)[:-self.KEEP_MADE]:  # single steps: any thread
            self._made.pop(stale, None)
        if ahead:
            self._turns[key] = made
            for stale in list(self._turns)[:-self.KEEP]:
                self._turns.pop(stale, None)
        return made

    def made_here(self, key: bytes) -> bool:
        """Whether the turn with this memo key (``ShuffleStatement.key``) was made here."""
        return key in self._made


def _turn_key(previous: Sequence[Ciphertext], secrets: PeerSecrets, table: bytes,
              round_number: int, deck: int, turn: int, joint_key: Point) -> bytes:
    digest = hashlib.sha256(b"uno-lan/turn-ahead\x00")
    for part in (secrets.peer, secrets.shuffle_master, table, joint_key.to_wire()):
        digest.update(len(part).to_bytes(4, "big") + part)
    digest.update(b"%d %d %d %d\x00" % (round_number, deck, turn, len(previous)))
    for ciphertext in previous:
        digest.update(ciphertext.to_wire())
    return digest.digest()


#: This process's turns made ahead (a node's worker thread makes and takes them).
PROVEN_TURNS = ProvenTurns()


def shuffle_due(ts: TableState, seat: int) -> int | None:
    """The number of the shuffle this seat must take its turn in, if any."""
    if ts.phase != TablePhase.PLAYING:
        return None
    for deck in ts.decks:
        if deck.next_shuffler == seat:
            return deck.number
    return None


def waiting_for(ts: TableState) -> list[int]:
    """The seats the table waits for (no entry can move the game on without them)."""
    seats = range(len(ts.seats))
    if ts.phase == TablePhase.KEYS:
        return [s for s in seats if ts.keys[s] is None]
    if ts.phase == TablePhase.REVEALING:
        return sorted(ts.reveals_expected - set(ts.reveals))
    if ts.phase != TablePhase.PLAYING:
        return []
    return [s for s in seats if shuffle_due(ts, s) is not None
            or public_shares_owed(ts, s) or private_shares_owed(ts, s)]


def turn_deadline(ts: TableState) -> int | None:
    """When the decision owed now runs out on the table clock, or None if none is timed
    (the engine's ``State.decision_deadline_ms``, while the table plays).

    The player's screen counts down to this moment and the sequencer times out on it,
    so both read it here. The sequencer waits longer while a peer's work (shares, a
    shuffle) is awaited: the game then waits for that peer, not for the player, so a
    time-out never comes early.
    """
    game = ts.engine
    if ts.phase != TablePhase.PLAYING or game is None:
        return None
    return game.decision_deadline_ms()


def make_item(ts: TableState, secrets: PeerSecrets, seat: int, owed: Owed) -> ShareItem:
    """This seat's proven share for one ``Owed``."""
    context = share_context(ts, owed.slot, seat, owed.purpose, owed.recipient)
    share = make_share(secrets, ts.ciphertext(owed.slot), context)
    return ShareItem(owed.slot.shuffle, seat, owed.purpose, owed.recipient, share.position,
                     share.share.to_wire(), share.proof.to_wire())


def public_duty(ts: TableState, secrets: PeerSecrets, seat: int,
                channel_seed: bytes) -> KeySetup | ShuffleDeck | Shares | RevealSecrets | None:
    """The next public message this seat owes, or None."""
    if ts.phase == TablePhase.KEYS and ts.keys[seat] is None:
        announcement = secrets.announce()
        return KeySetup(announcement.public_key.to_wire(), announcement.commitment,
                        announcement.proof.to_wire())
    if ts.phase == TablePhase.REVEALING:
        if seat in ts.reveals_expected and seat not in ts.reveals:
            reveal = secrets.reveal()
            return RevealSecrets(reveal.key_share.to_wire(), reveal.shuffle_master, channel_seed)
        return None
    number = shuffle_due(ts, seat)
    if number is not None:
        deck = ts.decks[number]
        message, proof = PROVEN_TURNS.prove(deck.ciphertexts, secrets, ts.table_id, deck.round,
                                            deck.number, len(deck.done), table_key(ts))
        start = named_deck(deck) if ts.version >= 2 else None  # table.md §4.1
        return ShuffleDeck(number, tuple(message.to_wire()), proof.to_wire(), start)
    owed = public_shares_owed(ts, seat)[:MAX_SHARES]
    if owed:
        return Shares(tuple(make_item(ts, secrets, seat, o) for o in owed))
    return None


def turn_on_pending(pending: TableState, accepted: TableState, secrets: PeerSecrets,
                    seat: int) -> ShuffleDeck | None:
    """This seat's shuffle turn due in ``pending`` (``Ledger.pending_check``: the state an
    arrived turn leads to, its proof still being checked) and not in ``accepted``: the
    turn sent ahead (deck.md §6.3, "What may overlap"; issue 28), byte for byte the one
    ``public_duty`` gives once the arrived turn is accepted. Never shares: those come
    only from the accepted state."""
    number = shuffle_due(pending, seat)
    if number is None or shuffle_due(accepted, seat) is not None:
        return None
    body = public_duty(pending, secrets, seat, b"")
    return body if isinstance(body, ShuffleDeck) else None


def move_proofs(ts: TableState, secrets: PeerSecrets, seat: int, action: Action,
                received: Mapping[tuple[Slot, int], ShareItem]) -> tuple[ShareItem, ...]:
    """The shares a move by ``seat`` must carry (table.md §5): for each card it shows,
    its own open share and the private shares others gave it of that card.

    Raises:
        LocalProtocolError: a share this peer was never given (it cannot prove the card).
    """
    if not isinstance(action, Play):
        return ()  # a challenge verdict shows no card (RULES.md: the challenger alone sees)
    slots: list[Slot] = list(action.slots)
    items = []
    for slot in slots:
        for holder in ts.missing_shares(slot):
            if holder == seat:
                items.append(make_item(ts, secrets, seat, Owed(slot, PURPOSE_OPEN, NO_SEAT)))
            elif (slot, holder) in received:
                items.append(received[slot, holder])
            else:
                raise LocalProtocolError(f"no share of the card at {tuple(slot)} to prove it")
    return tuple(items)
