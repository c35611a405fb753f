"""What the reveal stage concludes when a log holds more than one thing to judge
(docs/protocol/verdicts.md §1, stages 4 and 5, and the conclusion).

- Two hidden cheats judged at the reveal: the finding at the smaller entry wins.
- A shuffle that is not from its committed seed: the audit names it and does
  not claim the decks re-executed, nor hand out faces (``revealed_knowledge``).
- The audit's own re-execution (deck.md §9) gives the cards the shares
  opened during play.
- A false accusation of a bad private reveal names the accuser and says why.

Expected values come from the spec and from how each log was made, never
from the audit.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from tests.table import adversaries as adv
from uno_p2p.audit import Knowledge, Status, audit_entries, audit_file, revealed_knowledge
from uno_p2p.audit.core import _Audit
from uno_p2p.rules.actions import Challenge, Play
from uno_p2p.rules.options import preset
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Abort, Move, PrivateShares, ShuffleDeck
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.table.player import Seat
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.private import Sealed

DATA = Path(__file__).resolve().parent.parent / "data"
#: The first card id of the Wild Draw Fours (RULES.md's deck: 104-107).
WILD_DRAW_FOUR = 104


class BadPrivate(adv.Playing):
    """Sends every private reveal with the first share's proof zeroed (a bad reveal)."""

    def reveal(self, seat: Seat, shares: PrivateShares) -> PrivateShares:
        first, *rest = shares.items
        return super().reveal(seat, PrivateShares((replace(first, proof=bytes(64)), *rest)))


class BluffsAndHidesIt(BadPrivate, adv.Bluffer):
    """Plays a Wild Draw Four holding the colour (under ``wd4_strict``, a cheat only the
    reveal proves), then shows the challenger its hand with a bad share."""


def test_of_two_cheats_judged_at_the_reveal_the_earlier_entry_is_the_verdict() -> None:
    """verdicts.md §1: findings of stage 4 "are compared by entry number and the smallest
    wins". Bob bluffs a Wild Draw Four under ``wd4_strict`` (a false claim, judged at the
    play) and, challenged, shows his hand with a bad share (``bad_private_reveal``, judged
    at his sealed reveal, later): the verdict is the bluff, at the play."""
    setup = TableSetup(2, preset("official", ["target=60", "turn_timer=60",
                                              "wd4_strict=true"]), b"two hidden cheats 0")
    net = seat_table(setup, custom={0: adv.Eager, 1: BluffsAndHidesIt})
    net.run(until=game_over, max_steps=400_000)
    ann, bob = list(net.peers.values())
    assert isinstance(bob, BluffsAndHidesIt)
    assert bob.bluffed, "the seed must give Bob his bluff"
    log = net.entries()
    sealed = next(e.seq for e in log if e.author == bob.peer_id and isinstance(e.body, Sealed))
    # The bluff: Bob's last Wild Draw Four before his first private reveal, which Ann
    # challenged (she challenges every one, and any earlier one would have been shown
    # to her with a bad share, stopping the game there).
    bluff = max(e.seq for e in log[:sealed] if e.author == bob.peer_id
                and isinstance(e.body, Move) and isinstance(e.body.action, Play)
                and e.body.action.cards[0] >= WILD_DRAW_FOUR)
    assert any(isinstance(e.body, Move) and isinstance(e.body.action, Challenge)
               and e.author == ann.peer_id for e in log[bluff:sealed])
    # Ann saw the bad share and stopped the game, an accusation the log cannot prove.
    accusation = next(e for e in log if isinstance(e.body, Abort))
    assert isinstance(accusation.body, Abort)
    assert (accusation.author, accusation.body.culprit, accusation.body.evidence) == (
        ann.peer_id, bob.peer_id, b"")
    assert accusation.seq > sealed
    report = audit_entries(log)
    assert report.status == Status.VIOLATION
    finding = report.violation
    assert finding is not None
    assert (finding.stage, finding.code, finding.entry, finding.rule) == (
        "reveal", "illegal_move", bluff, "wild_draw_four")
    assert finding.peer is not None
    assert finding.peer.key == bob.peer_id.key
    assert bluff < sealed, "the bluff came first, so it is the verdict"


def test_a_shuffle_not_from_its_seed_re_executes_no_deck_and_teaches_no_face() -> None:
    """deck.md §9: the reveal re-executes every shuffle from its committed seed. When
    Bob's is not from his (``cheat-uncommitted-seed``), the audit names him and does not
    say the decks re-executed; ``revealed_knowledge`` gives no faces ("None when a shuffle
    does not re-execute")."""
    path = DATA / "cheat-uncommitted-seed.unolog"
    entries = read_log(path).entries
    report = audit_file(path)
    finding = report.violation
    assert finding is not None
    assert finding.code == "dishonest_shuffle"
    assert finding.entry is not None
    assert isinstance(entries[finding.entry].body, ShuffleDeck)
    assert not [line for line in report.verified if "re-executed" in line], report.verified
    assert not [line for line in report.verified if "hidden claims" in line], report.verified
    assert revealed_knowledge(entries) is None


def test_the_audits_own_re_execution_gives_the_cards_opened_in_play() -> None:
    """deck.md §9: re-executing every shuffle from the revealed seeds gives the card at
    every position; the cards the shares opened during play (public, each proven) are
    among them. This is the audit's own path when it cannot take the table's end check
    for it (``proven_faces`` declines)."""
    entries = read_log(DATA / "honest-2p-official.unolog").entries
    audit = _Audit(entries, 0)
    state = audit.replay().state
    assert state is not None
    known = audit.re_execute(state)
    assert isinstance(known, Knowledge)
    shuffled = {d.number for d in state.decks[state.void_decks:] if d.done and d.ready}
    assert known.decks == shuffled
    opened = {slot: card for slot, card in state.opened.items() if slot.shuffle in shuffled}
    assert opened, "the game opened cards"
    assert {slot: known.faces.get(slot) for slot in opened} == opened
    for deck in state.decks[state.void_decks:]:
        if deck.number in shuffled:  # each deck a permutation of its cards
            faces = [known.faces[s] for s in known.faces if s.shuffle == deck.number]
            assert sorted(faces) == sorted(deck.card_ids)


def test_a_false_accusation_names_whom_it_accused_and_why_it_is_false() -> None:
    """verdicts.md §7: ``false_accusation`` at the reveal is "an accusation of a bad
    private reveal that opens and proves right", naming the accuser at its ``abort``."""
    path = DATA / "cheat-false-accusation.unolog"
    entries: tuple[Entry, ...] = tuple(read_log(path).entries)
    abort = next(e for e in entries if isinstance(e.body, Abort))
    assert isinstance(abort.body, Abort)
    report = audit_file(path)
    finding = report.violation
    assert finding is not None
    assert (finding.stage, finding.code, finding.entry) == ("reveal", "false_accusation",
                                                            abort.seq)
    assert finding.peer is not None
    assert finding.peer.key == abort.author.key
    accused = next(p.name for p in report.players if p.key == abort.body.culprit.key)
    assert re.search(rf"\b{accused}\b", finding.reason)
    assert re.search(rf"\b{abort.body.code}\b", finding.reason)
    assert re.search(r"\bopens and proves right\b", finding.reason), finding.reason
    assert re.search(r"\brevealed keys$", finding.reason), "it ends on what proved it"
