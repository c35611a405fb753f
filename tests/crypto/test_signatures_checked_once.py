"""A signature is checked once in a process (``identity.VERIFIED_SIGNATURES``).

Whether an Ed25519 signature verifies is a function of the key, the signed bytes
and the signature: a process that checked one, or made it, need not check it
again. The sequencer used to check a message's signature four times on the way
to its entry. A signature that fails is checked, and refused, every time.
"""

from __future__ import annotations

from collections.abc import Iterator

import nacl.bindings
import pytest

from uno_p2p.crypto.identity import VERIFIED_SIGNATURES, Identity
from uno_p2p.errors import CryptoError
from uno_p2p.wire.lobby import Leave
from uno_p2p.wire.samples import SampleTable

AUTHOR = Identity(b"a" * 32)
OTHER = Identity(b"o" * 32)
MESSAGE = b"m" * 32


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """Every signature libsodium checks from now on; the memo starts empty."""
    made: list[bytes] = []
    real = nacl.bindings.crypto_sign_open

    def counting(signed: bytes, key: bytes) -> bytes:
        made.append(signed[:64])
        return real(signed, key)

    monkeypatch.setattr(nacl.bindings, "crypto_sign_open", counting)
    VERIFIED_SIGNATURES.clear()
    yield made
    VERIFIED_SIGNATURES.clear()


def arrived(identity: Identity, message: bytes) -> bytes:
    """A signature as if made on another machine: this process has not seen it."""
    signature = identity.sign(message)
    VERIFIED_SIGNATURES.clear()
    return signature


def test_a_signature_that_verified_is_not_checked_again(checks: list[bytes]) -> None:
    signature = arrived(AUTHOR, MESSAGE)
    AUTHOR.peer.verify(MESSAGE, signature)
    AUTHOR.peer.verify(MESSAGE, signature)
    assert checks == [signature]


def test_a_signature_made_here_is_not_checked(checks: list[bytes]) -> None:
    AUTHOR.peer.verify(MESSAGE, AUTHOR.sign(MESSAGE))
    assert checks == []


def test_a_bad_signature_is_checked_and_refused_every_time(checks: list[bytes]) -> None:
    bad = bytes(64)
    for _ in range(2):
        with pytest.raises(CryptoError) as caught:
            AUTHOR.peer.verify(MESSAGE, bad)
        assert caught.value.code == "bad_signature"
    assert checks == [bad, bad]


def test_a_signature_checked_once_vouches_for_nothing_else(checks: list[bytes]) -> None:
    signature = arrived(AUTHOR, MESSAGE)
    AUTHOR.peer.verify(MESSAGE, signature)
    flipped = bytes([signature[0] ^ 1]) + signature[1:]
    for key, message, sig in ((OTHER.peer, MESSAGE, signature),
                              (AUTHOR.peer, b"n" * 32, signature),
                              (AUTHOR.peer, MESSAGE, flipped)):
        with pytest.raises(CryptoError) as caught:
            key.verify(message, sig)
        assert caught.value.code == "bad_signature"
    assert len(checks) == 4


def test_with_the_memo_off_every_check_is_made(checks: list[bytes]) -> None:
    VERIFIED_SIGNATURES.enabled = False  # the conftest turns it on again
    signature = AUTHOR.sign(MESSAGE)
    AUTHOR.peer.verify(MESSAGE, signature)
    AUTHOR.peer.verify(MESSAGE, signature)
    assert checks == [signature, signature]


def test_the_sequencer_checks_a_message_signature_once(checks: list[bytes]) -> None:
    table = SampleTable()
    table.lobby()
    message = table.message(1, Leave("home"))
    VERIFIED_SIGNATURES.clear()  # the author signed it on its own machine
    checks.clear()
    entry = table.place(message)
    # The author's signature once; the countersignature is the sequencer's own.
    assert checks == [message.signature]
    assert entry.message is message
