"""Every cheat the deck issue lists: refused at once, or proven at the reveal, naming the peer."""

from __future__ import annotations

import dataclasses

import pytest

from tests.crypto.harness import Table, peer_id
from uno_p2p.crypto.audit import MissingReveal, ShuffleCheatDetected, verify_game
from uno_p2p.crypto.cards import CARD_COUNT, card_point
from uno_p2p.crypto.context import PURPOSE_DEAL, PURPOSE_OPEN
from uno_p2p.crypto.deck import ClaimMismatch, Deck, DuplicateCard
from uno_p2p.crypto.group import InvalidPoint, Scalar, base_mul
from uno_p2p.crypto.keys import (
    CommitmentMismatch,
    PeerSecrets,
    SecretsReveal,
    peer_label,
    verify_secrets_reveal,
)
from uno_p2p.crypto.shares import DecryptionShare, ShareRejected
from uno_p2p.crypto.shuffle import (
    Ciphertext,
    ShuffleMessage,
    ShuffleRejected,
    apply_shuffle,
    shuffle_seed,
)
from uno_p2p.errors import CryptoError, InvalidMessage, ProofRejected

CHEATER = 1
BASE_POINT = bytes.fromhex("58" + "66" * 31)  # G, valid: the proof field is what is wrong


def shuffled(n: int = 3) -> Table:
    table = Table(n)
    table.setup_keys()
    table.new_deck(1, 0, range(CARD_COUNT))
    table.shuffle()
    return table


def cheater_share(table: Table, position: int, *, purpose: str = PURPOSE_DEAL,
                  recipient: bytes = b"") -> DecryptionShare:
    peer = table.peers[CHEATER]
    return peer.deck.make_share(peer.secrets, position, purpose=purpose, recipient=recipient)


def check_named(error: CryptoError, *, item: str | None = None) -> None:
    assert error.peer == peer_label(peer_id(CHEATER))
    if item is not None:
        assert item in (error.item or "")


# -- refused at once ----------------------------------------------------------

def test_a_wrong_share_is_refused_with_evidence() -> None:
    table = shuffled()
    good = cheater_share(table, 4, recipient=peer_id(0))
    bad = dataclasses.replace(good, share=good.share + base_mul(Scalar(1)))
    deck = table.peers[0].deck
    with pytest.raises(ProofRejected) as caught:
        deck.verify_share(bad, seat=CHEATER, position=4, purpose=PURPOSE_DEAL,
                          recipient=peer_id(0))
    check_named(caught.value, item="position 4")
    assert not deck.has_share(4, CHEATER), "a refused share is never recorded"


def test_a_share_for_another_position_is_refused() -> None:
    table = shuffled()
    share_for_5 = cheater_share(table, 5, recipient=peer_id(0))
    with pytest.raises(ShareRejected) as caught:
        table.peers[0].deck.verify_share(share_for_5, seat=CHEATER, position=4,
                                         purpose=PURPOSE_DEAL, recipient=peer_id(0))
    check_named(caught.value, item="position 4")
    relabelled = dataclasses.replace(share_for_5, position=4)
    with pytest.raises(ProofRejected):
        table.peers[0].deck.verify_share(relabelled, seat=CHEATER, position=4,
                                         purpose=PURPOSE_DEAL, recipient=peer_id(0))


@pytest.mark.parametrize(
    ("purpose", "recipient"),
    [(PURPOSE_OPEN, b""), (PURPOSE_DEAL, peer_id(2)), ("private", peer_id(0))],
)
def test_a_share_replayed_into_another_context_is_refused(purpose: str, recipient: bytes) -> None:
    table = shuffled()
    share = cheater_share(table, 4, recipient=peer_id(0))  # made to deal position 4 to seat 0
    with pytest.raises(ProofRejected) as caught:
        table.peers[2].deck.verify_share(share, seat=CHEATER, position=4, purpose=purpose,
                                         recipient=recipient)
    check_named(caught.value)


def test_a_share_replayed_from_an_earlier_deck_is_refused() -> None:
    table = shuffled()
    old = cheater_share(table, 0, recipient=peer_id(0))
    table.new_deck(1, 1, range(CARD_COUNT))
    table.shuffle()
    with pytest.raises(ProofRejected):
        table.peers[0].deck.verify_share(old, seat=CHEATER, position=0, purpose=PURPOSE_DEAL,
                                         recipient=peer_id(0))


