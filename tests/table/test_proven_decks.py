"""Every deck the table makes is proven on arrival (issue 9, deck.md §6.3-§6.4): each
round's first deck, reshuffles of the discard pile and decks of carried ciphertexts."""

from __future__ import annotations

import pytest

from uno_p2p.crypto.audit import REEXECUTED
from uno_p2p.crypto.shuffle_proof import VERIFIED, proof_bytes
from uno_p2p.errors import InvalidMessage
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import ShuffleDeck
from uno_p2p.table.game import check_opened_once
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.table.replay import replay
from uno_p2p.table.state import Misbehaviour


@pytest.mark.slow
def test_every_kind_of_deck_carries_a_proof_every_observer_checks() -> None:
    # A seed found to give reshuffles and a deck of carried cards (draw until playable).
    options = preset("official", ["target=100", "draw_until_playable=true"])
    net = seat_table(TableSetup(2, options, b"reshuffle 3", bots=("random", "random")))
    net.run(until=game_over)
    decks = net.host.state.decks
    assert any(len(d.card_ids) == 108 for d in decks), "a round's first deck"
    assert any(0 < len(d.card_ids) < 108 for d in decks), "a reshuffled discard pile"
    assert any(d.carried for d in decks), "a deck of carried ciphertexts"
    for deck in decks:
        assert len(deck.proofs) == len(deck.done) == 2
        size = len(deck.start)
        assert all(len(proof) == proof_bytes(size) for proof in deck.proofs)
    shuffles = [e for e in net.entries() if isinstance(e.body, ShuffleDeck)]
    assert len(shuffles) == 2 * len(decks)
    VERIFIED.enabled = REEXECUTED.enabled = False  # an observer that trusts nothing
    try:
        assert replay(net.entries()).violation is None
    finally:
        VERIFIED.enabled = REEXECUTED.enabled = True


def test_a_card_opened_twice_in_one_deck_is_a_named_fault() -> None:
    opened = {Slot(3, 0): 17, Slot(2, 5): 40}
    with pytest.raises(Misbehaviour) as caught:
        check_opened_once(opened, Slot(3, 9), 17, seq=44)
    assert caught.value.code == "duplicate_card"
    assert caught.value.entry == 44
    check_opened_once(opened, Slot(3, 0), 17, seq=44)  # the same slot again is no fault
    check_opened_once(opened, Slot(4, 1), 17, seq=44)  # another deck may hold it


def test_a_shuffle_body_without_its_proof_field_does_not_decode() -> None:
    body = ShuffleDeck(0, (bytes(64),), b"")
    assert ShuffleDeck.from_wire(body.to_wire()) == body
    with pytest.raises(InvalidMessage):
        ShuffleDeck.from_wire([0, [bytes(64)]])
    with pytest.raises(InvalidMessage):
        ShuffleDeck(0, (bytes(64),), bytes(proof_bytes(108) + 1))
