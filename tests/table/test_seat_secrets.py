"""A peer's secrets for one game (``table/sending.py``'s ``SeatSecrets``, table.md §2.1):
each derived from the peer's entropy for its purpose, bound to the table and the
peer's fresh nonce; the expected bytes are the spec's own vector."""

from __future__ import annotations

import pytest

from uno_p2p.crypto.channel import ChannelKey
from uno_p2p.crypto.keys import PeerSecrets
from uno_p2p.errors import LocalProtocolError
from uno_p2p.table.sending import SeatSecrets

#: table.md §2.1's vector: E = 00 01 .. 1f, T = 00 01 .. 0f, N = 64 65 .. 73.
ENTROPY, TABLE, NONCE = bytes(range(32)), bytes(range(16)), bytes(range(0x64, 0x74))
DECK = "b833d960aebda90e0b540eab9a2a8b3a8a10c3b2d107fff516805bb7aa4b18e1"
CHANNEL = "7c52d8dacce18ae4a9db2cb34e7fd59f555613ace99ebaa93635b5413ebf506f"
BOT = "990af64c85f911298f99ef572fe6c239d2dae002c562e28cb7d1d8a8b40c37a0"
DECK_WITHOUT_NONCE = "42b02716a266915c64e6d97e511d2a06f3d8b665417cda0bbb28f87163554958"
PEER = b"\x01" * 32


def test_each_secret_is_the_specs_vector() -> None:
    mine = SeatSecrets.derive(ENTROPY, table_id=TABLE, nonce=NONCE, peer=PEER)
    assert mine.deck == PeerSecrets.from_seed(bytes.fromhex(DECK), table=TABLE, peer=PEER)
    assert mine.channel_seed.hex() == CHANNEL
    assert mine.channel.public == ChannelKey(bytes.fromhex(CHANNEL)).public
    assert mine.bot_seed.hex() == BOT


def test_the_simulations_empty_nonce_gives_its_own_deck() -> None:
    mine = SeatSecrets.derive(ENTROPY, table_id=TABLE, nonce=b"", peer=PEER)
    assert mine.deck == PeerSecrets.from_seed(bytes.fromhex(DECK_WITHOUT_NONCE),
                                              table=TABLE, peer=PEER)


@pytest.mark.parametrize(("entropy", "table_id", "nonce"), [
    (ENTROPY[:31], TABLE, NONCE),
    (ENTROPY, TABLE[:15], NONCE),
    (ENTROPY, TABLE + b"\x00", NONCE),
    (ENTROPY, TABLE, NONCE[:15]),
], ids=["31-byte entropy", "15-byte table id", "17-byte table id", "15-byte nonce"])
def test_too_little_entropy_or_a_wrong_sized_table_id_or_nonce_is_refused(
        entropy: bytes, table_id: bytes, nonce: bytes) -> None:
    with pytest.raises(LocalProtocolError):
        SeatSecrets.derive(entropy, table_id=table_id, nonce=nonce, peer=PEER)
