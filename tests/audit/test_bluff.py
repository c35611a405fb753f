"""The Wild Draw Four bluff over the whole protocol, and what the audit says of it.

RULES.md "A turn": a player "may bluff ... The bluff is part of the game, not a
cheat: ... an unchallenged bluff stands, in play and in any later check of the
game"; "The challenged hand is shown to the challenger alone"; option
``wd4_strict``: "the software refuses the bluff". The games are played by bot
peers through the real table protocol (``uno_p2p.table.memnet``); whether a
Wild Draw Four was a bluff is read from the log alone, once the end-of-game
reveal has made every face known.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tests.table import adversaries as adv
from uno_p2p.audit.core import audit_entries, revealed_knowledge
from uno_p2p.audit.report import Status
from uno_p2p.audit.walk import walk
from uno_p2p.rules.actions import Action, Challenge, ChallengeVerdict, Play
from uno_p2p.rules.bots import HeuristicBot
from uno_p2p.rules.cards import CARD_COLOUR
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import State
from uno_p2p.table.bodies import Move
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.player import Seat
from uno_p2p.wire.envelope import Entry

pytestmark = pytest.mark.game

WILD_DRAW_FOUR = 104


class AlwaysBluffs(HeuristicBot):
    """Plays a Wild Draw Four whenever it may, the colour to match in hand or not."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        fours = [a for a in actions if isinstance(a, Play) and a.cards[0] >= WILD_DRAW_FOUR
                 and len(a.cards) == 1 and not a.say_uno]
        if must_act and fours and view.pending == 0:
            return fours[0]
        return super().choose(view, seat, actions, must_act)


class Challenges(HeuristicBot):
    """Challenges every Wild Draw Four."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        challenge = [a for a in actions if isinstance(a, Challenge)]
        return challenge[0] if challenge else super().choose(view, seat, actions, must_act)


class NeverChallenges(HeuristicBot):
    """Takes every Wild Draw Four's penalty."""

    def choose(self, view: State, seat: int, actions: Sequence[Action],
               must_act: bool) -> Action | None:
        return super().choose(view, seat, [a for a in actions if not isinstance(a, Challenge)],
                              must_act)


def peer_with(bot: type[HeuristicBot]) -> type[TablePeer]:
    class Peer(adv.Playing):
        def move(self, seat: Seat) -> bool:
            return seat.bot_move(bot(b"bluff-test" + seat.state.seq.to_bytes(8, "big")))
    return Peer


def play(seed: bytes, other: type[HeuristicBot], *options: str, target: int = 1
         ) -> tuple[Entry, ...]:
    """A 2-seat game (by default of one round: the end-of-game reveal proves every face
    all the same): seat 0 bluffs whenever it can."""
    setup = TableSetup(2, preset("official", [f"target={target}", *options]), seed)
    net = seat_table(setup, custom={0: peer_with(AlwaysBluffs), 1: peer_with(other)})
    net.run(until=game_over)
    return net.entries()


def wild_draw_fours(entries: Sequence[Entry]) -> list[tuple[int, bool]]:
    """Each Wild Draw Four in the log: its entry and whether it was a bluff, judged from
    the faces the end-of-game reveal proves (the hand left after the play)."""
    knowledge = revealed_knowledge(entries)
    assert knowledge is not None, "the end-of-game reveal must make every face known"
    found = []
    for step in walk(entries, knowledge):
        body, game = step.entry.body, step.before.engine
        if not isinstance(body, Move) or not isinstance(body.action, Play) or game is None:
            continue
        play = body.action
        if play.cards[-1] < WILD_DRAW_FOUR:
            continue
        rest = [s for s in game.hands[play.seat] if s not in play.slots]
        held = any(CARD_COLOUR[knowledge.faces[s]] == game.colour for s in rest)
        found.append((step.entry.seq, held))
    return found


def verdicts(entries: Sequence[Entry], seat: int = 1) -> list[bool]:
    """The verdicts ``seat`` gave (seat 1 faces the bluffer)."""
    return [e.body.action.guilty for e in entries if isinstance(e.body, Move)
            and isinstance(e.body.action, ChallengeVerdict) and e.body.action.seat == seat]


def test_an_unchallenged_bluff_stands_in_play_and_in_the_audit() -> None:
    # A seed whose short game holds a bluff, in its second round (the assertion says
    # when it no longer does).
    entries = play(b"unchallenged bluff 3", NeverChallenges, target=30)
    assert any(bluff for _, bluff in wild_draw_fours(entries)), "no bluff was played"
    assert verdicts(entries) == []
    report = audit_entries(entries)
    assert report.status == Status.OK, report.violation


def test_a_caught_bluff_is_no_violation_and_shows_no_card_to_the_table() -> None:
    entries = play(b"caught bluff", Challenges)
    assert True in verdicts(entries), "no bluff was caught"
    # "shown to the challenger alone": a verdict entry carries no card and no share
    for entry in entries:
        if isinstance(entry.body, Move) and isinstance(entry.body.action, ChallengeVerdict):
            assert entry.body.shares == ()
    report = audit_entries(entries)
    assert report.status == Status.OK, report.violation


def test_under_wd4_strict_no_bluff_is_played() -> None:
    entries = play(b"strict", NeverChallenges, "wd4_strict=true")
    fours = wild_draw_fours(entries)
    assert fours, "no Wild Draw Four was played"
    assert not any(bluff for _, bluff in fours)
    assert audit_entries(entries).status == Status.OK
