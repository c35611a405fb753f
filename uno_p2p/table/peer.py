"""One peer at the table: a sans-IO protocol object (like h11's ``Connection``).

docs/protocol/table.md. Bytes in (``receive``), bytes out (``data_to_send``,
each with its destination), events out (``next_event``), the local player's
moves in (``act``), timers (``next_timer`` / ``handle_timer``). No clock,
no randomness, no I/O: every secret of the peer (deck key share, shuffle
master seed, channel key, bot choices) is derived from the ``entropy`` it is
given (``sending.SeatSecrets``, §2.1), and the time comes in as ``now_ms``.

Every entry is applied through ``Ledger.accept`` (chain, then table rules,
engine and proofs), the same path the audit's ``replay`` runs. The host's
peer also holds the ``Sequencer``.

The peer is dispatch, the role switch and the mapping from faults to events;
each part owns its state in its own file and returns what to do: ``outbox``
(§3.1), ``early`` (§9.1, §12), ``watch`` (§6.1-§6.2), ``sight`` (§7),
``initiative`` (§5-§6), ``succession`` (§13); ``announce`` says who gets which
entry (§3, §9).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import (
    IllegalAction,
    InvalidMessage,
    LocalProtocolError,
    RemoteProtocolError,
)
from uno_p2p.rules.bots import Bot
from uno_p2p.rules.options import Options
from uno_p2p.table.announce import announcement, drop_sent, sync_answer, sync_asked
from uno_p2p.table.bodies import Clock, Handover, PrivateShares, Remove, ShuffleDeck
from uno_p2p.table.chat import Chat
from uno_p2p.table.controls import Controls
from uno_p2p.table.duties import turn_on_pending
from uno_p2p.table.early import EarlyEntries
from uno_p2p.table.events import (
    ChatSaid,
    PeerMisbehaved,
    Progress,
    TableEvent,
)
from uno_p2p.table.frames import (
    FRAME_CHAT,
    FRAME_DROP,
    FRAME_ENTRY,
    FRAME_MESSAGE,
    FRAME_RELAY,
    FRAME_SYNC,
    FRAME_VOTE,
    DropNotice,
    decode_drop,
    decode_sync,
    frame,
    sync_request,
)
from uno_p2p.table.initiative import Initiative, Moment, Reveal, Say, Work
from uno_p2p.table.ledger import Ledger
from uno_p2p.table.offload import (
    Duty,
    DutyDesk,
    DutyJob,
    Statement,
    body_statements,
    next_shuffler_after,
)
from uno_p2p.table.outbox import SYNCED, InFlight, Outbox
from uno_p2p.table.player import BotPlayer, Player
from uno_p2p.table.sending import ENTROPY_MIN, Maker, Outgoing, SeatSecrets
from uno_p2p.table.sequencer import Outcome, Sequencer
from uno_p2p.table.sight import Sight
from uno_p2p.table.state import Misbehaviour, TableState
from uno_p2p.table.succession import Seen, Steps, Succession, relayed_ok, supersede
from uno_p2p.table.watch import SequencerWatch, Watched
from uno_p2p.wire.chain import ChainError
from uno_p2p.wire.envelope import PROTOCOL_VERSION, Entry, Head, Message
from uno_p2p.wire.lobby import Join, OpenTable
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.registry import Body

__all__ = ["ENTROPY_MIN", "SYNCED", "InFlight", "TablePeer"]


class TablePeer(Controls):
    """One seat's (or the host's) protocol state machine. Build with ``host`` or ``join``."""

    #: Who decides this seat's moves unless a ``player`` is given: the seat's bot (or
    #: its person). A test's adversary names its own.
    player_class: ClassVar[type[Player]] = BotPlayer

    def __init__(self, identity: Identity, entropy: bytes, *, table_id: bytes, host: PeerId,
                 name: str, bot: str | None = "heuristic", nonce: bytes = b"",
                 version: int = PROTOCOL_VERSION, player: Player | None = None) -> None:
        # table.md §2.1: every secret is bound to this game's fresh nonce (the shell
        # draws it and keeps it with the entropy, to resume).
        mine = SeatSecrets.derive(entropy, table_id=table_id, nonce=nonce, peer=identity.peer.key)
        self.identity = identity
        self.name = name
        self.table_id = table_id
        self.host_id = host
        self.secrets, self.channel_seed, self.channel = mine.deck, mine.channel_seed, mine.channel
        self.bot_kind = bot
        #: What this seat chooses to send (``table/player.py``): its moves, its private
        #: reveals, whether it does its work.
        self.player: Player = self.player_class() if player is None else player
        #: table.md §5-§6: what this seat does of its own accord (a person's seat, ``bot``
        #: None, pauses between rounds for its player).
        self.initiative = Initiative(mine.bot_seed, pauses_between_rounds=bot is None)
        # wire.md §3: the version this peer signs in until entry 0 says the table's.
        self.ledger = Ledger(table_id, host, identity.peer.key, version=version)
        #: table.md §3.1: our message numbers and our one message in flight (the host's
        #: sequencer signs its own messages from the same outbox).
        self.outbox = Outbox()
        self.sequencer = Sequencer(identity, self.ledger, outbox=self.outbox) \
            if identity.peer == host else None
        #: table.md §7: what only this peer knows of the cards.
        self.sight = Sight()
        self.stopped: RemoteProtocolError | None = None
        self.now_ms = 0
        self.chat = Chat(table_id, identity)
        self._out: list[Outgoing] = []
        self._events: deque[TableEvent] = deque()
        #: table.md §9.1, §12: entries ahead of our log, kept until the gap below fills.
        self.early = EarlyEntries()
        #: net.md §7.1: a shell may compute the heavy duties itself (``duties.offload``).
        self.duties = DutyDesk()
        #: table.md §6.1-§6.2: the sequencer's clock against ours (a ``clock`` held back
        #: while we doubt it), and the relayed messages kept as evidence.
        self.watch = SequencerWatch()
        #: table.md §13: the election while the table has no sequencer, and when we
        #: last heard from the sequencer.
        self.succession = Succession(identity, table_id)
        #: When (our clock) we accepted the last entry that was not a ``clock``: the
        #: sequencer's response time-out runs from about then (table.md §6).
        self.progress_ms = 0

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def host(cls, identity: Identity, entropy: bytes, *, table_id: bytes, name: str,
             options: Options, preset: str = "", max_players: int = 10,
             bot: str | None = "heuristic", now_ms: int = 0, nonce: bytes = b"",
             version: int = PROTOCOL_VERSION) -> TablePeer:
        """Open a table: the host's peer logs entry 0 with the options everyone will see
        (``version``: the table protocol it speaks, wire.md §3)."""
        peer = cls(identity, entropy, table_id=table_id, host=identity.peer, name=name, bot=bot,
                   nonce=nonce, version=version)
        peer.now_ms = now_ms
        pairs = tuple((str(k), v) for k, v in options.to_wire())
        peer.send(OpenTable(name, peer.channel.public, preset, pairs, max_players))
        return peer

    @classmethod
    def join(cls, identity: Identity, entropy: bytes, *, table_id: bytes, host: PeerId,
             name: str, bot: str | None = "heuristic", ready: bool = True,
             nonce: bytes = b"", version: int = PROTOCOL_VERSION) -> TablePeer:
        """Ask the host for a seat (and say ready at once when ``ready``), signing in
        ``version``, the table's (wire.md §3)."""
        peer = cls(identity, entropy, table_id=table_id, host=host, name=name, bot=bot,
                   nonce=nonce, version=version)
        peer.send(Join(name, peer.channel.public))
        peer.initiative.ready_on_joining(ready, bot=bot is not None)
        return peer

    @classmethod
    def resume(cls, identity: Identity, entropy: bytes, entries: Sequence[Entry], *,
               name: str, bot: str | None, nonce: bytes = b"", now_ms: int = 0) -> TablePeer:
        """Rebuild a peer from its ``.unolog`` entries (table.md §9), through the same
        entry path, then ask the sequencer for what it missed. ``bot`` has no default:
        a seat resumes as what it was (its seat file says), a bot or a person.
        ``now_ms`` is the shell's clock: the time-outs of §13.1 run from it, not from
        the epoch (a resumed seat would otherwise vote the sequencer gone at once).

        Raises:
            LocalProtocolError: no entries, or an entry of the file is refused
                (a damaged or foreign log).
        """
        if not entries:
            raise LocalProtocolError("there is nothing to resume from")
        first = entries[0]
        peer = cls(identity, entropy, table_id=first.message.table_id, host=first.author,
                   name=name, bot=bot, nonce=nonce)
        peer.now_ms = now_ms
        for entry in entries:
            try:
                events = peer.ledger.accept(entry)
            except RemoteProtocolError as error:
                raise LocalProtocolError(f"the saved log is refused: {error}") from error
            peer._after(entry, events)
        peer.succession.heard_host(now_ms)  # nothing heard yet: we only just came back
        if peer.sequencer is not None:
            peer._drive()
        else:
            peer.resync()
        return peer

    def resync(self) -> None:
        """After a lost link: ask the sequencer for the entries after ours (table.md §9).

        Send nothing until its reply: a message sent before the link broke may
        still be logged, and a new one under its number would equivocate.
        """
        if self.sequencer is not None:
            return
        self.outbox.start_sync()
        self.early.clear()
        self._out.append(Outgoing(None, frame(FRAME_SYNC, sync_request(self.state.seq))))
        self._drive()

    # -- the sans-IO surface --------------------------------------------------------------
    @property
    def state(self) -> TableState:
        return self.ledger.state

    @property
    def peer_id(self) -> PeerId:
        return self.identity.peer

    @property
    def is_host(self) -> bool:
        return self.sequencer is not None

    @property
    def counter(self) -> int:
        """The number our next message takes (the outbox's, table.md §3.1)."""
        return self.outbox.counter

    @property
    def outstanding(self) -> int | None:
        """The number of our message neither logged nor dropped yet, if any."""
        return self.outbox.outstanding

    def send_frame(self, out: Outgoing) -> None:
        """Queue one frame as it is, past every rule of the protocol: for a test's
        adversary or a tool that speaks for itself (an honest peer never needs it)."""
        self._out.append(out)

    def data_to_send(self) -> list[Outgoing]:
        """Everything queued for the network, in order."""
        out, self._out = self._out, []
        return out

    def next_event(self) -> TableEvent | None:
        return self._events.popleft() if self._events else None

    def events(self) -> list[TableEvent]:
        """Every queued event."""
        out = list(self._events)
        self._events.clear()
        return out

    def receive(self, data: bytes, now_ms: int | None = None,
                sender: PeerId | None = None, arrived_ms: int | None = None) -> str | None:
        """Bytes from the network: an entry, a message for the host, a drop notice, or
        (for the host, from ``sender``) a resumed peer's sync request.

        ``arrived_ms`` is when the shell took the frame off its link (default
        ``now_ms``): the clock check counts from it, not from when the frame was
        processed (table.md §6.1). A peer's fault becomes a ``PeerMisbehaved``
        event, never an exception. Only the sequencer sends ``D`` frames
        (table.md §3.1): from a known ``sender`` other than the host they are
        ignored, so a seated peer cannot make another reuse a counter. Returns why to
        cut the link it came by, if its sender alone is to blame (bytes that are no
        frame, not from the sequencer; a forgery in another's name)."""
        if now_ms is not None:
            self.now_ms = max(self.now_ms, now_ms)
        if sender is not None and sender == self.host_id:
            self.succession.heard_host(self.now_ms)
        if sender is not None and self.sequencer is not None:
            self.sequencer.back(sender.key)  # it is back (table.md §14)
        relayed = sender is not None and sender != self.host_id
        if not data or (relayed and data[:1] == FRAME_DROP):
            return None
        tag, payload = data[:1], data[1:]
        arrived = now_ms if arrived_ms is None else arrived_ms
        cut: str | None = None
        try:
            if tag == FRAME_ENTRY:
                entry = Entry.decode(payload)
                if not relayed or relayed_ok(self._seen(), entry):
                    self._receive_entry(entry, arrived)
            elif tag == FRAME_VOTE and self.stopped is None:
                self._succeed(self.succession.hear_vote(self._seen(), payload, sender))
            elif tag in (FRAME_MESSAGE, FRAME_RELAY) and self.sequencer is not None:
                cut = self._sequence(Message.decode(payload), sender)
            elif tag == FRAME_RELAY and self.stopped is None:
                self._out.extend(self.watch.hear_relay(Message.decode(payload), self.ledger,
                                                       self._watched()))
            elif tag == FRAME_DROP:
                self._dropped(decode_drop(payload))
            elif tag == FRAME_SYNC and sender is not None:  # any member answers (§13.4)
                self._out.extend(sync_answer(sender, decode_sync(payload), self.state,
                                             self.ledger.chain.entries, self.is_host))
            elif tag == FRAME_CHAT:
                self._chatted(*self.chat.receive(payload, self.state, self.now_ms, sender))
        except InvalidMessage as error:
            # Bytes from another peer than the sequencer name nobody: anyone can send them.
            named = None if relayed or tag in (FRAME_MESSAGE, FRAME_RELAY) else self.host_id
            self._misbehaved(named, None, "invalid_frame", str(error), ())
            cut = None if named else str(error)
        self._drive()
        return cut

    def _sequence(self, message: Message, sender: PeerId | None) -> str | None:
        """The sequencer's part of ``receive``: order a message; name (and say why to cut)
        the link of a forgery in another's name (members forward only what verifies)."""
        assert self.sequencer is not None  # noqa: S101 (the caller's condition)
        outcome, author = self.sequencer.submit(message, self.now_ms), message.author.key
        name = self.state.name_of(author)
        forged = f"sent a message in {name}'s name that {name} did not sign: {outcome.forged}"
        if outcome.forged:
            self._misbehaved(sender, None, "forged_message", forged, (message,))
        self._order(outcome)
        return forged if outcome.forged and sender is not None else None

    # -- chat (table.md §15) -------------------------------------------------------------
    def say(self, text: str, now_ms: int | None = None) -> None:
        """A chat line to every member of the table; shown here at once (``ChatSaid``).

        Raises:
            LocalProtocolError: no place at the table yet, or a line the chat refuses.
        """
        if now_ms is not None:
            self.now_ms = max(self.now_ms, now_ms)
        self._chatted(*self.chat.say(text, self.state, self.now_ms))

    def _chatted(self, out: Outgoing | None, said: ChatSaid | None) -> None:
        if out is not None:
            self._out.append(out)
        if said is not None:
            self._events.append(said)

    def next_timer(self) -> int | None:
        """The time ``handle_timer`` should be called at, if any: the earliest of the
        parts' own deadlines; a stopped peer's sequencer, outbox and gap wait for nothing."""
        going = self.stopped is None
        deadlines = (
            self.sequencer.next_timer() if self.sequencer is not None and going else None,
            self.initiative.deadline(self._moment()),
            self.outbox.relay_at() if going else None,
            self.watch.deadline(self._watched()),
            self.succession.deadline(self._seen()),
            self.early.deadline() if going else None,
        )
        return min((t for t in deadlines if t is not None), default=None)

    def handle_timer(self, now_ms: int) -> None:
        """Time has come: the host times out a turn or a stalled peer; a bot waits no more;
        a message the sequencer sits on goes to every peer."""
        self.now_ms = max(self.now_ms, now_ms)
        if self.sequencer is not None and self.stopped is None:
            # What came while quiet first (table.md §6.3): a move that waited in our
            # socket while this machine was away came in time.
            for outcome in self.sequencer.release(self.now_ms):
                self._order(outcome)
            self._order(self.sequencer.tick(self.now_ms))
        due = self.outbox.relay_due(self.now_ms)
        if due is not None:
            self._out.extend(self.watch.show(due, self._watched()))
        trusted = self.watch.trust_due(self._watched())
        if trusted is not None:
            self._receive_entry(trusted, None)
        self._fill_gap()
        self._succeed(self.succession.tick(self._seen()))
        self._drive()

    def _fill_gap(self) -> None:
        """Entries kept ahead of a gap that has not filled: ask every member for what
        follows our head (table.md §12). The sequencer's link may have lost them while a
        member forwards what comes after (net.md §5.3); any member answers an ``S``."""
        if self.stopped is None and self.early.ask_due(self.now_ms):
            self.ask_members()

    def ask_members(self) -> None:
        """Ask every member for the entries after our head; unlike ``resync``, go on
        sending meanwhile. The shell calls this while its link to the sequencer is down
        and other members are in reach (net.md §5.3): the broken link may have lost the
        last entries, and with the table waiting on us for them, no later entry would
        ever show the gap."""
        if self.stopped is None:
            self._out.extend(sync_asked(self.state, self.peer_id))

    # -- the sequencer role moves on (table.md §13) ---------------------------------------
    def host_lost(self) -> None:
        """The shell says the sequencer's links are down past its time-out: vote for the
        next seat to take over (with our head), so the game goes on."""
        self._succeed(self.succession.host_lost(self._seen()))
        self._drive()

    def peer_lost(self, peer: PeerId) -> None:
        """The shell says ``peer``'s links are down past its time-out. The sequencer then
        removes it when the table waits for it (table.md §14); the sequencer itself
        lost means a hand-over (§13)."""
        if peer == self.host_id:
            self.host_lost()
            return
        if self.sequencer is not None:
            self.sequencer.lose(peer.key)
        self._drive()

    def awake(self, now_ms: int) -> None:
        """The shell runs, now: it says so every fraction of a second while it does, so
        the sequencer can tell a gap (this machine was away, table.md §6.3) from a quiet
        table."""
        if self.sequencer is not None:
            self.sequencer.awake(now_ms)

    def peer_back(self, peer: PeerId) -> None:
        """The shell says ``peer`` is in reach again (a link, or a path through another
        member): the sequencer no longer counts it lost (table.md §14.1)."""
        if self.sequencer is not None:
            self.sequencer.back(peer.key)
            self._drive()

    def rejoin(self) -> None:
        """The shell says we are back after being cut off: ask every member for what we
        missed (a hand-over included: an old host then plays on as an ordinary peer):
        from every member, any of them answers, the sequencer last (table.md §13.4)."""
        asked = sync_asked(self.state, self.peer_id)
        if asked and self.sequencer is None:
            self.outbox.start_sync()
        self._out.extend(asked)
        self._drive()

    # -- the sequencer role moves on (``Succession``, table.md §13) --------------------------
    def _seen(self) -> Seen:
        """What the succession reads of this peer now."""
        sent, counted = self.outbox.in_flight, self.ledger.chain.next_counter
        return Seen(self.state, self.ledger, self.now_ms, self.sequencer is not None,
                    self.stopped is not None, None if sent is None else sent.at_ms,
                    self.watch.relayed_ms(counted))

    def _succeed(self, steps: Steps) -> None:
        """Do what the succession decided, in its order; logging its ``handover`` makes
        this peer the sequencer (table.md §13.3)."""
        self._out.extend(steps.out)
        self._events.extend(steps.events)
        if steps.forget_from is not None:
            self.ledger.truncate(steps.forget_from)
        if steps.handover is not None:
            self.sequencer = Sequencer(self.identity, self.ledger, outbox=self.outbox)
            # Our term starts: what we signed before it is void, our hand-over takes the
            # number after our last logged message (§13.3).
            self.outbox.new_term(self.ledger.chain.next_counter(self.peer_id))
            self._order(self.sequencer.take_over(steps.handover, self.now_ms))

    def _follow(self, body: Handover) -> None:
        """The new term (table.md §13.3-§13.4): send to the new sequencer, start afresh
        what depended on the old."""
        self.host_id = body.new
        self.succession.follow(self.now_ms)
        if body.new != self.peer_id:
            self.sequencer = None  # a returning old host plays on as an ordinary peer
        elif self.sequencer is None:
            self.sequencer = Sequencer(self.identity, self.ledger, outbox=self.outbox,
                                       progress_ms=self.now_ms)
        if self.sequencer is not None:
            # The old host is gone until it shows up again: a majority held it gone
            # already, so if the table waits for it, it is removed at once (§14.1).
            self.sequencer.depose(body.old.key)
        # Messages signed before the hand-over are void (§13.3): sign our work again.
        self.outbox.new_term(self.ledger.chain.next_counter(self.peer_id))
        self.watch.new_term()

    # -- watching the sequencer (``SequencerWatch``, table.md §6.1-§6.2) ----------------
    def _watched(self) -> Watched:
        """What the watch reads of this peer now."""
        return Watched(self.state, self.host_id, self.peer_id, self.now_ms,
                       self.sequencer is not None, self.stopped is not None)

    # -- sending --------------------------------------------------------------------------
    def send(self, body: Body | None = None, *, to: PeerId | None = None,
             private: PrivateShares | None = None, head: Head | None = None) -> None:
        """Sign and send ``body`` (or ``private`` shares for ``to``, sealed) as our next
        message, as it is: the protocol's work, a player's move, or a test's forgery.
        The host's own message is logged at once. A joiner signs it at ``head``
        (default: its log's), ``send_turn_ahead``'s head after an entry still checked.

        Raises:
            LocalProtocolError: the host's own message was refused, or ``to`` has no
                channel to seal shares for.
        """
        if self.sequencer is not None:
            make = self._maker(body, to, private)
            try:
                self._order(self.sequencer.submit_own(make, self.now_ms))
            except (Misbehaviour, ChainError) as error:
                raise LocalProtocolError(f"the host's own message was refused: {error}") from error
            return
        message = self.outbox.sign(self.identity, self.table_id, head or self._head(),
                                   self._maker(body, to, private),
                                   version=self.ledger.state.version, now_ms=self.now_ms)
        self.watch.sending(message, self.now_ms)
        data = frame(FRAME_MESSAGE, message.encode())
        self._out.append(Outgoing(None, data))
        if isinstance(message.body, ShuffleDeck) and self.duties.offload:
            self._out.extend(self._head_start(message.body.shuffle, data))

    def _head_start(self, deck: int, data: bytes) -> list[Outgoing]:
        """A shuffle turn goes to the seat that shuffles next too, unless that is the
        sequencer (which has it anyway): it makes its turn while the sequencer checks
        this one (deck.md §6.3, "A head start"; ``offload.head_start``). Only from a
        peer whose shell works ahead (``duties.offload``, net.md §7.1): a peer that
        does all in line (a test's, a replay's) sends what it always sent."""
        after = next_shuffler_after(self.state, self.peer_id.key, deck)
        if after is None or after >= len(self.state.seats):
            return []
        peer = self.state.seats[after]
        return [] if peer == self.host_id else [Outgoing((peer,), data)]

    def _head(self) -> Head:
        """The head a joiner signs its next message at: its log's, or the later head of
        its message in flight (a turn sent ahead of an entry still being checked,
        ``send_turn_ahead``). An author's view never goes back (wire.md §4.1,
        ``head_regressed``): a leave signed at the log's head behind such a turn was
        dropped, and the host of two waited, alone, for a player who had gone."""
        head, flying = self.ledger.head, self.outbox.in_flight
        if flying is not None and flying.message.head.seen > head.seen:
            return flying.message.head
        return head

    def _maker(self, body: Body | None, to: PeerId | None,
               private: PrivateShares | None) -> Callable[[int], Body]:
        lobby = self.state.lobby
        channel = b"" if to is None or lobby is None else lobby.channels.get(to.key, b"")
        maker = Maker(body, private, to, channel, self.channel, self.peer_id, self.table_id)
        return lambda counter: self.outgoing(maker(counter))

    def outgoing(self, body: Body) -> Body:
        """Every body this peer sends passes here: the plug for an adversarial peer.

        An honest peer sends what the protocol made; a test's cheater rewrites it.
        """
        return body

    # -- the hooks for a test's adversary (an honest peer does nothing in them) ---------
    # Like ``outgoing``: a test's cheater overrides these public hooks, never a private
    # method (STYLE.md, issue 27); what it may then do is the public surface (``send``,
    # ``send_frame``, the ledger's ``state``).
    def judging(self, entry: Entry) -> None:
        """An entry that came from the sequencer is about to be judged here
        (``Ledger.accept``); the entries the host logs itself were judged by its
        sequencer and do not pass here (``announcing`` does)."""

    def announcing(self, entry: Entry) -> None:
        """The host logged ``entry`` and is about to send it to the table (table.md §3)."""

    def logged(self, entry: Entry) -> None:
        """``entry`` took effect here: its events queued, the cards it lets us see opened."""

    def _order(self, outcome: Outcome) -> None:
        """The host logged entries: send each to the table, then apply its effects here
        (``announcement``); and tell an author its message was not logged."""
        for entry, events in outcome.entries:
            self.announcing(entry)
            self._out.extend(announcement(entry, self.state, self.ledger.chain.entries,
                                          self.peer_id))
            self._after(entry, events)
        if outcome.drop is not None:
            self._out.extend(drop_sent(outcome.drop, self.peer_id))

    # -- receiving ------------------------------------------------------------------------
    def _receive_entry(self, entry: Entry, arrived_ms: int | None) -> None:
        handover = isinstance(entry.body, Handover)
        if self.stopped is not None or (self.sequencer is not None and not handover):
            return
        if handover and entry.seq < self.state.seq:
            self._succeed(supersede(self._seen(), entry))  # may forget entries from entry.seq
        expected = self.state.seq
        if entry.seq < expected:
            self._compare(entry)
            return
        if entry.seq > expected:
            unverified = self.early.keep(entry, self.host_id, self.now_ms, self.state.seats)
            if unverified is not None:
                self._misbehaved(None, unverified.seq, unverified.code, unverified.reason, ())
            return
        self._accept(entry, arrived_ms)
        while self.stopped is None and self.watch.doubted is None:
            early = self.early.take(self.state.seq)
            if early is None:
                break
            self._accept(early, None)
        self.early.settle()

    def _compare(self, entry: Entry) -> None:
        try:
            self.ledger.chain.compare(entry)
        except ChainError as error:  # two countersigned entries at one number: a fork
            self._stop(error.peer_key, entry.seq, error.code, str(error), error.evidence)
        except RemoteProtocolError as error:
            # Not countersigned by the sequencer (or not signed by its author): anyone
            # can send such bytes, so they prove nothing and stop nothing (table.md §7.4).
            self._misbehaved(None, entry.seq, error.code,
                             f"an entry at a number we accepted does not verify: {error}", ())

    def _accept(self, entry: Entry, arrived_ms: int | None) -> None:
        self.judging(entry)
        held = self.watch.hold(entry, arrived_ms, self._watched())
        if held is not None:
            if held.said is not None:  # we doubt the sequencer now: vote (table.md §6.1)
                self._events.append(held.said)
                self._succeed(self.succession.host_lost(self._seen()))
            return
        before = self.state
        try:
            events = self.ledger.accept(entry)
        except ChainError as error:
            culprit = error.peer_key
            if error.code.startswith("head_") and entry.author != self.host_id:
                # The sequencer must refuse a head it does not hold (wire.md §4): a
                # countersigned bad head means it forked the log or skipped its check.
                culprit = self.host_id
            self._stop(culprit, entry.seq, error.code, str(error), error.evidence)
            return
        except Misbehaviour as error:
            self._stop(error.culprit, entry.seq, error.code, str(error), error.evidence)
            return
        except RemoteProtocolError as error:
            self._stop(self.host_id, entry.seq, error.code, str(error), (entry,))
            return
        self._after(entry, events)
        censored = self.watch.censored(entry, before,
                                       self.ledger.chain.next_counter(entry.author), self.now_ms)
        if censored is not None:
            self._misbehaved(self.host_id, entry.seq, "censorship", censored.reason,
                             censored.evidence)

    def _after(self, entry: Entry, events: Iterable[TableEvent]) -> None:
        self._events.extend(events)
        self.watch.logged(entry)
        if not isinstance(entry.body, Clock):
            self.progress_ms = self.now_ms
        if isinstance(entry.body, Handover):
            self.early.new_term()
            self._follow(entry.body)
        else:
            if isinstance(entry.body, Remove):
                # table.md §14: seat numbers changed and the void round's cards stay shut:
                # what we held of them is of no use any more.
                self.sight.forget()
                if self.sequencer is not None:
                    self.sequencer.back(entry.body.peer.key)
            self._succeed(self.succession.after_entry(self._seen()))
        if entry.author == self.peer_id:
            self.outbox.logged(entry.message.counter)
        if isinstance(entry.body, Sealed) and entry.body.recipient == self.peer_id:
            self._open_private(entry)
        self._see()
        self.logged(entry)

    def _dropped(self, notice: DropNotice) -> None:
        """The sequencer did not log a message of ours (table.md §3.1): the outbox
        judges the notice; we decide again under the same number only if it names the
        very message we sent."""
        if self.outbox.dropped(notice):
            self._events.append(Progress("the sequencer did not log our message: "
                                         f"{notice.reason}"))

    # -- private reveals ------------------------------------------------------------------
    def _open_private(self, entry: Entry) -> None:
        before = self.ledger.state_at(entry.seq) or self.state
        seen = self.ledger.state_at(entry.message.head.seen)
        fault = self.sight.open_private(before, entry, self.channel, self.peer_id, seen)
        if fault is not None and fault.culprit is not None:
            self._accuse(fault.culprit, fault.entry, fault.code, fault.reason, (entry,))

    def _see(self) -> None:
        """Open every card we may now see (``Sight``), and name what our faces show."""
        state, faults = self.sight.learn(self.state, self.secrets.key_share)
        if state is not self.state:
            self.ledger.learned(state)
        for fault in faults:
            if fault.stops:
                self._stop(fault.culprit, fault.entry, fault.code, fault.reason, ())
            else:
                self._misbehaved(fault.culprit, fault.entry, fault.code, fault.reason, ())

    def _accuse(self, culprit: PeerId, seq: int, code: str, reason: str,
                evidence: tuple[Entry, ...]) -> None:
        """A fault only this peer can see: name it, and stop the game (table.md §7.3)."""
        self._misbehaved(culprit, seq, code, reason, evidence)
        self.initiative.owe_abort(self.state, culprit, code, reason)

    # -- driving: duties, then the player (``initiative``) -----------------------------
    def _moment(self) -> Moment:
        """What the initiative reads of this peer now."""
        return Moment(self.state, self.peer_id, self.now_ms, self.stopped is not None,
                      self.outbox.busy, self.bot_kind)

    def _drive(self) -> None:
        """Send what the table waits for from us, the player's move last; then tell the
        player what changed for it (its hand, whom the table waits for). A quiet
        sequencer (table.md §6.3) first logs what it kept, once it may; while it may
        not, its own seat waits too."""
        if self.sequencer is not None and self.stopped is None:
            for outcome in self.sequencer.release(self.now_ms):
                self._order(outcome)
            if self.sequencer.quiet(self.now_ms):
                return
        while self._next_message():
            pass
        self._events.extend(self.initiative.told(self.state))

    def _next_message(self) -> bool:
        """Send the next body the table waits for from us, if any, as our player decides
        (``table/player.py``); True if one went out."""
        owed = self.initiative.next_owed(self._moment(), self.duties, self.secrets,
                                         self.channel_seed)
        if isinstance(owed, Say):
            self.send(owed.body)
            return True
        if isinstance(owed, Work):
            work = self.player.work(self, owed.body)
            if work is not None:
                self.send(work)
            return work is not None
        if isinstance(owed, Reveal):
            self.send(to=owed.to, private=self.player.reveal(self, owed.shares))
            return True
        return owed is not None and self.player.move(self)

    def bot_move(self, bot: Bot | None) -> bool:
        """``bot``'s move, when this seat must act (at a person's seat, ``YourTurn`` is
        told once); True if it made one. A ``Player`` calls it to play as a bot."""
        choice, told = self.initiative.bot_choice(self._moment(), bot)
        self._events.extend(told)
        if choice is None:
            return False
        try:
            self.act(choice)
        except (IllegalAction, LocalProtocolError):
            return False
        return True

    def bot(self) -> Bot | None:
        """This seat's bot for the decision at this log position (None: a person's)."""
        return self.initiative.bot_for(self._moment())

    def send_turn_ahead(self, entry: Entry) -> tuple[Statement, ...]:
        """Send this seat's shuffle turn on the deck ``entry`` brings while the shell still
        checks ``entry``'s proof (deck.md §6.3, "What may overlap"; issue 28): signed at
        the head after ``entry``, as it would be once ``entry`` is accepted. Only a joiner
        (the sequencer logs what it sends) and only what ``next_message`` would send.
        Returns the statements of the turn sent, for the shell to check (none: nothing
        sent). If ``entry`` is then refused, the peer stops before any share of the deck.
        """
        me = self.state.my_seat
        if me is None or self.sequencer is not None or \
                not self.initiative.works_ahead(self._moment()):
            return ()
        pending = self.ledger.pending_check(entry)
        body = None if pending is None else \
            turn_on_pending(pending.state, self.state, self.secrets, me)
        work = None if body is None else self.player.work(self, body)
        if pending is None or work is None:
            return ()
        self.send(work, head=pending.head)
        return body_statements(pending.state, self.peer_id.key, work)

    def duty_done(self, job: DutyJob, body: Duty) -> None:
        """The shell ran ``job`` (``duties.take()``, net.md §7.1): send its body if the
        state is still the job's (else the peer asks again), then go on."""
        self.duties.done(job, body, self.state)
        self._drive()

    # -- misbehaviour ---------------------------------------------------------------------
    def _misbehaved(self, peer: PeerId | None, entry: int | None, code: str, reason: str,
                    evidence: tuple[Entry | Message, ...]) -> None:
        name = "" if peer is None else self.state.name_of(peer.key)
        self._events.append(PeerMisbehaved(peer, name, entry, code, reason, evidence))

    def _stop(self, peer: PeerId | None, entry: int, code: str, reason: str,
              evidence: tuple[Entry | Message, ...]) -> None:
        """An entry we refuse: name the culprit and take no further entry (table.md §7.4)."""
        self._misbehaved(peer, entry, code, reason, evidence)
        self.stopped = RemoteProtocolError(reason, peer=None if peer is None else
                                           peer.fingerprint, entry=entry, code=code)
