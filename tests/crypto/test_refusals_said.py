"""Every refusal of the crypto layer says, in words, what was wrong (docs/testing.md).

deck.md §12: a refusal names what it refuses. Fresh mutant samples kept
finding a refusal's sentence emptied (``None``), wrapped in ``XX`` or
shouted with no test noticing, one raise at a time (seed 20: a malformed
sealed message, a join code of the wrong size). So every raise of the
layer that no test read is here, triggered from the outside, and its
sentence checked the same way: it is a phrase in lower case (a proper name
such as SPAKE2 or Ed25519 keeps its capitals), it holds the words of the
rule it enforces (the sizes and names of deck.md, wire.md §6 and net.md
§4), and the error carries the code and item the spec gives it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import pytest

from tests.crypto.harness import TABLE, Table, peer_id
from tests.crypto.test_shuffle_proof import KEY, MASTER, check, context, proven, start
from uno_p2p.crypto.channel import ChannelKey, Party, open_sealed, seal
from uno_p2p.crypto.context import SEAL, ProofContext, Verified
from uno_p2p.crypto.deck import Deck
from uno_p2p.crypto.group import Scalar
from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.shares import make_share, verify_share
from uno_p2p.crypto.shuffle import ShuffleMessage
from uno_p2p.crypto.shuffle_proof import ShuffleProof, prove_shuffle, verify_shuffle_proof
from uno_p2p.crypto.spake2 import MAX_CODE_BYTES, Spake2, code_scalar
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError

#: Words that keep their capitals inside a lower-case phrase.
PROPER = {"SPAKE2", "Ed25519", "A", "B", "L"}


def said(error: BaseException, *words: str) -> str:
    """The error's sentence, checked to read as a phrase holding ``words``."""
    text = str(error)
    assert text, repr(error)
    assert text != "None", repr(error)
    assert "XX" not in text, text
    first = re.split(r"[\s:,]", text, maxsplit=1)[0]
    assert first in PROPER or first[:1].islower(), text
    shouted = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9']+", text)
               if w.isupper() and w not in PROPER and len(w) > 1]
    assert not shouted, text
    for word in words:
        assert word in text, (word, text)
    return text


def refusal(kind: type[BaseException], make: Callable[[], object]) -> BaseException:
    with pytest.raises(kind) as caught:
        make()
    return caught.value


# -- the private channel (wire.md §6: nonce 12 bytes, a tag of 16) ---------------------------

ALICE_KEY, BOB_KEY = ChannelKey(b"\x01" * 32), ChannelKey(b"\x02" * 32)
ALICE = Party(b"\x0a" * 32, ALICE_KEY.public)
BOB = Party(b"\x0b" * 32, BOB_KEY.public)


def test_a_sealed_message_of_the_wrong_shape_is_refused_as_malformed() -> None:
    nonce, ciphertext = seal(ALICE_KEY, ALICE, BOB, b"context", b"your card is R7")
    for bad_nonce, bad_text in ((nonce[:11], ciphertext), (nonce + b"\x00", ciphertext),
                                (nonce, ciphertext[:15])):
        with pytest.raises(CryptoError) as caught:
            open_sealed(BOB_KEY, ALICE, BOB, b"context", bad_nonce, bad_text)
        error = caught.value
        assert (error.code, error.item) == ("sealed_tampered", "sealed")
        said(error, "sealed message", "malformed")


def test_a_sealed_message_that_does_not_open_says_so() -> None:
    nonce, ciphertext = seal(ALICE_KEY, ALICE, BOB, b"context", b"your card is R7")
    altered = ciphertext[:-1] + bytes([ciphertext[-1] ^ 1])
    error = refusal(CryptoError, lambda: open_sealed(BOB_KEY, ALICE, BOB, b"context", nonce,
                                                     altered))
    said(error, "sealed message", "not")