def test_a_share_claimed_by_another_seat_is_refused() -> None:
    table = shuffled()
    share = cheater_share(table, 4, recipient=peer_id(0))
    with pytest.raises(ProofRejected):
        table.peers[0].deck.verify_share(share, seat=2, position=4, purpose=PURPOSE_DEAL,
                                         recipient=peer_id(0))


@pytest.mark.parametrize("bad_point", [bytes(32), b"\x01" + bytes(31)])
def test_an_off_group_share_is_refused_on_decoding(bad_point: bytes) -> None:
    table = shuffled()
    wire = cheater_share(table, 4).to_wire()
    wire[1] = bad_point
    with pytest.raises(InvalidPoint) as caught:
        DecryptionShare.from_wire(wire, peer=peer_label(peer_id(CHEATER)))
    check_named(caught.value, item="position 4")


@pytest.mark.parametrize(
    "wire", [None, [], [1, 2], [-1, bytes(32), bytes(64)], [True, bytes(32), bytes(64)],
             [2**32, bytes(32), bytes(64)], [0, BASE_POINT, [bytes(32)] * 2]],
)
def test_malformed_shares_are_invalid_messages(wire: object) -> None:
    with pytest.raises(InvalidMessage):
        DecryptionShare.from_wire(wire, peer="m")


def test_a_wrong_claimed_card_is_refused_naming_the_claimant() -> None:
    table = shuffled()
    table.deal(0, CHEATER)
    card = table.peers[CHEATER].hand[0]
    table.broadcast_share(CHEATER, 0, purpose=PURPOSE_OPEN)
    with pytest.raises(ClaimMismatch) as caught:
        table.peers[0].deck.open_public(0, claimed=(card + 1) % CARD_COUNT, claimant=CHEATER)
    check_named(caught.value, item="position 0")


Made = tuple[ShuffleMessage, bytes]


def test_a_short_shuffle_is_refused_at_once() -> None:
    def drop(deck: Deck, secrets: PeerSecrets) -> Made:
        message, proof = deck.make_shuffle(secrets)
        return ShuffleMessage(message.ciphertexts[:-1]), proof

    with pytest.raises(ShuffleRejected) as caught:
        cheating_game(drop)
    check_named(caught.value)


def test_a_shuffle_repeating_a_ciphertext_is_refused_at_once() -> None:
    def repeat(deck: Deck, secrets: PeerSecrets) -> Made:
        honest, proof = deck.make_shuffle(secrets)
        cts = honest.ciphertexts
        return ShuffleMessage((cts[0], *cts[:-1])), proof

    with pytest.raises(ShuffleRejected) as caught:
        cheating_game(repeat)
    check_named(caught.value)


def test_a_shuffle_with_off_group_points_is_refused_on_decoding() -> None:
    table = shuffled()
    wire = ShuffleMessage(table.peers[0].deck.ciphertexts).to_wire()
    wire[7] = wire[7][:32] + bytes(32)
    with pytest.raises(InvalidPoint) as caught:
        ShuffleMessage.from_wire(wire, peer="mallory")
    assert caught.value.item == "shuffle position 7 c2"
    with pytest.raises(InvalidMessage):
        ShuffleMessage.from_wire(wire * 2, peer="mallory")


# -- proven at the reveal ---------------------------------------------------------

def cheating_game(cheat: object, *, trusting: bool = False) -> Table:
    table = Table(3)
    table.setup_keys()
    table.new_deck(1, 0, range(CARD_COUNT))
    table.shuffle({CHEATER: cheat}, trusting=trusting)  # type: ignore[dict-item]
    return table


def audit(table: Table) -> None:
    reveals = dict(enumerate(table.reveal_all()))
    verify_game(table.records, keys=table.peers[0].keys, reveals=reveals)


def rerandomised(deck: Deck, ciphertext: Ciphertext, r: int) -> Ciphertext:
    mask = Scalar(r)
    return Ciphertext(ciphertext.c1 + base_mul(mask), ciphertext.c2 + deck.joint_key * mask)


def duplicate(deck: Deck, secrets: PeerSecrets) -> Made:
    message, proof = deck.make_shuffle(secrets)
    honest = list(message.ciphertexts)
    honest[1] = rerandomised(deck, honest[0], 12345)  # a copy of card 0, freshly masked
    return ShuffleMessage(tuple(honest)), proof


