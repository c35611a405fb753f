"""What a third random sample of mutants (seed 18) found untested (docs/testing.md).

net.md §4 and ``protocol/vectors/net.json``: SPAKE2's fixed points, the
password scalar of the join code and the key both sides derive, checked here
from the crypto package's own tests (the net tests check them too, but a
crypto mutant runs only the crypto tests). wire.md §6: a channel key of
another length is ``bad_channel_key``. deck.md §12: every refusal names the
peer and the item in words; a reveal (§9) names the key share or the shuffle
seed that does not match. A released key is accepted only for its own seat.
The benchmark's operation counters start again from zero.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.crypto.harness import Table
from uno_p2p.crypto.channel import ChannelKey
from uno_p2p.crypto.group import OPS, G
from uno_p2p.crypto.keys import (
    CommitmentMismatch,
    KeyMismatch,
    SecretsReveal,
    verify_secrets_reveal,
)
from uno_p2p.crypto.spake2 import M, N, Spake2, code_scalar
from uno_p2p.errors import CryptoError, LocalProtocolError

NET = json.loads((Path(__file__).resolve().parents[2] / "protocol" / "vectors" /
                  "net.json").read_text("utf-8"))


def test_spake2_gives_both_sides_the_key_of_the_net_vectors() -> None:
    seeds = {label: bytes.fromhex(value) for label, value in NET["seeds"].items()}
    code = NET["join_code"]
    assert M.to_wire().hex() == NET["spake2"]["M"]
    assert N.to_wire().hex() == NET["spake2"]["N"]
    assert code_scalar(code).to_wire().hex() == NET["spake2"]["w"]
    joiner = Spake2("A", code, seeds["joiner spake2"])
    host = Spake2("B", code, seeds["host spake2"])
    assert joiner.finish(host.message).hex() == NET["spake2"]["key"]
    assert host.finish(joiner.message).hex() == NET["spake2"]["key"]
    # Another join code gives another key (one guess per handshake, net.md §4).
    guess = Spake2("A", code + "x", seeds["joiner spake2"])
    assert host.finish(guess.message).hex() != NET["spake2"]["key"]


def test_a_channel_key_of_another_length_is_bad_channel_key() -> None:
    mine = ChannelKey(b"\x01" * 32)
    for bad in (b"\x09" * 31, b"\x09" * 33):
        with pytest.raises(CryptoError) as caught:
            mine.shared_secret(bad, peer="bob")
        assert caught.value.code == "bad_channel_key"
        assert (caught.value.peer, caught.value.item) == ("bob", "channel key")


def _table(n: int) -> Table:
    table = Table(n)
    table.setup_keys()
    table.new_deck(1, 0, range(6))
    return table


def test_a_reveal_that_does_not_match_names_the_key_share_or_the_seed() -> None:
    table = _table(2)
    alice = table.peers[0]
    key = table.peers[1].keys[0]
    honest = alice.secrets.reveal()
    with pytest.raises(KeyMismatch) as wrong_key:
        verify_secrets_reveal(SecretsReveal(table.peers[1].secrets.key_share,
                                            honest.shuffle_master), key)
    assert "key share" in (wrong_key.value.item or "")
    assert (wrong_key.value.item or "").islower()
    with pytest.raises(CommitmentMismatch) as wrong_seed:
        verify_secrets_reveal(SecretsReveal(honest.key_share, bytes(32)), key)
    assert "shuffle seed" in (wrong_seed.value.item or "")
    assert (wrong_seed.value.item or "").islower()


def test_a_released_key_is_taken_only_for_the_seat_that_revealed_it() -> None:
    table = _table(3)
    reveal = table.peers[2].secrets.reveal()
    verified = verify_secrets_reveal(reveal, table.peers[0].keys[2])
    with pytest.raises(LocalProtocolError) as caught:
        table.peers[0].deck.release_key(1, verified)
    assert "seat" in str(caught.value)
    table.peers[0].deck.release_key(2, verified)
    assert table.peers[0].deck.has_share(4, 2)


def test_the_operation_counters_start_again_from_zero() -> None:
    OPS.reset()
    assert OPS.snapshot() == {"mul": 0, "base_mul": 0, "add": 0, "validate": 0}
    _ = G + G
    _ = G + G
    assert OPS.snapshot()["add"] == 2
    OPS.reset()
    _ = G + G
    assert OPS.snapshot() == {"mul": 0, "base_mul": 0, "add": 1, "validate": 0}
