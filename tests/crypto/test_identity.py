"""Ed25519 identities: deterministic from a seed, signatures that only verify as made."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.errors import CryptoError, InvalidMessage

# RFC 8032 §7.1, test 1: secret key, public key and the signature of the empty message.
RFC_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC_SIGNATURE = bytes.fromhex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)


def test_rfc8032_vector() -> None:
    identity = Identity(RFC_SEED)
    assert identity.peer.key == RFC_PUBLIC
    assert identity.sign(b"") == RFC_SIGNATURE
    identity.peer.verify(b"", RFC_SIGNATURE)


@given(st.binary(min_size=32, max_size=32), st.binary(max_size=100))
@settings(max_examples=50, deadline=None)
def test_a_signature_verifies_only_for_its_message_and_key(seed: bytes, message: bytes) -> None:
    identity = Identity(seed)
    signature = identity.sign(message)
    identity.peer.verify(message, signature)
    with pytest.raises(CryptoError) as caught:
        identity.peer.verify(message + b"!", signature)
    assert caught.value.code == "bad_signature"
    assert caught.value.peer == identity.peer.fingerprint
    other = Identity(bytes(b ^ 1 for b in seed)).peer
    with pytest.raises(CryptoError):
        other.verify(message, signature)
    flipped = bytearray(signature)
    flipped[0] ^= 1
    with pytest.raises(CryptoError):
        identity.peer.verify(message, bytes(flipped))


def test_seeds_and_keys_are_checked() -> None:
    with pytest.raises(CryptoError):
        Identity(bytes(31))
    with pytest.raises(InvalidMessage):
        PeerId(bytes(33))
    with pytest.raises(InvalidMessage):
        PeerId.from_wire("x" * 32)
    # The identity point and other small-order points are refused as keys.
    small_order = [bytes([1]) + bytes(31), bytes(32), bytes([0xEC]) + b"\xff" * 30 + b"\x7f"]
    for key in small_order:
        with pytest.raises(InvalidMessage):
            PeerId(key)


def test_fingerprint_is_short_stable_and_distinct() -> None:
    alice = Identity(bytes(32)).peer
    bob = Identity(bytes([1]) * 32).peer
    assert alice.fingerprint == Identity(bytes(32)).peer.fingerprint
    assert alice.fingerprint != bob.fingerprint
    assert len(alice.fingerprint) == 19
    assert alice.fingerprint.count("-") == 3
    assert str(alice) == alice.fingerprint


def test_the_seed_never_shows_in_repr() -> None:
    seed = bytes(range(32))
    assert seed.hex() not in repr(Identity(seed))
    assert repr(seed) not in repr(Identity(seed))


def test_a_signature_that_does_not_verify_is_bad_signature() -> None:
    me = Identity(b"\x05" * 32)
    signature = me.sign(b"hello")
    me.peer.verify(b"hello", signature)
    for bad in (signature[:-1] + bytes([signature[-1] ^ 1]), signature[:63]):
        with pytest.raises(CryptoError) as caught:
            me.peer.verify(b"hello", bad)
        assert caught.value.code == "bad_signature"


@pytest.mark.parametrize("signature", [b"\x01" * 63, b"\x01" * 65, b"", "s" * 64, None, 64])
def test_a_signature_that_is_not_64_bytes_is_refused_as_such(signature: object) -> None:
    signer = Identity(b"\x07" * 32)
    good = signer.sign(b"message")
    signer.peer.verify(b"message", good)
    with pytest.raises(CryptoError) as caught:
        signer.peer.verify(b"message", signature)  # type: ignore[arg-type]
    assert caught.value.code == "bad_signature"
    assert "64 bytes" in str(caught.value)
    assert caught.value.item == "signature"
    assert caught.value.peer == signer.peer.fingerprint
