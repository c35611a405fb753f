"""Checks done elsewhere (a worker, the reveal), the join-code exchange, and edge values.

- deck.md §9: a seat's shuffle re-executed from its own revealed seed alone
  matches what it published, or names it and the first differing position
  (``dishonest_shuffle``); a ``ReexecutionStatement`` checked in a worker
  gives its memo key for an honest shuffle and nothing for a false one.
- deck.md §7: a ``ShareStatement`` (one share's DLEQ proof, checked off the
  loop) gives its key for a valid share and nothing for another card's.
- net.md §4 (SPAKE2): both sides with one code derive one key, other codes
  another; a message that is no group element, or one that makes the
  exchange degenerate, is ``bad_pake``.
- A memo of verified statements keeps the latest ones, a bounded number; a
  secret scalar never shows its value; the operation counters count each
  addition once; the key announcement and reveal decoders refuse a
  malformed seed commitment or seed, naming the value (``item``).
Expected values come from those words, not from the code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import replace

import pytest

from tests.crypto.harness import Table, peer_id
from uno_p2p.crypto.audit import (
    REEXECUTED,
    ReexecutionStatement,
    ShuffleCheatDetected,
    reexecute_shuffle,
    verify_deck,
)
from uno_p2p.crypto.context import VerifiedStatements
from uno_p2p.crypto.group import OPS, Point, Scalar, base_mul
from uno_p2p.crypto.keys import KeyAnnouncement, SecretsReveal, joint_key
from uno_p2p.crypto.shares import DecryptionShare, ShareStatement
from uno_p2p.crypto.shuffle import (
    Ciphertext,
    ShuffleMessage,
    apply_shuffle,
    initial_deck,
    shuffle_context,
    shuffle_seed,
)
from uno_p2p.crypto.shuffle_proof import ShuffleStatement, make_proven_shuffle, verified_key
from uno_p2p.crypto.spake2 import M, N, Spake2, code_scalar
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError

CARDS = range(12)


@pytest.fixture(scope="module")
def table() -> Table:
    """Two seats, keys announced, one deck of 12 cards shuffled by both."""
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, CARDS)
    table.shuffle()
    return table


@pytest.fixture(autouse=True)
def fresh_memo() -> Iterator[None]:
    REEXECUTED.clear()
    yield
    REEXECUTED.clear()


def _first_shuffle(table: Table) -> tuple[tuple[Ciphertext, ...], tuple[Ciphertext, ...],
                                           bytes, Point]:
    record = table.records[-1]
    assert record.shufflers[0] == 0
    previous = initial_deck(record.card_ids)
    published = record.shuffles[0].ciphertexts
    return previous, published, table.peers[0].secrets.shuffle_master, \
        joint_key(table.peers[0].keys)


def _swapped(deck: tuple[Ciphertext, ...], i: int, j: int) -> tuple[Ciphertext, ...]:
    out = list(deck)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def test_an_honest_shuffle_re_executes_from_its_seed(table: Table) -> None:
    previous, published, master, key = _first_shuffle(table)
    seed = shuffle_seed(master, 1, 0)
    assert apply_shuffle(previous, seed, key) == published
    reexecute_shuffle(previous, published, shuffle_master=master, round_number=1, deck=0,
                      joint_key=key, peer=peer_id(0), where="round 1 deck 0")


def test_a_shuffle_that_differs_is_named_at_its_first_differing_position(table: Table) -> None:
    previous, published, master, key = _first_shuffle(table)
    for i, j in ((4, 9), (0, 11)):
        with pytest.raises(ShuffleCheatDetected) as caught:
            reexecute_shuffle(previous, _swapped(published, i, j), shuffle_master=master,
                              round_number=1, deck=0, joint_key=key, peer=peer_id(0),
                              where="round 1 deck 0")
        error = caught.value
        assert error.code == "dishonest_shuffle"
        assert f"position {i}" in str(error)
        assert error.item is not None
        assert f"position {i}" in error.item
        assert error.peer is not None
        assert error.peer
    with pytest.raises(ShuffleCheatDetected) as short:
        reexecute_shuffle(previous, published[:-1], shuffle_master=master, round_number=1,
                          deck=0, joint_key=key, peer=peer_id(0), where="round 1 deck 0")
    assert "11" in str(short.value), "it says how many cards it holds"
    assert short.value.item == "round 1 deck 0"


def test_a_re_execution_statement_checked_elsewhere(table: Table) -> None:
    previous, published, master, key = _first_shuffle(table)

    def statement(deck: tuple[Ciphertext, ...], *, seed_of: bytes = master
                  ) -> ReexecutionStatement:
        return ReexecutionStatement(tuple(c.to_wire() for c in previous),
                                    tuple(c.to_wire() for c in deck), seed_of, 1, 0,
                                    key.to_wire())

    honest = statement(published)
    assert honest.check() == honest.key()
    assert statement(_swapped(published, 2, 3)).check() is None
    assert statement(published, seed_of=bytes(32)).check() is None
    assert len({honest.key(), statement(_swapped(published, 2, 3)).key(),
                statement(published, seed_of=bytes(32)).key()}) == 3, "every input is bound"
    # The worker's verdict is the one the ledger's own re-execution would find.
    REEXECUTED.add(honest.key())
    reexecute_shuffle(previous, published, shuffle_master=master, round_number=1, deck=0,
                      joint_key=key, peer=peer_id(0), where="w")


def test_a_share_statement_checked_elsewhere(table: Table) -> None:
    deck = table.peers[0].deck
    secrets = table.peers[0].secrets
    public = table.peers[0].keys[0].value.public_key.to_wire()

    def statement(share: DecryptionShare, position: int) -> ShareStatement:
        return ShareStatement(share.share.to_wire(), share.proof.to_wire(), public,
                              deck.ciphertext(position).c1.to_wire(),
                              deck.share_context(position, 0, purpose="open"))

    share3 = deck.make_share(secrets, 3, purpose="open")
    share4 = deck.make_share(secrets, 4, purpose="open")
    good = statement(share3, 3)
    assert good.check() == good.key()
    assert statement(share4, 3).check() is None, "another card's share"
    assert statement(share3, 4).check() is None


def test_a_bad_share_proof_is_named(table: Table) -> None:
    share = table.peers[0].deck.make_share(table.peers[0].secrets, 3, purpose="open")
    wire = share.to_wire()
    assert isinstance(wire, list)
    with pytest.raises((CryptoError, InvalidMessage)) as caught:
        DecryptionShare.from_wire([wire[0], wire[1], b"\xff" * 64], peer="p")
    assert "proof" in (getattr(caught.value, "item", None) or "")


def test_the_join_code_exchange() -> None:
    a = Spake2("A", "table 42", b"\x01" * 32)
    b = Spake2("B", "table 42", b"\x02" * 32)
    assert a.finish(b.message) == b.finish(a.message)
    wrong = Spake2("B", "table 43", b"\x02" * 32)
    assert a.finish(wrong.message) != wrong.finish(a.message)
    with pytest.raises(CryptoError) as garbage:
        a.finish(b"\x00" * 31)
    assert garbage.value.code == "bad_pake"
    assert garbage.value.item is not None
    assert "SPAKE2" in garbage.value.item
    # B's message without its secret part (y = 0): the shared point is the identity.
    degenerate = (N * code_scalar("table 42")).to_wire()
    with pytest.raises(CryptoError) as caught:
        a.finish(degenerate)
    assert caught.value.code == "bad_pake"
    assert (M * code_scalar("x")).to_wire() != degenerate


def test_a_memo_keeps_the_latest_statements() -> None:
    memo = VerifiedStatements(2)
    for key in (b"a", b"b", b"c"):
        memo.add(key)
    assert b"a" not in memo
    assert b"b" in memo
    assert b"c" in memo
    default = VerifiedStatements()
    keys = [i.to_bytes(4, "big") for i in range(5000)]
    for key in keys:
        default.add(key)
    assert keys[-1] in default
    assert keys[0] not in default, "a bounded memo"


def test_a_secret_scalar_never_shows_its_value() -> None:
    secret = Scalar(123456789)
    text = repr(secret)
    assert "123456789" not in text
    assert "Scalar" in text, "it says what it hides"


def test_each_point_addition_is_counted_once() -> None:
    p, q = base_mul(Scalar(3)), base_mul(Scalar(5))
    before = OPS.adds
    assert p + q == base_mul(Scalar(8))
    assert OPS.adds == before + 1
    before = OPS.adds
    _ = p - q
    assert OPS.adds == before + 1


def test_the_joint_key_refuses_a_peer_twice_or_none(table: Table) -> None:
    keys = table.peers[0].keys
    assert joint_key(keys) == keys[0].value.public_key + keys[1].value.public_key
    for bad in ([], [keys[0], keys[0]]):
        with pytest.raises(LocalProtocolError) as caught:
            joint_key(bad)
        assert "key" in str(caught.value)


def test_a_malformed_commitment_or_seed_is_refused(table: Table) -> None:
    wire = table.peers[0].secrets.announce().to_wire()
    KeyAnnouncement.from_wire(wire, peer="p")
    for bad in (b"\x01" * 31, 7, "x" * 32):
        with pytest.raises(InvalidMessage) as caught:
            KeyAnnouncement.from_wire([wire[0], bad, wire[2]], peer="p")
        assert "commitment" in str(caught.value)
    share = table.peers[0].secrets.key_share.to_wire()
    SecretsReveal.from_wire([share, bytes(32)], peer="p")
    with pytest.raises(InvalidMessage) as short:
        SecretsReveal.from_wire([share, bytes(31)], peer="p")
    assert str(short.value).startswith("secrets reveal"), "it names what it decodes"
    with pytest.raises(CryptoError) as scalar:
        SecretsReveal.from_wire([b"\xff" * 32, bytes(32)], peer="p")
    assert scalar.value.item is not None
    assert scalar.value.item.startswith("secrets reveal")


def test_a_published_deck_of_the_wrong_size_is_named_by_the_reveal(table: Table) -> None:
    """deck.md §9: every seat revealed; a shuffle holding one card less than its input is
    the shuffler's, and the error names the deck and the seat."""
    record = table.records[-1]
    reveals = dict(enumerate(table.reveal_all()))
    keys = table.peers[0].keys
    assert verify_deck(record, keys=keys, reveals=reveals).order
    short = ShuffleMessage(record.shuffles[0].ciphertexts[:-1])
    cut = replace(record, shuffles=(short, *record.shuffles[1:]))
    with pytest.raises(ShuffleCheatDetected) as caught:
        verify_deck(cut, keys=keys, reveals=reveals)
    error = caught.value
    assert error.item is not None
    assert "deck 0" in error.item
    assert "seat 0" in error.item
    assert str(len(CARDS) - 1) in str(error)


def test_a_shuffle_statement_checked_elsewhere_is_found_by_the_ledger() -> None:
    """Its memo key, from the wire bytes alone, is the key the ledger's own check of the
    decoded turn computes (``verified_key``): a worker's verdict is found, not redone."""
    key = base_mul(Scalar.of(12345))
    deck = apply_shuffle(initial_deck(list(CARDS)), b"\x05" * 32, key)
    context = shuffle_context(b"t" * 16, 1, 0, b"p" * 32, turn=1)
    message, proof = make_proven_shuffle(deck, shuffle_master=b"m" * 32, round_number=1,
                                         deck=0, joint_key=key, context=context)
    statement = ShuffleStatement(tuple(c.to_wire() for c in deck), tuple(message.to_wire()),
                                 proof.to_wire(), key.to_wire(), b"t" * 16, 1, 0, b"p" * 32, 1)
    assert statement.check() == statement.key()
    assert statement.key() == verified_key(deck, message.ciphertexts, proof.to_wire(), key,
                                           context)
    other = dataclasses.replace(statement, turn=2)
    assert other.check() is None, "a proof made for another turn"
