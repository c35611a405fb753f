"""Whole deck lifecycles among N in-process peers, every value through its wire form."""

from __future__ import annotations

import dataclasses

import pytest

from tests.crypto.harness import TABLE, Table, fixed_seed, peer_id
from uno_p2p.crypto.audit import (
    ANOTHER_PEERS_REVEAL,
    NO_EARLIER_POSITION,
    MissingReveal,
    verify_deck,
    verify_game,
)
from uno_p2p.crypto.cards import CARD_COUNT, UnknownCard, card_of, card_points
from uno_p2p.crypto.context import PURPOSE_PRIVATE
from uno_p2p.crypto.deck import Deck
from uno_p2p.crypto.group import Scalar
from uno_p2p.crypto.keys import SecretsReveal, peer_label, verify_secrets_reveal
from uno_p2p.crypto.shares import DecryptionShare, open_card, share_from_key
from uno_p2p.errors import LocalProtocolError


def dealt_table(n: int, cards_each: int = 7) -> Table:
    table = Table(n)
    table.setup_keys()
    table.new_deck(1, 0, range(CARD_COUNT))
    table.shuffle()
    table.deal_round(cards_each)
    return table


def game(n: int) -> None:
    """Deal 7 each, everyone plays a card, reshuffle the played cards, deal, reveal, audit."""
    table = dealt_table(n)
    hands = [dict(peer.hand) for peer in table.peers]
    all_cards = [card for hand in hands for card in hand.values()]
    assert len(all_cards) == 7 * n
    assert len(set(all_cards)) == 7 * n, "no card is dealt twice"
    for peer in table.peers:  # nobody has opened a card it was not dealt
        assert set(peer.deck.opened) == set(peer.hand)

    played = []
    for seat in range(n):
        position = min(hands[seat])
        seen = table.play(seat, position)
        assert seen == [hands[seat][position]] * n, "every peer sees the claimed card"
        played.append(seen[0])

    table.new_deck(1, 1, played)  # the discard pile reshuffled into a new deck
    table.shuffle()
    redealt = [table.deal(position, position % n) for position in range(len(played))]
    assert sorted(redealt) == sorted(played)

    reveals = dict(enumerate(table.reveal_all()))
    orders = verify_game(table.records, keys=table.peers[0].keys, reveals=reveals)
    first, second = orders
    assert sorted(first) == list(range(CARD_COUNT))
    for seat, hand in enumerate(hands):  # the audit learns exactly what was dealt
        for position, card in hand.items():
            assert first[position] == card, (seat, position)
    assert list(second) == redealt


@pytest.mark.game
@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_a_game_among_n_peers(n: int) -> None:
    game(n)


@pytest.mark.slow
def test_a_game_among_ten_peers() -> None:
    game(10)


def test_the_shuffle_moves_cards_and_depends_on_every_seed() -> None:
    orders = []
    for tag in (b"a", b"b"):
        table = Table(2, seeds=[fixed_seed(0), fixed_seed(1, tag)])
        table.setup_keys()
        table.new_deck(1, 0, range(CARD_COUNT))
        table.shuffle()
        reveals = dict(enumerate(table.reveal_all()))
        orders.append(verify_game(table.records, keys=table.peers[0].keys, reveals=reveals)[0])
    assert orders[0] != tuple(range(CARD_COUNT))
    assert orders[0] != orders[1], "changing one peer's seed changes the deck"


def test_dealing_needs_every_other_share_and_never_opens_anyone_elses_card() -> None:
    table = Table(3)
    table.setup_keys()
    table.new_deck(1, 0, range(CARD_COUNT))
    table.shuffle()
    table.broadcast_share(0, 5, purpose="deal", recipient=peer_id(2))
    holder = table.peers[2]
    with pytest.raises(LocalProtocolError):  # seat 1's share is still missing
        holder.deck.open_private(holder.secrets, 5)
    table.deal(5, 2)
    with pytest.raises(LocalProtocolError):  # others cannot open it: seat 2's share is missing
        table.peers[0].deck.open_public(5)
    assert holder.deck.missing_shares(5, holder=2) == []


