"""Regenerate the audit's reference logs under tests/data/, deterministically.

Every log is played by the in-memory table (``uno_p2p.table.memnet``) among
bot peers with fixed seeds, so the same code gives the same bytes. Honest
games come from several presets and player counts. Each cheating log is what
a disk would really hold:

- *live* cheats go through the real protocol: a ``Tamper`` hook rewrites the
  cheat's own message (re-signed with its own key) on its way to the host,
  or a peer class plays the cheat; the honest sequencer refuses it and logs
  an ``abort`` with the signed message as evidence (out of turn, wrong face,
  a lie in a challenge, equivocation), or the cheat goes unseen until the
  end-of-game reveal (a dishonest shuffle), or the game waits for a reveal
  that never comes (a refused reveal);
- *sequencer* cheats are what a malicious host writes: it countersigns an
  invalid entry (a card not held, a bad decryption share), or the log holds
  two countersigned entries at one number as evidence of a fork.

``tests/data/expected.json`` records, for each log, the verdict that its
construction implies (which peer cheated, at which entry, how); the tests
check the audit against it. Run ``scripts/make-reference-logs`` after a
deliberate protocol change.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from uno_p2p.crypto.identity import Identity
from uno_p2p.crypto.keys import joint_key
from uno_p2p.crypto.shuffle import make_shuffle
from uno_p2p.rules.actions import Action, Challenge, ChallengeVerdict, Play
from uno_p2p.rules.bots import Bot, HeuristicBot
from uno_p2p.rules.cards import CARD_COLOUR, CARD_COUNT
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import State
from uno_p2p.store.unolog import GameLog
from uno_p2p.table.bodies import (
    Abort,
    Clock,
    Move,
    PrivateShares,
    RevealSecrets,
    ShareItem,
    Shares,
    ShuffleDeck,
)
from uno_p2p.table.duties import Owed, make_item
from uno_p2p.table.frames import FRAME_MESSAGE, FRAME_RELAY, frame
from uno_p2p.table.memnet import NAMES, Network, TableSetup, game_over, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.replay import replay
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.registry import Body

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SEED = b"uno-lan/reference/"
WILD_DRAW_FOUR = 104
MAX_STEPS = 1_000_000


@dataclass(frozen=True, slots=True)
class Expected:
    """The verdict a log's construction implies."""

    status: str
    what: str
    code: str | None = None
    entry: int | None = None
    peer: str | None = None


@dataclass(slots=True)
class Game:
    """One simulated table: its network and how it was seated."""

    net: Network
    setup: TableSetup

    def identity(self, seat: int) -> Identity:
        return Identity(seeded(self.setup.seed, f"identity {seat}"))

    def peer(self, seat: int) -> TablePeer:
        return self.net.peers[self.identity(seat).peer.key]

    @property
    def entries(self) -> tuple[Entry, ...]:
        return self.net.entries()


