"""Misuse of the crypto layer by our own code is refused in a sentence that says what is wrong.

A ``LocalProtocolError`` is a bug of ours, not a peer's (uno_p2p/errors.py);
it reaches the person who reports the bug as one sentence, so each says
which rule of deck.md was about to be broken: a proof context's field
bounds (§1.3: ids 1-64 bytes, round, deck and position u32, the purpose
``[a-z][a-z0-9_]{0,31}``), a deck's keys, cards and shufflers (§4-§6), the
turn to shuffle, a position that does not exist or is not shuffled yet, a
card opened before every share is in (§7), a scalar not reduced modulo L
(§1), a 32-byte seed (§4.1), a joint key from no keys, a proof of shuffle
for 1..108 cards (§6.4). Fresh mutant samples kept finding these sentences
emptied or shouted with no test noticing (docs/testing.md).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.crypto.harness import TABLE, Table, peer_id
from uno_p2p.crypto import audit, cards
from uno_p2p.crypto.audit import DeckRecord
from uno_p2p.crypto.context import SEAL, ProofContext, Verified
from uno_p2p.crypto.deck import Deck
from uno_p2p.crypto.group import L, Scalar
from uno_p2p.crypto.keys import PeerSecrets, joint_key
from uno_p2p.crypto.shuffle import initial_deck
from uno_p2p.crypto.shuffle_proof import generators
from uno_p2p.errors import LocalProtocolError

ALICE = peer_id(0)


def _keyed(n: int = 2) -> Table:
    table = Table(n)
    table.setup_keys()
    return table


def _deck(keyed: Table, **changes: object) -> Deck:
    args: dict[str, object] = {"table": TABLE, "round_number": 1, "deck": 0,
                               "keys": keyed.peers[0].keys, "card_ids": range(6)}
    args.update(changes)
    return Deck(**args)  # type: ignore[arg-type]


def _context(**changes: object) -> ProofContext:
    args: dict[str, object] = {"table": TABLE, "round": 1, "deck": 0, "purpose": "open",
                               "peer": ALICE, "position": 3}
    args.update(changes)
    return ProofContext(**args)  # type: ignore[arg-type]


def _shuffled(n: int = 2) -> Table:
    table = _keyed(n)
    table.new_deck(1, 0, range(6))
    table.shuffle()
    return table


MISUSES: list[tuple[str, Callable[[], object], str]] = [
    ("empty table id", lambda: _context(table=b""), "proof context: table must be 1..64 bytes"),
    ("long peer id", lambda: _context(peer=b"p" * 65), "proof context: peer must be 1..64 bytes"),
    ("long recipient", lambda: _context(recipient=b"r" * 65),
     "proof context: recipient must be 0..64 bytes"),
    ("negative round", lambda: _context(round=-1), "proof context: round must be 0..2^32-1"),
    ("deck past u32", lambda: _context(deck=1 << 32), "proof context: deck must be 0..2^32-1"),
    ("position past u32", lambda: _context(position=1 << 32),
     "proof context: position must be 0..2^32-1"),
    ("purpose in capitals", lambda: _context(purpose="Open"),
     "proof context: purpose must match [a-z][a-z0-9_]{0,31}"),
    ("a forged Verified", lambda: Verified(1, _context(), object()),  # type: ignore[arg-type]
     "Verified values are made only by the verify functions"),
    ("keys of another table", lambda: _deck(_keyed(), table=b"another table"),
     "every key must belong to this table"),
    ("a deck of no card", lambda: _deck(_keyed(), card_ids=()), "a deck holds at least one card"),
    ("a stranger's seat", lambda: _deck(_keyed()).seat_of(peer_id(7)),
     "this peer has no seat at the deck"),
    ("shuffling out of turn", lambda: _deck(_keyed()).make_shuffle(_keyed().peers[1].secrets),
     "it is not this peer's turn to shuffle"),
    ("a position before the shuffle", lambda: _deck(_keyed()).ciphertext(0),
     "the deck is not shuffled yet"),
    ("a position past the deck", lambda: _shuffled().peers[0].deck.ciphertext(6),
     "no position 6 in a deck of 6"),
    ("opening before the shares", lambda: _shuffled(3).peers[0].deck.open_public(2),
     "position 2 still needs shares from [0, 1, 2]"),
    ("a scalar not reduced", lambda: Scalar(L), "a Scalar must be reduced modulo L"),
    ("a short peer seed", lambda: PeerSecrets.from_seed(b"short", table=TABLE, peer=ALICE),
     "a peer seed must be 32 bytes from a secure source"),
    ("a joint key of no key", lambda: joint_key([]),
     "the joint key needs one verified key per peer"),
    ("an empty initial deck", lambda: initial_deck([]),
     "a deck holds one or more distinct card ids"),
    ("a repeated card id", lambda: initial_deck([3, 3]),
     "a deck holds one or more distinct card ids"),
    ("a proof of shuffle for 109 cards", lambda: generators(109),
     "a shuffle proof covers 1..108 cards"),
    ("a deck record without its shuffles",
     lambda: DeckRecord(1, 0, (1, 2), (0, 1), ()), "a deck record needs one message per shuffler"),
]


@pytest.mark.parametrize(("what", "make", "words"), MISUSES, ids=[m[0] for m in MISUSES])
def test_a_misuse_is_refused_saying_what_is_wrong(what: str, make: Callable[[], object],
                                                   words: str) -> None:
    with pytest.raises(LocalProtocolError) as caught:
        make()
    assert str(caught.value) == words, what


def test_the_values_just_inside_the_bounds_are_taken() -> None:
    _context(table=b"t", peer=b"p" * 64, recipient=b"r" * 64, round=(1 << 32) - 1,
             deck=0, position=(1 << 32) - 1, purpose="a" + "b" * 31)
    assert Verified(1, _context(), SEAL).value == 1
    assert len(generators(108)) == 109


def test_the_check_after_the_game_and_a_card_id_say_what_was_misused() -> None:
    # crypto/audit.py and crypto/cards.py name these; tests/crypto/test_deck_flow and
    # test_small_pieces assert through the names.
    assert audit.ANOTHER_PEERS_REVEAL.format(seat=0) == (
        "the reveal given for seat 0 is another peer's")
    assert audit.NO_EARLIER_POSITION.format(index=0, position=2) == (
        "no earlier deck position (0, 2)")
    assert cards.NOT_A_CARD_ID.format(card=108) == "108 is not a card id (0..107)"
    assert cards.NOT_A_CARD_ID.format(card="7") == "'7' is not a card id (0..107)"
