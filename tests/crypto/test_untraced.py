"""Crypto functions that only other packages' tests reached (mutmut's trace, docs/testing.md).

A mutant runs only its own package's tests, so these had none: the lobby's
check of a channel key as it arrives (wire.md §6: 32 bytes, not of small
order, else ``bad_channel_key``, naming the peer), the negation of a scalar
(mod L, deck.md §1) and what a point or a peer's secrets print as (a
prefix of the public bytes; never a secret).
"""

from __future__ import annotations

import pytest

from tests.crypto.harness import TABLE, fixed_seed, peer_id
from uno_p2p.crypto.channel import ChannelKey, check_channel_key
from uno_p2p.crypto.group import G, L, Scalar, base_mul
from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.errors import CryptoError

#: RFC 7748 §6.1: the u-coordinates 0 and 1 are of small order (X25519 gives all zeros).
SMALL_ORDER = (bytes(32), (1).to_bytes(32, "little"))


def test_a_channel_key_is_checked_as_it_arrives() -> None:
    check_channel_key(ChannelKey(b"\x04" * 32).public, peer="bob")
    for bad in (*SMALL_ORDER, b"\x09" * 31, b"\x09" * 33):
        with pytest.raises(CryptoError) as caught:
            check_channel_key(bad, peer="bob")
        assert (caught.value.code, caught.value.peer) == ("bad_channel_key", "bob")


def test_a_scalar_negates_modulo_l() -> None:
    assert (-Scalar(1)).value == L - 1
    assert (-Scalar(0)).value == 0
    five = Scalar(5)
    assert (five + -five).value == 0
    assert base_mul(-five) + base_mul(five) == base_mul(Scalar(0))


def test_points_and_secrets_print_no_secret() -> None:
    assert repr(G) == f"Point({G.data.hex()[:16]}...)"
    assert repr(Scalar(12345)) == "Scalar(...)"
    seed = fixed_seed(0)
    secrets = PeerSecrets.from_seed(seed, table=TABLE, peer=peer_id(0))
    shown = repr(secrets)
    assert shown == f"PeerSecrets(peer={peer_id(0).hex()[:16]}..., <secret>)"
    assert seed.hex()[:8] not in shown
    assert secrets.key_share.to_wire().hex()[:8] not in shown