def play(players: int, preset_name: str, overrides: Sequence[str], label: str, *,
         tamper: Callable[[Game], Callable[[bytes, bytes, bytes], list[bytes]]] | None = None,
         custom: dict[int, type[TablePeer]] | None = None,
         ms_per_frame: int = 0) -> Game:
    """Seat and run one table to its end (or until nothing moves).

    ``ms_per_frame`` lets the simulated clock run while frames travel, so the
    sequencer logs its ``clock`` entries as at a real table.
    """
    setup = TableSetup(players, preset(preset_name, overrides), SEED + label.encode(),
                       preset=preset_name)
    holder: list[Callable[[bytes, bytes, bytes], list[bytes]]] = []

    def hook(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        return holder[0](sender, recipient, data) if holder else [data]

    net = seat_table(setup, hook if tamper else None, custom=custom)
    game = Game(net, setup)
    if tamper is not None:
        holder.append(tamper(game))
    if ms_per_frame:
        for _ in range(MAX_STEPS):
            if game_over(net) or not net.step():
                break
            net.now_ms += ms_per_frame
    net.run(until=game_over)
    return game


# -- helpers for cheats -------------------------------------------------------------------------
def resign(game: Game, seat: int, message: Message, body: Body, *, head: Any = None) -> Message:
    """``message`` with a new body (and optionally head), signed again by its own author."""
    return Message.sign(game.identity(seat), message.table_id, message.counter,
                        head or message.head, body)


def own_message(game: Game, seat: int, sender: bytes, recipient: bytes,
                data: bytes) -> Message | None:
    """The message in ``data`` if it is ``seat``'s, on its way to the host."""
    host = game.identity(0).peer.key
    if sender != game.identity(seat).peer.key or recipient != host or data[:1] != FRAME_MESSAGE:
        return None
    return Message.decode(data[1:])


def entry_of(entries: Sequence[Entry], author: bytes, counter: int) -> int:
    """The number of the entry holding ``author``'s message ``counter``."""
    return next(e.seq for e in entries if e.author.key == author and e.message.counter == counter)


def abort_entry(entries: Sequence[Entry]) -> int:
    """The number of the first ``abort`` entry."""
    return next(e.seq for e in entries if type(e.body).__name__ == "Abort")


def countersigned(game: Game, entries: Sequence[Entry], index: int,
                  message: Message) -> list[Entry]:
    """What a malicious host writes: the log before ``index``, then ``message`` placed there."""
    place = entries[index]
    forged = Entry.countersign(game.identity(0), place.seq, place.prev_hash, message)
    return [*entries[:index], forged]


# -- honest games -------------------------------------------------------------------------------
def honest(players: int, preset_name: str, overrides: Sequence[str],
           label: str, ms_per_frame: int = 0) -> tuple[Sequence[Entry], Expected]:
    game = play(players, preset_name, overrides, label, ms_per_frame=ms_per_frame)
    state = game.net.host.state
    engine = state.engine
    assert engine is not None, label  # noqa: S101
    assert state.phase == TablePhase.ENDED, label  # noqa: S101
    winner = state.player_names[engine.winner]
    return game.entries, Expected("ok", f"honest {players}-player game ({preset_name}), "
                                  f"won by {winner}", peer=winner)


def left_early() -> tuple[Sequence[Entry], Expected]:
    """A peer leaves mid-game: it reveals its secrets, everyone follows, all is verified."""
    setup = TableSetup(3, preset("official", ["target=200"]), SEED + b"left", preset="official")
    net = seat_table(setup)
    net.run(until=lambda n: len(n.entries()) > 60)
    leaver = next(p for p in net.peers.values() if p.name == NAMES[2])
    leaver.leave("dinner is ready")
    net._flush(leaver)
    net.run(until=game_over)
    return net.entries(), Expected("stopped", "Cy leaves mid-game and reveals", peer=NAMES[2])


# -- live cheats through the honest sequencer ---------------------------------------------------
def out_of_turn() -> tuple[Sequence[Entry], Expected]:
    """Bob sends a play of his own card while it is Ann's turn; the host stops the game."""
    done: list[int] = []

    def tamper(game: Game) -> Callable[[bytes, bytes, bytes], list[bytes]]:
        def hook(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
            message = own_message(game, 1, sender, recipient, data)
            host = game.net.host.state
            bob = game.peer(1)
            engine = bob.state.engine
            if done or message is None or not isinstance(message.body, Shares) or \
                    engine is None or engine.current == 1 or host.phase != TablePhase.PLAYING \
                    or engine.awaiting or not engine.hands[1]:
                return [data]
            slot = engine.hands[1][0]
            card = engine.known[slot]
            share = make_item(host, bob.secrets, 1, Owed(slot, "open", -1))
            action = Play(1, (slot,), (card,), 0 if card >= 100 else -1)
            forged = resign(game, 1, message, Move(action, (share,)),
                            head=game.net.host.ledger.head)
            done.append(forged.counter)
            return [frame(FRAME_MESSAGE, forged.encode())]
        return hook

    game = play(2, "official", ["target=100"], "out-of-turn", tamper=tamper)
    entries = game.entries
    return entries, Expected("violation", "Bob plays while it is Ann's turn", "illegal_move",
                             abort_entry(entries), NAMES[1])


def wrong_face() -> tuple[Sequence[Entry], Expected]:
    """Cy plays a card of her hand but claims it is a Wild; its shares open to another card."""
    done: list[int] = []

    def tamper(game: Game) -> Callable[[bytes, bytes, bytes], list[bytes]]:
        def hook(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
            message = own_message(game, 2, sender, recipient, data)
            if done or message is None or not isinstance(message.body, Move):
                return [data]
            action = message.body.action
            if not isinstance(action, Play) or len(action.cards) != 1 or action.cards[0] >= 100:
                return [data]
            lie = replace(action, cards=(100,), colour=CARD_COLOUR[action.cards[0]])
            forged = resign(game, 2, message, Move(lie, message.body.shares))
            done.append(forged.counter)
            return [frame(FRAME_MESSAGE, forged.encode())]
        return hook

    game = play(3, "house", ["target=100"], "wrong-face", tamper=tamper)
    entries = game.entries
    return entries, Expected("violation", "Cy shows a card as a Wild it is not", "wrong_face",
                             abort_entry(entries), NAMES[2])


class LiarBot(HeuristicBot):
    """Challenges every Wild Draw Four, then claims guilty with a made-up card."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        if any(isinstance(a, Challenge) for a in actions):
            return Challenge(seat)
        if any(isinstance(a, ChallengeVerdict) for a in actions):
            _, challenged, colour = view.challenge
            for slot in view.hands[challenged]:
                face = view.known.get(slot)
                if face is not None and CARD_COLOUR[face] != colour:
                    fake = next(c for c in range(CARD_COUNT) if CARD_COLOUR[c] == colour)
                    return ChallengeVerdict(seat, ((slot, fake),))
            if not any(slot in view.known for slot in view.hands[challenged]):
                return None  # the challenged hand is not shown yet: wait for it
        return super().choose(view, seat, actions, must_act)


class Liar(TablePeer):
    """Bob with the lying bot, sending his moves without his own engine's check."""

    def _bot(self) -> Bot | None:
        return LiarBot(b"liar" + self.state.seq.to_bytes(8, "big"))

    def act(self, action: Action) -> None:
        if not isinstance(action, ChallengeVerdict):
            super().act(action)
            return
        self._submit(Move(action, self._proofs(action)))


def challenge_lie() -> tuple[Sequence[Entry], Expected]:
    game = play(2, "official", ["target=500"], "challenge-lie", custom={1: Liar})
    entries = game.entries
    # Ann (the host) is the one challenged, but the sequencer judges with public
    # knowledge only (table.md §7): the rules let the claim through, and opening the
    # evidence card with the forwarded share shows another face: wrong_face, by Bob.
    return entries, Expected("violation", "Bob claims a Wild Draw Four was guilty with a card "
                             "Ann does not hold", "wrong_face", abort_entry(entries), NAMES[1])


class BluffBot(HeuristicBot):
    """Plays a Wild Draw Four while holding the colour to match, once (``done`` is the
    peer's own record, as a fresh bot decides each move)."""

    def __init__(self, seed: bytes, done: list[bool]) -> None:
        super().__init__(seed)
        self.done = done

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        hand = view.hands[seat]
        faces = {slot: view.known[slot] for slot in hand if slot in view.known}
        fours = [slot for slot, card in faces.items() if card >= WILD_DRAW_FOUR]
        holds_colour = any(card < CARD_COUNT - 8 and CARD_COLOUR[card] == view.colour
                           for card in faces.values())
        if not self.done and must_act and view.current == seat and view.pending == 0 \
                and fours and holds_colour and len(hand) > 2 and view.drawn is None:
            self.done.append(True)
            return Play(seat, (fours[0],), (faces[fours[0]],), (view.colour + 1) % 4)
        return super().choose(view, seat, actions, must_act)


class Bluffer(TablePeer):
    """Cy with the bluffing bot, sending its Wild Draw Four past its own engine."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bluffed: list[bool] = []

    def _bot(self) -> Bot | None:
        return BluffBot(b"bluff" + self.state.seq.to_bytes(8, "big"), self.bluffed)

    def act(self, action: Action) -> None:
        if isinstance(action, Play) and action.cards[0] >= WILD_DRAW_FOUR:
            self._submit(Move(action, self._proofs(action)))
            return
        super().act(action)

    def _accept(self, entry: Entry) -> None:
        """Its own client lets its bluff through: it forgets its hand for that one entry."""
        body, state, me = entry.body, self.ledger.state, self.ledger.state.my_seat
        game = state.engine
        if entry.author == self.peer_id and isinstance(body, Move) and game is not None and \
                me is not None and isinstance(body.action, Play) and \
                body.action.cards[0] >= WILD_DRAW_FOUR:
            hand = set(game.hands[me])
            blind = replace(game, known={s: c for s, c in game.known.items() if s not in hand})
            self.ledger.state = replace(state, engine=blind)
        super()._accept(entry)


def wild_draw_four() -> tuple[Sequence[Entry], Expected]:
    """Only the reveal shows Cy held the colour: the audit names her at the play itself."""
    game = play(3, "official", ["target=60"], "bluff", custom={2: Bluffer})
    entries = game.entries
    cy = game.identity(2).peer
    index = next(e.seq for e in entries if e.author == cy and isinstance(e.body, Move)
                 and isinstance(e.body.action, Play) and e.body.action.cards[0] >= WILD_DRAW_FOUR)
    return entries, Expected("violation", "Cy plays a Wild Draw Four holding the colour",
                             "illegal_move", index, NAMES[2])


class ChallengerBot(HeuristicBot):
    """Challenges every Wild Draw Four (and gives an honest verdict)."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        if any(isinstance(a, Challenge) for a in actions):
            return Challenge(seat)
        return super().choose(view, seat, actions, must_act)


class Challenger(TablePeer):
    def _bot(self) -> Bot | None:
        return ChallengerBot(b"challenger" + self.state.seq.to_bytes(8, "big"))


class BadPrivate(TablePeer):
    """Sends private reveals whose first share carries no valid proof."""

    def _submit(self, body: Body | None = None, *, to: Any = None,
                private: PrivateShares | None = None) -> None:
        if private is not None:
            first, *rest = private.items
            private = PrivateShares((replace(first, proof=bytes(64)), *rest))
        super()._submit(body, to=to, private=private)


class FalseAccuser(Challenger):
    """Says every private reveal it gets is bad, though none is."""

    def _open_private(self, entry: Entry) -> None:
        super()._open_private(entry)
        self._accuse(entry.author, entry.seq, "bad_private_share", "a bad private share",
                     (entry,))


def _first_sealed(entries: Sequence[Entry], author: bytes) -> int:
    return next(e.seq for e in entries if e.author.key == author and isinstance(e.body, Sealed))


def bad_private_reveal() -> tuple[Sequence[Entry], Expected]:
    """Ann shows her hand to the challenger with a bad share; Bob accuses her; the log
    alone cannot tell who is right until Bob's revealed channel seed opens it."""
    game = play(2, "official", ["target=500"], "bad-private",
                custom={0: BadPrivate, 1: Challenger})
    entries = game.entries
    return entries, Expected("violation", "Ann's private reveal to a challenger is not proven",
                             "bad_private_reveal",
                             _first_sealed(entries, game.identity(0).peer.key), NAMES[0])


def false_accusation() -> tuple[Sequence[Entry], Expected]:
    """Bob says Ann's private reveal was bad; the revealed keys show it was right."""
    game = play(2, "official", ["target=500"], "false-accusation", custom={1: FalseAccuser})
    entries = game.entries
    return entries, Expected("violation", "Bob falsely accuses Ann of a bad private reveal",
                             "false_accusation", abort_entry(entries), NAMES[1])


def equivocation() -> tuple[Sequence[Entry], Expected]:
    """Bob signs two different messages with one number; the host logs the proof."""
    done: list[int] = []

    def tamper(game: Game) -> Callable[[bytes, bytes, bytes], list[bytes]]:
        def hook(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
            message = own_message(game, 1, sender, recipient, data)
            if done or message is None or not isinstance(message.body, Shares) or \
                    len(message.body.items) < 2:
                return [data]
            other = resign(game, 1, message, Shares(message.body.items[:1]))
            done.append(message.counter)
            return [data, frame(FRAME_MESSAGE, other.encode())]
        return hook

    game = play(3, "official", ["target=100"], "equivocation", tamper=tamper)
    entries = game.entries
    return entries, Expected("violation", "Bob signs two messages as one number",
                             "equivocation", abort_entry(entries), NAMES[1])


def bad_shuffle() -> tuple[Sequence[Entry], Expected]:
    """Bob shuffles deck 1 from a seed he never committed to; only the reveal shows it."""
    done: list[tuple[bytes, int]] = []

    def tamper(game: Game) -> Callable[[bytes, bytes, bytes], list[bytes]]:
        def hook(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
            message = own_message(game, 1, sender, recipient, data)
            if done or message is None or not isinstance(message.body, ShuffleDeck) or \
                    message.body.shuffle != 1:
                return [data]
            state = game.net.host.state
            deck = state.decks[1]
            key = joint_key([state.key(s) for s in range(len(state.seats))])
            cheat = make_shuffle(deck.ciphertexts, shuffle_master=b"\x66" * 32,
                                 round_number=deck.round, deck=deck.number, joint_key=key)
            forged = resign(game, 1, message, ShuffleDeck(1, tuple(cheat.to_wire())))
            done.append((message.author.key, message.counter))
            return [frame(FRAME_MESSAGE, forged.encode())]
        return hook

    game = play(3, "official", ["target=60"], "bad-shuffle", tamper=tamper)
    entries = game.entries
    author, counter = done[0]
    return entries, Expected("violation", "Bob's shuffle of deck 1 is not from his seed",
                             "dishonest_shuffle", entry_of(entries, author, counter), NAMES[1])


def refused_reveal() -> tuple[Sequence[Entry], Expected]:
    """Cy never reveals her secrets at the end: the game cannot be verified and stops there."""
    def tamper(game: Game) -> Callable[[bytes, bytes, bytes], list[bytes]]:
        def hook(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
            # Cy's client never sends its reveal: not to the host, nor relayed to anyone.
            if sender != game.identity(2).peer.key or data[:1] not in (FRAME_MESSAGE,
                                                                       FRAME_RELAY):
                return [data]
            body = Message.decode(data[1:]).body
            return [] if isinstance(body, RevealSecrets) else [data]
        return hook

    game = play(3, "official", ["target=60"], "refused-reveal", tamper=tamper)
    entries = game.entries
    # table.md §8: after the response time-out the sequencer logs the closing entry,
    # an abort naming the seat whose reveal never came; it is the log's last entry.
    closing = entries[-1]
    assert isinstance(closing.body, Abort)  # noqa: S101
    assert closing.body.culprit == game.identity(2).peer  # noqa: S101
    return entries, Expected("aborted", "Cy refuses to reveal at the end; the host closes "
                             "the log", "missing_reveal", closing.seq, NAMES[2])


# -- what a malicious sequencer writes ----------------------------------------------------------
def card_not_held() -> tuple[Sequence[Entry], Expected]:
    """The host countersigns Bob's play of a card from Ann's hand."""
    game = play(2, "official", ["target=60"], "card-not-held")
    entries = game.entries
    for index, entry in enumerate(entries):
        body = entry.body
        if entry.author != game.identity(1).peer or not isinstance(body, Move) or \
                not isinstance(body.action, Play):
            continue
        before = replay(entries[:index]).state
        engine = before.engine
        assert engine is not None  # noqa: S101
        stolen = engine.hands[0][0]
        action = replace(body.action, slots=(stolen,))
        forged = resign(game, 1, entry.message, Move(action, ()))
        return countersigned(game, entries, index, forged), Expected(
            "violation", "Bob plays a card from Ann's hand; the host logs it", "illegal_move",
            index, NAMES[1])
    raise SystemExit("no play by Bob")


def bad_share() -> tuple[Sequence[Entry], Expected]:
    """The host countersigns Cy's decryption shares with two of them swapped."""
    game = play(3, "official", ["target=60"], "bad-share")
    entries = game.entries
    for index, entry in enumerate(entries):
        body = entry.body
        if entry.author != game.identity(2).peer or not isinstance(body, Shares) or \
                len(body.items) < 2:
            continue
        first, second, *rest = body.items
        swapped: tuple[ShareItem, ...] = (replace(first, share=second.share),
                                          replace(second, share=first.share), *rest)
        forged = resign(game, 2, entry.message, Shares(swapped))
        return countersigned(game, entries, index, forged), Expected(
            "violation", "Cy's decryption share does not match its proof; the host logs it",
            "bad_share", index, NAMES[2])
    raise SystemExit("no shares by Cy")


def forked() -> tuple[Sequence[Entry], Expected]:
    """Bob's log holds two entries the host countersigned at one number (a fork)."""
    game = play(3, "official", ["target=60"], "fork")
    entries = game.entries
    index = len(entries) // 2
    place = entries[index]
    host = game.identity(0)
    counter = sum(1 for e in entries[:index] if e.author == host.peer)
    other = Message.sign(host, place.message.table_id, counter,
                         Head(index, place.prev_hash), Clock(999_999))
    fork = Entry.countersign(host, place.seq, place.prev_hash, other)
    return [*entries[:index + 1], fork], Expected(
        "violation", "two entries countersigned at one number", "sequencer_fork", index,
        NAMES[0])


def dropped_turn() -> tuple[Sequence[Entry], Expected]:
    """The host silently leaves Bob's move out and re-chains the rest under its own key.

    Every later entry is countersigned again, but the authors signed what they had
    seen: the first entry whose author saw the dropped move, or Bob's next message
    (its counter now skips one), shows the host's hand.
    """
    game = play(3, "official", ["target=60"], "dropped-turn")
    entries = list(game.entries)
    bob = game.identity(1).peer
    drop = next(e.seq for e in entries if e.author == bob and isinstance(e.body, Move))
    host = game.identity(0)
    rechained: list[Entry] = list(entries[:drop])
    expected: tuple[str, int] | None = None
    for old in entries[drop + 1:]:
        seq = len(rechained)
        prev = rechained[-1].hash
        rechained.append(Entry.countersign(host, seq, prev, old.message))
        if expected is None:
            seen = old.message.head.seen
            if seen > seq:
                expected = ("head_ahead", seq)
            elif old.author == bob:
                expected = ("counter_gap", seq)
            elif seen > drop:
                expected = ("head_mismatch", seq)
    assert expected is not None  # noqa: S101
    return rechained[:expected[1] + 1], Expected(
        "violation", "the host drops Bob's move and re-chains the log", expected[0],
        expected[1], NAMES[0])


# -- writing ------------------------------------------------------------------------------------
LOGS: dict[str, Callable[[], tuple[Sequence[Entry], Expected]]] = {
    "honest-2p-official": lambda: honest(2, "official", ["target=60"], "honest-2p"),
    "honest-3p-house": lambda: honest(3, "house", ["target=60"], "honest-3p"),
    "honest-4p-party": lambda: honest(4, "party", ["target=50"], "honest-4p"),
    "honest-3p-seeds": lambda: honest(3, "seeds", ["target=60", "turn_timer=30"], "seeds-3p",
                                      ms_per_frame=40),
    "stopped-leave": left_early,
    "cheat-card-not-held": card_not_held,
    "cheat-out-of-turn": out_of_turn,
    "cheat-wrong-face": wrong_face,
    "cheat-bad-share": bad_share,
    "cheat-challenge-lie": challenge_lie,
    "cheat-wild-draw-four": wild_draw_four,
    "cheat-bad-private-reveal": bad_private_reveal,
    "cheat-false-accusation": false_accusation,
    "cheat-bad-shuffle": bad_shuffle,
    "cheat-equivocation": equivocation,
    "cheat-forked-sequencer": forked,
    "cheat-dropped-turn": dropped_turn,
    "cheat-refused-reveal": refused_reveal,
}


def write(name: str, entries: Sequence[Entry], directory: Path) -> Path:
    path = directory / f"{name}.unolog"
    path.unlink(missing_ok=True)
    with GameLog.create(path) as log:
        for entry in entries:
            log.append(entry)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DATA, help="where to write (tests/data)")
    parser.add_argument("--only", action="append", default=[], help="one log name (repeatable)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    expected_path = args.out / "expected.json"
    expected = json.loads(expected_path.read_text()) if expected_path.exists() else {}
    for name, make in LOGS.items():
        if args.only and name not in args.only:
            continue
        entries, verdict = make()
        path = write(name, entries, args.out)
        expected[path.name] = {"status": verdict.status, "what": verdict.what,
                               "code": verdict.code, "entry": verdict.entry,
                               "peer": verdict.peer}
        print(f"{path.name}: {len(entries)} entries, {path.stat().st_size} bytes: {verdict.what}")
    expected_path.write_text(json.dumps(dict(sorted(expected.items())), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
