"""Faults a player reads, and the sequencer's duty as the succession judges it.

table.md §7: the sequencer stops the game with an ``abort`` whose reason
follows the culprit's name ("Ann stopped the game: Bob <reason> (code)"), so
it starts in lower case and says what the culprit did; an equivocation is
two messages signed with one number (wire.md §4). table.md §13.1: a peer
doubts the sequencer only for work the sequencer's own seat owes; a
player's decision (its turn), even the sequencer's player's, is not work,
whoever is to play.
"""

from __future__ import annotations

import dataclasses
from itertools import pairwise

import pytest

from tests.audit.test_fault_codes import (
    FIRST_KEY,
    FIRST_MOVE,
    FIRST_PLAY,
    FIRST_SHARES,
    LOG,
    PEOPLE,
    forge,
    mover,
)
from tests.table import adversaries as adv
from tests.table.test_adversaries import cheater_id, seat
from uno_p2p.audit import walk
from uno_p2p.rules.actions import Draw
from uno_p2p.rules.options import preset
from uno_p2p.rules.state import Phase
from uno_p2p.table.bodies import Abort, Clock, Move, Shares
from uno_p2p.table.duties import waiting_for
from uno_p2p.table.events import GameEnded, HandChanged, MovePlayed, Progress, RoundEnded
from uno_p2p.table.frames import FRAME_ENTRY, frame
from uno_p2p.table.ledger import apply_entry, initial_state
from uno_p2p.table.memnet import TableSetup, seat_table
from uno_p2p.table.removal import LEFT
from uno_p2p.table.replay import replay
from uno_p2p.table.state import Misbehaviour, TablePhase
from uno_p2p.table.succession import _host_owes_work
from uno_p2p.wire.envelope import Entry, Message
from uno_p2p.wire.lobby import OpenTable


def test_an_equivocation_is_stopped_with_a_reason_that_reads_on() -> None:
    net = seat({1: adv.Equivocates})
    aborts = [e.body for e in net.entries() if isinstance(e.body, Abort)]
    assert len(aborts) == 1
    abort = aborts[0]
    assert abort.code == "equivocation"
    assert abort.culprit == cheater_id(net, 1)
    assert abort.reason[0].islower(), abort.reason
    assert "two messages" in abort.reason


def test_a_players_turn_is_not_the_sequencers_work() -> None:
    host = LOG[0].author
    turns = set()
    for step in walk(LOG[:60]):
        state, game = step.after, step.after.engine
        if state.phase != TablePhase.PLAYING or game is None or game.phase != Phase.PLAYING:
            continue
        if waiting_for(state):
            continue
        turns.add(game.current)
        assert not _host_owes_work(state, host, []), (step.entry.seq, game.current)
    assert {0, 1} <= turns, "the host's own player's turn and another's"


def test_evidence_the_chain_refuses_for_another_reason_is_a_false_accusation() -> None:
    """verdicts.md: ``false_accusation`` names the accuser: here the host aborts with, as
    evidence, a message already in the log (a replay, no cheat of its author)."""
    valid = LOG[FIRST_MOVE].message
    at = FIRST_MOVE + 2
    log = forge(LOG, at, 0, Abort(valid.author, "illegal_move", "a lie", valid.encode()))
    violation = replay(log).violation
    assert violation is not None
    assert (violation.code, violation.entry, violation.name) == ("false_accusation", at, "Ann")
    assert "the evidence blames someone else" in violation.reason, violation.reason


def test_a_table_opened_with_options_out_of_range_is_refused_naming_the_host() -> None:
    """table.md §3 (entry 0 opens the table with its options) and rules.md (``target`` is
    1 to 1,000,000): a log whose first entry sets target 0 is refused at entry 0, naming
    the host who signed it, in words that say which option."""
    opening = LOG[0].body
    assert isinstance(opening, OpenTable)
    log = forge(LOG, 0, 0, dataclasses.replace(opening, options=(("target", 0),)))
    violation = replay(log).violation
    assert violation is not None
    assert (violation.code, violation.entry, violation.peer) == \
        ("bad_options", 0, PEOPLE[0].peer.fingerprint)
    assert "the options are not valid: option 'target'" in violation.reason, violation.reason