def substitute(deck: Deck, secrets: PeerSecrets) -> Made:
    message, proof = deck.make_shuffle(secrets)
    honest = list(message.ciphertexts)
    r = Scalar(777)
    honest[2] = Ciphertext(base_mul(r), card_point(100) + deck.joint_key * r)  # an extra Wild
    return ShuffleMessage(tuple(honest)), proof


def wrong_seed(deck: Deck, secrets: PeerSecrets) -> Made:
    """A true shuffle, honestly proven, but not from the committed seed."""
    fake = dataclasses.replace(secrets, shuffle_master=bytes(32))
    return deck.make_shuffle(fake)


@pytest.mark.parametrize("cheat", [duplicate, substitute])
def test_a_dishonest_shuffle_is_refused_at_once_by_its_proof(cheat: object) -> None:
    with pytest.raises(ProofRejected) as caught:
        cheating_game(cheat)
    check_named(caught.value, item="shuffle proof")


@pytest.mark.parametrize("cheat", [duplicate, substitute, wrong_seed])
def test_a_dishonest_shuffle_is_also_proven_at_the_reveal(cheat: object) -> None:
    """The second line: with the proof skipped, the re-execution still names the cheat;
    a true shuffle from an uncommitted seed passes its proof and is named there."""
    table = cheating_game(cheat, trusting=cheat is not wrong_seed)
    with pytest.raises(ShuffleCheatDetected) as caught:
        audit(table)
    check_named(caught.value, item="shuffle by seat 1")


def test_a_duplicated_card_is_caught_when_both_copies_open() -> None:
    table = cheating_game(duplicate, trusting=True)
    deck = table.peers[0].deck
    for position in range(CARD_COUNT):
        for seat in range(3):
            table.broadcast_share(seat, position, purpose=PURPOSE_OPEN)
    with pytest.raises(DuplicateCard) as caught:
        open_every_position(deck)
    assert "both hold card" in str(caught.value)


def open_every_position(deck: Deck) -> None:
    for position in range(CARD_COUNT):
        deck.open_public(position)


def test_the_honest_shufflers_are_not_blamed() -> None:
    """Re-execution stops at the first bad shuffle: seat 0's, before it, verified fine."""
    table = cheating_game(substitute, trusting=True)
    with pytest.raises(ShuffleCheatDetected) as caught:
        audit(table)
    assert caught.value.peer != peer_label(peer_id(0))
    assert caught.value.peer != peer_label(peer_id(2))


def test_a_seed_that_does_not_match_its_commitment_is_refused() -> None:
    """A cheater who shuffled from another seed cannot pass by revealing that seed."""
    table = cheating_game(wrong_seed)
    key = table.peers[0].keys[CHEATER]
    fake = SecretsReveal(table.peers[CHEATER].secrets.key_share, bytes(32))
    with pytest.raises(CommitmentMismatch) as caught:
        verify_secrets_reveal(fake, key)
    check_named(caught.value)


def test_a_missing_reveal_names_the_peer() -> None:
    table = shuffled()
    reveals = dict(enumerate(table.reveal_all()))
    del reveals[CHEATER]
    with pytest.raises(MissingReveal) as caught:
        verify_game(table.records, keys=table.peers[0].keys, reveals=reveals)
    check_named(caught.value)


def test_the_audit_uses_the_committed_seed_per_deck() -> None:
    """Seeds differ per (round, deck) (deck.md §6.2): a cheater who shuffles deck 1 with the
    seed of deck 0 (the same permutation again) is proven a cheat at the reveal."""
    assert shuffle_seed(bytes(32), 1, 0) != shuffle_seed(bytes(32), 1, 1)
    assert shuffle_seed(bytes(32), 1, 0) != shuffle_seed(bytes(32), 2, 0)

    def last_decks_seed(deck: Deck, secrets: PeerSecrets) -> Made:
        # Deck 0's permutation again, proven as such; peers that skip the proof
        # (trusting) let it in, and the reveal's re-execution must still name it.
        seed = shuffle_seed(secrets.shuffle_master, deck.round, deck.deck - 1)
        return ShuffleMessage(apply_shuffle(deck.ciphertexts, seed, deck.joint_key)), b""

    table = Table(3)
    table.setup_keys()
    table.new_deck(1, 0, range(CARD_COUNT))
    table.shuffle()
    audit(table)  # deck 0 alone is honest
    table.new_deck(1, 1, range(CARD_COUNT))
    table.shuffle({CHEATER: last_decks_seed}, trusting=True)
    with pytest.raises(ShuffleCheatDetected) as caught:
        audit(table)
    check_named(caught.value, item="shuffle by seat 1")
