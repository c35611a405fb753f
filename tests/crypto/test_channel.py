"""The private channel: only the recipient opens it, and any tampering is detected."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.crypto.channel import ChannelKey, Party, open_sealed, seal
from uno_p2p.errors import CryptoError


def make(tag: int) -> tuple[ChannelKey, Party]:
    key = ChannelKey(bytes([tag]) * 32)
    return key, Party(bytes([tag + 100]) * 32, key.public)


ALICE_KEY, ALICE = make(1)
BOB_KEY, BOB = make(2)
EVE_KEY, EVE = make(3)
CONTEXT = b"table/alice/7"


@given(st.binary(max_size=300), st.binary(max_size=40))
@settings(max_examples=60, deadline=None)
def test_the_recipient_opens_what_was_sealed(plaintext: bytes, context: bytes) -> None:
    nonce, ciphertext = seal(ALICE_KEY, ALICE, BOB, context, plaintext)
    assert open_sealed(BOB_KEY, ALICE, BOB, context, nonce, ciphertext) == plaintext
    assert len(plaintext) < 8 or plaintext not in ciphertext


def test_only_the_recipient_opens_it() -> None:
    nonce, ciphertext = seal(ALICE_KEY, ALICE, BOB, CONTEXT, b"your card is R7")
    with pytest.raises(CryptoError):
        open_sealed(EVE_KEY, ALICE, EVE, CONTEXT, nonce, ciphertext)
    with pytest.raises(CryptoError):
        open_sealed(EVE_KEY, ALICE, BOB, CONTEXT, nonce, ciphertext)
    # Eve claiming to be the sender, or Alice's ciphertext passed off as Eve's, fails.
    with pytest.raises(CryptoError):
        open_sealed(BOB_KEY, EVE, BOB, CONTEXT, nonce, ciphertext)
    # The sender itself cannot open it as if it were the recipient.
    with pytest.raises(CryptoError):
        open_sealed(ALICE_KEY, ALICE, BOB, CONTEXT, nonce, ciphertext)


@given(st.data())
@settings(max_examples=100, deadline=None)
def test_any_tampering_is_detected(data: st.DataObject) -> None:
    nonce, ciphertext = seal(ALICE_KEY, ALICE, BOB, CONTEXT, b"share for position 17")
    target = data.draw(st.sampled_from(["nonce", "ciphertext", "context"]))
    blob = {"nonce": nonce, "ciphertext": ciphertext, "context": CONTEXT}[target]
    index = data.draw(st.integers(0, len(blob) - 1))
    changed = bytearray(blob)
    changed[index] ^= data.draw(st.integers(1, 255))
    parts = {"nonce": nonce, "ciphertext": ciphertext, "context": CONTEXT, target: bytes(changed)}
    with pytest.raises(CryptoError) as caught:
        open_sealed(BOB_KEY, ALICE, BOB, parts["context"], parts["nonce"], parts["ciphertext"])
    assert caught.value.code == "sealed_tampered"


def test_truncated_and_wrong_key_inputs_are_refused() -> None:
    nonce, ciphertext = seal(ALICE_KEY, ALICE, BOB, CONTEXT, b"x")
    with pytest.raises(CryptoError):
        open_sealed(BOB_KEY, ALICE, BOB, CONTEXT, nonce, ciphertext[:15])
    with pytest.raises(CryptoError):
        open_sealed(BOB_KEY, ALICE, BOB, CONTEXT, nonce[:11], ciphertext)
    with pytest.raises(CryptoError):
        seal(EVE_KEY, ALICE, BOB, CONTEXT, b"x")
    with pytest.raises(CryptoError):
        ChannelKey(bytes(31))


def test_a_small_order_channel_key_is_refused() -> None:
    weak = Party(bytes(32), bytes(32))
    with pytest.raises(CryptoError) as caught:
        seal(ALICE_KEY, ALICE, weak, CONTEXT, b"x")
    assert caught.value.code == "bad_channel_key"


def test_sealing_is_deterministic_and_context_bound() -> None:
    first = seal(ALICE_KEY, ALICE, BOB, CONTEXT, b"same")
    assert seal(ALICE_KEY, ALICE, BOB, CONTEXT, b"same") == first
    assert seal(ALICE_KEY, ALICE, BOB, CONTEXT + b"!", b"same")[0] != first[0]
    assert seal(ALICE_KEY, ALICE, BOB, CONTEXT, b"other")[0] != first[0]


def test_two_channel_keys_agree_and_a_short_key_is_refused_by_its_length() -> None:
    a, b = ChannelKey(b"\x01" * 32), ChannelKey(b"\x02" * 32)
    assert a.shared_secret(b.public) == b.shared_secret(a.public)
    assert a.shared_secret(b.public) != a.shared_secret(ChannelKey(b"\x03" * 32).public)
    with pytest.raises(CryptoError) as caught:
        a.shared_secret(b.public[:31], peer="p")
    assert "32 bytes" in str(caught.value)


def test_a_channel_key_of_another_length_is_bad_channel_key() -> None:
    mine = ChannelKey(b"\x01" * 32)
    for bad in (b"\x09" * 31, b"\x09" * 33):
        with pytest.raises(CryptoError) as caught:
            mine.shared_secret(bad, peer="bob")
        assert caught.value.code == "bad_channel_key"
        assert (caught.value.peer, caught.value.item) == ("bob", "channel key")
