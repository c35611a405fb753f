"""Applying one log entry: the single path every peer, the sequencer and the audit run.

docs/protocol/table.md §2-§8. ``apply_entry(state, entry)`` is pure: it
checks the entry's body against everything the log has said so far (lobby
rules, keys, decks, shares, the engine's rules) and returns the new state
and the public facts, or raises ``Misbehaviour`` naming who broke what, and
leaves the state as it was. The chain itself (signatures, sequence numbers,
heads, equivocation) is ``uno_p2p.wire.chain``'s ``ChainVerifier``, which
the ``Ledger`` runs first.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from uno_p2p.crypto.audit import DeckRecord, verify_game
from uno_p2p.crypto.channel import ChannelKey, check_channel_key
from uno_p2p.crypto.group import Scalar
from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.keys import (
    KeyAnnouncement,
    SecretsReveal,
    verify_key_announcement,
    verify_secrets_reveal,
)
from uno_p2p.crypto.shuffle import ShuffleMessage
from uno_p2p.errors import ConfigError, CryptoError, InvalidMessage, RemoteProtocolError
from uno_p2p.rules.engine import public_digest
from uno_p2p.rules.options import Options
from uno_p2p.table import game
from uno_p2p.table.bodies import (
    Abort,
    Clock,
    Handover,
    KeySetup,
    Move,
    Remove,
    RevealSecrets,
    Shares,
    ShuffleDeck,
)
from uno_p2p.table.events import (
    GameStarted,
    OptionsChanged,
    PeerMisbehaved,
    PlayerJoined,
    PlayerLeft,
    PlayerReady,
    SequencerChanged,
    TableEvent,
)
from uno_p2p.table.game import Events, fault
from uno_p2p.table.handover import HandoverRefused, check_handover, handover_successor
from uno_p2p.table.removal import LEFT, apply_remove, leave_removes, remove_seat
from uno_p2p.table.state import (
    Misbehaviour,
    Seating,
    Stop,
    TablePhase,
    TableState,
    check_transition,
)
from uno_p2p.wire.chain import ChainError, ChainVerifier, verify_entry
from uno_p2p.wire.envelope import PROTOCOL_VERSION, Entry, Head, Message
from uno_p2p.wire.limits import MAX_EVIDENCE_DEPTH
from uno_p2p.wire.lobby import Join, Kick, Leave, OpenTable, Ready, SetOptions, Start
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.registry import Body

DIGEST_LABEL = b"uno-lan/table/v1/digest\x00"
#: How many past states a peer keeps to judge a refused message at its author's head.
HISTORY = 256


def initial_state(table_id: bytes, me: bytes | None = None,
                  version: int = PROTOCOL_VERSION) -> TableState:
    """The state before entry 0 (``me``: this peer's key, ``None`` for an observer;
    ``version``: the one it signs in until entry 0 gives the table's, wire.md §3)."""
    return TableState(table_id=table_id, me=me, phase=TablePhase.LOBBY, version=version)


@dataclass(frozen=True, slots=True)
class LogView:
    """What an entry may be checked against besides the state: the chain so far, and
    the table's state after an earlier entry (``past(seen)``, None when forgotten)."""

    chain: ChainVerifier | None = None
    past: Callable[[int], TableState | None] | None = None
    #: How many ``abort`` evidences deep this check is (MAX_EVIDENCE_DEPTH).
    depth: int = 0


NO_VIEW = LogView()


@dataclass(frozen=True, slots=True)
class _At:
    """Where a body is being applied: its entry (None for a message not yet logged)."""

    entry: Entry | None
    seq: int
    author: PeerId
    #: How many entries its author had seen (its head).
    seen: int = 0
    #: The head its author signed (a hand-over must follow exactly that, table.md §13.2).
    head: Head | None = None
    #: The protocol version its author signed (wire.md §3).
    version: int = PROTOCOL_VERSION

    def fault(self, code: str, why: str, culprit: PeerId | None = None) -> Misbehaviour:
        return fault(self.entry, self.seq, culprit or self.author, code, why)


def apply_entry(ts: TableState, entry: Entry, view: LogView = NO_VIEW
                ) -> tuple[TableState, list[TableEvent]]:
    """Apply one countersigned entry (whose chain checks passed) to ``ts``.

    Raises:
        Misbehaviour: the body breaks the table protocol or the rules; the
            error names the culprit and holds the entry.
    """
    return apply_body(ts, _At(entry, entry.seq, entry.author, entry.message.head.seen,
                              entry.message.head, entry.message.version), entry.body, view)


def check_message(ts: TableState, message: Message, view: LogView = NO_VIEW
                  ) -> tuple[TableState, list[TableEvent]]:
    """Would ``message`` be valid as the next entry? (the sequencer's check, §7).

    Returns the state and facts it would give, so the sequencer need not apply
    it twice.

    Raises:
        Misbehaviour: as ``apply_entry``, naming the message's author.
    """
    return apply_body(ts, _At(None, ts.seq, message.author, message.head.seen, message.head,
                              message.version), message.body, view)


def apply_body(ts: TableState, at: _At, body: Body, view: LogView
               ) -> tuple[TableState, list[TableEvent]]:
    """Dispatch on the body's kind; ``seq`` is always advanced on success."""
    if ts.phase == TablePhase.ENDED:
        raise at.fault("after_end", "the table has ended")
    if at.seq == 0 and not isinstance(body, OpenTable):
        raise at.fault("no_table", "entry 0 must open the table")
    if at.seq > 0 and at.version != ts.version:
        # wire.md §3: a table speaks entry 0's version, whose bodies differ (table.md §4.1).
        raise at.fault("wrong_version", f"a version {at.version} message at a version "
                       f"{ts.version} table")
    handler = _HANDLERS.get(type(body))
    if handler is None:
        raise at.fault("unexpected", f"a {type(body).__name__} has no place at this table")
    new, events = handler(ts, at, body, view)
    return replace(new, seq=at.seq + 1), events


# -- lobby (table.md §3) ------------------------------------------------------------------
def _lobby(ts: TableState, at: _At, *, host_only: bool = False) -> Seating:
    if ts.phase != TablePhase.LOBBY or ts.lobby is None:
        raise at.fault("not_lobby", "the lobby is closed")
    if host_only and at.author != ts.lobby.host:
        raise at.fault("not_host", "only the host may do this")
    return ts.lobby


def _options(at: _At, pairs: tuple[tuple[str, int | bool | str], ...]) -> Options:
    try:
        return Options.from_mapping(dict(pairs))
    except (ConfigError, TypeError) as error:
        raise at.fault("bad_options", f"the options are not valid: {error}") from error


def _check_channel_key(at: _At, public: bytes) -> None:
    """A weak (small-order) X25519 key would make every seal to it fail: refused on
    arrival, naming its owner (wire.md §6)."""
    try:
        check_channel_key(public, peer=at.author.fingerprint)
    except CryptoError as error:
        raise at.fault("bad_channel_key", str(error)) from error


def _open_table(ts: TableState, at: _At, body: OpenTable, _: LogView) -> tuple[TableState, Events]:
    if at.seq != 0 or ts.lobby is not None:
        raise at.fault("reopened", "only entry 0 opens the table")
    _check_channel_key(at, body.channel_key)
    options = _options(at, body.options)
    lobby = Seating(at.author, {at.author.key: body.name}, {at.author.key: body.channel_key},
                    (at.author,), frozenset({at.author.key}), body.preset, body.options,
                    body.max_players)
    return replace(ts, lobby=lobby, version=at.version), [
        PlayerJoined(at.author, body.name), OptionsChanged(body.preset, options)]


def _join(ts: TableState, at: _At, body: Join, _: LogView) -> tuple[TableState, Events]:
    lobby = _lobby(ts, at)
    if at.author.key in lobby.names and at.author in lobby.joined:
        raise at.fault("joined_twice", "this peer has a place already")
    if len(lobby.joined) >= lobby.max_players:
        raise at.fault("table_full", "the table is full")
    if body.name in {lobby.names[p.key] for p in lobby.joined}:
        raise at.fault("name_taken", f"the name {body.name} is taken")
    _check_channel_key(at, body.channel_key)
    lobby = replace(lobby, names={**lobby.names, at.author.key: body.name},
                    channels={**lobby.channels, at.author.key: body.channel_key},
                    joined=(*lobby.joined, at.author))
    return replace(ts, lobby=lobby), [PlayerJoined(at.author, body.name)]


def _set_options(ts: TableState, at: _At, body: SetOptions,
                 _: LogView) -> tuple[TableState, Events]:
    lobby = _lobby(ts, at, host_only=True)
    options = _options(at, body.options)
    lobby = replace(lobby, preset=body.preset, options=body.options,
                    ready=frozenset({lobby.host.key}))
    return replace(ts, lobby=lobby), [OptionsChanged(body.preset, options)]


def _ready(ts: TableState, at: _At, body: Ready, _: LogView) -> tuple[TableState, Events]:
    lobby = _lobby(ts, at)
    if at.author not in lobby.joined:
        raise at.fault("not_joined", "only a peer with a place can be ready")
    ready = lobby.ready | {at.author.key} if body.ready else lobby.ready - {at.author.key}
    event = PlayerReady(at.author, lobby.names[at.author.key], body.ready)
    return replace(ts, lobby=replace(lobby, ready=ready)), [event]


def _kick(ts: TableState, at: _At, body: Kick, _: LogView) -> tuple[TableState, Events]:
    lobby = _lobby(ts, at, host_only=True)
    if body.peer not in lobby.joined or body.peer == lobby.host:
        raise at.fault("bad_kick", "the host can only remove a peer with a place")
    lobby = replace(lobby, joined=tuple(p for p in lobby.joined if p != body.peer),
                    ready=lobby.ready - {body.peer.key})
    event = PlayerLeft(body.peer, lobby.names[body.peer.key], True, body.reason)
    return replace(ts, lobby=lobby), [event]


def _leave(ts: TableState, at: _At, body: Leave, _: LogView) -> tuple[TableState, Events]:
    if ts.lobby is None:
        raise at.fault("no_table", "no table to leave")
    name = ts.name_of(at.author.key)
    event = PlayerLeft(at.author, name, False, body.reason)
    if ts.phase == TablePhase.LOBBY:
        lobby = ts.lobby
        if at.author not in lobby.joined:
            raise at.fault("not_joined", "this peer has no place to leave")
        if at.author == lobby.host:  # the host closes the table
            return replace(ts, phase=TablePhase.ENDED), [event]
        lobby = replace(lobby, joined=tuple(p for p in lobby.joined if p != at.author),
                        ready=lobby.ready - {at.author.key})
        return replace(ts, lobby=lobby), [event]
    if ts.seat_of(at.author.key) is None or ts.phase not in (TablePhase.KEYS,
                                                              TablePhase.PLAYING):
        raise at.fault("not_seated", "only a seated peer can leave a game under way")
    if not leave_removes(ts, at.author):
        # table.md §8: a player who leaves during play is removed like one who
        # vanished (§14.2): the round is void and the others play on.
        return remove_seat(ts, at.seq, at.author, LEFT)
    # table.md §8: where a seat cannot be removed, leaving stops the game; every seat,
    # the leaver first, reveals.
    ts = _stop(ts, Stop("left", None, f"{name} {LEFT}", at.seq))
    return ts, [event]


def _start(ts: TableState, at: _At, body: Start, _: LogView) -> tuple[TableState, Events]:
    lobby = _lobby(ts, at, host_only=True)
    if body.seats != lobby.joined:
        raise at.fault("bad_seats", "the seats must be the joined peers in joining order")
    if any(p.key not in lobby.ready for p in lobby.joined):
        raise at.fault("not_ready", "every seated peer must be ready")
    options = _options(at, lobby.options)
    try:
        options.check_players(len(body.seats))
    except ConfigError as error:
        raise at.fault("bad_seats", str(error)) from error
    check_transition(ts.phase, TablePhase.KEYS)
    ts = replace(ts, phase=TablePhase.KEYS, seats=body.seats, options=options,
                 keys=(None,) * len(body.seats))
    return ts, [GameStarted(ts.player_names, options)]


# -- keys, clock, reveal, abort ----------------------------------------------------------
def _key_setup(ts: TableState, at: _At, body: KeySetup, _: LogView) -> tuple[TableState, Events]:
    seat = ts.seat_of(at.author.key)
    if ts.phase != TablePhase.KEYS or seat is None or ts.keys[seat] is not None:
        raise at.fault("unexpected_key", "a key announcement out of place")
    try:
        announcement = KeyAnnouncement.from_wire(body.to_wire()[0], peer=at.author.fingerprint)
        verified = verify_key_announcement(announcement, table=ts.table_id, peer=at.author.key)
    except (CryptoError, InvalidMessage) as error:
        raise at.fault("bad_key", str(error)) from error
    keys = (*ts.keys[:seat], verified, *ts.keys[seat + 1:])
    ts = replace(ts, keys=keys)
    if all(keys):
        return game.start_engine(ts, at.seq)
    return ts, []


def _clock(ts: TableState, at: _At, body: Clock, _: LogView) -> tuple[TableState, Events]:
    if ts.host is None or at.author != ts.host:
        raise at.fault("not_sequencer", "only the sequencer keeps the table clock")
    if body.now_ms < ts.clock_ms:
        raise at.fault("clock_backwards", "the table clock went backwards")
    started = ts.clock_started or ts.phase != TablePhase.LOBBY
    return replace(ts, clock_ms=body.now_ms, clock_started=started), []


def _reveal(ts: TableState, at: _At, body: RevealSecrets, _: LogView) -> tuple[TableState, Events]:
    seat = ts.seat_of(at.author.key)
    if seat is None or seat in ts.reveals or ts.phase == TablePhase.LOBBY:
        raise at.fault("unexpected_reveal", "a secrets reveal out of place")
    key = ts.keys[seat]
    if key is None:
        raise at.fault("unexpected_reveal", "this seat announced no key to reveal")
    try:
        share = Scalar.from_wire(body.key_share, peer=at.author.fingerprint, item="key share")
        verified = verify_secrets_reveal(SecretsReveal(share, body.shuffle_master), key)
    except CryptoError as error:
        raise at.fault(error.code, str(error)) from error
    channels = {} if ts.lobby is None else ts.lobby.channels
    if ChannelKey(body.channel_seed).public != channels.get(at.author.key):
        raise at.fault("channel_mismatch", "the channel seed does not match the lobby's key")
    events: Events = []
    if ts.phase in (TablePhase.KEYS, TablePhase.PLAYING):
        name = ts.name_of(at.author.key)
        ts = _stop(ts, Stop("left", None, f"{name} {LEFT}", at.seq))
    # deck.md §9: this seat's own shuffles are re-executed now, from its seed alone.
    conviction = game.convict_shuffles(ts, seat, body.shuffle_master, at.seq) \
        if ts.engine is not None else None
    if conviction is not None:
        events.append(conviction)
        ts = replace(ts, audit_error=ts.audit_error or conviction.reason)
    ts = replace(ts, reveals={**ts.reveals, seat: verified},
                 channel_seeds={**ts.channel_seeds, seat: body.channel_seed})
    if ts.reveals_expected <= set(ts.reveals):
        ts, more = _finish(ts)
        events.extend(more)
    return ts, events


def _abort(ts: TableState, at: _At, body: Abort, view: LogView
           ) -> tuple[TableState, Events]:
    if ts.phase == TablePhase.REVEALING:
        return _close(ts, at, body)
    if ts.phase not in (TablePhase.KEYS, TablePhase.PLAYING):
        raise at.fault("unexpected", "nothing to stop")
    if ts.seat_of(at.author.key) is None:
        raise at.fault("not_seated", "only a seated peer can stop the game")
    name, accuser = ts.name_of(body.culprit.key), ts.name_of(at.author.key)
    if body.evidence and view.depth >= MAX_EVIDENCE_DEPTH:
        # Judging evidence never recurses without bound (table.md §7.2): an abort
        # held as evidence may not itself carry evidence.
        raise at.fault("bad_evidence", "evidence may not itself hold evidence")
    if body.evidence:
        _check_evidence(ts, at, body, replace(view, depth=view.depth + 1))
        why = f"{accuser} stopped the game: {name} {body.reason} ({body.code})"
        stop = Stop(body.code, body.culprit, why, at.seq)
    else:
        # table.md §7.3: an accusation without evidence proves nothing. The accuser
        # is who stopped the game; nobody is excused from revealing, so the audit
        # can still check everything the log holds (the accused's reveal included).
        why = (f"{accuser} stopped the game, accusing {name} of {body.code} "
               f"({body.reason}); unproven")
        stop = Stop(body.code, None, why, at.seq, accuser=at.author, accused=body.culprit)
    ts = _stop(ts, stop)
    event = PeerMisbehaved(body.culprit, name, at.seq, body.code, body.reason)
    return ts, [event]


def _close(ts: TableState, at: _At, body: Abort) -> tuple[TableState, Events]:
    """The closing entry: the sequencer ends a reveal that never came (table.md §8).

    It names a seat whose reveal is still due; the shuffles stay unproven. Like
    any accusation without evidence it proves nothing about that seat: it only
    tells "the log ends here because the table stopped waiting" from a log that
    was merely cut short.
    """
    seat = ts.seat_of(body.culprit.key)
    if at.author != ts.host or body.evidence or seat is None or \
            seat not in ts.reveals_expected - set(ts.reveals):
        raise at.fault("bad_close", "only the sequencer closes the reveal, naming a seat "
                       "whose reveal is still due")
    name = ts.name_of(body.culprit.key)
    check_transition(ts.phase, TablePhase.ENDED)
    ts = replace(ts, phase=TablePhase.ENDED, closed=seat,
                 audit_error=f"{name} never revealed, so the shuffles are unproven")
    return ts, [PeerMisbehaved(body.culprit, name, at.seq, body.code, body.reason),
                game.game_result(ts)]


def _check_evidence(ts: TableState, at: _At, body: Abort, view: LogView) -> None:
    """The refused message must be the culprit's, signed, and refused both now and in
    the state its author had seen (else it was a race, table.md §7.2)."""
    try:
        message = Message.decode(body.evidence)
        message.verify()
    except (InvalidMessage, RemoteProtocolError) as error:
        raise at.fault("bad_evidence", f"the evidence does not hold: {error}") from error
    if message.author != body.culprit or message.table_id != ts.table_id:
        raise at.fault("bad_evidence", "the evidence is not the culprit's message here")
    if view.chain is not None and _chain_refuses(view.chain, message, body.culprit, at):
        return
    if not refused(ts, message, view):
        raise at.fault("false_accusation", "the refused message was valid")


def _chain_refuses(chain: ChainVerifier, message: Message, culprit: PeerId, at: _At) -> bool:
    try:
        chain.check_message(message)
    except ChainError as error:
        if error.peer_key == culprit and error.code == "equivocation":
            # Proof only on one chain (table.md §7.2): a message signed at a head this
            # log does not hold was signed after a hand-over elsewhere, not twice here.
            return chain.holds(message.head)
        if error.code.startswith("head_") or error.code == "counter_gap":
            return False  # judged on its body, at the head it claims
        raise at.fault("false_accusation", "the evidence blames someone else") from error
    return False


def refused(ts: TableState, message: Message, view: LogView = NO_VIEW) -> bool:
    """Whether ``message`` is cheating by its author: refused now, and refused in the
    state after the entries its author had seen, or refused for a lie whatever it had
    seen (table.md §5.3)."""
    seen = message.head.seen
    earlier = None if view.past is None or seen > ts.seq else view.past(seen)
    try:
        check_message(ts, message, view)
    except Misbehaviour as error:
        if error.culprit != message.author:
            return False
        if error.code in LIE_CODES and not (
                error.code == "wrong_seat" and earlier is not None
                and earlier.seats != ts.seats):
            # A removal since the author's head closed up the seat numbers (§14.2):
            # the seat it signed was its own then, so it is judged at that head.
            return True
    else:
        return False
    if earlier is None:
        return False
    try:
        check_message(earlier, message, LogView(view.chain, depth=view.depth))
    except Misbehaviour as error:
        return error.culprit == message.author
    return False


#: The deck's proof codes, stage 3 of the audit (docs/protocol/verdicts.md §7.3): the one
#: definition, which the audit reads to name a refusal's stage.
PROOF_CODES = frozenset({
    "bad_key", "bad_shuffle", "bad_share", "unproven_face", "wrong_face", "invalid_scalar",
    "key_mismatch", "commitment_mismatch", "channel_mismatch", "unknown_card",
    "duplicate_card", "bad_deck",
})
#: Refusals that prove a lie whatever the author had seen (table.md §5.3): every proof
#: (its reveal mismatches among them) and three rules a signature alone breaks.
LIE_CODES = PROOF_CODES | {"wrong_seat", "not_a_move", "not_sequencer"}


def _stop(ts: TableState, stop: Stop) -> TableState:
    check_transition(ts.phase, TablePhase.REVEALING)
    return replace(ts, phase=TablePhase.REVEALING, stop=stop)


def _finish(ts: TableState) -> tuple[TableState, Events]:
    """Every expected reveal is in: the game ends, with what re-execution found.

    Each seat's shuffles were re-executed at its own reveal (``game.convict_shuffles``,
    docs/protocol/deck.md §9), and a conviction there stays the game's finding. What is
    left to say is a reveal that never came: the whole-game re-execution names the
    first one missing, before it compares any shuffle.
    """
    events: Events = []
    audit = ts.audit_error
    keys = [k for k in ts.keys if k is not None]
    missing = not set(ts.reveals) >= set(range(len(ts.seats)))
    if not audit and missing and len(keys) == len(ts.seats):
        records = [DeckRecord(d.round, d.number, d.card_ids, d.done,
                              tuple(ShuffleMessage(s) for s in d.shuffles),
                              tuple((s.shuffle - ts.void_decks, s.position)
                                    for s in d.carried))
                   for d in ts.decks[ts.void_decks:] if d.done]
        try:
            verify_game(records, keys=keys, reveals=ts.reveals)
        except CryptoError as error:
            audit = str(error)
    check_transition(ts.phase, TablePhase.ENDED)
    ts = replace(ts, phase=TablePhase.ENDED, audit_error=audit)
    events.append(game.game_result(ts))
    return ts, events


def _handover(ts: TableState, at: _At, body: Handover, _: LogView
              ) -> tuple[TableState, Events]:
    """The sequencer role moves on (table.md §13.2): the new sequencer is the lobby's
    host from here on; it sets a new start clock before anything is timed (§6.1)."""
    head = at.head if at.head is not None else Head(at.seq, b"\x00" * 32)
    try:
        check_handover(ts, at.author, head, body)
    except HandoverRefused as error:
        raise at.fault(error.code, str(error)) from error
    lobby = ts.lobby
    if lobby is None:  # check_handover refuses a table without a lobby
        raise at.fault("bad_handover", "there is no table to hand over")
    ts = replace(ts, lobby=replace(lobby, host=body.new), term=body.term,
                 handovers=(*ts.handovers, (at.seq, body.old, body.new)),
                 clock_started=False)
    return ts, [SequencerChanged(body.old, body.new, ts.name_of(body.old.key),
                                 ts.name_of(body.new.key), body.term, at.seq)]


def _remove(ts: TableState, at: _At, body: Remove, _: LogView) -> tuple[TableState, Events]:
    return apply_remove(ts, at.entry, at.seq, at.author, body)


def _move(ts: TableState, at: _At, body: Move, _: LogView) -> tuple[TableState, Events]:
    return game.apply_move(ts, at.entry, at.seq, at.author, body)


def _shares(ts: TableState, at: _At, body: Shares, _: LogView) -> tuple[TableState, Events]:
    return game.apply_shares(ts, at.entry, at.seq, at.author, body)


def _shuffle(ts: TableState, at: _At, body: ShuffleDeck, _: LogView) -> tuple[TableState, Events]:
    return game.apply_shuffle(ts, at.entry, at.seq, at.author, body)


def _sealed(ts: TableState, at: _At, body: Sealed, view: LogView
            ) -> tuple[TableState, Events]:
    seen = None if view.past is None or at.seen > ts.seq else view.past(at.seen)
    return game.apply_sealed(ts, at.entry, at.seq, at.author, body.recipient, seen)


_HANDLERS: dict[type, Callable[[TableState, _At, Any, LogView],
                               tuple[TableState, Events]]] = {
    OpenTable: _open_table, Join: _join, SetOptions: _set_options, Ready: _ready, Kick: _kick,
    Leave: _leave, Start: _start, KeySetup: _key_setup, Clock: _clock, RevealSecrets: _reveal,
    Abort: _abort, Move: _move, Shares: _shares, ShuffleDeck: _shuffle, Sealed: _sealed,
    Handover: _handover, Remove: _remove,
}


def digest(ts: TableState) -> bytes:
    """The public digest after the last entry: the engine's once it runs, else the log's seq.

    Every peer of the same log computes the same value (docs/protocol/table.md §2).
    """
    if ts.engine is not None:
        return public_digest(ts.engine)
    return hashlib.sha256(DIGEST_LABEL + ts.table_id + ts.seq.to_bytes(8, "big")
                          + ts.phase.value.encode()).digest()


@dataclass(frozen=True, slots=True)
class PendingCheck:
    """An arrived shuffle entry whose proof of shuffle is still being checked, the state
    it leads to if the proof verifies, and the head a message sent after it names
    (``Ledger.pending_check``; deck.md §6.3). Never accepted: a view ahead, no more."""

    entry: Entry
    state: TableState
    head: Head


class Ledger:
    """The chain verifier and the table state together: what one peer has accepted.

    ``accept`` runs the chain checks, then ``apply_entry``; an entry that fails
    either leaves both unchanged.
    """

    def __init__(self, table_id: bytes, host: PeerId, me: bytes | None = None, *,
                 version: int = PROTOCOL_VERSION) -> None:
        self.chain = ChainVerifier(table_id, host, handover_successor)
        self.me = me
        self.state = initial_state(table_id, me, version)
        self.digests: list[bytes] = []
        self._history: deque[TableState] = deque([self.state], maxlen=HISTORY)

    def state_at(self, seen: int) -> TableState | None:
        """The state after ``seen`` entries, if still remembered (the last ``HISTORY``)."""
        back = self.state.seq - seen
        if not 0 <= back < len(self._history):
            return None
        return self._history[-1 - back]

    @property
    def view(self) -> LogView:
        return LogView(self.chain, self.state_at)

    def _set(self, state: TableState) -> None:
        self.state = state
        self._history.append(state)
        self.digests.append(digest(state))

    def learned(self, state: TableState) -> None:
        """The state with what this peer alone has opened of the cards (table/sight.py):
        the state from now on; the history keeps what the log alone shows."""
        self.state = state

    @property
    def head(self) -> Head:
        return self.chain.head

    def accept(self, entry: Entry) -> list[TableEvent]:
        """Check and apply ``entry``.

        Raises:
            ChainError: the chain is broken (naming the peer at fault).
            Misbehaviour: the body breaks the table protocol or the rules.
        """
        self.chain.accept(entry)
        try:
            new, events = apply_entry(self.state, entry, self.view)
        except Misbehaviour:
            self._rewind(entry.seq)
            raise
        self._set(new)
        return events

    def pending_check(self, entry: Entry) -> PendingCheck | None:
        """The state the next ``entry``, a shuffle turn that leaves its deck unfinished,
        leads to with its proof of shuffle not yet checked (deck.md §6.3, "What may
        overlap"; issue 28); None for any other entry, or one refused by any other check.

        Nothing is kept: the entry is accepted only by ``accept``, once its proof
        verified. The state serves one purpose, the next shuffler's turn sent ahead
        (``duties.turn_on_pending``): a deck with a turn still to come is not ready,
        so no share of it can be owed in any state reached from this one.
        """
        state = self.state
        if entry.seq != state.seq or len(self.chain) != entry.seq or \
                not isinstance(entry.body, ShuffleDeck) or \
                entry.message.version != state.version or handover_successor(entry):
            return None
        previous = None if entry.seq == 0 else self.chain.entry(entry.seq - 1)
        try:
            verify_entry(entry, previous, self.chain.sequencer)
            new, _ = game.apply_shuffle(state, entry, entry.seq, entry.author, entry.body,
                                        proof_pending=True)
        except (RemoteProtocolError, InvalidMessage):
            return None  # ``accept`` names the fault when the entry's turn comes
        if not new.decks[entry.body.shuffle].shufflers:
            return None  # its deck complete: what follows is shares, after the check
        return PendingCheck(entry, replace(new, seq=entry.seq + 1),
                            Head(entry.seq + 1, entry.hash))

    def accept_checked(self, entry: Entry, state: TableState,
                       events: list[TableEvent]) -> list[TableEvent]:
        """Accept an entry whose message ``check_message`` just turned into ``state``.

        Raises:
            ChainError: the entry does not extend the chain (the caller's bug).
        """
        if state.seq != entry.seq + 1 or self.state.seq != entry.seq:
            raise ChainError("a checked state for another entry", peer=entry.author,
                             entry=entry.seq, code="bad_sequence")
        self.chain.accept(entry)
        self._set(state)
        return events

    def _rewind(self, seq: int) -> None:
        """Forget entry ``seq`` from the chain (it failed the table's checks)."""
        self.chain.truncate(seq)

    def truncate(self, seq: int) -> None:
        """Forget every entry from ``seq`` on: a suffix a hand-over replaced (table.md
        §13.4). The state is rebuilt through the same path (``accept``).

        Raises:
            ChainError / Misbehaviour: an entry it had accepted is refused now (a bug).
        """
        entries = self.chain.entries[:seq]
        fresh = Ledger(self.chain.table_id, self.chain.terms[0][1], self.me,
                       version=self.state.version)
        for entry in entries:
            fresh.accept(entry)
        self.chain, self.state = fresh.chain, fresh.state
        self.digests, self._history = fresh.digests, fresh._history