def test_an_accusation_keeps_to_the_length_of_a_reason() -> None:
    """wire.md §5 (kind 71): an abort's reason is at most 200 characters; a longer
    description of a private fault is cut, the accusation still made."""
    net = seat_table(TableSetup(2, preset("official", ["target=30"]), b"long reason"))
    net.run(until=lambda n: n.host.state.phase == TablePhase.PLAYING)
    peer = net.host
    other = next(p for p in net.peers.values() if p is not peer)
    peer._accuse(other.peer_id, peer.state.seq, "bad_private_share", "x" * 500, ())
    pending = peer.initiative.pending_abort
    assert pending is not None
    assert pending.culprit == other.peer_id
    assert 0 < len(pending.reason) <= 200
    assert Abort.from_wire(pending.to_wire()) == pending


def test_the_game_ends_with_the_last_rounds_scores() -> None:
    """table.md §8: once every reveal is in, ``GameEnded`` gives the winner and the final
    scores: those the last round ended with, the winner's at the target (RULES.md)."""
    ended: list[GameEnded] = []
    rounds: list[RoundEnded] = []
    for step in walk(LOG):
        ended += [e for e in step.events if isinstance(e, GameEnded)]
        rounds += [e for e in step.events if isinstance(e, RoundEnded)]
    assert len(ended) == 1
    assert rounds
    final = ended[0]
    assert final.scores == rounds[-1].scores
    assert final.winner == rounds[-1].winner
    target = dict(LOG[0].body.options)["target"]  # type: ignore[attr-defined]
    assert final.scores[final.winner] >= target
    assert not final.stopped


def test_an_entry_with_a_bad_author_signature_stops_the_peer_naming_it() -> None:
    """wire.md §4.1: every entry's author signature verifies; a countersigned entry whose
    signature does not is refused (``bad_signature``) at its number."""
    net = seat_table(TableSetup(2, preset("official", ["target=30"]), b"bad signature"))
    net.run(until=lambda n: n.host.state.phase == TablePhase.PLAYING)
    guest = next(p for p in net.peers.values() if not p.is_host)
    host = net.host
    seq = guest.state.seq
    message = Message.sign(host.identity, host.table_id, 10_000, guest.ledger.head,
                           Clock(net.now_ms + 1))
    entry = Entry.countersign(host.identity, seq, guest.ledger.chain.entries[-1].hash,
                              dataclasses.replace(message, signature=bytes(64)))
    guest.receive(frame(FRAME_ENTRY, entry.encode()), net.now_ms, host.peer_id)
    assert guest.stopped is not None
    assert (guest.stopped.code, guest.stopped.entry) == ("bad_signature", seq)


def test_a_wait_and_a_hand_are_told_when_they_change_not_again() -> None:
    """``Progress`` says whom the table waits for and ``HandChanged`` the hand as the peer
    knows it: news for the player's screen, told when it changes. So a peer never tells
    the same hand twice in a row, and it remembers the wait it last told (the table's
    own ``waiting_for``, itself left out), which it tells only when that changes."""
    net = seat_table(TableSetup(2, preset("official", ["target=30"]), b"told once"))
    net.run(until=lambda n: len(n.entries()) > 40)
    for peer in net.peers.values():
        events = net.events[peer.peer_id.key]
        hands = [e.cards for e in events if isinstance(e, HandChanged)]
        assert hands
        assert all(a != b for a, b in pairwise(hands))
        assert any(isinstance(e, Progress) for e in events)
        me = peer.state.my_seat
        assert peer.initiative.waiting == tuple(s for s in waiting_for(peer.state) if s != me)


