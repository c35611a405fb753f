"""What the crypto seed-21 sample of mutants found untested (docs/testing.md).

- deck.md §6.3: ``below(b)`` returns ``v mod b`` only if ``v < 2^64 - (2^64 mod
  b)``, else reads again: a draw in the biased top of the range is skipped.
- deck.md §12: a refusal names its peer and item: a reveal that never came
  (``MissingReveal``, item ``secrets reveal``, naming the silent peer), a
  proof of shuffle for another deck size (naming the shuffler).
- wire.md §3: a signature is 64 bytes; one of another size is refused as
  such, and one that is not even bytes is refused, never a crash.
"""

from __future__ import annotations

import pytest

from tests.crypto.harness import Table, peer_id
from tests.crypto.test_shuffle_proof import KEY, SHUFFLER, context, proven
from uno_p2p.crypto.audit import MissingReveal, verify_game
from uno_p2p.crypto.identity import Identity
from uno_p2p.crypto.keys import peer_label
from uno_p2p.crypto.shuffle import _ByteStream
from uno_p2p.crypto.shuffle_proof import ShuffleProof, verify_shuffle_proof
from uno_p2p.errors import CryptoError, ProofRejected


class _Scripted(_ByteStream):
    """A stream whose draws are given (the spec's rule is about the values, not SHA-512)."""

    __slots__ = ("_values",)

    def __init__(self, values: list[int]) -> None:
        super().__init__(b"")
        self._values = values

    def _next_u64(self) -> int:
        return self._values.pop(0)


@pytest.mark.parametrize("bound", [3, 7, 108])
def test_a_draw_in_the_biased_top_of_the_range_is_drawn_again(bound: int) -> None:
    limit = 2**64 - (2**64 % bound)
    assert _Scripted([limit - 1]).below(bound) == (limit - 1) % bound
    assert _Scripted([limit, 5]).below(bound) == 5 % bound
    assert _Scripted([2**64 - 1, limit, 10]).below(bound) == 10 % bound


@pytest.mark.parametrize("bound", [1, 2, 64])
def test_a_bound_that_divides_2_to_the_64_takes_every_draw(bound: int) -> None:
    assert _Scripted([2**64 - 1]).below(bound) == (2**64 - 1) % bound


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


def test_a_proof_for_another_deck_size_names_the_shuffler() -> None:
    previous, message, _ = proven(4)
    _, _, small = proven(3)
    with pytest.raises(ProofRejected) as caught:
        verify_shuffle_proof(ShuffleProof.from_wire(small, size=3, peer=None), previous,
                             message.ciphertexts, joint_key=KEY, context=context())
    assert caught.value.peer == SHUFFLER.hex()
    assert caught.value.item == "shuffle proof"


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
