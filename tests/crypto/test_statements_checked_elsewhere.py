"""Statements checked ahead, elsewhere, bind every input and match the ledger's memo.

A shuffle's proof (deck.md §6.4), a share's DLEQ proof (§7) and a shuffle's
re-execution from its revealed seed (§9) can be checked in another thread or
process as a plain-bytes *statement*; a verified statement's key goes into a
memo, where the ledger's own check finds it and skips the work. Two things
make that sound, and both are checked here from the outside:

- the key is the one the ledger's check computes for the same inputs (else
  the work is done twice), and it changes with every input (else a statement
  verified for one deck, seat, turn or key would let another pass unchecked:
  "keyed by SHA-256 of every input", context.py);
- ``check`` says yes (the key) for an honest statement and no (None, never
  an exception) for one with any input changed or malformed.

Before this file each of these classes had a single test reaching it
(mutmut's trace): ShuffleStatement.key, check_statement, ShareStatement,
ReexecutionStatement.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from tests.crypto.harness import Table
from tests.crypto.test_shuffle_proof import KEY, MASTER, OTHER_KEY, SHUFFLER, TABLE, context
from tests.crypto.test_shuffle_proof import start as start_deck
from uno_p2p.crypto.audit import REEXECUTED, ReexecutionStatement, reexecute_shuffle
from uno_p2p.crypto.group import OPS
from uno_p2p.crypto.shares import VERIFIED_SHARES, ShareStatement, verify_share
from uno_p2p.crypto.shuffle import ShuffleMessage, make_shuffle
from uno_p2p.crypto.shuffle_proof import (
    VERIFIED,
    ShuffleStatement,
    check_statement,
    make_proven_shuffle,
    verified_key,
    verify_proven_shuffle,
)


@pytest.fixture(autouse=True)
def empty_memos() -> Iterator[None]:
    for memo in (VERIFIED, VERIFIED_SHARES, REEXECUTED):
        memo.clear()
        memo.enabled = True
    yield
    for memo in (VERIFIED, VERIFIED_SHARES, REEXECUTED):
        memo.clear()


def _flip(data: bytes, at: int = 0) -> bytes:
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]


# -- the proof of shuffle ---------------------------------------------------------------------

def _shuffle_statement() -> ShuffleStatement:
    previous = start_deck(5)
    message, proof = make_proven_shuffle(previous, shuffle_master=MASTER, round_number=1,
                                         deck=0, joint_key=KEY, context=context())
    return ShuffleStatement(tuple(c.to_wire() for c in previous), tuple(message.to_wire()),
                            proof.to_wire(), KEY.to_wire(), TABLE, 1, 0, SHUFFLER, 1)


def test_an_honest_shuffle_statement_verifies_to_the_ledgers_key() -> None:
    statement = _shuffle_statement()
    assert statement.context() == context()
    previous = start_deck(5)
    message = ShuffleMessage.from_wire(list(statement.shuffled), peer=None)
    key = verified_key(previous, message.ciphertexts, statement.proof, KEY, context())
    assert statement.key() == key
    assert check_statement(statement) == key
    assert statement.check() == key
    # The ledger's own check records the very same key.
    verify_proven_shuffle(message, statement.proof, previous, joint_key=KEY, context=context())
    assert key in VERIFIED


def _every_input_changed(statement: ShuffleStatement) -> dict[str, ShuffleStatement]:
    previous, shuffled = list(statement.previous), list(statement.shuffled)
    return {
        "previous": dataclasses.replace(statement, previous=(previous[1], previous[0],
                                                             *previous[2:])),
        "shuffled": dataclasses.replace(statement, shuffled=(shuffled[1], shuffled[0],
                                                             *shuffled[2:])),
        "proof": dataclasses.replace(statement, proof=_flip(statement.proof, 40)),
        "joint key": dataclasses.replace(statement, joint_key=OTHER_KEY.to_wire()),
        "table": dataclasses.replace(statement, table=b"another table"),
        "round": dataclasses.replace(statement, round_number=2),
        "deck": dataclasses.replace(statement, deck=1),
        "shuffler": dataclasses.replace(statement, shuffler=bytes(32)),
        "turn": dataclasses.replace(statement, turn=0),
    }


@pytest.mark.parametrize("changed", ["previous", "shuffled", "proof", "joint key", "table",
                                     "round", "deck", "shuffler", "turn"])
def test_a_shuffle_statement_with_any_input_changed_has_another_key_and_fails(
        changed: str) -> None:
    statement = _shuffle_statement()
    other = _every_input_changed(statement)[changed]
    assert other.key() != statement.key()
    assert check_statement(other) is None
    assert other.check() is None


@pytest.mark.parametrize("malformed", ["no proof", "short proof", "a point off the curve",
                                       "a joint key off the curve", "one card fewer"])
def test_a_malformed_shuffle_statement_is_none_never_an_error(malformed: str) -> None:
    statement = _shuffle_statement()
    off_curve = (2).to_bytes(32, "little")
    broken = {
        "no proof": dataclasses.replace(statement, proof=b""),
        "short proof": dataclasses.replace(statement, proof=statement.proof[:-1]),
        "a point off the curve": dataclasses.replace(
            statement, shuffled=(off_curve * 2, *statement.shuffled[1:])),
        "a joint key off the curve": dataclasses.replace(statement, joint_key=off_curve),
        "one card fewer": dataclasses.replace(statement, shuffled=statement.shuffled[:-1]),
    }[malformed]
    assert check_statement(broken) is None


# -- a decryption share ---------------------------------------------------------------------

def _share_statement() -> tuple[Table, ShareStatement]:
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, range(6))
    table.shuffle()
    deck = table.peers[0].deck
    share = deck.make_share(table.peers[1].secrets, 2, purpose="open")
    statement = ShareStatement(share.share.to_wire(), share.proof.to_wire(),
                               deck.keys[1].value.public_key.data, deck.ciphertext(2).c1.data,
                               deck.share_context(2, 1, purpose="open"))
    return table, statement


def test_an_honest_share_statement_verifies_and_spares_the_ledger_the_proof() -> None:
    table, statement = _share_statement()
    key = statement.check()
    assert key is not None
    assert key == statement.key()
    deck = table.peers[0].deck
    share = deck.make_share(table.peers[1].secrets, 2, purpose="open")
    OPS.reset()
    deck.verify_share(share, seat=1, position=2, purpose="open")
    assert OPS.muls > 0, "without the memo the proof is checked"
    VERIFIED_SHARES.add(key)
    OPS.reset()
    verify_share(share, ciphertext=deck.ciphertext(2), key=deck.keys[1],
                 context=deck.share_context(2, 1, purpose="open"))
    assert OPS.muls == OPS.base_muls == 0, "the statement's key is the one the ledger looks up"


def test_a_share_statement_with_any_input_changed_has_another_key_and_fails() -> None:
    table, statement = _share_statement()
    deck = table.peers[0].deck
    others = {
        "share": dataclasses.replace(statement, share=deck.ciphertext(3).c1.data),
        "proof": dataclasses.replace(statement, proof=_flip(statement.proof, 3)),
        "public key": dataclasses.replace(statement,
                                          public=deck.keys[0].value.public_key.data),
        "ciphertext": dataclasses.replace(statement, c1=deck.ciphertext(3).c1.data),
        "position": dataclasses.replace(statement,
                                        context=deck.share_context(3, 1, purpose="open")),
        "purpose": dataclasses.replace(statement,
                                       context=deck.share_context(2, 1, purpose="deal")),
    }
    for what, other in others.items():
        assert other.key() != statement.key(), what
        assert other.check() is None, what
    for malformed in (dataclasses.replace(statement, share=b"\x01" * 31),
                      dataclasses.replace(statement, proof=b""),
                      dataclasses.replace(statement, share=(2).to_bytes(32, "little"))):
        assert malformed.check() is None


# -- a shuffle re-executed from its revealed seed -------------------------------------------

def _reexecution() -> ReexecutionStatement:
    previous = start_deck(5)
    published = make_shuffle(previous, shuffle_master=MASTER, round_number=1, deck=0,
                             joint_key=KEY)
    return ReexecutionStatement(tuple(c.to_wire() for c in previous),
                                tuple(published.to_wire()), MASTER, 1, 0, KEY.to_wire())


def test_an_honest_reexecution_statement_verifies_to_the_ledgers_key() -> None:
    statement = _reexecution()
    key = statement.check()
    assert key is not None
    assert key == statement.key()
    previous = start_deck(5)
    published = ShuffleMessage.from_wire(list(statement.published), peer=None).ciphertexts
    reexecute_shuffle(previous, published, shuffle_master=MASTER, round_number=1, deck=0,
                      joint_key=KEY, peer=SHUFFLER, where="round 1 deck 0")
    assert key in REEXECUTED


def test_a_reexecution_statement_with_any_input_changed_has_another_key_and_fails() -> None:
    statement = _reexecution()
    previous, published = list(statement.previous), list(statement.published)
    others = {
        "previous": dataclasses.replace(statement, previous=(previous[1], previous[0],
                                                             *previous[2:])),
        "published": dataclasses.replace(statement, published=(published[1], published[0],
                                                               *published[2:])),
        "seed": dataclasses.replace(statement, shuffle_master=bytes(32)),
        "round": dataclasses.replace(statement, round_number=2),
        "deck": dataclasses.replace(statement, deck=1),
        "joint key": dataclasses.replace(statement, joint_key=OTHER_KEY.to_wire()),
        "one card fewer": dataclasses.replace(statement, published=tuple(published[:-1])),
    }
    for what, other in others.items():
        assert other.key() != statement.key(), what
        assert other.check() is None, what