def test_sealing_or_opening_with_another_peers_key_is_wrong_channel_key() -> None:
    error = refusal(CryptoError, lambda: seal(BOB_KEY, ALICE, BOB, b"context", b"x"))
    assert isinstance(error, CryptoError)
    assert error.code == "wrong_channel_key"
    said(error, "key", "sender")
    nonce, ciphertext = seal(ALICE_KEY, ALICE, BOB, b"context", b"x")
    error = refusal(CryptoError, lambda: open_sealed(ALICE_KEY, ALICE, BOB, b"context", nonce,
                                                     ciphertext))
    assert isinstance(error, CryptoError)
    assert error.code == "wrong_channel_key"
    said(error, "key", "recipient")


# -- SPAKE2 and the join code (net.md §4: a code of 1 to 64 bytes) ----------------------------

@pytest.mark.parametrize("code", ["", "   ", "x" * (MAX_CODE_BYTES + 1)])
def test_a_join_code_of_the_wrong_size_is_refused_giving_the_bounds(code: str) -> None:
    error = refusal(LocalProtocolError, lambda: code_scalar(code))
    said(error, "join code", "1", str(MAX_CODE_BYTES), "bytes")


@pytest.mark.parametrize(("side", "secret"), [("C", b"\x01" * 32), ("A", b"\x01" * 31)])
def test_a_spake2_side_is_a_or_b_with_a_32_byte_secret(side: str, secret: bytes) -> None:
    error = refusal(LocalProtocolError, lambda: Spake2(side, "code", secret))
    said(error, "SPAKE2", "A or B", "32")


def test_a_spake2_message_that_is_no_point_is_bad_pake_in_words() -> None:
    error = refusal(CryptoError, lambda: Spake2("A", "code", b"\x01" * 32).finish(b"\x00" * 31))
    assert isinstance(error, CryptoError)
    assert (error.code, error.item) == ("bad_pake", "SPAKE2 message")
    said(error, "SPAKE2 message", "group element")


# -- identities (wire.md §2: a 32-byte Ed25519 public key) ------------------------------------

def test_a_peer_identity_of_the_wrong_size_or_type_is_refused_in_words() -> None:
    said(refusal(InvalidMessage, lambda: PeerId(b"\x01" * 31)), "peer identity", "32-byte",
         "Ed25519")
    said(refusal(InvalidMessage, lambda: PeerId.from_wire("k" * 32)), "peer identity", "32",
         "bin")


def test_a_peer_identity_off_the_curve_is_refused_in_words() -> None:
    # y = 2 is not the y of any point of edwards25519 (no x solves the curve equation).
    error = refusal(InvalidMessage, lambda: PeerId((2).to_bytes(32, "little")))
    said(error, "peer identity", "not", "valid", "Ed25519")


# -- decks, shares and shuffles used out of order by our own code (deck.md §5-§7) -------------

def _shuffled() -> Table:
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, range(6))
    table.shuffle()
    return table


def test_a_deck_every_seat_of_which_left_is_refused() -> None:
    table = Table(2)
    table.setup_keys()
    reveals = table.reveal_all()
    error = refusal(LocalProtocolError, lambda: Deck(
        table=TABLE, round_number=1, deck=0, keys=table.peers[0].keys, card_ids=range(6),
        released=list(enumerate(reveals))))
    said(error, "deck", "seat", "shuffle")


def test_a_reveal_given_for_another_seat_is_refused() -> None:
    table = Table(2)
    table.setup_keys()
    reveals = table.reveal_all()
    deck = table.peers[0].keys
    error = refusal(LocalProtocolError, lambda: Deck(
        table=TABLE, round_number=1, deck=0, keys=deck, card_ids=range(6),
        released=[(0, reveals[1])]))
    said(error, "reveal", "another seat")


def test_a_share_verified_for_another_deck_or_without_a_position_is_refused() -> None:
    table = _shuffled()
    deck = table.peers[0].deck
    share = deck.make_share(table.peers[1].secrets, 2, purpose="open")
    right = deck.verify_share(share, seat=1, position=2, purpose="open")
    for changed, words in ((dataclasses.replace(right.context, deck=5), ("another deck",)),
                           (dataclasses.replace(right.context, table=b"other"), ("another deck",)),
                           (dataclasses.replace(right.context, position=None), ("position",))):
        with pytest.raises(LocalProtocolError) as caught:
            deck.accept_share(Verified(right.value, changed, SEAL))
        said(caught.value, "share", *words)
    deck.accept_share(right)


