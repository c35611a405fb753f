"""What a peer does of its own accord: say ready, send an abort it owes, do its
duties (keys, shuffles, shares), send the private shares it owes, then let its
player move (docs/protocol/table.md §5).

A part of the peer that owns its state, as ``Sequencer`` does: its bot's seed
and thinking time, the pause between rounds, what it last told its player,
whether it owes a ``ready`` or an abort. It reads the peer through ``Moment``,
a frozen view the peer builds per call, and returns what the seat owes next
(``Owed``) and what to tell its player. The peer sends it, one body at a time,
each only once the previous one is logged, so it never has two messages in
flight (table.md §3.1). What the seat decides (its moves, its private reveals,
whether it works) is its ``Player``'s (``table/player.py``), which the peer asks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.rules.actions import Action
from uno_p2p.rules.bots import BOTS, Bot
from uno_p2p.rules.legal import legal_actions
from uno_p2p.table.bodies import MAX_REASON, Abort, PrivateShares
from uno_p2p.table.duties import make_item, private_shares_owed, waiting_for
from uno_p2p.table.events import HandChanged, Progress, TableEvent, YourTurn
from uno_p2p.table.offload import Asked, DutyDesk
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.wire.limits import ROUND_PAUSE_MS
from uno_p2p.wire.lobby import Ready
from uno_p2p.wire.registry import Body


@dataclass(frozen=True, slots=True)
class Moment:
    """What the initiative reads of its peer at one call, built by the peer each time:
    the part never holds the peer, so it cannot change it."""

    state: TableState
    me: PeerId
    now_ms: int
    #: This peer stopped taking entries (table.md §7.4).
    stopped: bool = False
    #: A message of ours is in flight, or a resync's answer awaited (§3.1, §9).
    busy: bool = False
    #: The seat's bot (None: a person's seat).
    bot_kind: str | None = None


@dataclass(frozen=True, slots=True)
class Say:
    """A message of the seat's own accord: its ``ready``, or an abort it owes (§7.3)."""

    body: Body


@dataclass(frozen=True, slots=True)
class Work:
    """The work the table waits for from this seat (a key, a shuffle, shares, its
    reveal, §4): its player may hold it back."""

    body: Body


@dataclass(frozen=True, slots=True)
class Reveal:
    """The private shares this seat owes ``to`` (table.md §5): its player shows them."""

    to: PeerId
    shares: PrivateShares


@dataclass(frozen=True, slots=True)
class Turn:
    """Nothing owed: the seat's player may move."""


Owed = Say | Work | Reveal | Turn


@dataclass(slots=True)
class RoundPause:
    """A player's seat between rounds (table.md §6): its first shuffle of a new round
    waits until the player has closed the round's scores (``released``: the round it
    may shuffle for) or ``ROUND_PAUSE_MS`` after it came to owe it (``held``: the deck
    and since when, by this peer's clock). The next round, and its first turn's timer,
    so begin only when every player has read the scores, or after a short wait."""

    released: int = 0
    held: tuple[int, int] | None = None

    def go_on(self, round_number: int) -> None:
        self.released = max(self.released, round_number)


