"""A peer's own ledger refuses each forged entry as the chapter names it, with evidence.

The audit's catalogue (``tests/audit/test_fault_codes.CASES``: every table fault
code, from a log a malicious host writes) is met here by what a peer runs on
arrival, ``Ledger.accept``. The guide: "a clear ProtocolError naming the peer and
the entry, nothing written to the log that failed to verify. A cheating peer is
caught, named with evidence". So the refusal must carry the code of
docs/protocol/verdicts.md, the entry's number, the culprit, the signed entry
itself as evidence, and a reason that reads on after "entry N: "; and the ledger
must be left exactly as it was before the entry.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.audit.test_fault_codes import (
    BOB,
    CASES,
    FIRST_JOIN,
    FIRST_MOVE,
    HOST,
    LOG,
    PEOPLE,
    forge,
)
from tests.table.prose import reads_on
from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import RemoteProtocolError
from uno_p2p.rules.actions import Draw, Play
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.options import preset
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import Abort, Clock, Move, ShareItem, Shares
from uno_p2p.table.events import PeerMisbehaved
from uno_p2p.table.frames import FRAME_DROP, FRAME_ENTRY, frame
from uno_p2p.table.ledger import Ledger, refused
from uno_p2p.table.memnet import Network, TableSetup, seat_table, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import Misbehaviour, TablePhase
from uno_p2p.wire.chain import ChainError
from uno_p2p.wire.codec import pack
from uno_p2p.wire.envelope import Entry, Head, Message


@pytest.mark.parametrize("code", sorted(CASES))
def test_a_forged_entry_is_refused_on_arrival_naming_it(code: str) -> None:
    make, named = CASES[code]
    entries = make()
    *before, forged = entries
    ledger = Ledger(entries[0].message.table_id, entries[0].author)
    for entry in before:
        ledger.accept(entry)
    state, head = ledger.state, ledger.head
    with pytest.raises(RemoteProtocolError) as caught:
        ledger.accept(forged)
    error = caught.value
    assert (error.code, error.entry) == (code, forged.seq)
    if named is not None:
        assert error.peer == PEOPLE[named].peer.fingerprint
    reason = str(error)
    prefix = f"entry {forged.seq}: "
    assert reason.startswith(prefix), reason
    reads_on(reason.removeprefix(prefix))
    # Every case is its author's own doing (verdicts.md names the author for each).
    assert isinstance(error, Misbehaviour)
    assert error.culprit == forged.author
    assert forged in error.evidence, "the signed entry is the evidence"
    # Nothing that failed to verify stays: the ledger is as it was.
    assert (ledger.state, ledger.head) == (state, head)
    assert len(ledger.chain.entries) == forged.seq


def test_a_checked_state_for_another_entry_is_refused_naming_the_entry() -> None:
    """The sequencer's shortcut (``accept_checked``) must never log an entry against a
    state computed for another one: that is a bug of ours, said as such, with the entry."""
    ledger = Ledger(LOG[0].message.table_id, LOG[0].author)
    for entry in LOG[:FIRST_MOVE]:
        ledger.accept(entry)
    state, head = ledger.state, ledger.head
    entry = LOG[FIRST_MOVE]
    with pytest.raises(ChainError) as caught:
        ledger.accept_checked(entry, state, [])  # the state before the entry, not after
    error = caught.value
    assert (error.code, error.entry, error.peer) == (
        "bad_sequence", FIRST_MOVE, entry.author.fingerprint)
    assert str(error).startswith("a checked state for another entry"), str(error)
    assert (ledger.state, ledger.head) == (state, head)


#: table.md §5.3: "a refusal that proves a lie whatever the author had seen", every proof
#: code of verdicts.md §7.3 among them.
LIES = {"bad_share", "bad_shuffle", "bad_key", "wrong_face", "unproven_face", "wrong_seat",
        "not_a_move", "not_sequencer", "key_mismatch", "commitment_mismatch",
        "channel_mismatch", "invalid_scalar", "unknown_card", "duplicate_card", "bad_deck"}


@pytest.mark.parametrize("code", sorted(set(CASES) - {"no_table"}))  # entry 0: no state yet
def test_a_refused_message_is_cheating_at_a_current_head_and_a_lie_at_any(code: str) -> None:
    """``refused`` (the test of an ``abort``'s evidence, §7.2): at a head the author had
    (here the current one, remembered) every refusal is cheating; where its head is not
    known, only a refusal that proves a lie is, since a stale head would be a race."""
    *before, forged = CASES[code][0]()
    ledger = Ledger(before[0].message.table_id, before[0].author)
    for entry in before:
        ledger.accept(entry)
    assert refused(ledger.state, forged.message, ledger.view)
    assert refused(ledger.state, forged.message) == (code in LIES)


def _refusal(entries: list[Entry]) -> tuple[Entry, Misbehaviour]:
    """A fresh ledger takes every entry but the last, and refuses the last: that entry,
    and the refusal."""
    *before, forged = entries
    ledger = Ledger(entries[0].message.table_id, entries[0].author)
    for entry in before:
        ledger.accept(entry)
    with pytest.raises(Misbehaviour) as caught:
        ledger.accept(forged)
    return forged, caught.value


def test_an_abort_with_nothing_to_stop_is_refused_as_unexpected() -> None:
    """table.md §7: an ``abort`` stops keys or play; in the lobby there is nothing to stop."""
    entries = forge(LOG, FIRST_JOIN + 1, 1, Abort(HOST, "illegal_move", "cheated", b""))
    forged, error = _refusal(entries)
    assert (error.code, error.entry, error.culprit) == ("unexpected", forged.seq, BOB)
    reads_on(str(error).removeprefix(f"entry {forged.seq}: "))


def test_an_abort_for_a_lie_under_a_head_the_chain_refuses_is_judged_on_its_body() -> None:
    """§7.2: the evidence must be "really refused now (the chain's rules, then
    apply_entry's)". A head the chain refuses (here one ahead of the log, ``head_ahead``)
    is no fault of anyone else, so the message is judged on its body, at the head it
    claims: a move in another player's name is a lie at any head (§5.3), and the
    sequencer's abort for it stands, naming Bob."""
    table_id = LOG[0].message.table_id
    before = list(LOG[:FIRST_MOVE])
    counter = sum(e.author == BOB for e in before)
    ahead = Head(FIRST_MOVE + 5, bytes(32))
    lie = Message.sign(PEOPLE[1], table_id, counter, ahead, Move(Draw(2)),
                       version=LOG[0].message.version)
    entries = forge(LOG, FIRST_MOVE, 0,
                    Abort(BOB, "wrong_seat", "a move made in another player's name",
                          lie.encode()))
    ledger = Ledger(table_id, entries[0].author)
    for entry in entries[:-1]:
        ledger.accept(entry)
    with pytest.raises(ChainError) as chain:
        ledger.chain.check_message(lie)
    assert chain.value.code == "head_ahead"
    events = ledger.accept(entries[-1])
    assert [(e.peer, e.code) for e in events if isinstance(e, PeerMisbehaved)] == \
        [(BOB, "wrong_seat")]
    assert ledger.state.seq == FIRST_MOVE + 1
    stop = ledger.state.stop
    assert stop is not None
    assert stop.culprit == BOB

def test_a_garbage_entry_from_another_member_names_nobody() -> None:
    """Only the sequencer sends ``E`` frames (table.md §3.1); bytes relayed by another
    member prove nothing of anyone (anyone can send bytes), so they name nobody, while
    the same bytes from the sequencer name it."""
    net = seat_table(TableSetup(3, preset("official", ["target=30"]), b"relayed garbage"))
    net.run(until=lambda n: n.host.state.seq > 20, max_steps=20_000)
    host, bob, cy = net.peers.values()
    bob.events()
    bob.receive(frame(FRAME_ENTRY, b"\xc1 not an entry"), net.now_ms, cy.peer_id)
    told = [e for e in bob.events() if isinstance(e, PeerMisbehaved)]
    assert [(e.peer, e.name, e.code) for e in told] == [(None, "", "invalid_frame")]
    bob.receive(frame(FRAME_ENTRY, b"\xc1 not an entry"), net.now_ms, host.peer_id)
    told = [e for e in bob.events() if isinstance(e, PeerMisbehaved)]
    assert [(e.peer, e.name, e.code) for e in told] == [(host.peer_id, "Ann", "invalid_frame")]


# -- a card that came by a hand pass: its player's own share is in the log already ----------
PARTY = tuple(read_log(Path(__file__).resolve().parent.parent / "data" /
                       "honest-4p-party.unolog").entries)
PARTY_PEOPLE = [Identity(seeded(b"uno-lan/reference/honest-4p", f"identity {i}"))
                for i in range(4)]


def _passed_play() -> tuple[int, Move, ShareItem]:
    """The party log's first play of a card that came by a swap or a hand pass, and the
    share of that card its player logged earlier, when the card was dealt to another."""
    for entry in PARTY:
        body = entry.body
        if isinstance(body, Move) and isinstance(body.action, Play) and any(
                i.purpose == "private" for i in body.shares):
            seat, slot = body.action.seat, body.action.slots[0]
            logged = [i for e in PARTY[:entry.seq] if isinstance(e.body, Shares)
                      for i in e.body.items if i.prover == seat
                      and Slot(i.shuffle, i.position) == slot]
            assert logged, "the player's share of a passed card is in the log"
            return entry.seq, body, logged[0]
    raise AssertionError("the party log passes no card")


def test_a_passed_cards_play_may_not_carry_a_share_the_log_holds() -> None:
    """table.md §5.1: a play carries its own open share of each card it plays, or the
    share its previous holder revealed to it. A card that came by a hand pass was dealt
    to another seat first, so the player's own share of it is in the log already; a
    move carrying it again (even re-labelled "open", and valid) is ``unexpected_share``
    naming its author, and nothing of it is kept."""
    seq, honest, logged = _passed_play()
    assert isinstance(honest.action, Play)
    again = replace(logged, purpose="open", recipient=-1)
    forged_body = replace(honest, shares=(*honest.shares, again))
    who = honest.action.seat
    author = PARTY_PEOPLE[who]
    kept = list(PARTY[:seq])
    counter = sum(e.author == author.peer for e in kept)
    table_id = PARTY[0].message.table_id
    message = Message.sign(author, table_id, counter, Head(seq, kept[-1].hash), forged_body,
                           version=PARTY[0].message.version)
    forged = Entry.countersign(PARTY_PEOPLE[0], seq, kept[-1].hash, message)
    ledger = Ledger(table_id, PARTY[0].author)
    for entry in kept:
        ledger.accept(entry)
    assert ledger.state.seat_of(author.peer.key) == who
    state = ledger.state
    with pytest.raises(Misbehaviour) as caught:
        ledger.accept(forged)
    error = caught.value
    assert (error.code, error.entry, error.culprit) == ("unexpected_share", seq, author.peer)
    assert forged in error.evidence
    reads_on(str(error).removeprefix(f"entry {seq}: "))
    assert ledger.state == state
    # The honest move itself, with the passed share only, is accepted.
    ledger.accept(PARTY[seq])
    assert ledger.state.seq == seq + 1


# -- a false claim proven at the reveal names its maker --------------------------------------
DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize(("log", "rule"), [("cheat-challenge-lie.unolog", "challenge"),
                                           ("cheat-wild-draw-four.unolog", "wild_draw_four")])
def test_a_false_claim_the_log_proves_names_its_maker(log: str, rule: str) -> None:
    """table.md §7: a claim (a Wild Draw Four's "no card of the colour", a challenge
    verdict) is judged when the cards it spoke of open. Replayed by a peer's own ledger,
    the one these reference logs prove false names its maker, the player the expected
    verdicts name (tests/data/expected.json), by name and by identity."""
    expected = json.loads((DATA / "expected.json").read_text("utf-8"))[log]
    entries = read_log(DATA / log).entries
    ledger = Ledger(entries[0].message.table_id, entries[0].author)
    found = [event for entry in entries for event in ledger.accept(entry)
             if isinstance(event, PeerMisbehaved)]
    assert [(e.code, e.name) for e in found] == [(rule, expected["peer"])]
    seat = ledger.state.player_names.index(expected["peer"])
    assert found[0].peer == ledger.state.seats[seat]


def test_a_passed_share_from_no_seat_is_refused_with_the_move_as_evidence() -> None:
    """deck.md §7: a played card that came by a pass carries its giver's private share;
    one naming a prover the table does not seat is ``bad_share``, and the refusal, like
    every other, names the mover and holds the signed entry (table.md §7.2)."""
    move = LOG[FIRST_MOVE].body
    assert isinstance(move, Move)
    mover = [p.peer for p in PEOPLE].index(LOG[FIRST_MOVE].author)
    nobody = replace(move.shares[0], purpose="private", recipient=mover, prover=5)
    entries = forge(LOG, FIRST_MOVE, mover, replace(move, shares=(nobody, *move.shares[1:])))
    forged, error = _refusal(entries)
    assert (error.code, error.entry, error.culprit) == ("bad_share", FIRST_MOVE, forged.author)
    assert "names no seat or no shuffled card" in str(error)
    assert forged in error.evidence, "the signed entry is the evidence"


MAX_STEPS = 20_000


def playing_table(seed: bytes, players: int) -> Network:
    """A table in a round under way, past its first entries (also tests/table/test_removal)."""
    net = seat_table(TableSetup(players, preset("official", ["target=100"]), seed))
    net.run(until=lambda n: n.host.state.phase == TablePhase.PLAYING
            and n.host.state.engine is not None and n.host.state.engine.round >= 1
            and n.host.state.seq > 30, max_steps=MAX_STEPS)
    engine = net.host.state.engine
    assert engine is not None
    assert engine.round >= 1, "a round is under way"
    return net


def _guest(net: Network) -> TablePeer:
    return next(p for p in net.peers.values() if not p.is_host)


def test_a_fork_is_blamed_on_the_sequencer_naming_the_number() -> None:
    net = playing_table(b"fifth sample fork", 2)
    host, guest = net.host, _guest(net)
    entries = net.entries(guest)
    at = 12
    # Another entry countersigned by the sequencer at a number the guest already holds.
    other = Message.sign(host.identity, host.table_id, 50_000, entries[at - 1].message.head,
                         Clock(net.now_ms + 1))
    fork = Entry.countersign(host.identity, at, entries[at - 1].hash, other)
    assert fork.hash != entries[at].hash
    guest.receive(frame(FRAME_ENTRY, fork.encode()), net.now_ms, host.peer_id)
    assert guest.stopped is not None, "a fork stops the peer (table.md §7.4)"
    told = [e for e in net.events[guest.peer_id.key] + guest.events()
            if isinstance(e, PeerMisbehaved)]
    assert [(e.peer, e.code, e.entry) for e in told] == [(host.peer_id, "sequencer_fork", at)]
    # The evidence: both entries the sequencer signed with that number (table.md §7.4).
    assert set(told[0].evidence) == {entries[at], fork}
    assert told[0].name == "Ann"
    assert str(at) in told[0].reason
    assert "two different entries" in told[0].reason


@pytest.mark.parametrize(("code", "reason"), [("race", 7), (7, "late")])
def test_a_drop_notice_without_text_is_named_as_a_malformed_drop_notice(
        code: int | str, reason: int | str) -> None:
    net = playing_table(b"fifth sample drop", 2)
    host, guest = net.host, _guest(net)
    guest.receive(frame(FRAME_DROP, pack([3, code, reason])), net.now_ms, host.peer_id)
    told = [e for e in guest.events() if isinstance(e, PeerMisbehaved)]
    assert [(e.peer, e.code) for e in told] == [(host.peer_id, "invalid_frame")]
    assert told[0].name == "Ann", "the sequencer by the name it joined under"
    assert "drop notice" in told[0].reason
