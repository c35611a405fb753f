"""Adversarial peers for the table tests: each cheats once, in one way.

A cheater is an ordinary ``TablePeer`` that is its own ``Player`` (the public plug
for what a seat sends, ``uno_p2p/table/player.py``): its ``move``, ``reveal`` or
``work`` decides otherwise than an honest bot, or its ``outgoing`` hook (every body
it sends passes there) rewrites a body. The evil hosts skip the sequencer's checks
and countersign what they like.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.table.cheats import (
    BlindToItsVerdict,
    bluff_play,
    first_card_play,
    holds_colour,
    shuffle_from,
    stacked_deck,
)
from uno_p2p.crypto.group import Point, Scalar
from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import Challenge, ChallengeVerdict, Play, TimeOut
from uno_p2p.rules.state import Phase
from uno_p2p.table.bodies import Clock, Move, Shares, ShuffleDeck
from uno_p2p.table.duties import Owed, make_item
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_MESSAGE, frame
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.player import BotPlayer, Seat
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.codec import unpack
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.registry import Body


class Playing(TablePeer, BotPlayer):
    """A test's peer that is its own player: its ``move``, ``reveal`` and ``work``
    decide what it sends (by default, as an honest bot does)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.player = self


class Cheater(Playing):
    """Cheats once, at the first chance ``cheat`` takes; honest otherwise."""

    cheated = False

    def outgoing(self, body: Body) -> Body:
        if self.cheated:
            return body
        forged = self.cheat(body)
        if forged is not body:
            self.cheated = True
        return forged

    def cheat(self, body: Body) -> Body:
        return body

    def my_play(self, body: Body) -> Play | None:
        if isinstance(body, Move) and isinstance(body.action, Play):
            return body.action
        return None


class PlaysCardNotHeld(Cheater):
    """Plays a card from another player's hand, claiming its own card's face."""

    def cheat(self, body: Body) -> Body:
        play = self.my_play(body)
        game, me = self.state.engine, self.state.my_seat
        if play is None or game is None or me is None:
            return body
        other = next(s for s in game.order if s != me and game.hands[s])
        slot = game.hands[other][0]
        item = make_item(self.state, self.secrets, me, Owed(slot, "open", -1))
        return Move(replace(play, slots=(slot,), cards=play.cards[:1]), (item,))


class ClaimsWrongFace(Cheater):
    """Plays a card it holds but claims it is a Wild (which always matches)."""

    def cheat(self, body: Body) -> Body:
        play = self.my_play(body)
        if play is None or len(play.slots) != 1 or play.cards[0] >= 100:
            return body
        wild = next(c for c in range(100, 104) if c not in self.state.game.known.values())
        shares = body.shares if isinstance(body, Move) else ()
        return Move(replace(play, cards=(wild,), colour=0, power="", target=-1), shares)


class PlaysOutOfTurn(Cheater):
    """Plays its first card while another player has the turn."""

    def move(self, seat: Seat) -> bool:
        game, me = seat.state.engine, seat.state.my_seat
        if self.cheated or game is None or me is None or game.phase != Phase.PLAYING or \
                game.current == me or seat.outstanding is not None or \
                any(s not in game.known for s in game.hands[me]):
            return super().move(seat)
        self.cheated = True
        seat.send(first_card_play(seat.state, seat.secrets, me))
        return True


class BadShare(Cheater):
    """Deals a wrong decryption share (a valid point, but not x·c1)."""

    def cheat(self, body: Body) -> Body:
        if not isinstance(body, Shares):
            return body
        item = body.items[0]
        wrong = Point.from_wire(item.share, peer=None, item="share") * Scalar.of(2)
        return Shares((replace(item, share=wrong.to_wire()), *body.items[1:]))


class Equivocates(Cheater):
    """Sends two different messages under one counter: a Shares batch, and half of it."""

    def work(self, seat: Seat, body: Body) -> Body | None:
        if self.cheated or not isinstance(body, Shares) or len(body.items) < 2:
            return super().work(seat, body)
        self.send(body)
        self.cheated = True
        message = Message.sign(self.identity, self.table_id, self.counter - 1,
                               self.ledger.head, Shares(body.items[:1]))
        self.send_frame(Outgoing(None, frame(FRAME_MESSAGE, message.encode())))
        return None  # both sent: nothing more until the first is logged


class ReplaysOldMessage(Cheater):
    """Sends again, byte for byte, its first message of the game (its key setup)."""

    def logged(self, entry: Entry) -> None:
        if not self.cheated and self.state.phase == TablePhase.PLAYING and \
                self.state.engine is not None and self.state.engine.phase == Phase.PLAYING:
            first = next(e for e in self.ledger.chain.entries if e.author == self.peer_id
                         and type(e.body).__name__ == "KeySetup")
            self.cheated = True
            self.send_frame(Outgoing(None, frame(FRAME_MESSAGE, first.message.encode())))


