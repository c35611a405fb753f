"""What a peer does of its own accord: say ready, send an abort it owes, do its
duties (keys, shuffles, shares), send the private shares it owes, then let its bot
move (docs/protocol/table.md §5).

Functions over a ``TablePeer`` (kept apart so the peer stays readable), called
after every change of its state: one body at a time, each only once the previous
one is logged, so a peer never has two messages in flight (table.md §3.1). What
the seat decides (its moves, its private reveals, whether it works) is its
``Player``'s (``table/player.py``): the plug for bots, scripted games and a
test's adversary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from uno_p2p.errors import IllegalAction, LocalProtocolError
from uno_p2p.rules.bots import BOTS, Bot
from uno_p2p.rules.legal import legal_actions
from uno_p2p.table.bodies import Abort, PrivateShares
from uno_p2p.table.duties import make_item, private_shares_owed, waiting_for
from uno_p2p.table.events import HandChanged, Progress, TableEvent, YourTurn
from uno_p2p.table.offload import Asked
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.limits import ROUND_PAUSE_MS
from uno_p2p.wire.lobby import Ready

if TYPE_CHECKING:
    from uno_p2p.table.peer import TablePeer


def drive(peer: TablePeer, tell: Callable[[TableEvent], None]) -> None:
    """Send what the table waits for from us; then ``tell`` the shell what changed for
    its player (the hand, whom the table waits for)."""
    while next_message(peer):
        pass
    state, mine = peer.state, peer.initiative
    hand = state.engine.hand_faces(state.my_seat) if (
        state.engine is not None and state.my_seat is not None) else ()
    known = tuple(c for c in hand if c is not None)
    if known != mine.hand:
        mine.hand = known
        tell(HandChanged(known))
    waiting = tuple(s for s in waiting_for(state) if s != state.my_seat)
    if waiting != mine.waiting:
        mine.waiting = waiting
        if waiting:
            names = ", ".join(state.player_names[s] for s in waiting)
            tell(Progress(f"waiting for {names} ({state.phase.value})"))


def next_message(peer: TablePeer) -> bool:
    """Send the next body the table waits for from us, if any; True if one was sent."""
    state, me = peer.state, peer.state.my_seat
    if peer.stopped is not None or peer.outbox.busy or \
            state.phase == TablePhase.ENDED:
        return False
    mine = peer.initiative
    if _owes_ready(peer):
        mine.ready_wanted = False
        peer.send(Ready(True))
        return True
    if mine.pending_abort is not None:
        abort, mine.pending_abort = mine.pending_abort, None
        peer.send(abort)
        return True
    if me is None or pause_deadline(peer) is not None:
        return False
    body = peer.duties.next(state, peer.secrets, me, peer.channel_seed)
    if isinstance(body, Asked):
        return False  # the shell computes it (net.md §7.1); ``duty_done`` goes on
    if body is not None:
        work = peer.player.work(peer, body)
        if work is None:
            return False
        peer.send(work)
        return True
    for to, owed in private_shares_owed(state, me).items():
        items = tuple(make_item(state, peer.secrets, me, o) for o in owed)
        peer.send(to=state.seats[to], private=peer.player.reveal(peer, PrivateShares(items)))
        return True
    return peer.player.move(peer)


def _owes_ready(peer: TablePeer) -> bool:
    """Whether to say ready now: once after joining when asked to, and, for a bot,
    again each time a ``set_options`` cleared it (table.md §3.2): a bot plays any
    rules, so the host's change must not leave it "not ready" for ever."""
    lobby = peer.state.lobby
    if lobby is None or peer.state.phase != TablePhase.LOBBY or \
            peer.peer_id not in lobby.joined:
        return False
    mine = peer.initiative
    return mine.ready_wanted or (mine.stays_ready and peer.peer_id.key not in lobby.ready)


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