def test_a_move_that_plays_no_card_carries_no_share() -> None:
    """table.md §5.1: a move carries only the open shares of the cards it plays; a draw
    carrying a share (here its author's own, of a card it deals later) is refused as
    ``unexpected_share``, naming its author."""
    draw = next(e for e in LOG if isinstance(e.body, Move) and isinstance(e.body.action, Draw))
    assert isinstance(draw.body, Move)
    assert isinstance(draw.body.action, Draw)
    seat = draw.body.action.seat
    later = next(e for e in LOG[draw.seq:] if isinstance(e.body, Shares)
                 and e.author == PEOPLE[seat].peer)
    assert isinstance(later.body, Shares)
    log = forge(LOG, draw.seq, seat, Move(draw.body.action, (later.body.items[0],)))
    violation = replay(log).violation
    assert violation is not None
    assert (violation.code, violation.entry) == ("unexpected_share", draw.seq)
    assert violation.name == ("Ann", "Bob", "Cy")[seat]


def test_what_happened_at_the_table_names_the_seat_it_happened_to() -> None:
    """``MovePlayed`` tells a fact in words and the seat it is about, whose name the words
    give (``Ann played Red 7``): in a real game every such fact's seat is a seat of the
    table (or -1 for a fact about nobody) and, when one, its player is named in it."""
    names = ("Ann", "Bob", "Cy")
    facts = [e for step in walk(LOG[:80]) for e in step.events if isinstance(e, MovePlayed)]
    assert facts
    seated = [f for f in facts if f.seat >= 0]
    assert seated
    for fact in facts:
        assert isinstance(fact.seat, int)
        assert -1 <= fact.seat < len(names)
    for fact in seated:
        assert names[fact.seat] in fact.description, fact


def _refusal(entries: list[Entry]) -> Misbehaviour:
    state = initial_state(entries[0].message.table_id)
    for entry in entries[:-1]:
        state, _ = apply_entry(state, entry)
    with pytest.raises(Misbehaviour) as caught:
        apply_entry(state, entries[-1])
    return caught.value


def test_shares_before_the_game_are_unexpected_and_the_reason_reads_on() -> None:
    """table.md §3.3: shares come from a seat that owes them in play (§4); the fault's
    words follow "entry N:" and the culprit's name, so they read on in lower case and
    say what came out of place (table.md §7, as tests/table/test_faults_in_words.py)."""
    refused = _refusal(forge(LOG, FIRST_KEY, 1, LOG[FIRST_SHARES].body))
    assert refused.code == "unexpected"
    assert refused.entry == FIRST_KEY
    assert refused.culprit is not None
    assert refused.culprit.key == PEOPLE[1].peer.key
    words = str(refused).split(": ", 1)[1]
    assert words[0].islower(), words
    assert "shares" in words


def test_a_play_carrying_a_share_it_cannot_carry_names_its_player() -> None:
    """table.md §5: a play carries its player's own open shares of the cards it plays;
    a deal share of another seat in it is ``unexpected_share``, and the fault names
    the move's author (the culprit is known: it signed the move)."""
    play = LOG[FIRST_PLAY].body
    assert isinstance(play, Move)
    deal = next(i for e in LOG if isinstance(e.body, Shares)
                for i in e.body.items if i.purpose == "deal")
    who = mover(FIRST_PLAY)
    refused = _refusal(forge(LOG, FIRST_PLAY, who, Move(play.action, (*play.shares, deal))))
    assert refused.code == "unexpected_share"
    assert refused.entry == FIRST_PLAY
    assert refused.culprit is not None
    assert refused.culprit.key == PEOPLE[who].peer.key


def test_a_card_shown_without_its_shares_is_an_unproven_face() -> None:
    """table.md §5: a play shows its cards' faces, proven by every seat's share; a play
    without its player's own open share is ``unproven_face``, naming the player."""
    play = LOG[FIRST_PLAY].body
    assert isinstance(play, Move)
    who = mover(FIRST_PLAY)
    refused = _refusal(forge(LOG, FIRST_PLAY, who, Move(play.action, ())))
    assert refused.code == "unproven_face"
    assert refused.entry == FIRST_PLAY
    assert refused.culprit is not None
    assert refused.culprit.key == PEOPLE[who].peer.key


def test_a_leave_is_told_as_leaving() -> None:
    # table.md §8: the reason of a removal a leave made, and the stop of a leave that
    # cannot remove its seat, read "Bob left the table" (tests/table/test_ledger_checks
    # and test_ledger_refusals assert through LEFT).
    assert LEFT == "left the table"
