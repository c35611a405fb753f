"""The game part of applying an entry: decks, shares, moves and the engine.

docs/protocol/table.md §4-§6. Pure functions from a ``TableState`` to a new
one; a failed check raises ``Misbehaviour`` and the old state is untouched.
The engine is driven exactly as ``uno_p2p.rules`` documents it: each event it
raises becomes table work (a joint shuffle, deal shares, a private reveal)
and each public reveal it waits for is answered, by every peer on its own,
as soon as the log holds every share of the awaited cards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from uno_p2p.crypto.audit import ShuffleCheatDetected, reexecute_shuffle
from uno_p2p.crypto.cards import card_of
from uno_p2p.crypto.context import ProofContext
from uno_p2p.crypto.group import Point, sum_points
from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.keys import joint_key
from uno_p2p.crypto.shares import DecryptionShare, verify_share
from uno_p2p.crypto.shuffle import Ciphertext, ShuffleMessage, initial_deck, shuffle_context
from uno_p2p.crypto.shuffle_proof import verify_proven_shuffle
from uno_p2p.errors import CryptoError, IllegalAction, InvalidMessage
from uno_p2p.rules.actions import (
    Action,
    ErrorPenalty,
    Play,
    Reseat,
    Reveal,
    TimeOut,
)
from uno_p2p.rules.cards import CARD_COUNT, COLOUR_NAMES, long_name
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.engine import apply as engine_apply
from uno_p2p.rules.engine import new_game
from uno_p2p.rules.events import (
    EVERYONE,
    CardsDrawn,
    CardsPlayed,
    ChallengeResolved,
    ClaimViolated,
    DealerChosen,
    Event,
    GameOver,
    RevealRequested,
    RoundOver,
    ShuffleRequested,
    UnoCaught,
    UnoSaid,
)
from uno_p2p.rules.state import OMNISCIENT, Phase, State
from uno_p2p.table.bodies import DeckStart, Move, ShareItem, Shares, ShuffleDeck
from uno_p2p.table.events import (
    ActionApplied,
    GameEnded,
    MovePlayed,
    PeerMisbehaved,
    RoundEnded,
    TableEvent,
)
from uno_p2p.table.state import (
    DeckState,
    Misbehaviour,
    PrivateDue,
    TablePhase,
    TableState,
    check_transition,
)
from uno_p2p.wire.envelope import Entry

Events = list[TableEvent]
RESEAT_LABEL = b"uno-lan/table/v1/reseat\x00"


def fault(entry: Entry | None, seq: int, culprit: PeerId | None, code: str,
          why: str) -> Misbehaviour:
    """A ``Misbehaviour`` naming ``culprit``, with ``entry`` as the evidence."""
    return Misbehaviour(f"entry {seq}: {why}", culprit=culprit, entry=seq, code=code,
                        evidence=() if entry is None else (entry,))


def table_key(ts: TableState) -> Point:
    """The joint key ``H`` of every seat (docs/protocol/deck.md §4.2)."""
    return joint_key([ts.key(seat) for seat in range(len(ts.seats))])


def judge_publicly(state: State, action: Action, now_ms: int) -> tuple[State, list[Event]]:
    """Apply ``action`` as an observer would: with the public faces only.

    docs/protocol/table.md §7: every peer, the sequencer and the audit must
    reach the same verdict on an entry, so none may refuse one with what only
    it has seen (its hand, a card shown to it privately). A hidden fact it
    knows is used through the claims the log can prove: the engine records the
    claim (a Wild Draw Four's "no card of the colour"), this peer's private
    faces are put back, and the claim is judged at the public round-end reveal.

    Raises:
        IllegalAction: the rules refuse the action on public knowledge.
    """
    known = state.known
    public = {slot: card for slot, card in known.items() if slot in state.public}
    public.update(state.discard)
    if len(public) == len(known):
        return engine_apply(state, action, now_ms)
    new, events = engine_apply(replace(state, known=public), action, now_ms)
    if new.round == state.round:
        new = replace(new, known={**known, **new.known})
    return new, events


# -- starting the engine ------------------------------------------------------------------
def start_engine(ts: TableState, seq: int) -> tuple[TableState, Events]:
    """Every key is in: the engine starts (dealer selection asks for shuffle 0)."""
    seat = ts.my_seat
    state, engine_events = new_game(
        ts.rules, ts.player_names, viewer=OMNISCIENT if seat is None else seat,
        now_ms=ts.clock_ms,
    )
    check_transition(ts.phase, TablePhase.PLAYING)
    ts = replace(ts, engine=state, phase=TablePhase.PLAYING)
    return follow(ts, engine_events, seq)


def reseat_order(ts: TableState, seq: int) -> tuple[int, ...]:
    """The new seating (``seat_shuffle_every``), drawn from the log's public faces.

    docs/protocol/table.md §4.2: a Fisher-Yates shuffle driven by
    ``reseat_stream``, seeded by the table id, the round just ended and every
    face opened publicly so far; with teams, each team is shuffled within
    itself (team order) and teams stay seated alternately.
    """
    state = ts.game
    faces = b"".join(slot.shuffle.to_bytes(4, "big") + slot.position.to_bytes(4, "big")
                     + card.to_bytes(4, "big") for slot, card in sorted(ts.opened.items()))
    seed = hashlib.sha256(RESEAT_LABEL + ts.table_id + state.round.to_bytes(4, "big")
                          + faces).digest()
    below = reseat_stream(seed)
    n, teams = len(state.players), ts.rules.teams
    groups = [list(range(n))] if not teams else \
        [[s for s in range(n) if s % teams == t] for t in range(teams)]
    for group in groups:
        for i in range(len(group) - 1, 0, -1):
            j = below(i + 1)
            group[i], group[j] = group[j], group[i]
    if not teams:
        return tuple(groups[0])
    return tuple(groups[i % teams][i // teams] for i in range(n))


def reseat_stream(seed: bytes) -> Callable[[int], int]:
    """``below(b)``: uniform in ``0..b-1`` from ``SHA-256(seed || u64be(i))``, i = 0, 1, ...

    The blocks are read as consecutive big-endian u32 words, first bytes
    first; a word ``v >= 2^32 - (2^32 mod b)`` is skipped (no modulo bias).
    """
    words: list[int] = []
    counter = 0

    def below(bound: int) -> int:
        nonlocal counter
        limit = (1 << 32) - (1 << 32) % bound
        while True:
            if not words:
                block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
                counter += 1
                words.extend(int.from_bytes(block[i:i + 4], "big") for i in range(28, -4, -4))
            word = words.pop()
            if word < limit:
                return word % bound

    return below


# -- engine events -> table work -----------------------------------------------------------
def follow(ts: TableState, engine_events: Iterable[Event], seq: int) -> tuple[TableState, Events]:
    """Turn the engine's events into table work and facts, then settle what can be settled."""
    events: Events = []
    for event in engine_events:
        ts = _follow_one(ts, event, seq, events)
    ts, more = settle(ts, seq)
    return ts, events + more


def _follow_one(ts: TableState, event: Event, seq: int, events: Events) -> TableState:
    names = ts.game.players
    if isinstance(event, ShuffleRequested):
        return replace(ts, decks=(*ts.decks, _new_deck(ts, event, seq)))
    if isinstance(event, CardsDrawn):
        events.append(MovePlayed(event.seat, f"{names[event.seat]} took {len(event.slots)} "
                                 f"card{'s' if len(event.slots) != 1 else ''} ({event.reason})",
                                 seq))
        return replace(ts, deals=(*ts.deals, (event.seat, event.slots)))
    if isinstance(event, RevealRequested) and event.to != EVERYONE:
        owed = frozenset(seat for slot in event.slots for seat in ts.missing_shares(slot)
                         if seat != event.to)
        if owed:
            due = PrivateDue(event.to, event.slots, owed, event.reason)
            return replace(ts, privates=(*ts.privates, due))
        return ts
    if isinstance(event, ClaimViolated):
        peer = ts.seats[event.seat]
        events.append(PeerMisbehaved(peer, names[event.seat], seq, event.rule, event.message))
        return ts
    if isinstance(event, RoundOver):
        # A void round changes nothing; told per seat as the seats now are (a removal
        # voids the round and closes the seats up, table.md §14.2, so the engine's
        # changes still count the seat that left).
        changes = event.changes if event.winner >= 0 else (0,) * len(ts.game.scores)
        events.append(RoundEnded(event.round, event.winner, changes, ts.game.scores))
        return ts
    if isinstance(event, GameOver):
        check_transition(ts.phase, TablePhase.REVEALING)
        return replace(ts, phase=TablePhase.REVEALING)
    text = describe_event(event, names)
    if text:
        events.append(MovePlayed(getattr(event, "seat", -1), text, seq))
    return ts


def describe_event(event: Event, names: tuple[str, ...]) -> str:
    """A fact of the engine in plain words, or "" for work requests."""
    if isinstance(event, CardsPlayed):
        cards = " and ".join(long_name(card) for card in event.cards)
        said = f", naming {COLOUR_NAMES[event.colour]}" if event.colour >= 0 and \
            all(card >= 100 for card in event.cards) else ""
        return f"{names[event.seat]} played {cards}{said}"
    if isinstance(event, UnoSaid):
        return f"{names[event.seat]} said UNO"
    if isinstance(event, UnoCaught):
        return f"{names[event.seat]} caught {names[event.target]} without UNO"
    if isinstance(event, ChallengeResolved):
        verdict = "guilty" if event.guilty else "not guilty"
        return f"{names[event.challenger]} challenged {names[event.challenged]}: {verdict}"
    if isinstance(event, DealerChosen):
        return f"{names[event.seat]} deals round {event.round}"
    return ""


def _new_deck(ts: TableState, event: ShuffleRequested, seq: int) -> DeckState:
    """The starting list of a requested shuffle (docs/protocol/deck.md §6.1).

    Raises:
        Misbehaviour: ``duplicate_card``: the discard pile to reshuffle holds one
            card twice, which only a dishonest shuffle can cause (table.md §7.4).
    """
    carried: tuple[Slot, ...] = ()
    if not event.sources:
        card_ids: tuple[int, ...] = tuple(range(CARD_COUNT))
    elif event.faces:
        card_ids = tuple(sorted(event.faces))
        twice = sorted({card for card in card_ids if card_ids.count(card) > 1})
        if twice:
            raise Misbehaviour(f"entry {seq}: the pile to reshuffle holds "
                               f"{long_name(twice[0])} twice", culprit=None, entry=seq,
                               code="duplicate_card")
    else:
        card_ids, carried = (), tuple(event.sources)
    start = tuple(ts.ciphertext(slot) for slot in carried)
    if card_ids:
        start += initial_deck(card_ids)
    return DeckState(event.shuffle, ts.game.round, card_ids, carried, start,
                     tuple(range(len(ts.seats))), start=start, sources=tuple(event.sources),
                     faces=tuple(event.faces))


def settle(ts: TableState, seq: int) -> tuple[TableState, Events]:
    """Answer what the log now allows: a public reveal whose shares are all in, a reseat."""
    events: Events = []
    while ts.engine is not None and ts.phase == TablePhase.PLAYING:
        state = ts.engine
        if state.phase == Phase.RESEAT:
            action: Action = Reseat(reseat_order(ts, seq))
        elif state.awaiting and all(ts.slot_ready(s) and not ts.missing_shares(s)
                                    for s in state.awaiting):
            ts, faces = _open_all(ts, state.awaiting, seq)
            action = Reveal(faces)
        else:
            break
        try:
            new_state, engine_events = judge_publicly(state, action, ts.clock_ms)
        except IllegalAction as error:
            # The engine refused what every share proved: only a dishonest shuffle
            # can do that (two slots opening to one card); the reveal names the cheat.
            raise Misbehaviour(f"entry {seq}: the opened cards break the game: {error}",
                               culprit=None, entry=seq, code="bad_deck") from error
        events.extend(applied(ts, state, action, engine_events, new_state, seq))
        ts, more = follow(replace(ts, engine=new_state), engine_events, seq)
        events.extend(more)
    deals = tuple(d for d in ts.deals if any(
        seat != d[0] for slot in d[1] for seat in ts.missing_shares(slot)))
    privates = []
    for due in ts.privates:
        # A seat whose shares of these cards became public owes nothing private.
        owed = frozenset(s for s in due.owed
                         if any(s in ts.missing_shares(slot) for slot in due.slots))
        if owed:
            privates.append(replace(due, owed=owed))
    return replace(ts, deals=deals, privates=tuple(privates)), events


# -- opening ------------------------------------------------------------------------------
def open_with(ts: TableState, slot: Slot, shares: Mapping[int, Point], *, seq: int,
              own: Point | None = None) -> int:
    """The card at ``slot`` from ``shares`` (and this peer's ``own`` share).

    Raises:
        Misbehaviour: the point is no card (``unknown_card``): a dishonest
            shuffle, named at the end-of-game reveal.
    """
    ciphertext = ts.ciphertext(slot)
    points = list(shares.values()) + ([] if own is None else [own])
    try:
        return card_of(ciphertext.c2 - sum_points(points), item=f"card at {tuple(slot)}")
    except CryptoError as error:
        raise Misbehaviour(f"entry {seq}: {error}", culprit=None, entry=seq,
                           code="unknown_card") from error


def _open_all(ts: TableState, slots: Iterable[Slot],
              seq: int) -> tuple[TableState, tuple[tuple[Slot, int], ...]]:
    opened = dict(ts.opened)
    faces = []
    for slot in slots:
        card = open_with(ts, slot, ts.shares[slot], seq=seq)
        check_opened_once(opened, slot, card, seq)
        opened[slot] = card
        faces.append((slot, card))
    return replace(ts, opened=opened), tuple(faces)


def check_opened_once(opened: Mapping[Slot, int], slot: Slot, card: int, seq: int) -> None:
    """A card id opens at most once per deck (docs/protocol/deck.md §7).

    Two slots of one deck opening to one card is a proven fault of some shuffle
    (the proofs of shuffle make it impossible), named at once; the reveal's
    re-execution names the shuffler.

    Raises:
        Misbehaviour: code ``duplicate_card``.
    """
    for other, seen in opened.items():
        if seen == card and other != slot and other.shuffle == slot.shuffle:
            raise Misbehaviour(f"entry {seq}: slots {tuple(other)} and {tuple(slot)} both "
                               f"hold {long_name(card)}", culprit=None, entry=seq,
                               code="duplicate_card")


# -- shares -------------------------------------------------------------------------------
def share_context(ts: TableState, slot: Slot, prover: int, purpose: str,
                  recipient: int) -> ProofContext:
    """The context a share of ``slot`` is proven in (docs/protocol/deck.md §2)."""
    deck = ts.decks[slot.shuffle]
    to = b"" if recipient < 0 else ts.seats[recipient].key
    return ProofContext(ts.table_id, deck.round, deck.number, purpose, ts.seats[prover].key,
                        slot.position, to)


def verify_item(ts: TableState, item: ShareItem, entry: Entry | None, seq: int) -> Point:
    """Check one share's proof against its slot's ciphertext and the prover's key.

    Raises:
        Misbehaviour: code ``bad_share`` naming the prover (a forged or misplaced share).
    """
    slot = Slot(item.shuffle, item.position)
    prover = ts.seats[item.prover] if item.prover < len(ts.seats) else None
    if prover is None or item.recipient >= len(ts.seats) or not ts.slot_ready(slot):
        raise fault(entry, seq, None if entry is None else entry.author, "bad_share",
                    f"a share for {tuple(slot)} names no seat or no shuffled card")
    key = ts.key(item.prover)
    context = share_context(ts, slot, item.prover, item.purpose, item.recipient)
    try:
        share = DecryptionShare.from_wire(item.share_wire, peer=prover.fingerprint)
        verified = verify_share(share, ciphertext=ts.ciphertext(slot), key=key, context=context)
    except (CryptoError, InvalidMessage) as error:
        raise fault(entry, seq, prover, "bad_share", str(error)) from error
    return verified.value.share


def _add_shares(ts: TableState, found: Iterable[tuple[Slot, int, Point]]) -> TableState:
    shares = dict(ts.shares)
    for slot, seat, point in found:
        shares[slot] = {**shares.get(slot, {}), seat: point}
    return replace(ts, shares=shares)


def apply_shares(ts: TableState, entry: Entry | None, seq: int, author: PeerId,
                 body: Shares) -> tuple[TableState, Events]:
    """A batch of public shares: each must be owed (a deal or an awaited opening) and proven."""
    seat = ts.seat_of(author.key)
    if ts.phase != TablePhase.PLAYING or seat is None or ts.engine is None:
        raise fault(entry, seq, author, "unexpected", "shares outside play")
    owed = owed_items(ts, seat, body)
    found = [(Slot(item.shuffle, item.position), seat, verify_item(ts, item, entry, seq))
             for item in owed]
    if len(owed) < len(body.items):
        stray = body.items[len(owed)]
        raise fault(entry, seq, author, "unexpected_share",
                    f"a share of {(stray.shuffle, stray.position)} that is not owed now")
    return settle(_add_shares(ts, found), seq)


def owed_items(ts: TableState, seat: int, body: Shares) -> tuple[ShareItem, ...]:
    """The leading items of ``body`` that ``seat`` owes now (a deal's share to another
    seat, or an awaited opening; none it gave already, none twice): ``apply_shares``
    checks their proofs in order and refuses the batch at the first item past them,
    before its proof. So a batch of shares nobody asked for costs no proof check
    (``offload.share_statements`` lists only these)."""
    if ts.engine is None:
        return ()
    owed_deals = {slot: to for to, slots in ts.deals for slot in slots}
    taken: set[Slot] = set()
    for index, item in enumerate(body.items):
        slot = Slot(item.shuffle, item.position)
        deal_ok = item.purpose == "deal" and owed_deals.get(slot, -2) == item.recipient != seat
        open_ok = item.purpose == "open" and slot in ts.engine.awaiting
        if item.prover != seat or seat in ts.shares.get(slot, {}) or \
                not (deal_ok or open_ok) or slot in taken:
            return body.items[:index]
        taken.add(slot)
    return body.items


def apply_shuffle(ts: TableState, entry: Entry | None, seq: int, author: PeerId,
                  body: ShuffleDeck, *, proof_pending: bool = False
                  ) -> tuple[TableState, Events]:
    """A seat's turn in a joint shuffle, proven on arrival (docs/protocol/deck.md §6.3).

    A shuffle without a valid proof of shuffle is refused naming its author
    (``bad_shuffle``): the deck never becomes ready, so no share of it is owed
    or accepted and no card of it opens. ``proof_pending`` leaves the proof
    unchecked (every other check is made): only for ``Ledger.pending_check``,
    whose state is never accepted (deck.md §6.3, "What may overlap").

    Raises:
        Misbehaviour: the turn is refused (its author named).
    """
    seat = ts.seat_of(author.key)
    if ts.phase != TablePhase.PLAYING or not ts.void_decks <= body.shuffle < len(ts.decks):
        raise fault(entry, seq, author, "unexpected", f"no shuffle {body.shuffle} is under way")
    deck = ts.decks[body.shuffle]
    if seat is None or deck.next_shuffler != seat:
        raise fault(entry, seq, author, "out_of_turn", "it is not this seat's turn to shuffle")
    _check_named_deck(ts, entry, seq, author, deck, body)
    context = shuffle_context(ts.table_id, deck.round, deck.number, author.key,
                              turn=len(deck.done))
    try:
        message = ShuffleMessage.from_wire(list(body.ciphertexts), peer=author.fingerprint)
        if not proof_pending:
            message = verify_proven_shuffle(message, body.proof, deck.ciphertexts,
                                            joint_key=table_key(ts), context=context).value
    except (CryptoError, InvalidMessage) as error:
        raise fault(entry, seq, author, "bad_shuffle", str(error)) from error
    cts: tuple[Ciphertext, ...] = message.ciphertexts
    new = replace(deck, ciphertexts=cts, shufflers=deck.shufflers[1:],
                  done=(*deck.done, seat), shuffles=(*deck.shuffles, cts),
                  proofs=(*deck.proofs, body.proof), entries=(*deck.entries, seq))
    decks = (*ts.decks[:body.shuffle], new, *ts.decks[body.shuffle + 1:])
    return settle(replace(ts, decks=decks), seq)


def named_deck(deck: DeckState) -> DeckStart:
    """What a version 2 shuffle of ``deck`` names (table.md §4.1): its round and request."""
    return DeckStart(deck.round, deck.sources, deck.faces)


def _check_named_deck(ts: TableState, entry: Entry | None, seq: int, author: PeerId,
                      deck: DeckState, body: ShuffleDeck) -> None:
    """A version 2 shuffle names its deck exactly as the engine asked for it, so a
    verifier without the engine checks its proof from the log (deck.md §6.1); a
    version 1 shuffle names nothing."""
    if ts.version == 1 and body.start is not None:
        raise fault(entry, seq, author, "bad_shuffle",
                    "a version 1 table's shuffle does not name its deck")
    if ts.version >= 2 and body.start != named_deck(deck):
        raise fault(entry, seq, author, "bad_shuffle", "the shuffle does not name its deck's "
                    f"round {deck.round} and starting cards as the engine asked for them")


def discharged(ts: TableState, seat: int | None, to: int | None,
               seen: TableState | None) -> list[PrivateDue]:
    """The private reveals a sealed body from ``seat`` to ``to`` discharges (§4.3): those
    owed now (every card shuffled) that its author had seen (``seen``: the table at the
    author's head, when still remembered), so exactly those an honest seat covers."""
    asked = None if seen is None else {(d.to, d.slots, d.reason) for d in seen.privates}
    return [d for d in ts.privates if d.to == to and seat in d.owed
            and all(ts.slot_ready(s) for s in d.slots)
            and (asked is None or (d.to, d.slots, d.reason) in asked)]


def apply_sealed(ts: TableState, entry: Entry | None, seq: int, author: PeerId,
                 recipient: PeerId, seen: TableState | None = None
                 ) -> tuple[TableState, Events]:
    """A sealed private reveal: it must be owed by its author to its recipient (§4.3).

    Only the recipient can read and check it (``knowledge.check_covers``); the log
    records that it was sent, and the reveals it discharges.
    """
    seat, to = ts.seat_of(author.key), ts.seat_of(recipient.key)
    due = discharged(ts, seat, to, seen)
    if ts.phase != TablePhase.PLAYING or seat is None or not due:
        raise fault(entry, seq, author, "unexpected_private",
                    "a private reveal that nobody asked for")
    privates = []
    for item in ts.privates:
        if item in due:
            item = replace(item, owed=item.owed - {seat})
        if item.owed:
            privates.append(item)
    return replace(ts, privates=tuple(privates)), []


# -- moves --------------------------------------------------------------------------------
def apply_move(ts: TableState, entry: Entry | None, seq: int, author: PeerId,
               body: Move) -> tuple[TableState, Events]:
    """An engine action with the shares proving its faces (docs/protocol/table.md §5)."""
    state = ts.engine
    seat = ts.seat_of(author.key)
    if ts.phase != TablePhase.PLAYING or state is None or seat is None:
        raise fault(entry, seq, author, "unexpected", "a move outside play")
    action = body.action
    _check_mover(ts, entry, seq, author, seat, action)
    try:  # the rules first: a move the rules refuse is refused whatever it proves
        new_state, engine_events = judge_publicly(state, action, ts.clock_ms)
    except IllegalAction as error:
        raise fault(entry, seq, author, "illegal_move",
                    f"{error} (rule {error.rule})") from error
    found = [(Slot(i.shuffle, i.position), i.prover, verify_item(ts, i, entry, seq))
             for i in _move_shares(ts, entry, seq, author, seat, body)]
    ts = _add_shares(ts, found)
    _check_faces(ts, entry, seq, author, action)
    opened = dict(ts.opened)
    for slot, card in _shown_faces(action):
        check_opened_once(opened, slot, card, seq)
        opened[slot] = card
    ts, events = follow(replace(ts, engine=new_state, opened=opened), engine_events, seq)
    return ts, [*applied(ts, state, action, engine_events, new_state, seq), *events]


def applied(ts: TableState, before: State, action: Action, engine_events: list[Event],
            after: State, seq: int) -> Events:
    """``ActionApplied`` for a seated peer's own player (none for an observer, the audit,
    which would only keep every state of the game for nothing)."""
    if ts.my_seat is None:
        return []
    return [ActionApplied(before, action, tuple(engine_events), after, seq)]


def _check_mover(ts: TableState, entry: Entry | None, seq: int, author: PeerId, seat: int,
                 action: Action) -> None:
    if isinstance(action, Reveal | Reseat | ErrorPenalty):
        raise fault(entry, seq, author, "not_a_move", "reveals and seatings come from the log")
    if isinstance(action, TimeOut):
        if ts.host is None or author != ts.host:
            raise fault(entry, seq, author, "not_sequencer", "only the sequencer times out")
        if not ts.clock_started:
            # table.md §6.1: time is measured from the start clock; without it no peer
            # could check that the time-out's clock kept to real time.
            raise fault(entry, seq, author, "no_start_clock",
                        "a time-out before the sequencer set the table clock")
        return
    if getattr(action, "seat", seat) != seat:
        raise fault(entry, seq, author, "wrong_seat", "a move made in another player's name")


def _move_shares(ts: TableState, entry: Entry | None, seq: int, author: PeerId, seat: int,
                 body: Move) -> tuple[ShareItem, ...]:
    """The shares a move may carry: its own open shares of the cards it plays (a
    challenge verdict shows no card: the hand is the challenger's alone, table.md §5.1)."""
    action = body.action
    for item in body.shares:
        slot = Slot(item.shuffle, item.position)
        if isinstance(action, Play):
            # Its own open share, or a share a previous holder revealed to it
            # privately (a card that came by a swap or a hand pass, deck.md §7).
            own = item.purpose == "open" and item.prover == seat
            passed = item.purpose == "private" and item.recipient == seat != item.prover
            ok = (own or passed) and slot in action.slots
        else:
            ok = False
        if not ok or item.prover in ts.shares.get(slot, {}):
            raise fault(entry, seq, author, "unexpected_share",
                        f"a share of {tuple(slot)} this move cannot carry")
    return body.shares


def _shown_faces(action: Action) -> list[tuple[Slot, int]]:
    if isinstance(action, Play):
        return list(zip(action.slots, action.cards, strict=True))
    return []


def _check_faces(ts: TableState, entry: Entry | None, seq: int, author: PeerId,
                 action: Action) -> None:
    """Every face a move shows must open, from the log's shares, to the claimed card."""
    for slot, claimed in _shown_faces(action):
        missing = ts.missing_shares(slot) if ts.slot_ready(slot) else ["deck"]
        if missing:
            raise fault(entry, seq, author, "unproven_face",
                        f"the card at {tuple(slot)} is shown without every share")
        card = open_with(ts, slot, ts.shares[slot], seq=seq)
        if card != claimed:
            raise fault(entry, seq, author, "wrong_face",
                        f"claimed {long_name(claimed)} at {tuple(slot)} but it is "
                        f"{long_name(card)}")


def game_result(ts: TableState) -> GameEnded:
    """The final word once every reveal is in."""
    state = ts.engine
    scores = () if state is None else state.scores
    winner = -1 if state is None or ts.stop is not None or state.winner is None \
        else state.winner
    stopped = "" if ts.stop is None else ts.stop.reason
    return GameEnded(winner, scores, stopped, ts.audit_error)


# -- the reveal's second line of defence (docs/protocol/deck.md §9) -----------------------
def convict_shuffles(ts: TableState, seat: int, shuffle_master: bytes,
                     seq: int) -> PeerMisbehaved | None:
    """Re-execute every shuffle ``seat`` made from its just revealed seed, alone.

    Independent of the other seats' reveals, so a cheater's own reveal convicts
    it even when another seat never reveals. Returns the first conviction,
    naming the shuffle's entry, or None.
    """
    peer = ts.seats[seat]
    key = table_key(ts)
    # A void round's decks (table.md §14) were shuffled under the old seating's key and
    # seat numbers: they stay shut, and unproven, like the whole-game re-execution's.
    for deck in ts.decks[ts.void_decks:]:
        for turn, shuffler in enumerate(deck.done):
            if shuffler != seat:
                continue
            where = f"round {deck.round} deck {deck.number}: shuffle by seat {seat}"
            try:
                reexecute_shuffle(deck.input_of(turn), deck.shuffles[turn],
                                  shuffle_master=shuffle_master, round_number=deck.round,
                                  deck=deck.number, joint_key=key, peer=peer.key, where=where)
            except ShuffleCheatDetected as error:
                entry = deck.entries[turn] if turn < len(deck.entries) else seq
                return PeerMisbehaved(peer, ts.name_of(peer.key), entry, error.code, str(error))
    return None