def pause_deadline(peer: TablePeer) -> int | None:
    """Until when this seat holds its shuffle of a new round, while it does."""
    state, me = peer.state, peer.state.my_seat
    if not peer.initiative.pauses_between_rounds or me is None or not state.decks or \
            state.phase != TablePhase.PLAYING or peer.stopped is not None:
        return None
    deck, pause = state.decks[-1], peer.initiative.round_pause
    # Round 1 follows no scores; a later round's first deck does (a reshuffle of the
    # discard pile is of the round under way, released already by its first deck).
    if deck.round < 2 or deck.round <= pause.released or me not in deck.shufflers:
        return None
    if pause.held is None or pause.held[0] != deck.number:
        pause.held = (deck.number, peer.now_ms)
    deadline = pause.held[1] + ROUND_PAUSE_MS
    if peer.now_ms >= deadline:
        pause.go_on(deck.round)
        return None
    return deadline


def bot_move(peer: TablePeer, bot: Bot | None, tell: Callable[[TableEvent], None]) -> bool:
    """``bot``'s move when this seat must act; a human's seat is told ``YourTurn`` once
    (through ``tell``)."""
    state, me = peer.state, peer.state.my_seat
    game = state.engine
    if game is None or me is None or state.phase != TablePhase.PLAYING or \
            game.awaiting or any(s not in game.known for s in game.hands[me]):
        return False
    must = game.decider() == me
    actions = legal_actions(game, me)
    if must and peer.bot_kind is None and peer.initiative.turn_shown != state.seq:
        peer.initiative.turn_shown = state.seq
        tell(YourTurn(tuple(actions)))
    if bot is None or not actions or grace_deadline(peer) is not None or _thinking(peer):
        return False
    choice = bot.choose(game, me, actions, must)
    if choice is None:
        return False
    try:
        peer.act(choice)
    except (IllegalAction, LocalProtocolError):
        return False
    return True


def _thinking(peer: TablePeer) -> bool:
    """Whether the bot is still thinking over the decision at this log position: its
    time starts when it first sees the position (``think_ms``, 0: no thinking)."""
    if _think_ms(peer) <= 0:
        return False
    seq, mine = peer.state.seq, peer.initiative
    if mine.thinking is None or mine.thinking[0] != seq:
        mine.thinking = (seq, peer.now_ms)
    return peer.now_ms < mine.thinking[1] + _think_ms(peer)


def think_deadline(peer: TablePeer) -> int | None:
    """When the bot's thinking over the current position ends, while it has not."""
    since = peer.initiative.thinking
    if since is None or since[0] != peer.state.seq or peer.stopped is not None:
        return None
    deadline = since[1] + _think_ms(peer)
    return deadline if peer.now_ms < deadline else None


def _think_ms(peer: TablePeer) -> int:
    """``think_ms``, but never over half the turn timer: a bot is never timed out."""
    game = peer.state.engine
    timer_ms = 0 if game is None else game.options.turn_timer * 1000
    think_ms = peer.initiative.think_ms
    return min(think_ms, timer_ms // 2) if timer_ms else think_ms


def bot_for(peer: TablePeer) -> Bot | None:
    """The bot for this decision, seeded by the peer's secret and the log position,
    so a peer resumed from its log decides exactly as it did (table.md §9)."""
    if peer.bot_kind is None:
        return None
    return BOTS[peer.bot_kind](peer.initiative.bot_seed + peer.state.seq.to_bytes(8, "big"))


def grace_deadline(peer: TablePeer) -> int | None:
    """While a missed UNO may still be caught, the next player waits (catch_grace_ms)."""
    game, me = peer.state.engine, peer.state.my_seat
    if game is None or me is None or peer.bot_kind is None or game.exposed is None or \
            game.exposed == me or not game.options.catch_grace_ms:
        return None
    deadline = game.exposed_ms + game.options.catch_grace_ms
    return deadline if max(peer.now_ms, peer.state.clock_ms) < deadline else None


