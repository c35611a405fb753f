"""Regenerate the audit's reference logs under tests/data/, deterministically.

Every log is played by the in-memory table (``uno_p2p.table.memnet``) among
bot peers with fixed seeds, so the same code gives the same bytes. Honest
games come from several presets and player counts. Each cheating log is what
a disk would really hold:

- *live* cheats go through the real protocol: a ``Tamper`` hook rewrites the
  cheat's own message (re-signed with its own key) on its way to the host,
  or a peer class plays the cheat; the honest sequencer refuses it and logs
  an ``abort`` with the signed message as evidence (out of turn, wrong face,
  a lie in a challenge, equivocation, a stacked deck whose proof of shuffle
  fails), or the cheat goes unseen until the end-of-game reveal (a true
  shuffle from an uncommitted seed), or the game waits for a reveal that
  never comes (a refused reveal);
- *sequencer* cheats are what a malicious host writes: it countersigns an
  invalid entry (a card not held, a bad decryption share), or the log holds
  two countersigned entries at one number as evidence of a fork.

``tests/data/expected.json`` holds, for each log, the verdict its
construction implies (which peer cheated, at which entry, how), written and
checked by hand against the log's entries: this script never writes it, so
no run of the code under test can move an expected verdict. It prints what
each construction implies beside the stored verdict and says when they
differ; after a deliberate protocol change, look at the new log's entries
and edit expected.json by hand. Run ``scripts/make-reference-logs`` after
such a change.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from uno_p2p.audit.core import revealed_knowledge
from uno_p2p.audit.walk import walk
from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.actions import Action, Challenge, ChallengeVerdict, Play
from uno_p2p.rules.bots import HeuristicBot
from uno_p2p.rules.cards import CARD_COLOUR
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import State
from uno_p2p.store.unolog import GameLog
from uno_p2p.table.bodies import (
    Abort,
    Clock,
    Handover,
    Move,
    PrivateShares,
    RevealSecrets,
    ShareItem,
    Shares,
    ShuffleDeck,
)
from uno_p2p.table.frames import FRAME_MESSAGE, FRAME_RELAY, frame
from uno_p2p.table.memnet import NAMES, Network, TableSetup, game_over, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.player import Seat
from uno_p2p.table.replay import replay
from uno_p2p.table.state import TablePhase, TableState
from uno_p2p.wire.envelope import Entry, Head, Message
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.registry import Body

ROOT = Path(__file__).resolve().parent.parent
# The cheats recorded here are the table tests' own (one copy, tests/table/cheats.py): this
# script runs from a checkout, beside the tests whose reference data it writes.
sys.path.insert(0, str(ROOT))
from tests.table.adversaries import Playing  # noqa: E402
from tests.table.cheats import (  # noqa: E402
    WILD,
    WILD_DRAW_FOUR,
    BlindToItsVerdict,
    bluff_play,
    first_card_play,
    forget_hand,
    holds_colour,
    shuffle_from,
    stacked_deck,
)

DATA = ROOT / "tests" / "data"
SEED = b"uno-lan/reference/"
#: The reference logs are protocol version 1's (frozen, wire.md §3): their tables are
#: opened at that version, so their shuffles name no deck (table.md §4.1) and every
#: message comes out byte for byte as stored.
REFERENCE_VERSION = 1
MAX_STEPS = 1_000_000
#: How many seed labels a log that needs a particular event tries (``label-1`` ...).
SEARCH = 60

T = TypeVar("T")
#: What a tamper does to a frame on the simulated wire: the frames delivered instead.
Hook = Callable[[bytes, bytes, bytes], list[bytes]]
#: A cheat's rewrite of its own message (re-signed), or None to let this one pass.
Forge = Callable[["Game", Message], Message | None]


class Missing(Exception):
    """The game from this seed does not hold the event the log needs (try the next)."""


def first_seed(label: str, make: Callable[[str], T], bound: int = SEARCH) -> T:
    """``make`` of the first of ``label-1`` ... ``label-<bound>`` that holds its event.

    A log that needs a particular event (a caught bluff, a lie, a moment to cheat)
    should not depend on one hand-picked seed: any engine change reshuffles the
    games. The search is bounded and deterministic, so the bytes stay reproducible.

    Raises:
        SystemExit: no label in the bound gives the event (each one's reason printed).
    """
    reasons: list[str] = []
    for k in range(1, bound + 1):
        try:
            return make(f"{label}-{k}")
        except Missing as missing:
            reasons.append(str(missing))
    raise SystemExit(f"none of the seed labels {label}-1 .. {label}-{bound} gives the event "
                     f"the log needs (last: {reasons[-1]}); raise SEARCH or change the cheat")


def need(condition: object, what: str) -> None:
    """Go on to the next seed unless ``condition``: ``what`` did not happen."""
    if not condition:
        raise Missing(what)


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
         tamper: Callable[[Game], Hook] | None = None,
         custom: dict[int, type[TablePeer]] | None = None,
         ms_per_frame: int = 0) -> Game:
    """Seat and run one table to its end (or until nothing moves).

    ``ms_per_frame`` lets the simulated clock run while frames travel, so the
    sequencer logs its ``clock`` entries as at a real table.
    """
    setup = TableSetup(players, preset(preset_name, overrides), SEED + label.encode(),
                       preset=preset_name, version=REFERENCE_VERSION)
    holder: list[Hook] = []

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
                        head or message.head, body, version=message.version)


def own_message(game: Game, seat: int, sender: bytes, recipient: bytes,
                data: bytes) -> Message | None:
    """The message in ``data`` if it is ``seat``'s, on its way to the host."""
    host = game.identity(0).peer.key
    if sender != game.identity(seat).peer.key or recipient != host or data[:1] != FRAME_MESSAGE:
        return None
    return Message.decode(data[1:])


def rewrite_own(seat: int, done: list[Message], forge: Forge, *,
                keep: bool = False) -> Callable[[Game], Hook]:
    """A tamper: ``forge`` rewrites (and re-signs) ``seat``'s first message to the host
    that it accepts, once; it is recorded in ``done`` and sent instead of the original
    (after it, with ``keep``); every other frame passes."""
    def tamper(game: Game) -> Hook:
        def hook(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
            message = own_message(game, seat, sender, recipient, data)
            forged = None if done or message is None else forge(game, message)
            if forged is None:
                return [data]
            done.append(forged)
            return [data, frame(FRAME_MESSAGE, forged.encode())] if keep else \
                [frame(FRAME_MESSAGE, forged.encode())]
        return hook
    return tamper


def refused_on_arrival(label: str, table: tuple[int, str, Sequence[str]], seat: int,
                       forge: Forge, *, what: str, code: str, never: str,
                       keep: bool = False) -> tuple[Sequence[Entry], Expected]:
    """The log of the first game from ``label`` (``table``: players, preset, options) in
    which ``seat``'s message, rewritten by ``forge`` (see ``rewrite_own``), reached the host,
    which refused it and logged an ``abort`` naming ``seat`` with ``code``.

    Raises:
        SystemExit: no seed in the bound gives ``seat`` the chance (``never``).
    """
    done: list[Message] = []
    players, preset_name, overrides = table

    def make(label: str) -> tuple[Sequence[Entry], Expected]:
        done.clear()
        game = play(players, preset_name, overrides, label,
                    tamper=rewrite_own(seat, done, forge, keep=keep))
        entries = game.entries
        need(done, never)
        return entries, Expected("violation", what, code, abort_entry(entries), NAMES[seat])

    return first_seed(label, make)


def entry_of(entries: Sequence[Entry], author: bytes, counter: int) -> int:
    """The number of the entry holding ``author``'s message ``counter``."""
    return next(e.seq for e in entries if e.author.key == author and e.message.counter == counter)


def illegal_move(game: Game, seat: int, counters: Sequence[int], what: str,
                 never: str) -> tuple[Sequence[Entry], Expected]:
    """The log, convicting ``seat`` of an illegal move at its first message among
    ``counters`` (the cheats it sent past its own engine).

    Raises:
        Missing: ``counters`` is empty (``never`` says what did not happen).
    """
    need(counters, never)
    entries = game.entries
    return entries, Expected("violation", what, "illegal_move",
                             entry_of(entries, game.identity(seat).peer.key, counters[0]),
                             NAMES[seat])


def abort_entry(entries: Sequence[Entry]) -> int:
    """The number of the first ``abort`` entry.

    Raises:
        Missing: there is none (the cheat never came to pass in this game).
    """
    found = [e.seq for e in entries if isinstance(e.body, Abort)]
    need(found, "no abort entry")
    return found[0]


def countersigned(game: Game, entries: Sequence[Entry], index: int,
                  message: Message) -> list[Entry]:
    """What a malicious host writes: the log before ``index``, then ``message`` placed there."""
    place = entries[index]
    forged = Entry.countersign(game.identity(0), place.seq, place.prev_hash, message)
    return [*entries[:index], forged]


# -- honest games -------------------------------------------------------------------------------
def honest(players: int, preset_name: str, overrides: Sequence[str],
           label: str, ms_per_frame: int = 0,
           custom: dict[int, type[TablePeer]] | None = None) -> tuple[Sequence[Entry], Expected]:
    game = play(players, preset_name, overrides, label, ms_per_frame=ms_per_frame,
                custom=custom)
    state = game.net.host.state
    engine = state.engine
    assert engine is not None, label  # noqa: S101
    assert state.phase == TablePhase.ENDED, label  # noqa: S101
    winner = state.player_names[engine.winner]
    return game.entries, Expected("ok", f"honest {players}-player game ({preset_name}), "
                                  f"won by {winner}", peer=winner)


class BluffsOften(HeuristicBot):
    """Plays a Wild Draw Four whenever it may, holding the colour to match or not."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        fours = [a for a in actions if isinstance(a, Play) and a.cards[-1] >= WILD_DRAW_FOUR
                 and len(a.cards) == 1 and not a.say_uno]
        if must_act and fours and view.pending == 0:
            return fours[0]
        return super().choose(view, seat, actions, must_act)


class TakesPenalties(HeuristicBot):
    """Never challenges: takes every Wild Draw Four's penalty."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        return super().choose(view, seat, [a for a in actions if not isinstance(a, Challenge)],
                              must_act)


class NeverChallenging(Playing):
    def move(self, seat: Seat) -> bool:
        return seat.bot_move(TakesPenalties(b"takes" + seat.state.seq.to_bytes(8, "big")))


def unchallenged_bluffs(entries: Sequence[Entry]) -> list[int]:
    """Entries of Wild Draw Fours played holding the colour and not challenged, judged
    with the faces the end-of-game reveal proves."""
    knowledge = revealed_knowledge(entries)
    assert knowledge is not None  # noqa: S101
    found: list[int] = []
    pending: int | None = None
    for step in walk(entries, knowledge):
        body, game = step.entry.body, step.before.engine
        if not isinstance(body, Move) or game is None:
            continue
        action = body.action
        if isinstance(action, Challenge):
            pending = None
        elif pending is not None:
            found.append(pending)
            pending = None
        if isinstance(action, Play) and action.cards[-1] >= WILD_DRAW_FOUR:
            rest = [knowledge.faces[s] for s in game.hands[action.seat] if s not in action.slots]
            if holds_colour(rest, game.colour):
                pending = step.entry.seq
    return found


class OftenBluffing(Playing):
    def move(self, seat: Seat) -> bool:
        return seat.bot_move(BluffsOften(b"bluffs" + seat.state.seq.to_bytes(8, "big")))


def bluffs() -> tuple[Sequence[Entry], Expected]:
    """RULES.md "may bluff": Ann bluffs whenever she can; Bob never challenges (a bluff on
    him stands), Cy challenges every Wild Draw Four (a bluff on her is caught). All legal:
    the audit must call the game valid."""
    def make(label: str) -> tuple[Sequence[Entry], Expected]:
        found = honest(3, "official", ["target=60"], label,
                       custom={0: OftenBluffing, 1: NeverChallenging, 2: Challenger})
        verdicts = [e.body.action for e in found[0] if isinstance(e.body, Move)
                    and isinstance(e.body.action, ChallengeVerdict)]
        need(any(v.guilty for v in verdicts), "no bluff was caught")
        need(unchallenged_bluffs(found[0]), "every bluff was challenged")
        return found

    entries, expected = first_seed("bluffs-3p", make)
    return entries, replace(expected, what="honest 3-player game with Wild Draw Four bluffs, "
                            "caught and not, " + expected.what.split(", ", 1)[1])


def left_early() -> tuple[Sequence[Entry], Expected]:
    """A peer leaves mid-game: it reveals its secrets, everyone follows, all is verified."""
    setup = TableSetup(3, preset("official", ["target=200"]), SEED + b"left", preset="official",
                       version=REFERENCE_VERSION)
    net = seat_table(setup)
    net.run(until=lambda n: len(n.entries()) > 60)
    leaver = next(p for p in net.peers.values() if p.name == NAMES[2])
    leaver.leave("dinner is ready")
    net.flush(leaver)
    net.run(until=game_over)
    return net.entries(), Expected("stopped", "Cy leaves mid-game and reveals", peer=NAMES[2])


# -- live cheats through the honest sequencer ---------------------------------------------------
def out_of_turn() -> tuple[Sequence[Entry], Expected]:
    """Bob sends a play of his own card while it is Ann's turn; the host stops the game."""
    def forge(game: Game, message: Message) -> Message | None:
        host = game.net.host.state
        bob = game.peer(1)
        engine = bob.state.engine
        if not isinstance(message.body, Shares) or engine is None or engine.current == 1 or \
                host.phase != TablePhase.PLAYING or engine.awaiting or not engine.hands[1]:
            return None
        return resign(game, 1, message, first_card_play(host, bob.secrets, 1, engine),
                      head=game.net.host.ledger.head)

    return refused_on_arrival("out-of-turn", (2, "official", ["target=100"]), 1, forge,
                              what="Bob plays while it is Ann's turn", code="illegal_move",
                              never="Bob never had the chance")


def wrong_face() -> tuple[Sequence[Entry], Expected]:
    """Cy plays a card of her hand but claims it is a Wild; its shares open to another card."""
    def forge(game: Game, message: Message) -> Message | None:
        body = message.body
        if not isinstance(body, Move) or not isinstance(body.action, Play) or \
                len(body.action.cards) != 1 or body.action.cards[0] >= WILD:
            return None
        lie = replace(body.action, cards=(WILD,), colour=CARD_COLOUR[body.action.cards[0]])
        return resign(game, 2, message, Move(lie, body.shares))

    return refused_on_arrival("wrong-face", (3, "house", ["target=100"]), 2, forge,
                              what="Cy shows a card as a Wild it is not", code="wrong_face",
                              never="Cy never played a coloured card alone")


class ChallengerBot(HeuristicBot):
    """Challenges every Wild Draw Four (and gives an honest verdict)."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        if any(isinstance(a, Challenge) for a in actions):
            return Challenge(seat)
        return super().choose(view, seat, actions, must_act)


class LiarBot(ChallengerBot):
    """Challenges every Wild Draw Four; calls it guilty when the hand it saw is innocent."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        if any(isinstance(a, ChallengeVerdict) for a in actions):
            _, challenged, colour = view.challenge
            hand = view.hands[challenged]
            if all(slot in view.known for slot in hand) and \
                    not holds_colour((view.known[slot] for slot in hand), colour):
                return ChallengeVerdict(seat, True)
        return super().choose(view, seat, actions, must_act)


class Liar(BlindToItsVerdict, Playing):
    """Bob with the lying bot, sending his verdicts past his own engine (and letting his
    own ledger take them: he forgets the hand he saw for that entry)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lies: list[int] = []

    def move(self, seat: Seat) -> bool:
        return seat.bot_move(LiarBot(b"liar" + seat.state.seq.to_bytes(8, "big")))

    def act(self, action: Action) -> None:
        if not isinstance(action, ChallengeVerdict) or not action.guilty:
            super().act(action)
            return
        game = self.state.engine
        assert game is not None  # noqa: S101
        _, challenged, colour = game.challenge
        if not holds_colour((game.known[s] for s in game.hands[challenged]), colour):
            self.lies.append(self.counter)  # the counter this message will carry
        self.send(Move(action, ()))


def challenge_lie() -> tuple[Sequence[Entry], Expected]:
    """RULES.md: the challenged hand is "shown to the challenger alone"; Bob says guilty
    though Ann held no card of the colour. Ann sees it at once, everyone at the round's
    reveal, and the audit names Bob at his verdict."""
    def make(label: str) -> tuple[Sequence[Entry], Expected]:
        game = play(2, "official", ["target=50"], label, custom={1: Liar})
        bob = game.peer(1)
        assert isinstance(bob, Liar), "Bob is the liar"  # noqa: S101
        return illegal_move(game, 1, bob.lies, "Bob calls a Wild Draw Four guilty though Ann "
                            "held no card of the colour to match", "Bob never lied")

    return first_seed("challenge-lie", make)


class BluffBot(HeuristicBot):
    """Plays a Wild Draw Four while holding the colour to match, once (``done`` is the
    peer's own record, as a fresh bot decides each move)."""

    def __init__(self, seed: bytes, done: list[bool]) -> None:
        super().__init__(seed)
        self.done = done

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        bluff = bluff_play(view, seat) if not self.done and must_act else None
        if bluff is not None:
            self.done.append(True)
            return bluff
        return super().choose(view, seat, actions, must_act)


class Bluffer(Playing):
    """Cy with the bluffing bot, sending its Wild Draw Four past its own engine."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bluffed: list[bool] = []
        #: The counters of its messages that play a Wild Draw Four holding the colour.
        self.bluffs: list[int] = []

    def move(self, seat: Seat) -> bool:
        return seat.bot_move(BluffBot(b"bluff" + seat.state.seq.to_bytes(8, "big"),
                                      self.bluffed))

    def act(self, action: Action) -> None:
        if isinstance(action, Play) and action.cards[0] >= WILD_DRAW_FOUR:
            game = self.state.engine
            assert game is not None  # noqa: S101
            rest = [game.known[s] for s in game.hands[action.seat]
                    if s not in action.slots and s in game.known]
            if holds_colour(rest, game.colour):
                self.bluffs.append(self.counter)  # the counter this message will carry
            self.send(Move(action, self.proofs(action)))
            return
        super().act(action)

    def judging(self, entry: Entry) -> None:
        """Its own client lets its bluff through: it forgets its hand for that one entry."""
        body, state, me = entry.body, self.ledger.state, self.ledger.state.my_seat
        if entry.author == self.peer_id and isinstance(body, Move) and state.engine is not None \
                and me is not None and isinstance(body.action, Play) and \
                body.action.cards[0] >= WILD_DRAW_FOUR:
            self.ledger.state = forget_hand(state, me)


def wild_draw_four() -> tuple[Sequence[Entry], Expected]:
    """Under ``wd4_strict`` (no bluffing) Cy's client plays a Wild Draw Four while she holds
    the colour; only the reveal shows it: the audit names her at the play itself. (Under
    the default rules the same play is a legal bluff: see ``honest-3p-bluffs``.)"""
    def make(label: str) -> tuple[Sequence[Entry], Expected]:
        game = play(3, "official", ["target=60", "wd4_strict=true"], label,
                    custom={2: Bluffer})
        cy = game.peer(2)
        assert isinstance(cy, Bluffer), "Cy is the bluffer"  # noqa: S101
        return illegal_move(game, 2, cy.bluffs, "Cy plays a Wild Draw Four holding the colour "
                            "under wd4_strict", "Cy never bluffed")

    return first_seed("bluff", make)


class Challenger(Playing):
    def move(self, seat: Seat) -> bool:
        return seat.bot_move(ChallengerBot(b"challenger" + seat.state.seq.to_bytes(8, "big")))


class BadPrivate(Playing):
    """Sends private reveals whose first share carries no valid proof."""

    def reveal(self, seat: Seat, shares: PrivateShares) -> PrivateShares:
        first, *rest = shares.items
        return super().reveal(seat, PrivateShares((replace(first, proof=bytes(64)), *rest)))


class FalseAccuser(Challenger):
    """Says every private reveal it gets is bad, though none is."""

    def _open_private(self, entry: Entry) -> None:
        super()._open_private(entry)
        self._accuse(entry.author, entry.seq, "bad_private_share", "a bad private share",
                     (entry,))


def _first_sealed(entries: Sequence[Entry], author: bytes) -> int:
    found = [e.seq for e in entries if e.author.key == author and isinstance(e.body, Sealed)]
    need(found, "no private reveal")
    return found[0]


def bad_private_reveal() -> tuple[Sequence[Entry], Expected]:
    """Ann shows her hand to the challenger with a bad share; Bob accuses her; the log
    alone cannot tell who is right until Bob's revealed channel seed opens it."""
    def make(label: str) -> tuple[Sequence[Entry], Expected]:
        game = play(2, "official", ["target=500"], label,
                    custom={0: BadPrivate, 1: Challenger})
        entries = game.entries
        return entries, Expected("violation", "Ann's private reveal to a challenger is not "
                                 "proven", "bad_private_reveal",
                                 _first_sealed(entries, game.identity(0).peer.key), NAMES[0])

    return first_seed("bad-private", make)


def false_accusation() -> tuple[Sequence[Entry], Expected]:
    """Bob says Ann's private reveal was bad; the revealed keys show it was right."""
    def make(label: str) -> tuple[Sequence[Entry], Expected]:
        game = play(2, "official", ["target=500"], label, custom={1: FalseAccuser})
        entries = game.entries
        return entries, Expected("violation", "Bob falsely accuses Ann of a bad private "
                                 "reveal", "false_accusation", abort_entry(entries), NAMES[1])

    return first_seed("false-accusation", make)


def equivocation() -> tuple[Sequence[Entry], Expected]:
    """Bob signs two different messages with one number; the host logs the proof."""
    def forge(game: Game, message: Message) -> Message | None:
        body = message.body
        if not isinstance(body, Shares) or len(body.items) < 2:
            return None
        return resign(game, 1, message, Shares(body.items[:1]))

    return refused_on_arrival("equivocation", (3, "official", ["target=100"]), 1, forge,
                              what="Bob signs two messages as one number", code="equivocation",
                              never="Bob never sent two shares at once", keep=True)


def _tamper_shuffle(done: list[Message],
                    forge: Callable[[TableState, ShuffleDeck], ShuffleDeck],
                    ) -> Callable[[Game], Hook]:
    """Bob's shuffle of deck 1 (the first round's deck), rewritten by ``forge``."""
    def rewrite(game: Game, message: Message) -> Message | None:
        body = message.body
        if not isinstance(body, ShuffleDeck) or body.shuffle != 1:
            return None
        return resign(game, 1, message, forge(game.net.host.state, body))
    return rewrite_own(1, done, rewrite)


def bad_shuffle() -> tuple[Sequence[Entry], Expected]:
    """Bob, shuffling deck 1 last, stacks it: his own fresh encryption of the cards in an
    order he chose, with his honest proof of shuffle. The host refuses it on arrival."""
    done: list[Message] = []

    def stack(state: TableState, body: ShuffleDeck) -> ShuffleDeck:
        return replace(body, ciphertexts=stacked_deck(state, 1))

    game = play(2, "official", ["target=60"], "bad-shuffle", tamper=_tamper_shuffle(done, stack))
    entries = game.entries
    return entries, Expected("violation", "Bob stacks deck 1; its proof of shuffle fails on "
                             "arrival and the host logs it", "bad_shuffle", abort_entry(entries),
                             NAMES[1])


def uncommitted_seed() -> tuple[Sequence[Entry], Expected]:
    """Bob shuffles deck 1 truly (his proof verifies) but from a seed he never committed
    to; his own reveal at the end convicts him."""
    done: list[Message] = []

    def reseed(state: TableState, body: ShuffleDeck) -> ShuffleDeck:
        return shuffle_from(state, 1, state.seats[1].key, b"\x66" * 32)

    game = play(3, "official", ["target=60"], "uncommitted-seed",
                tamper=_tamper_shuffle(done, reseed))
    entries = game.entries
    return entries, Expected("violation", "Bob's shuffle of deck 1 is not from his seed",
                             "dishonest_shuffle",
                             entry_of(entries, done[0].author.key, done[0].counter), NAMES[1])


def refused_reveal() -> tuple[Sequence[Entry], Expected]:
    """Cy never reveals her secrets at the end: the game cannot be verified and stops there."""
    def tamper(game: Game) -> Hook:
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
    # table.md §13.1: the honest host, silent while it waits for Cy, is not handed over.
    assert not any(isinstance(e.body, Handover) for e in entries)  # noqa: S101
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
                         Head(index, place.prev_hash), Clock(999_999), version=REFERENCE_VERSION)
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
    "honest-2p-official": lambda: honest(2, "official", ["target=30"], "honest-2p"),
    "honest-3p-house": lambda: honest(3, "house", ["target=30"], "honest-3p"),
    "honest-4p-party": lambda: honest(4, "party", ["target=30"], "honest-4p"),
    "honest-3p-bluffs": bluffs,
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
    "cheat-uncommitted-seed": uncommitted_seed,
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
    stored_path = args.out / "expected.json"
    stored = json.loads(stored_path.read_text()) if stored_path.exists() else {}
    differ = []
    for name, make in LOGS.items():
        if args.only and name not in args.only:
            continue
        entries, verdict = make()
        path = write(name, entries, args.out)
        implied = {"status": verdict.status, "code": verdict.code, "entry": verdict.entry,
                   "peer": verdict.peer}
        held = {key: stored.get(path.name, {}).get(key) for key in implied}
        mark = "" if held == implied else f"  <- expected.json says {held}"
        if mark:
            differ.append(path.name)
        print(f"{path.name}: {len(entries)} entries, {path.stat().st_size} bytes: "
              f"{verdict.what}; implies {implied}{mark}")
    if differ:
        print(f"check these logs' entries and edit {stored_path} by hand: {', '.join(differ)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
