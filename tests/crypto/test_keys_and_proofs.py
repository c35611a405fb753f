"""Keys with proofs of knowledge, DLEQ shares, contexts, and the secrets' reveal."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.crypto.harness import TABLE, Table, fixed_seed, peer_id
from uno_p2p.crypto.context import SEAL, ProofContext, Verified
from uno_p2p.crypto.group import InvalidPoint, InvalidScalar, L, Point, Scalar, base_mul
from uno_p2p.crypto.keys import (
    CommitmentMismatch,
    KeyAnnouncement,
    KeyMismatch,
    PeerSecrets,
    SecretsReveal,
    joint_key,
    peer_label,
    verify_key_announcement,
    verify_secrets_reveal,
)
from uno_p2p.crypto.proofs import Proof, prove_dleq, verify_dleq
from uno_p2p.crypto.shares import make_share
from uno_p2p.errors import InvalidMessage, LocalProtocolError, ProofRejected

ALICE, BOB = peer_id(0), peer_id(1)


def secrets_of(seat: int) -> PeerSecrets:
    return PeerSecrets.from_seed(fixed_seed(seat), table=TABLE, peer=peer_id(seat))


def test_an_honest_key_is_accepted_through_its_wire_form() -> None:
    announcement = secrets_of(0).announce()
    decoded = KeyAnnouncement.from_wire(announcement.to_wire(), peer="alice")
    verified = verify_key_announcement(decoded, table=TABLE, peer=ALICE)
    assert verified.value.public_key == secrets_of(0).public_key


def test_a_rogue_key_without_proof_of_knowledge_is_refused() -> None:
    """Bob announces h_B = X - h_A (cancelling Alice) with a proof he cannot make."""
    alice = secrets_of(0).announce()
    rogue_public = base_mul(Scalar(999)) - alice.public_key
    honest_bob = secrets_of(1).announce()
    rogue = KeyAnnouncement(rogue_public, honest_bob.commitment, honest_bob.proof)
    with pytest.raises(ProofRejected) as caught:
        verify_key_announcement(rogue, table=TABLE, peer=BOB)
    assert caught.value.peer == peer_label(BOB)
    assert caught.value.item == "key announcement"


def test_a_key_proof_cannot_be_replayed_by_another_peer_or_table() -> None:
    alice = secrets_of(0).announce()
    with pytest.raises(ProofRejected):
        verify_key_announcement(alice, table=TABLE, peer=BOB)
    with pytest.raises(ProofRejected):
        verify_key_announcement(alice, table=b"another table", peer=ALICE)


def test_the_proof_binds_the_seed_commitment() -> None:
    alice = secrets_of(0).announce()
    swapped = dataclasses.replace(alice, commitment=bytes(32))
    with pytest.raises(ProofRejected):
        verify_key_announcement(swapped, table=TABLE, peer=ALICE)


def test_the_joint_key_is_the_sum_and_refuses_a_peer_twice() -> None:
    keys = [
        verify_key_announcement(secrets_of(s).announce(), table=TABLE, peer=peer_id(s))
        for s in range(3)
    ]
    total = secrets_of(0).key_share + secrets_of(1).key_share + secrets_of(2).key_share
    assert joint_key(keys) == base_mul(total)
    with pytest.raises(LocalProtocolError):
        joint_key([keys[0], keys[0]])


def test_verified_values_cannot_be_forged_without_the_seal() -> None:
    context = ProofContext(TABLE, 1, 0, "deal", ALICE, 3)
    with pytest.raises(LocalProtocolError):
        Verified(secrets_of(0).announce(), context, object())  # type: ignore[arg-type]
    assert Verified(1, context, SEAL).value == 1


def test_seeds_must_be_32_bytes() -> None:
    with pytest.raises(LocalProtocolError):
        PeerSecrets.from_seed(b"short", table=TABLE, peer=ALICE)


def test_secrets_reveal_checks_key_and_commitment() -> None:
    alice = secrets_of(0)
    key = verify_key_announcement(alice.announce(), table=TABLE, peer=ALICE)
    wire = alice.reveal().to_wire()
    verify_secrets_reveal(SecretsReveal.from_wire(wire, peer="alice"), key)
    with pytest.raises(KeyMismatch) as wrong_key:
        verify_secrets_reveal(SecretsReveal(secrets_of(1).key_share, wire[1]), key)
    assert wrong_key.value.peer == peer_label(ALICE)
    with pytest.raises(CommitmentMismatch) as wrong_seed:
        verify_secrets_reveal(SecretsReveal(alice.key_share, bytes(32)), key)
    assert wrong_seed.value.peer == peer_label(ALICE)
    assert "commitment" in str(wrong_seed.value)


# -- DLEQ -------------------------------------------------------------------

BASE = base_mul(Scalar(424242))
CONTEXT = ProofContext(TABLE, 2, 1, "deal", ALICE, 17, BOB)


def test_a_dleq_share_verifies_and_equals_x_times_base() -> None:
    x = secrets_of(0).key_share
    share, proof = prove_dleq(x, BASE, CONTEXT)
    assert share == BASE * x
    verify_dleq(proof, base_mul(x), BASE, share, CONTEXT, peer="a", item="s")


def test_a_wrong_share_is_refused_even_with_a_proof_for_the_right_one() -> None:
    x = secrets_of(0).key_share
    share, proof = prove_dleq(x, BASE, CONTEXT)
    with pytest.raises(ProofRejected) as caught:
        verify_dleq(proof, base_mul(x), BASE, share + BASE, CONTEXT, peer="alice", item="s")
    assert caught.value.peer == "alice"


CONTEXT_CHANGES = st.sampled_from([
    {"table": b"other"}, {"round": 3}, {"deck": 0}, {"purpose": "open"},
    {"peer": BOB}, {"position": 18}, {"position": None}, {"recipient": b""},
    {"recipient": ALICE},
])


@settings(max_examples=20, deadline=None)
@given(CONTEXT_CHANGES)
def test_a_dleq_proof_is_refused_in_any_other_context(change: dict[str, object]) -> None:
    x = secrets_of(0).key_share
    share, proof = prove_dleq(x, BASE, CONTEXT)
    other = dataclasses.replace(CONTEXT, **change)  # type: ignore[arg-type]
    with pytest.raises(ProofRejected):
        verify_dleq(proof, base_mul(x), BASE, share, other, peer="alice", item="s")


#: Scalars a forger would try: small, near the group order, random; all canonical.
SCALARS = st.one_of(st.integers(0, 3), st.integers(L - 4, L - 1), st.integers(0, L - 1))


@st.composite
def near_proofs(draw: st.DrawFn) -> tuple[Proof, Point]:
    """A proof close to the honest one: e or z moved, swapped, or for another share."""
    x = secrets_of(0).key_share
    share, honest = prove_dleq(x, BASE, CONTEXT)
    e, z = honest.challenge.value, honest.response.value
    how = draw(st.sampled_from(["e", "z", "both", "swap", "share", "random"]))
    delta = draw(st.integers(1, 2**64))
    if how == "e":
        e = (e + delta) % L
    elif how == "z":
        z = (z + delta) % L
    elif how == "both":
        e, z = (e + delta) % L, (z + delta * x.value) % L  # keeps z - e·x: still wrong
    elif how == "swap":
        e, z = z, e
    elif how == "share":
        share = share + BASE
    else:
        e, z = draw(SCALARS), draw(SCALARS)
    return Proof(Scalar(e), Scalar(z)), share


@settings(max_examples=60, deadline=None)
@given(near_proofs())
def test_proofs_near_the_honest_one_do_not_verify(forged: tuple[Proof, Point]) -> None:
    # Every example reaches the challenge check (the scalars are canonical by construction);
    # through the wire form too, so the decoder passes exactly what the verifier sees.
    proof, share = forged
    x = secrets_of(0).key_share
    decoded = Proof.from_wire(proof.to_wire(), peer="fuzz", item="p")
    with pytest.raises(ProofRejected) as caught:
        verify_dleq(decoded, base_mul(x), BASE, share, CONTEXT, peer="fuzz", item="s")
    assert (caught.value.peer, caught.value.item) == ("fuzz", "s")


def test_the_honest_proof_verifies_and_a_non_canonical_scalar_is_refused_on_decode() -> None:
    x = secrets_of(0).key_share
    share, proof = prove_dleq(x, BASE, CONTEXT)
    verify_dleq(Proof.from_wire(proof.to_wire(), peer="p", item="p"), base_mul(x), BASE,
                share, CONTEXT, peer="p", item="s")
    e = proof.challenge.to_wire()
    for bad in (L, L + proof.response.value, 2**256 - 1):
        with pytest.raises(InvalidScalar):
            Proof.from_wire(e + bad.to_bytes(32, "little"), peer="p", item="p")


@pytest.mark.parametrize(
    "raw", [None, [], [b"\x00" * 32, b"\x00" * 32], b"\x00" * 63, b"\x00" * 65, (1, 2)]
)
def test_malformed_proofs_are_invalid_messages(raw: object) -> None:
    with pytest.raises(InvalidMessage):
        Proof.from_wire(raw, peer="m", item="p")


@pytest.mark.parametrize(
    "change",
    [{"table": b""}, {"table": b"x" * 65}, {"round": -1}, {"deck": 2**32}, {"purpose": "Deal"},
     {"purpose": ""}, {"position": -1}, {"recipient": b"x" * 65}],
)
def test_contexts_are_checked(change: dict[str, object]) -> None:
    with pytest.raises(LocalProtocolError):
        dataclasses.replace(CONTEXT, **change)  # type: ignore[arg-type]


def test_points_in_announcements_are_checked() -> None:
    wire = secrets_of(0).announce().to_wire()
    wire[0] = bytes(32)
    with pytest.raises(InvalidPoint) as caught:
        KeyAnnouncement.from_wire(wire, peer="m")
    assert caught.value.item == "key announcement public key"
    assert isinstance(Point.from_wire(secrets_of(0).public_key.data, peer=None, item="k"), Point)


def test_a_share_is_made_only_for_its_own_peer_and_a_position() -> None:
    table = Table(2)
    table.setup_keys()
    table.new_deck(1, 0, range(6))
    table.shuffle()
    deck = table.peers[0].deck
    secrets = table.peers[0].secrets
    mine = deck.share_context(2, 0, purpose="open")
    make_share(secrets, deck.ciphertext(2), mine)
    for context in (deck.share_context(2, 1, purpose="open"), mine.at(None, purpose="open",
                                                                       peer=peer_id(0))):
        with pytest.raises(LocalProtocolError):
            make_share(secrets, deck.ciphertext(2), context)
    moved = mine.at(4, purpose="deal", peer=peer_id(1), recipient=peer_id(0))
    assert (moved.table, moved.round, moved.deck) == (mine.table, mine.round, mine.deck)
    assert (moved.position, moved.purpose, moved.peer) == (4, "deal", peer_id(1))


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
