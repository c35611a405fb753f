"""Every crypto refusal names the peer, the item and the fault (deck.md §12, verdicts.md §7).

deck.md §12: all crypto errors carry ``peer`` and ``item``, and malformed
shapes are ``InvalidMessage``. The item is what a player reads in the
finding ("the decryption share for position 3", "shuffle position 1 c2"),
so it names the field inside the value it belongs to, in lower case words;
the shape refusals say what was expected. verdicts.md §7 fixes the codes:
``bad_seed`` for a local seed of the wrong size, ``sealed_tampered`` for a
sealed body that does not open for its recipient (wire.md §6).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from tests.crypto.harness import TABLE, fixed_seed, peer_id
from uno_p2p.crypto import shuffle, shuffle_proof
from uno_p2p.crypto.channel import ChannelKey, Party, open_sealed, seal
from uno_p2p.crypto.group import IDENTITY, L
from uno_p2p.crypto.identity import Identity
from uno_p2p.crypto.keys import KeyAnnouncement, PeerSecrets, SecretsReveal
from uno_p2p.crypto.shares import DecryptionShare
from uno_p2p.crypto.shuffle import Ciphertext, ShuffleMessage
from uno_p2p.errors import CryptoError, InvalidMessage

SECRETS = PeerSecrets.from_seed(fixed_seed(0), table=TABLE, peer=peer_id(0))
ANNOUNCED = SECRETS.announce().to_wire()
REVEALED = SECRETS.reveal().to_wire()
POINT = SECRETS.public_key.data
BAD_POINT = IDENTITY.data  # small order: refused (deck.md §1)
BAD_SCALAR = L.to_bytes(32, "little")  # not below L: refused (deck.md §1)
PROOF = bytes(64)


def _with(wire: Sequence[object], index: int, value: object) -> list[object]:
    changed = list(wire)
    changed[index] = value
    return changed


#: (what, decode a value with one bad point or scalar, the item the refusal names).
BAD_VALUES: list[tuple[str, Callable[[], object], str]] = [
    ("announced key", lambda: KeyAnnouncement.from_wire(
        _with(ANNOUNCED, 0, BAD_POINT), peer="mallory"), "key announcement public key"),
    ("announcement proof", lambda: KeyAnnouncement.from_wire(
        _with(ANNOUNCED, 2, BAD_SCALAR + bytes(32)), peer="mallory"),
     "key announcement proof challenge"),
    ("revealed key share", lambda: SecretsReveal.from_wire(
        _with(REVEALED, 0, BAD_SCALAR), peer="mallory"), "secrets reveal key share"),
    ("share point", lambda: DecryptionShare.from_wire([3, BAD_POINT, PROOF], peer="mallory"),
     "decryption share for position 3"),
    ("share proof", lambda: DecryptionShare.from_wire(
        [3, POINT, bytes(32) + BAD_SCALAR], peer="mallory"),
     "decryption share for position 3 proof response"),
    ("ciphertext c1", lambda: Ciphertext.from_wire(BAD_POINT + POINT, peer="mallory",
                                                   item="card 9"), "card 9 c1"),
    ("shuffled c2", lambda: ShuffleMessage.from_wire(
        [POINT + POINT, POINT + BAD_POINT], peer="mallory"), "shuffle position 1 c2"),
]


@pytest.mark.parametrize(("what", "make", "item"), BAD_VALUES, ids=[c[0] for c in BAD_VALUES])
def test_a_bad_point_or_scalar_is_refused_naming_the_peer_and_the_field(
        what: str, make: Callable[[], object], item: str) -> None:
    with pytest.raises(CryptoError) as caught:
        make()
    assert (caught.value.peer, caught.value.item) == ("mallory", item), what


#: (what, decode a value of the wrong shape, the sentence).
SHAPES: list[tuple[str, Callable[[], object], str]] = [
    ("announcement of two", lambda: KeyAnnouncement.from_wire(ANNOUNCED[:2], peer="m"),
     "key announcement: expected [public_key, commitment, proof]"),
    ("short commitment", lambda: KeyAnnouncement.from_wire(
        _with(ANNOUNCED, 1, bytes(31)), peer="m"),
     "key announcement: the seed commitment must be 32 bytes"),
    ("reveal of one", lambda: SecretsReveal.from_wire(REVEALED[:1], peer="m"),
     "secrets reveal: expected [key_share, shuffle_seed]"),
    ("short shuffle seed", lambda: SecretsReveal.from_wire(
        _with(REVEALED, 1, bytes(31)), peer="m"),
     "secrets reveal: the shuffle seed must be 32 bytes"),
    ("share of two", lambda: DecryptionShare.from_wire([3, POINT], peer="m"),
     "decryption share: expected [position, share, proof]"),
    ("negative position", lambda: DecryptionShare.from_wire([-1, POINT, PROOF], peer="m"),
     "decryption share: the position must be a u32"),
    ("position as a bool", lambda: DecryptionShare.from_wire([True, POINT, PROOF], peer="m"),
     "decryption share: the position must be a u32"),
    ("empty shuffle", lambda: ShuffleMessage.from_wire([], peer="m"),
     "shuffle: expected a list of 1..108 ciphertexts"),
    ("short ciphertext", lambda: Ciphertext.from_wire(POINT, peer="m", item="card 9"),
     "card 9: a ciphertext is 64 bytes"),
]


@pytest.mark.parametrize(("what", "make", "words"), SHAPES, ids=[c[0] for c in SHAPES])
def test_a_value_of_the_wrong_shape_is_refused_saying_what_was_expected(
        what: str, make: Callable[[], object], words: str) -> None:
    with pytest.raises(InvalidMessage) as caught:
        make()
    assert str(caught.value) == words, what


def test_a_local_seed_of_the_wrong_size_is_bad_seed() -> None:
    for make in (lambda: Identity(b"\x01" * 31), lambda: ChannelKey(b"\x01" * 33)):
        with pytest.raises(CryptoError) as caught:
            make()
        assert (caught.value.code, caught.value.item) == ("bad_seed", "seed")


def test_a_sealed_body_that_does_not_open_is_sealed_tampered() -> None:
    alice_key, bob_key = ChannelKey(b"\x01" * 32), ChannelKey(b"\x02" * 32)
    alice, bob = Party(b"\x0a" * 32, alice_key.public), Party(b"\x0b" * 32, bob_key.public)
    nonce, ciphertext = seal(alice_key, alice, bob, b"context", b"your card is R7")
    assert open_sealed(bob_key, alice, bob, b"context", nonce, ciphertext) == b"your card is R7"
    altered = ciphertext[:-1] + bytes([ciphertext[-1] ^ 1])
    for args in ((nonce, altered), (nonce[:11], ciphertext), (nonce, ciphertext[:15])):
        with pytest.raises(CryptoError) as caught:
            open_sealed(bob_key, alice, bob, b"context", *args)
        assert (caught.value.code, caught.value.item) == ("sealed_tampered", "sealed")
    with pytest.raises(CryptoError) as wrong:
        open_sealed(alice_key, alice, bob, b"context", nonce, ciphertext)
    assert wrong.value.code == "wrong_channel_key"


def test_a_seed_of_another_size_is_refused_in_words() -> None:
    with pytest.raises(CryptoError) as channel:
        ChannelKey(b"\x01" * 31)
    assert str(channel.value) == "a channel key seed must be 32 bytes"
    with pytest.raises(CryptoError) as identity:
        Identity(b"\x01" * 33)
    assert str(identity.value) == "an identity seed must be 32 bytes"


def test_a_refused_shuffle_says_why() -> None:
    # crypto/shuffle_proof.py and crypto/shuffle.py name these (deck.md §6.4);
    # tests/crypto/test_shuffle_proof asserts through the names, beside code and item.
    assert shuffle_proof.DOES_NOT_VERIFY == (
        "the shuffle proof does not verify: the deck is not a permutation and re-encryption "
        "of the previous one under the joint key")
    assert shuffle.WRONG_SIZE.format(cards=7, deck=8) == "the shuffle holds 7 cards, the deck 8"