def test_private_reveal_then_public_proof_of_what_was_seen() -> None:
    """A peek (wild_powers) or challenge: the holder's share goes to one peer, who can prove it."""
    table = dealt_table(3, cards_each=2)
    holder, viewer = 1, 0
    position = min(table.peers[holder].hand)
    card = table.peers[holder].hand[position]
    wire = table.send_private(holder, position, viewer)
    assert table.peers[viewer].deck.open_public(position) == card, "only the viewer sees it"
    with pytest.raises(LocalProtocolError):
        table.peers[2].deck.open_public(position)
    # The viewer publishes the share it received; everyone checks it and sees the same card.
    bystander = table.peers[2].deck
    share = DecryptionShare.from_wire(wire, peer="viewer relays holder's share")
    bystander.accept_share(bystander.verify_share(
        share, seat=holder, position=position, purpose=PURPOSE_PRIVATE, recipient=peer_id(viewer)
    ))
    assert bystander.open_public(position) == card


def test_transfer_of_a_card_to_another_hand() -> None:
    """seven_zero / swap: the old holder's share goes privately to the new holder."""
    table = dealt_table(4, cards_each=1)
    position = next(iter(table.peers[3].hand))
    card = table.peers[3].hand[position]
    table.send_private(3, position, 1)
    new_holder = table.peers[1]
    assert new_holder.deck.open_private(new_holder.secrets, position) == card


def test_a_leaving_peer_releases_its_key_and_the_rest_continue() -> None:
    table = dealt_table(3, cards_each=1)
    leaver = table.peers[2]
    release = leaver.secrets.reveal().to_wire()
    for peer in table.peers:
        verified = verify_secrets_reveal(
            SecretsReveal.from_wire(release, peer="leaver"), peer.keys[2]
        )
        peer.deck.release_key(2, verified)
    # Position 10 is dealt to seat 0 with only seat 1's share sent over the wire.
    assert table.peers[0].deck.missing_shares(10, holder=0) == [1]
    card = table.deal(10, 0)
    # Seat 1 still cannot see seat 0's card: the leaver's key alone does not open it.
    with pytest.raises(LocalProtocolError):
        table.peers[1].deck.open_public(10)
    # The next deck is shuffled by the two who stayed.
    verified_release = verify_secrets_reveal(
        SecretsReveal.from_wire(release, peer="leaver"), table.peers[0].keys[2]
    )
    table.new_deck(2, 0, range(CARD_COUNT), released=[(2, verified_release)])
    assert table.peers[0].deck.shufflers == (0, 1)
    table.shuffle()
    assert table.deal(0, 1) in range(CARD_COUNT)
    reveals = dict(enumerate(table.reveal_all()))
    orders = verify_game(table.records, keys=table.peers[0].keys, reveals=reveals)
    assert orders[0][10] == card


def test_round_end_reveals_the_losers_hands_with_proofs() -> None:
    table = dealt_table(3, cards_each=3)
    for seat in (1, 2):  # seat 0 went out; the others' hands are scored
        for position, card in sorted(table.peers[seat].hand.items()):
            assert table.play(seat, position) == [card] * 3


def test_colluding_peers_cannot_open_the_honest_players_card() -> None:
    """n-1 peers pool every secret and every message: the card stays hidden.

    Their best decryption is ``c2 - Σ_{i≠j} x_i·c1 = M + x_j·c1``, which is no
    card, and with x_j unknown every card is as consistent with it as any other.
    """
    n, honest = 4, 3
    table = dealt_table(n, cards_each=2)
    position = min(table.peers[honest].hand)
    deck = table.peers[0].deck
    ciphertext = deck.ciphertext(position)
    pooled = Scalar(0)
    for seat in range(n):
        if seat != honest:
            pooled = pooled + table.peers[seat].secrets.key_share
    best_guess = ciphertext.c2 - ciphertext.c1 * pooled
    with pytest.raises(UnknownCard):
        card_of(best_guess)
    # Nor does any published share of the honest peer exist for that position.
    assert not deck.has_share(position, honest)
    # Every candidate card M corresponds to one possible share x_j·c1 = guess - M; the
    # colluders can only tell which is right by solving a discrete log (DDH).
    candidates = {(best_guess - point).data for point in card_points()}
    assert len(candidates) == CARD_COUNT
    # The honest holder, with its own share, opens it.
    assert ciphertext.c2 - ciphertext.c1 * (pooled + table.peers[honest].secrets.key_share) == (
        card_points()[table.peers[honest].hand[position]]
    )