@dataclass(slots=True)
class Initiative:
    """What this seat does of its own accord, and what it has told its player: its
    bot's seed, how long the bot thinks (and since when it thinks over which position),
    the pause between rounds, the hand and the waits last told, the turn told once to a
    person, whether it owes a ``ready``, and an abort it owes (table.md §7.3)."""

    bot_seed: bytes
    #: A player's seat waits for its player between rounds (table.md §6, a person's
    #: seat); the shell says when the player goes on (``go_on``).
    pauses_between_rounds: bool
    #: How long the bot thinks before each move, so people at the table can follow it;
    #: the shell sets it (0: at once). Its choice at a log position is the same.
    think_ms: int = 0
    thinking: tuple[int, int] | None = None
    round_pause: RoundPause = field(default_factory=RoundPause)
    hand: tuple[int, ...] = ()
    waiting: tuple[int, ...] = ()
    turn_shown: int = -1
    ready_wanted: bool = False
    #: A bot says ready again each time the host's new rules clear it (table.md §3.2).
    stays_ready: bool = False
    pending_abort: Abort | None = None

    # -- what the seat owes ----------------------------------------------------------------
    def next_owed(self, now: Moment, duties: DutyDesk, secrets: PeerSecrets,
                  channel_seed: bytes) -> Owed | None:
        """What the seat sends next, if anything: None while a message of ours is on its
        way, during the pause between rounds, or while the shell computes a duty
        (``duties``, net.md §7.1; ``duty_done`` goes on)."""
        state, me = now.state, now.state.my_seat
        if now.stopped or now.busy or state.phase == TablePhase.ENDED:
            return None
        if self._owes_ready(now):
            self.ready_wanted = False
            return Say(Ready(True))
        if self.pending_abort is not None:
            abort, self.pending_abort = self.pending_abort, None
            return Say(abort)
        if me is None or self.pause_deadline(now) is not None:
            return None
        body = duties.next(state, secrets, me, channel_seed)
        if isinstance(body, Asked):
            return None
        if body is not None:
            return Work(body)
        for to, owed in private_shares_owed(state, me).items():
            items = tuple(make_item(state, secrets, me, o) for o in owed)
            return Reveal(state.seats[to], PrivateShares(items))
        return Turn()

    def owe_abort(self, state: TableState, culprit: PeerId, code: str, reason: str) -> None:
        """A fault only this seat can see (table.md §7.3): while an abort still stops the
        game (``keys``, ``playing``, §2), the seat owes one naming ``culprit``, sent
        before any work; a later such fault takes its place."""
        if state.phase in (TablePhase.KEYS, TablePhase.PLAYING):
            self.pending_abort = Abort(culprit, code, reason[:MAX_REASON])

    def works_ahead(self, now: Moment) -> bool:
        """Whether the seat may send its work on an entry still being checked (deck.md
        §6.3): only when its work would go out next, so never once stopped, while a
        message of ours is on its way, with an abort owed, or in the pause between
        rounds (which this call may end, or start holding, as ``pause_deadline`` does)."""
        return not now.stopped and not now.busy and self.pending_abort is None and \
            self.pause_deadline(now) is None

    def ready_on_joining(self, ready: bool, *, bot: bool) -> None:
        """Whether the seat says ready once it has joined; a bot that does says it again
        each time the host's new rules clear it (table.md §3.2)."""
        self.ready_wanted = ready
        self.stays_ready = ready and bot

    def stay_not_ready(self) -> None:
        """The player said "not ready": the seat no longer says ready by itself."""
        self.stays_ready = False

    def _owes_ready(self, now: Moment) -> bool:
        """Whether to say ready now: once after joining when asked to, and, for a bot,
        again each time a ``set_options`` cleared it (table.md §3.2): a bot plays any
        rules, so the host's change must not leave it "not ready" for ever."""
        state = now.state
        lobby = state.lobby
        if lobby is None or state.phase != TablePhase.LOBBY or now.me not in lobby.joined:
            return False
        return self.ready_wanted or (self.stays_ready and now.me.key not in lobby.ready)

    def told(self, state: TableState) -> list[TableEvent]:
        """What changed for the player since it was last told: its hand, and whom the
        table waits for."""
        events: list[TableEvent] = []
        hand = state.engine.hand_faces(state.my_seat) if (
            state.engine is not None and state.my_seat is not None) else ()
        known = tuple(c for c in hand if c is not None)
        if known != self.hand:
            self.hand = known
            events.append(HandChanged(known))
        waiting = tuple(s for s in waiting_for(state) if s != state.my_seat)
        if waiting != self.waiting:
            self.waiting = waiting
            if waiting:
                names = ", ".join(state.player_names[s] for s in waiting)
                events.append(Progress(f"waiting for {names} ({state.phase.value})"))
        return events

    # -- the bot ---------------------------------------------------------------------------
    def bot_choice(self, now: Moment, bot: Bot | None) -> tuple[Action | None, list[TableEvent]]:
        """``bot``'s choice when this seat must or may act (None: none now), and what to
        tell the player: at a person's seat, ``YourTurn`` once per position."""
        state, me = now.state, now.state.my_seat
        game = state.engine
        if game is None or me is None or state.phase != TablePhase.PLAYING or \
                game.awaiting or any(s not in game.known for s in game.hands[me]):
            return None, []
        must = game.decider() == me
        actions = legal_actions(game, me)
        told: list[TableEvent] = []
        if must and now.bot_kind is None and self.turn_shown != state.seq:
            self.turn_shown = state.seq
            told.append(YourTurn(tuple(actions)))
        if bot is None or not actions or self.grace_deadline(now) is not None or \
                self._thinking(now):
            return None, told
        return bot.choose(game, me, actions, must), told

    def bot_for(self, now: Moment) -> Bot | None:
        """The bot for this decision, seeded by the peer's secret and the log position,
        so a peer resumed from its log decides exactly as it did (table.md §9)."""
        if now.bot_kind is None:
            return None
        return BOTS[now.bot_kind](self.bot_seed + now.state.seq.to_bytes(8, "big"))

    def _thinking(self, now: Moment) -> bool:
        """Whether the bot is still thinking over the decision at this log position: its
        time starts when it first sees the position (``think_ms``, 0: no thinking)."""
        think_ms = self._think_ms(now.state)
        if think_ms <= 0:
            return False
        seq = now.state.seq
        if self.thinking is None or self.thinking[0] != seq:
            self.thinking = (seq, now.now_ms)
        return now.now_ms < self.thinking[1] + think_ms

    def _think_ms(self, state: TableState) -> int:
        """``think_ms``, but never over half the turn timer: a bot is never timed out."""
        game = state.engine
        timer_ms = 0 if game is None else game.options.turn_timer * 1000
        return min(self.think_ms, timer_ms // 2) if timer_ms else self.think_ms

    # -- when to look again ------------------------------------------------------------------
    def deadline(self, now: Moment) -> int | None:
        """When this seat next has something to do of its own accord, if ever: the grace
        for a missed UNO ends, its bot stops thinking, or its pause between rounds ends
        (which this call may end, or start holding, as ``pause_deadline`` does)."""
        times = (self.grace_deadline(now), self.think_deadline(now), self.pause_deadline(now))
        return min((t for t in times if t is not None), default=None)

    def think_deadline(self, now: Moment) -> int | None:
        """When the bot's thinking over the current position ends, while it has not."""
        since = self.thinking
        if since is None or since[0] != now.state.seq or now.stopped:
            return None
        deadline = since[1] + self._think_ms(now.state)
        return deadline if now.now_ms < deadline else None

    def grace_deadline(self, now: Moment) -> int | None:
        """While a missed UNO may still be caught, the next player waits (catch_grace_ms)."""
        game, me = now.state.engine, now.state.my_seat
        if game is None or me is None or now.bot_kind is None or game.exposed is None or \
                game.exposed == me or not game.options.catch_grace_ms:
            return None
        deadline = game.exposed_ms + game.options.catch_grace_ms
        return deadline if max(now.now_ms, now.state.clock_ms) < deadline else None

    def pause_deadline(self, now: Moment) -> int | None:
        """Until when this seat holds its shuffle of a new round, while it does."""
        state, me = now.state, now.state.my_seat
        if not self.pauses_between_rounds or me is None or not state.decks or \
                state.phase != TablePhase.PLAYING or now.stopped:
            return None
        deck, pause = state.decks[-1], self.round_pause
        # Round 1 follows no scores; a later round's first deck does (a reshuffle of the
        # discard pile is of the round under way, released already by its first deck).
        if deck.round < 2 or deck.round <= pause.released or me not in deck.shufflers:
            return None
        if pause.held is None or pause.held[0] != deck.number:
            pause.held = (deck.number, now.now_ms)
        deadline = pause.held[1] + ROUND_PAUSE_MS
        if now.now_ms >= deadline:
            pause.go_on(deck.round)
            return None
        return deadline


__all__ = ["Initiative", "Moment", "Owed", "Reveal", "RoundPause", "Say", "Turn", "Work"]