def test_a_shuffle_verified_for_another_deck_or_seat_is_refused() -> None:
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, range(6))
    deck = table.peers[0].deck
    message, proof = deck.make_shuffle(table.peers[0].secrets)
    verified = deck.verify_shuffle(message, 0, proof)
    for changed in (dataclasses.replace(verified.context, deck=1),
                    dataclasses.replace(verified.context, peer=peer_id(1))):
        with pytest.raises(LocalProtocolError) as caught:
            deck.accept_shuffle(Verified(verified.value, changed, SEAL))
        said(caught.value, "shuffle", "another deck or seat")
    error = refusal(LocalProtocolError, lambda: deck.verify_shuffle(message, 1, proof))
    said(error, "seat 1", "next to shuffle")
    deck.accept_shuffle(verified)


def test_a_share_made_in_another_peers_name_or_for_no_position_is_refused() -> None:
    table = _shuffled()
    deck = table.peers[0].deck
    ciphertext = deck.ciphertext(1)
    secrets = table.peers[0].secrets
    mine = deck.share_context(1, 0, purpose="open")
    for bad in (dataclasses.replace(mine, peer=peer_id(1)),
                dataclasses.replace(mine, position=None)):
        with pytest.raises(LocalProtocolError) as caught:
            make_share(secrets, ciphertext, bad)
        said(caught.value, "share", "peer", "position")


def test_a_share_checked_against_another_seats_key_is_refused() -> None:
    table = _shuffled()
    deck = table.peers[0].deck
    share = deck.make_share(table.peers[1].secrets, 2, purpose="open")
    error = refusal(LocalProtocolError, lambda: verify_share(
        share, ciphertext=deck.ciphertext(2), key=deck.keys[0],
        context=deck.share_context(2, 1, purpose="open")))
    said(error, "key", "prover")


# -- the proof of shuffle (deck.md §6.3-§6.4) ------------------------------------------------

def test_a_shuffle_without_its_proof_is_refused_naming_the_proof() -> None:
    previous, message, _ = proven(4)
    error = refusal(CryptoError, lambda: check(previous, message, b""))
    assert isinstance(error, CryptoError)
    assert error.item == "shuffle proof"
    said(error, "shuffle", "without", "proof of shuffle")


def test_a_shuffle_that_repeats_a_ciphertext_is_refused_in_words() -> None:
    previous, message, proof = proven(4)
    repeated = ShuffleMessage((message.ciphertexts[0], *message.ciphertexts[:-1]))
    error = refusal(CryptoError, lambda: check(previous, repeated, proof))
    assert isinstance(error, CryptoError)
    assert error.item == "shuffle"
    said(error, "shuffle", "repeats", "ciphertext")


def test_a_proof_of_shuffle_for_another_deck_size_is_refused_in_words() -> None:
    previous, message, _ = proven(4)
    _, _, small = proven(3)
    three = ShuffleProof.from_wire(small, size=3, peer=None)
    error = refusal(CryptoError, lambda: verify_shuffle_proof(
        three, previous, message.ciphertexts, joint_key=KEY, context=context()))
    assert isinstance(error, CryptoError)
    assert error.item == "shuffle proof"
    said(error, "shuffle proof", "another size")


def test_proving_a_shuffle_that_is_no_permutation_is_refused() -> None:
    previous = start(3)
    for perm in ([0, 0, 1], [0, 1], [2, 1, 3]):
        with pytest.raises(LocalProtocolError) as caught:
            prove_shuffle(previous, previous, perm=perm, rerandomisers=[Scalar(1)] * 3,
                          joint_key=KEY, context=context(), secret=MASTER)
        said(caught.value, "shuffle proof", "permutation", "whole deck")


def test_the_contexts_used_here_are_the_shuffle_proofs() -> None:
    # The helpers above build on test_shuffle_proof's context; it is a shuffle's.
    assert isinstance(context(), ProofContext)
    assert context().purpose == "shuffle"
