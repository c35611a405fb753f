"""Known-answer tests: the stored vectors match the code, and the spec, re-derived by hand."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

import pytest
from nacl import bindings

from tests.crypto.deck_vectors import PATH, build_vectors
from uno_p2p.crypto.cards import card_of
from uno_p2p.crypto.context import ProofContext
from uno_p2p.crypto.group import L, Point
from uno_p2p.crypto.keys import KeyAnnouncement, verify_key_announcement
from uno_p2p.crypto.shares import DecryptionShare, verify_share
from uno_p2p.crypto.shuffle import Ciphertext
from uno_p2p.errors import ProofRejected


@pytest.fixture(scope="module")
def stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PATH.read_text(encoding="utf-8"))
    return data


def spec_frame(label: str, *parts: bytes | int) -> bytes:
    """docs/protocol/deck.md §1.2, written out again independently of the package."""
    out = b""
    for part in (("uno-lan/deck/v1/" + label).encode(), *parts):
        raw = part.to_bytes(8, "big") if isinstance(part, int) else part
        out += len(raw).to_bytes(4, "big") + raw
    return out


def spec_scalar(label: str, *parts: bytes | int) -> int:
    return int.from_bytes(hashlib.sha512(spec_frame(label, *parts)).digest(), "little") % L


def test_the_stored_vectors_are_what_the_code_derives(stored: dict[str, Any]) -> None:
    assert build_vectors() == stored, "regenerate only after a deliberate protocol change"


def test_card_points_follow_the_spec(stored: dict[str, Any]) -> None:
    assert bytes.fromhex(stored["frame_card_0"]) == spec_frame("card", 0)
    for card in (0, 57, 107):
        digest = hashlib.sha256(spec_frame("card", card)).digest()
        expected = bindings.crypto_core_ed25519_from_uniform(digest)
        assert stored["card_points"][card] == expected.hex()


def test_keys_and_commitments_follow_the_spec(stored: dict[str, Any]) -> None:
    table = bytes.fromhex(stored["table"])
    for peer in stored["peers"]:
        seed, ident = bytes.fromhex(peer["seed"]), bytes.fromhex(peer["peer"])
        x = spec_scalar("key-share", table, ident, seed)
        assert peer["key_share"] == x.to_bytes(32, "little").hex()
        public = bindings.crypto_scalarmult_ed25519_base_noclamp(x.to_bytes(32, "little"))
        assert peer["public_key"] == public.hex()
        master = hashlib.sha256(spec_frame("shuffle-master", table, ident, seed)).digest()
        assert peer["shuffle_master"] == master.hex()
        commitment = hashlib.sha256(spec_frame("shuffle-commit", table, ident, master)).digest()
        announcement = [bytes.fromhex(v) for v in peer["announcement"]]
        assert announcement[1] == commitment
        verify_key_announcement(
            KeyAnnouncement.from_wire(announcement, peer="vector"), table=table, peer=ident
        )


def test_the_shuffle_follows_the_spec_and_decrypts_to_the_permuted_cards(
    stored: dict[str, Any],
) -> None:
    vectors = stored["shuffle"]
    seed = bytes.fromhex(vectors["peer0_seed"])
    master = bytes.fromhex(stored["peers"][0]["shuffle_master"])
    assert seed == hashlib.sha256(
        spec_frame("shuffle-seed", master, vectors["round"], vectors["deck"])
    ).digest()
    assert sorted(vectors["peer0_permutation_108"]) == list(range(108))
    r0 = spec_scalar("shuffle-rerandomiser", seed, 0)
    assert vectors["peer0_rerandomisers_5"][0] == r0.to_bytes(32, "little").hex()
    # With both key shares, every final ciphertext decrypts to one of the deck's cards.
    x = sum(int.from_bytes(bytes.fromhex(p["key_share"]), "little") for p in stored["peers"]) % L
    cards = []
    for raw in vectors["outputs"][-1]:
        ciphertext = Ciphertext.from_wire(bytes.fromhex(raw), peer=None, item="vector")
        mask = bindings.crypto_scalarmult_ed25519_noclamp(
            x.to_bytes(32, "little"), ciphertext.c1.data
        )
        cards.append(card_of(Point(bindings.crypto_core_ed25519_sub(ciphertext.c2.data, mask))))
    assert sorted(cards) == vectors["card_ids"]


def test_the_deal_share_verifies_in_its_context_only(stored: dict[str, Any]) -> None:
    ctx = stored["deal_share"]["context"]
    context = ProofContext(
        bytes.fromhex(ctx["table"]), ctx["round"], ctx["deck"], ctx["purpose"],
        bytes.fromhex(ctx["peer"]), ctx["position"], bytes.fromhex(ctx["recipient"]),
    )
    wire = stored["deal_share"]["wire"]
    share = DecryptionShare.from_wire(
        [wire[0], bytes.fromhex(wire[1]), bytes.fromhex(wire[2])], peer="vector"
    )
    peer0 = stored["peers"][0]
    key = verify_key_announcement(
        KeyAnnouncement.from_wire(
            [bytes.fromhex(peer0["announcement"][0]), bytes.fromhex(peer0["announcement"][1]),
             bytes.fromhex(peer0["announcement"][2])], peer="vector"),
        table=context.table, peer=context.peer,
    )
    ciphertext = Ciphertext.from_wire(
        bytes.fromhex(stored["shuffle"]["outputs"][-1][2]), peer=None, item="vector"
    )
    verified = verify_share(share, ciphertext=ciphertext, key=key, context=context)
    assert verified.value == share
    with pytest.raises(ProofRejected):
        verify_share(share, ciphertext=ciphertext, key=key,
                     context=dataclasses.replace(context, round=context.round + 1))
    x0 = int.from_bytes(bytes.fromhex(peer0["key_share"]), "little")
    assert share.share.data == bindings.crypto_scalarmult_ed25519_noclamp(
        x0.to_bytes(32, "little"), ciphertext.c1.data
    )


# -- the proofs' transcripts, re-derived from docs/protocol/deck.md §2-§3 alone --------------
#: The standard base point G (RFC 8032), as 32 bytes.
G_BYTES = bytes.fromhex("58" + "66" * 31)


def le32(value: int) -> bytes:
    return value.to_bytes(32, "little")


def spec_nonzero_scalar(label: str, *parts: bytes | int) -> int:
    """``Hs*``: ``Hs``, retried with a counter part 1, 2, ... while it is zero (§1.2)."""
    value, counter = spec_scalar(label, *parts), 0
    while value == 0:
        counter += 1
        value = spec_scalar(label, *parts, counter)
    return value


def spec_context(table: bytes, round_: int, deck: int, purpose: str, peer: bytes,
                 position: int | None, recipient: bytes) -> list[bytes | int]:
    """§2: ``table, u64be(round), u64be(deck), ascii(purpose), peer, u64be(position) or the
    empty string, recipient``."""
    return [table, round_, deck, purpose.encode("ascii"), peer,
            b"" if position is None else position.to_bytes(8, "big"), recipient]


def base_times(k: int) -> bytes:
    return bindings.crypto_scalarmult_ed25519_base_noclamp(le32(k))


def times(k: int, point: bytes) -> bytes:
    return bindings.crypto_scalarmult_ed25519_noclamp(le32(k), point)


def test_the_key_proofs_are_the_schnorr_transcript_of_the_spec(stored: dict[str, Any]) -> None:
    # §3.1 with §2's key context (round 0, deck 0, purpose "key", no position, no recipient)
    # and §4.2's announcement [X, commitment, proof], the commitment bound as `extra`.
    table = bytes.fromhex(stored["table"])
    for peer in stored["peers"]:
        x = int.from_bytes(bytes.fromhex(peer["key_share"]), "little")
        ident = bytes.fromhex(peer["peer"])
        public, commitment, proof = (bytes.fromhex(v) for v in peer["announcement"])
        assert public == base_times(x)
        ctx = spec_context(table, 0, 0, "key", ident, None, b"")
        k = spec_nonzero_scalar("schnorr/nonce", le32(x), *ctx, public, commitment)
        e = spec_scalar("schnorr/challenge", *ctx, G_BYTES, public, commitment, base_times(k))
        z = (k + e * x) % L
        assert proof == le32(e) + le32(z)


def test_the_deal_share_proof_is_the_dleq_transcript_of_the_spec(
        stored: dict[str, Any]) -> None:
    # §3.2: D = x·B for B the c1 of the ciphertext at the share's position, in §2's context.
    ctx_fields = stored["deal_share"]["context"]
    position, share, proof = stored["deal_share"]["wire"]
    peer0 = stored["peers"][0]
    x = int.from_bytes(bytes.fromhex(peer0["key_share"]), "little")
    public = bytes.fromhex(peer0["public_key"])
    ciphertext = bytes.fromhex(stored["shuffle"]["outputs"][-1][ctx_fields["position"]])
    base = ciphertext[:32]  # a ciphertext is c1 || c2 (§6.1)
    shared = bytes.fromhex(share)
    assert shared == times(x, base)
    ctx = spec_context(bytes.fromhex(ctx_fields["table"]), ctx_fields["round"],
                       ctx_fields["deck"], ctx_fields["purpose"],
                       bytes.fromhex(ctx_fields["peer"]), ctx_fields["position"],
                       bytes.fromhex(ctx_fields["recipient"]))
    assert position == ctx_fields["position"]
    k = spec_nonzero_scalar("dleq/nonce", le32(x), *ctx, base, shared, b"")
    e = spec_scalar("dleq/challenge", *ctx, G_BYTES, public, base, shared, base_times(k),
                    times(k, base))
    z = (k + e * x) % L
    assert bytes.fromhex(proof) == le32(e) + le32(z)
    # And the verifier's side of §3.2: A = z·G - e·X, C = z·B - e·D hash back to e.
    a = bindings.crypto_core_ed25519_sub(base_times(z), times(e, public))
    c = bindings.crypto_core_ed25519_sub(times(z, base), times(e, shared))
    assert spec_scalar("dleq/challenge", *ctx, G_BYTES, public, base, shared, a, c) == e