class DishonestShuffler(Cheater):
    """Shuffles from a seed it never committed to: a true shuffle with a valid proof, so
    it looks fine until the reveal's re-execution."""

    def cheat(self, body: Body) -> Body:
        if not isinstance(body, ShuffleDeck):
            return body
        fake = PeerSecrets.from_seed(b"\x07" * 32, table=self.table_id, peer=self.peer_id.key)
        return shuffle_from(self.state, body.shuffle, self.peer_id.key, fake.shuffle_master)

    def send_turn_ahead(self, entry: Entry) -> tuple[()]:
        # It shuffles the deck it has accepted anew, so it sends its turn only from its
        # accepted state, never ahead of it (deck.md §6.3).
        return ()


class StacksTheDeck(Cheater):
    """The last shuffler of a round's deck replaces the whole deck with its own fresh
    encryption, under the joint key, of the deck's cards in an order it chose (so it
    would know every card), and sends its honest proof (issue 9's attack)."""

    proof: bytes | None = None  # None: keep the honest proof; else send this instead

    def cheat(self, body: Body) -> Body:
        if not isinstance(body, ShuffleDeck):
            return body
        deck = self.state.decks[body.shuffle]
        # The deck's last shuffler: its turn may be sent while the turn before it is
        # still checked, from a state where the shuffler before it is still to come.
        if deck.shufflers[-1:] != (self.state.my_seat,) or \
                len(deck.card_ids) != len(deck.ciphertexts):
            return body
        proof = body.proof if self.proof is None else self.proof
        return replace(body, ciphertexts=stacked_deck(self.state, body.shuffle), proof=proof)


class StacksWithoutProof(StacksTheDeck):
    """The same, sending no proof at all."""

    proof = b""


class LyingChallenger(BlindToItsVerdict, Cheater):
    """Always challenges a Wild Draw Four, then gives the verdict the hand disproves.

    RULES.md: the hand is "shown to the challenger alone", so only the
    challenged player sees the lie at once; everyone learns it at the round end. Its own
    client lets the lie through (``BlindToItsVerdict``).
    """

    def move(self, seat: Seat) -> bool:
        game, me = seat.state.engine, seat.state.my_seat
        if game is None or me is None or seat.outstanding is not None:
            return super().move(seat)
        if game.phase == Phase.PLAYING and game.current == me and game.pending_rank == 14 \
                and not self.cheated:
            try:
                seat.act(Challenge(me))
            except IllegalAction:  # no challenge allowed now: play on
                return super().move(seat)
            return True
        if game.phase == Phase.CHALLENGE and game.challenge is not None and \
                game.challenge[0] == me and not self.cheated:
            _, challenged, colour = game.challenge
            hand = game.hands[challenged]
            if any(s not in game.known for s in hand):
                return False
            guilty = holds_colour((game.known[s] for s in hand), colour)
            self.cheated = True
            seat.send(Move(ChallengeVerdict(me, not guilty), ()))
            return True
        return super().move(seat)


class EvilHost(TablePeer):
    """A host that countersigns without checking: ``inject`` logs any body as its own."""

    def inject(self, body: Body, to: list[PeerId] | None = None) -> Entry:
        """Countersign ``body`` at the next number and send it (to ``to``, or everyone)."""
        sequencer = self.sequencer
        assert sequencer is not None
        head = self.ledger.head
        message = Message.sign(self.identity, self.table_id, sequencer.counter, head, body)
        entry = Entry.countersign(self.identity, head.seen, head.hash, message)
        self.send_entry(entry, to)
        return entry

    def send_entry(self, entry: Entry, to: list[PeerId] | None = None) -> None:
        """Send ``entry`` as logged (to ``to``, or every other peer at the table)."""
        lobby = self.state.lobby
        assert lobby is not None
        targets = tuple(to or [p for p in lobby.joined if p != self.peer_id])
        self.send_frame(Outgoing(targets, frame(FRAME_ENTRY, entry.encode())))

    def wrap(self, message: Message) -> Entry:
        """Countersign a peer's message at the next number without any check."""
        head = self.ledger.head
        return Entry.countersign(self.identity, head.seen, head.hash, message)