def test_decks_refuse_keys_of_another_table() -> None:
    table = Table(2)
    table.setup_keys()
    with pytest.raises(LocalProtocolError):
        Deck(table=TABLE + b"x", round_number=1, deck=0, keys=table.peers[0].keys,
             card_ids=range(4))


def test_only_the_next_seat_may_shuffle() -> None:
    table = Table(3)
    table.setup_keys()
    table.new_deck(1, 0, range(CARD_COUNT))
    peer = table.peers[1]
    with pytest.raises(LocalProtocolError):
        peer.deck.make_shuffle(peer.secrets)
    with pytest.raises(LocalProtocolError):
        peer.deck.ciphertext(0)  # no dealing before the shuffle is done


def test_unseen_cards_go_back_into_a_new_deck_and_the_audit_follows_them() -> None:
    """A Wild Draw Four starter goes back and the deck is reshuffled (RULES.md, starter card);
    the same path puts a leaver's hand back. Unseen ciphertexts are carried, never opened."""
    n = 3
    table = dealt_table(n, cards_each=2)
    starter = 2 * n  # the first undealt position, turned over for everyone
    for seat in range(n):
        table.broadcast_share(seat, starter, purpose="open")
    starter_card = table.peers[0].deck.open_public(starter)
    remaining = [(0, position) for position in range(starter + 1, CARD_COUNT)]
    table.new_deck(1, 1, [starter_card], carried=remaining)
    table.shuffle()
    assert len(table.peers[0].deck.ciphertexts) == CARD_COUNT - 2 * n
    dealt = {position: table.deal(position, 0) for position in range(5)}

    reveals = dict(enumerate(table.reveal_all()))
    first, second = verify_game(table.records, keys=table.peers[0].keys, reveals=reveals)
    assert first[starter] == starter_card
    assert sorted(second) == sorted([first[p] for _, p in remaining] + [starter_card])
    assert all(second[position] == card for position, card in dealt.items())
    # The cards already in hands are not in the new deck.
    assert not set(second) & {first[p] for p in range(2 * n)}


def test_the_holder_records_its_own_share_without_checking_its_own_proof() -> None:
    table = dealt_table(2, cards_each=1)
    holder = table.peers[1]
    position, card = next(iter(holder.hand.items()))
    holder.deck.add_own_share(holder.secrets, position)
    assert holder.deck.open_public(position, claimed=card, claimant=1) == card


def test_the_pure_opening_functions_agree_with_the_deck() -> None:
    """A table that keeps its own state uses share_from_key / open_card directly."""
    table = dealt_table(3, cards_each=1)
    ciphertext = table.peers[0].deck.ciphertext(0)
    shares = [share_from_key(peer.secrets.key_share, ciphertext) for peer in table.peers]
    assert open_card(ciphertext, shares) == table.peers[0].hand[0]
    with pytest.raises(UnknownCard):
        open_card(ciphertext, shares[1:], item="card at position 0")


def _shuffled_table() -> Table:
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, range(6))
    table.shuffle()
    return table


def test_a_reveal_handed_in_for_another_seat_is_refused() -> None:
    table = _shuffled_table()
    reveals = table.reveal_all()
    keys = table.peers[0].keys
    assert verify_game(table.records, keys=keys, reveals=dict(enumerate(reveals)))
    with pytest.raises(LocalProtocolError) as caught:
        verify_deck(table.records[0], keys=keys, reveals={0: reveals[1], 1: reveals[0]})
    assert str(caught.value) == ANOTHER_PEERS_REVEAL.format(seat=0)


def test_a_carried_card_from_no_earlier_deck_position_is_refused() -> None:
    table = _shuffled_table()
    reveals = dict(enumerate(table.reveal_all()))
    record = dataclasses.replace(table.records[0], carried=((0, 2),))
    with pytest.raises(LocalProtocolError) as caught:
        verify_deck(record, keys=table.peers[0].keys, reveals=reveals)
    assert str(caught.value) == NO_EARLIER_POSITION.format(index=0, position=2)


def test_a_reveal_that_never_came_names_the_peer_and_the_item() -> None:
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, range(6))
    table.shuffle()
    reveals = dict(enumerate(table.reveal_all()))
    del reveals[1]
    with pytest.raises(MissingReveal) as caught:
        verify_game(table.records, keys=table.peers[0].keys, reveals=reveals)
    assert caught.value.item == "secrets reveal"
    assert caught.value.peer == peer_label(peer_id(1))
    assert "never revealed" in str(caught.value)
