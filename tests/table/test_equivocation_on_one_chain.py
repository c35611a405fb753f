"""Equivocation is proven on one chain (table.md §7.2): a second message under a
logged number convicts its author only when it was signed at a head of that very
log. An honest author signs a number anew after a hand-over (§13.3); an old
sequencer that logged the first alone, and never saw the hand-over, must not take
the second for cheating, nor may anyone else accept an abort that says so."""

from __future__ import annotations

import pytest

from uno_p2p.crypto.identity import Identity
from uno_p2p.rules.actions import Draw
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Abort, Move
from uno_p2p.table.ledger import Ledger
from uno_p2p.table.memnet import Network, TableSetup, seat_table, seeded
from uno_p2p.table.state import Misbehaviour, TablePhase
from uno_p2p.wire.envelope import Entry, Head, Message

pytestmark = pytest.mark.game

SEED = b"one chain"


def _playing() -> tuple[Network, Identity, Message]:
    """A table in play, seat 1's identity, and its latest logged message."""
    net = seat_table(TableSetup(3, preset("official", ["turn_timer=30"]), SEED))
    net.run(until=lambda n: n.host.state.phase == TablePhase.PLAYING and n.host.state.seq > 40,
            max_steps=100_000)
    identity = Identity(seeded(SEED, "identity 1"))
    logged = [e.message for e in net.entries() if e.author == identity.peer]
    return net, identity, logged[-1]


def _again(net: Network, identity: Identity, first: Message, head: Head) -> Message:
    """The same number as ``first``, another body (a draw: no lie whatever the head, a
    race at worst), signed at ``head``."""
    seat = net.host.state.seat_of(identity.peer.key)
    assert seat is not None
    return Message.sign(identity, net.host.table_id, first.counter, head, Move(Draw(seat)),
                        version=net.host.state.version)


def _foreign_head(net: Network) -> Head:
    """A head no entry of this log has: what a chain after a hand-over elsewhere shows."""
    return Head(net.host.state.seq + 1, bytes(32))


def test_a_number_signed_anew_on_another_chain_is_set_aside() -> None:
    net, identity, first = _playing()
    sequencer = net.host.sequencer
    assert sequencer is not None
    outcome = sequencer.submit(_again(net, identity, first, _foreign_head(net)), 10**9)
    assert not [e for e, _ in outcome.entries if isinstance(e.body, Abort)]
    assert outcome.drop is None


def test_two_messages_under_one_number_on_this_chain_are_equivocation() -> None:
    net, identity, first = _playing()
    sequencer = net.host.sequencer
    assert sequencer is not None
    outcome = sequencer.submit(_again(net, identity, first, first.head), 10**9)
    aborts = [e.body for e, _ in outcome.entries if isinstance(e.body, Abort)]
    assert [(a.culprit, a.code) for a in aborts] == [(identity.peer, "equivocation")]


def _judged(net: Network, evidence: Message) -> str:
    """Every peer's verdict on the sequencer's abort citing ``evidence``: the fault code
    it is refused with, or "" when accepted."""
    host = net.host
    ledger = Ledger(host.table_id, host.peer_id, host.peer_id.key)
    for entry in net.entries():
        ledger.accept(entry)
    sequencer = Identity(seeded(SEED, "identity 0"))
    counter = ledger.chain.next_counter(sequencer.peer)
    body = Abort(evidence.author, "equivocation", "signed two messages with one number",
                 evidence.encode())
    message = Message.sign(sequencer, host.table_id, counter, ledger.head, body,
                           version=host.state.version)
    head = ledger.head
    entry = Entry.countersign(sequencer, head.seen, head.hash, message)
    try:
        ledger.accept(entry)
    except Misbehaviour as error:
        return error.code
    return ""


def test_an_abort_citing_a_message_signed_on_another_chain_is_a_false_accusation() -> None:
    net, identity, first = _playing()
    assert _judged(net, _again(net, identity, first, first.head)) == ""
    assert _judged(net, _again(net, identity, first, _foreign_head(net))) == \
        "false_accusation"