class LogsBadShuffle(EvilHost, Playing):
    """Logs its own first shuffle turn with a broken proof, unchecked, then goes silent
    (the next shuffler meets a countersigned turn whose proof fails, deck.md §6.3)."""

    done = False

    def work(self, seat: Seat, body: Body) -> Body | None:
        if self.done:
            return None
        if not isinstance(body, ShuffleDeck):
            return super().work(seat, body)
        self.done = True
        proof = bytearray(body.proof)
        proof[len(proof) // 2] ^= 1
        self.inject(replace(body, proof=bytes(proof)))
        return None


class UncheckingHost(EvilHost):
    """Logs the first Move of the peer ``victim_seat`` without checking it."""

    victim_seat = 1
    done = False

    def receive(self, data: bytes, now_ms: int | None = None,
                sender: PeerId | None = None, arrived_ms: int | None = None) -> None:
        if not self.done and data[:1] == FRAME_MESSAGE:
            message = Message.decode(data[1:])
            if isinstance(message.body, Move) and \
                    self.state.seat_of(message.author.key) == self.victim_seat:
                self.done = True
                self.send_entry(self.wrap(message))
                return
        super().receive(data, now_ms, sender, arrived_ms)


class SkipsTurn(EvilHost):
    """Drops the first Move of seat 1 and times that player out at once instead."""

    done = False

    def receive(self, data: bytes, now_ms: int | None = None,
                sender: PeerId | None = None, arrived_ms: int | None = None) -> None:
        if not self.done and data[:1] == FRAME_MESSAGE:
            message = Message.decode(data[1:])
            if isinstance(message.body, Move) and self.state.seat_of(message.author.key) == 1:
                self.done = True
                self.inject(Move(TimeOut(1)))
                return
        super().receive(data, now_ms, sender, arrived_ms)


class Forks(EvilHost):
    """Sends seat 1 a different entry at one number (a Clock), then the real one."""

    done = False

    def announcing(self, entry: Entry) -> None:
        lobby = self.state.lobby
        if self.done or lobby is None or self.state.phase != TablePhase.PLAYING or \
                len(lobby.joined) < 2:
            return
        self.done = True
        victim = lobby.joined[1]
        sequencer = self.sequencer
        assert sequencer is not None
        # Countersign another entry at this number, for the victim only.
        head_seen, prev = entry.seq, entry.prev_hash
        from uno_p2p.wire.envelope import Head

        other = Message.sign(self.identity, self.table_id, entry.message.counter
                             if entry.author == self.peer_id else sequencer.counter,
                             Head(head_seen, prev),
                             # within the clock tolerance: only the fork gives it away
                             Clock(max(self.now_ms, self.state.clock_ms) + 1))
        fork = Entry.countersign(self.identity, entry.seq, prev, other)
        self.send_frame(Outgoing((victim,), frame(FRAME_ENTRY, fork.encode())))


class Reorders(EvilHost):
    """Logs seat 1's message before the entry its author had already seen (a head ahead)."""

    done = False
    held: Message | None = None

    def receive(self, data: bytes, now_ms: int | None = None,
                sender: PeerId | None = None, arrived_ms: int | None = None) -> None:
        if not self.done and data[:1] == FRAME_MESSAGE:
            message = Message.decode(data[1:])
            seat = self.state.seat_of(message.author.key)
            if seat == 1 and self.state.phase == TablePhase.PLAYING and \
                    message.head.seen == self.state.seq and self.state.seq > 2:
                self.done = True
                # Put it one place earlier than its author saw: over the last entry.
                last = self.ledger.chain.entries[-1]
                self.send_entry(Entry.countersign(self.identity, last.seq, last.prev_hash,
                                                  message))
                return
        super().receive(data, now_ms, sender, arrived_ms)


def decode_entry(data: bytes) -> Entry:
    return Entry.from_wire(unpack(data[1:]))




class Eager(Playing):
    """An honest bot that uses every Wild power and challenges every Wild Draw Four."""

    def move(self, seat: Seat) -> bool:
        game, me = seat.state.engine, seat.state.my_seat
        if game is None or me is None or seat.outstanding is not None or \
                seat.state.phase != TablePhase.PLAYING or game.awaiting or \
                any(s not in game.known for s in game.hands[me]):
            return super().move(seat)
        from uno_p2p.rules.legal import legal_actions

        actions = legal_actions(game, me)
        order = ("swap", "peek") if seat.state.seq % 2 else ("peek", "swap")
        for wanted in order:
            for action in actions:
                if isinstance(action, Play) and action.power == wanted:
                    seat.act(action)
                    return True
        for action in actions:
            if isinstance(action, Challenge):
                seat.act(action)
                return True
        return super().move(seat)


class Bluffer(Playing):
    """Plays a Wild Draw Four once while holding a card of the colour to match, past
    its own engine (a cheat only the hands' reveal can prove)."""

    bluffed = False

    def move(self, seat: Seat) -> bool:
        game, me = seat.state.engine, seat.state.my_seat
        if self.bluffed or game is None or me is None or seat.outstanding is not None or \
                seat.state.phase != TablePhase.PLAYING or game.awaiting or \
                game.phase != Phase.PLAYING or any(s not in game.known for s in game.hands[me]):
            return super().move(seat)
        play = bluff_play(game, me)
        if play is None:
            return super().move(seat)
        self.bluffed = True
        seat.send(Move(play, seat.proofs(play)))
        return True
