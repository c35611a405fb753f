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

from dataclasses import dataclass
from typing import TYPE_CHECKING

from uno_p2p.errors import IllegalAction, LocalProtocolError
from uno_p2p.rules.bots import BOTS, Bot
from uno_p2p.rules.legal import legal_actions
from uno_p2p.table.bodies import PrivateShares
from uno_p2p.table.duties import make_item, private_shares_owed, waiting_for
from uno_p2p.table.events import HandChanged, Progress, YourTurn
from uno_p2p.table.offload import Asked
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.limits import ROUND_PAUSE_MS
from uno_p2p.wire.lobby import Ready

if TYPE_CHECKING:
    from uno_p2p.table.peer import TablePeer


def drive(peer: TablePeer) -> None:
    """Send what the table waits for from us; then tell the shell what changed for its
    player (the hand, whom the table waits for)."""
    while next_message(peer):
        pass
    state = peer.state
    hand = state.engine.hand_faces(state.my_seat) if (
        state.engine is not None and state.my_seat is not None) else ()
    known = tuple(c for c in hand if c is not None)
    if known != peer._hand:
        peer._hand = known
        peer._events.append(HandChanged(known))
    waiting = tuple(s for s in waiting_for(state) if s != state.my_seat)
    if waiting != peer._waiting:
        peer._waiting = waiting
        if waiting:
            names = ", ".join(state.player_names[s] for s in waiting)
            peer._events.append(Progress(f"waiting for {names} ({state.phase.value})"))


def next_message(peer: TablePeer) -> bool:
    """Send the next body the table waits for from us, if any; True if one was sent."""
    state, me = peer.state, peer.state.my_seat
    if peer.stopped is not None or peer.outbox.busy or \
            state.phase == TablePhase.ENDED:
        return False
    if _owes_ready(peer):
        peer._ready_wanted = False
        peer.send(Ready(True))
        return True
    if peer._pending_abort is not None:
        abort, peer._pending_abort = peer._pending_abort, None
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
    return peer._ready_wanted or (peer._stays_ready and peer.peer_id.key not in lobby.ready)


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


def pause_deadline(peer: TablePeer) -> int | None:
    """Until when this seat holds its shuffle of a new round, while it does."""
    state, me = peer.state, peer.state.my_seat
    if not peer.pauses_between_rounds or me is None or not state.decks or \
            state.phase != TablePhase.PLAYING or peer.stopped is not None:
        return None
    deck, pause = state.decks[-1], peer.round_pause
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


def bot_move(peer: TablePeer, bot: Bot | None) -> bool:
    """``bot``'s move when this seat must act; a human's seat is told ``YourTurn`` once."""
    state, me = peer.state, peer.state.my_seat
    game = state.engine
    if game is None or me is None or state.phase != TablePhase.PLAYING or \
            game.awaiting or any(s not in game.known for s in game.hands[me]):
        return False
    must = game.decider() == me
    actions = legal_actions(game, me)
    if must and peer.bot_kind is None and peer._turn_shown != state.seq:
        peer._turn_shown = state.seq
        peer._events.append(YourTurn(tuple(actions)))
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
    seq = peer.state.seq
    if peer._thinking is None or peer._thinking[0] != seq:
        peer._thinking = (seq, peer.now_ms)
    return peer.now_ms < peer._thinking[1] + _think_ms(peer)


def think_deadline(peer: TablePeer) -> int | None:
    """When the bot's thinking over the current position ends, while it has not."""
    since = peer._thinking
    if since is None or since[0] != peer.state.seq or peer.stopped is not None:
        return None
    deadline = since[1] + _think_ms(peer)
    return deadline if peer.now_ms < deadline else None


def _think_ms(peer: TablePeer) -> int:
    """``think_ms``, but never over half the turn timer: a bot is never timed out."""
    game = peer.state.engine
    timer_ms = 0 if game is None else game.options.turn_timer * 1000
    return min(peer.think_ms, timer_ms // 2) if timer_ms else peer.think_ms


def bot_for(peer: TablePeer) -> Bot | None:
    """The bot for this decision, seeded by the peer's secret and the log position,
    so a peer resumed from its log decides exactly as it did (table.md §9)."""
    if peer.bot_kind is None:
        return None
    return BOTS[peer.bot_kind](peer._bot_seed + peer.state.seq.to_bytes(8, "big"))


def grace_deadline(peer: TablePeer) -> int | None:
    """While a missed UNO may still be caught, the next player waits (catch_grace_ms)."""
    game, me = peer.state.engine, peer.state.my_seat
    if game is None or me is None or peer.bot_kind is None or game.exposed < 0 or \
            game.exposed == me or not game.options.catch_grace_ms:
        return None
    deadline = game.exposed_ms + game.options.catch_grace_ms
    return deadline if max(peer.now_ms, peer.state.clock_ms) < deadline else None


