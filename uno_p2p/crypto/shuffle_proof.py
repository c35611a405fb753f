"""The zero-knowledge proof of shuffle (Terelius-Wikström 2010).

docs/protocol/deck.md §6.4. A shuffle publishes, with its output deck, a
non-interactive proof that the output is a permutation and re-encryption of
the input deck under the joint key ``H``, revealing nothing about the
permutation. This is the proof of Terelius and Wikström as written out in
pseudo-code by Haenni, Locher, Koenig and Dubuis (2017, "GenShuffleProof" /
"CheckShuffleProof"), in additive notation over our prime-order group:

- a Pedersen commitment ``c_j = r_j·G + h_{s(j)+1}`` to the permutation
  matrix (input ``j`` goes to output ``s(j)``, ``s`` the inverse of
  ``perm``), with independent generators ``h_0 .. h_N`` hashed to the group
  (§6.4.1);
- per-element challenges ``u_j`` hashed from the statement and ``c``;
- a commitment chain ``ĉ_i = r̂_i·G + u'_i·ĉ_{i-1}`` (``ĉ_{-1} = h_0``,
  ``u'_i = u_{π(i)}``) proving ``∏ u'_i = ∏ u_j``;
- one Schnorr-like sigma protocol over the five linear relations, made
  non-interactive by Fiat-Shamir over the whole statement and the context.

Every nonce is derived from the shuffler's secret shuffle seed and the
statement (as ``proofs`` does), so no randomness is needed here.

Wire: ``c_0..c_{N-1} || ĉ_0..ĉ_{N-1} || e || s_1..s_4 || ŝ_0..ŝ_{N-1} || s'_0..s'_{N-1}``,
``128·N + 160`` bytes (points 32 bytes, scalars 32 bytes little-endian).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from uno_p2p.crypto.cards import CARD_COUNT
from uno_p2p.crypto.context import ProofContext, Verified, VerifiedStatements
from uno_p2p.crypto.group import (
    POINT_BYTES,
    SCALAR_BYTES,
    G,
    L,
    Point,
    Scalar,
    base_mul,
    hash_bytes,
    hash_to_nonzero_scalar,
    hash_to_scalar,
    point_from_hash,
    sum_points,
)
from uno_p2p.crypto.shuffle import (
    Ciphertext,
    ShuffleMessage,
    ShuffleRejected,
    apply_shuffle,
    permutation,
    rerandomisers,
    shuffle_context,
    shuffle_seed,
    verify_shuffle_message,
)
from uno_p2p.errors import InvalidMessage, LocalProtocolError, ProofRejected, UnoError

#: The public seed of the generators: ``h_i = from_uniform(Hb(GENERATOR_LABEL, u64be(i)))``.
GENERATOR_LABEL = "shuffle-proof/generator"
_STATEMENT = "shuffle-proof/statement"
_COMMITMENTS = "shuffle-proof/commitments"
_U = "shuffle-proof/u"
_NONCE = "shuffle-proof/nonce"
_CHALLENGE = "shuffle-proof/challenge"
#: The fixed part of a proof: the challenge ``e`` and ``s_1 .. s_4``.
FIXED_BYTES = 5 * SCALAR_BYTES
PER_CARD_BYTES = 2 * POINT_BYTES + 2 * SCALAR_BYTES


def proof_bytes(size: int) -> int:
    """The length of the proof of a shuffle of ``size`` cards: ``128·size + 160``."""
    return PER_CARD_BYTES * size + FIXED_BYTES


#: The largest proof the table carries (a 108-card deck).
MAX_PROOF_BYTES = proof_bytes(CARD_COUNT)


def generators(size: int) -> tuple[Point, ...]:
    """``h_0 .. h_size``: independent generators nobody knows a relation between.

    ``h_i = crypto_core_ed25519_from_uniform(Hb("shuffle-proof/generator", u64be(i)))``;
    ``h_0`` starts the commitment chain, ``h_1 .. h_N`` commit to the permutation.
    Computed once, for the largest deck.

    Raises:
        LocalProtocolError: more than 108 cards.
    """
    if not 0 <= size <= CARD_COUNT:
        raise LocalProtocolError(f"a shuffle proof covers 1..{CARD_COUNT} cards")
    return _all_generators()[:size + 1]


@cache
def _all_generators() -> tuple[Point, ...]:
    return tuple(point_from_hash(GENERATOR_LABEL, i) for i in range(CARD_COUNT + 1))


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """A Terelius-Wikström proof: commitments, chain, challenge and responses."""

    commitments: tuple[Point, ...]
    chain: tuple[Point, ...]
    challenge: Scalar
    responses: tuple[Scalar, Scalar, Scalar, Scalar]
    chain_responses: tuple[Scalar, ...]
    permutation_responses: tuple[Scalar, ...]

    @classmethod
    def from_wire(cls, raw: object, *, size: int, peer: str | None) -> ShuffleProof:
        """Decode the proof of a ``size``-card shuffle, checking every point and scalar.

        Raises:
            InvalidMessage: not exactly ``proof_bytes(size)`` bytes.
            InvalidPoint: a commitment that is not a valid group element.
            InvalidScalar: a non-canonical scalar.
        """
        item = "shuffle proof"
        if not isinstance(raw, bytes) or len(raw) != proof_bytes(size):
            raise InvalidMessage(f"{item}: a proof of {size} cards is {proof_bytes(size)} bytes")
        reader = _Reader(raw, peer)
        commitments = reader.points(size, f"{item} commitment")
        chain = reader.points(size, f"{item} chain")
        challenge = reader.scalar(f"{item} challenge")
        s1, s2, s3, s4 = reader.scalars(4, f"{item} response")
        return cls(commitments, chain, challenge, (s1, s2, s3, s4),
                   reader.scalars(size, f"{item} chain response"),
                   reader.scalars(size, f"{item} permutation response"))

    def to_wire(self) -> bytes:
        """The proof's bytes, in the order of the module docstring."""
        return b"".join([
            *(point.data for point in self.commitments), *(point.data for point in self.chain),
            self.challenge.to_wire(), *(s.to_wire() for s in self.responses),
            *(s.to_wire() for s in self.chain_responses),
            *(s.to_wire() for s in self.permutation_responses),
        ])


class _Reader:
    """Reads fixed-size points and scalars off a proof, naming each on failure."""

    __slots__ = ("_offset", "_peer", "_raw")

    def __init__(self, raw: bytes, peer: str | None) -> None:
        self._raw, self._peer, self._offset = raw, peer, 0

    def _take(self, size: int) -> bytes:
        chunk = self._raw[self._offset:self._offset + size]
        self._offset += size
        return chunk

    def points(self, count: int, item: str) -> tuple[Point, ...]:
        return tuple(Point.from_wire(self._take(POINT_BYTES), peer=self._peer, item=f"{item} {k}")
                     for k in range(count))

    def scalar(self, item: str) -> Scalar:
        return Scalar.from_wire(self._take(SCALAR_BYTES), peer=self._peer, item=item)

    def scalars(self, count: int, item: str) -> tuple[Scalar, ...]:
        return tuple(self.scalar(f"{item} {k}") for k in range(count))


# -- the transcript (deck.md §6.4.3) ------------------------------------------------------

def _deck_bytes(deck: Sequence[Ciphertext]) -> bytes:
    return b"".join(ciphertext.to_wire() for ciphertext in deck)


def _points_bytes(points: Sequence[Point]) -> bytes:
    return b"".join(point.data for point in points)


def statement_digest(
    previous: Sequence[Ciphertext], shuffled: Sequence[Ciphertext], joint_key: Point,
    context: ProofContext,
) -> bytes:
    """``D0``: the context, the generators' seed, ``G``, ``H``, ``N`` and both decks."""
    return hash_bytes(_STATEMENT, *context.encode(), GENERATOR_LABEL.encode("ascii"), G.data,
                      joint_key.data, len(previous), _deck_bytes(previous),
                      _deck_bytes(shuffled))


def _commitments_digest(statement: bytes, commitments: Sequence[Point]) -> bytes:
    return hash_bytes(_COMMITMENTS, statement, _points_bytes(commitments))


def _challenges(digest: bytes, size: int) -> tuple[Scalar, ...]:
    """``u_j = Hs("shuffle-proof/u", D1, u64be(j))``: one per input position."""
    return tuple(hash_to_scalar(_U, digest, j) for j in range(size))


def _challenge(digest: bytes, chain: Sequence[Point], t: Sequence[Point],
               t_hat: Sequence[Point]) -> Scalar:
    """``e = Hs("shuffle-proof/challenge", D1, ĉ..., t_1, t_2, t_3, t_4a, t_4b, t̂...)``."""
    return hash_to_scalar(_CHALLENGE, digest, _points_bytes(chain), *(p.data for p in t),
                          _points_bytes(t_hat))


# -- proving (deck.md §6.4.4) -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Nonces:
    """The prover's deterministic nonces, all from its secret seed and the statement."""

    secret: bytes
    digest: bytes

    def one(self, name: bytes, index: int = 0) -> Scalar:
        return hash_to_nonzero_scalar(_NONCE, self.secret, self.digest, name, index)

    def many(self, name: bytes, count: int) -> list[Scalar]:
        return [self.one(name, k) for k in range(count)]


def prove_shuffle(
    previous: Sequence[Ciphertext], shuffled: Sequence[Ciphertext], *,
    perm: Sequence[int], rerandomisers: Sequence[Scalar], joint_key: Point,
    context: ProofContext, secret: bytes,
) -> ShuffleProof:
    """Prove that ``shuffled[i] = previous[perm[i]] + (rho_i·G, rho_i·H)`` for all ``i``.

    ``secret`` (the shuffler's shuffle seed for this deck) keys the nonces; it
    must stay secret until the shuffler's reveal.

    Raises:
        LocalProtocolError: the sizes disagree or ``perm`` is no permutation.
    """
    size = len(previous)
    if not (len(shuffled) == len(perm) == len(rerandomisers) == size) or \
            sorted(perm) != list(range(size)) or size == 0:
        raise LocalProtocolError("a shuffle proof needs one permutation of the whole deck")
    h = generators(size)
    statement = statement_digest(previous, shuffled, joint_key, context)
    commit_nonces = _Nonces(secret, statement)
    sigma = [0] * size  # input j goes to output sigma[j]
    for i, j in enumerate(perm):
        sigma[j] = i
    r = commit_nonces.many(b"commitment", size)
    commitments = tuple(base_mul(r[j]) + h[sigma[j] + 1] for j in range(size))
    digest = _commitments_digest(statement, commitments)
    u = _challenges(digest, size)
    u_out = [u[perm[i]] for i in range(size)]
    nonces = _Nonces(secret, digest)
    r_hat = nonces.many(b"chain", size)
    chain = _commitment_chain(h[0], r_hat, u_out)
    w = nonces.many(b"w", 4)
    w_hat = nonces.many(b"w-chain", size)
    w_out = nonces.many(b"w-permutation", size)
    t = _announcements(w, w_out, h, shuffled, joint_key)
    previous_chain = (h[0], *chain[:-1])
    t_hat = [base_mul(w_hat[i]) + previous_chain[i] * w_out[i] for i in range(size)]
    e = _challenge(digest, chain, t, t_hat)
    witness = _witness(r, r_hat, u, u_out, rerandomisers)
    responses = (w[0] + e * witness[0], w[1] + e * witness[1], w[2] + e * witness[2],
                 w[3] + e * witness[3])
    return ShuffleProof(
        commitments, chain, e, responses,
        tuple(w_hat[i] + e * r_hat[i] for i in range(size)),
        tuple(w_out[i] + e * u_out[i] for i in range(size)),
    )


def _commitment_chain(start: Point, r_hat: Sequence[Scalar],
                      u_out: Sequence[Scalar]) -> tuple[Point, ...]:
    """``ĉ_i = r̂_i·G + u'_i·ĉ_{i-1}``, ``ĉ_{-1} = h_0``."""
    chain = []
    previous = start
    for r_i, u_i in zip(r_hat, u_out, strict=True):
        previous = base_mul(r_i) + previous * u_i
        chain.append(previous)
    return tuple(chain)


def _announcements(w: Sequence[Scalar], w_out: Sequence[Scalar], h: Sequence[Point],
                   shuffled: Sequence[Ciphertext], joint_key: Point) -> list[Point]:
    """``t_1 .. t_3`` and ``t_4 = Σ ω'_i·e'_i - ω_4·(G, H)`` (two points)."""
    t3 = base_mul(w[2]) + sum_points([h[i + 1] * w_i for i, w_i in enumerate(w_out)])
    t4a = sum_points([ct.c1 * w_i for ct, w_i in zip(shuffled, w_out, strict=True)]) \
        - base_mul(w[3])
    t4b = sum_points([ct.c2 * w_i for ct, w_i in zip(shuffled, w_out, strict=True)]) \
        - joint_key * w[3]
    return [base_mul(w[0]), base_mul(w[1]), t3, t4a, t4b]


def _witness(r: Sequence[Scalar], r_hat: Sequence[Scalar], u: Sequence[Scalar],
             u_out: Sequence[Scalar], rho: Sequence[Scalar]) -> tuple[Scalar, ...]:
    """``r̄ = Σ r_j``, ``r̂ = Σ r̂_i·v_i`` (``v_i = ∏_{k>i} u'_k``), ``r̃ = Σ r_j·u_j``,
    ``r' = Σ rho_i·u'_i``."""
    r_bar = sum(x.value for x in r)
    r_chain, v = 0, 1
    for i in range(len(r_hat) - 1, -1, -1):
        r_chain += r_hat[i].value * v
        v = v * u_out[i].value % L
    r_tilde = sum(a.value * b.value for a, b in zip(r, u, strict=True))
    r_prime = sum(a.value * b.value for a, b in zip(rho, u_out, strict=True))
    return tuple(Scalar.of(x) for x in (r_bar, r_chain, r_tilde, r_prime))


# -- verifying (deck.md §6.4.5) -----------------------------------------------------------

def verify_shuffle_proof(
    proof: ShuffleProof, previous: Sequence[Ciphertext], shuffled: Sequence[Ciphertext], *,
    joint_key: Point, context: ProofContext,
) -> None:
    """Check that ``shuffled`` is a permutation and re-encryption of ``previous`` under ``H``.

    Raises:
        ProofRejected: the proof does not verify for this statement and context
            (naming ``context.peer``, the shuffler).
    """
    size = len(previous)
    peer = context.peer.hex()
    if not (len(shuffled) == len(proof.commitments) == len(proof.chain) == size
            == len(proof.chain_responses) == len(proof.permutation_responses)) or size == 0:
        raise ProofRejected("the shuffle proof is for a deck of another size", peer=peer,
                            item="shuffle proof")
    h = generators(size)
    digest = _commitments_digest(statement_digest(previous, shuffled, joint_key, context),
                                 proof.commitments)
    u = _challenges(digest, size)
    e = proof.challenge
    s1, s2, s3, s4 = proof.responses
    s_hat, s_out = proof.chain_responses, proof.permutation_responses
    u_product = 1
    for u_j in u:
        u_product = u_product * u_j.value % L
    c_bar = sum_points(list(proof.commitments)) - sum_points(list(h[1:]))
    c_hat = proof.chain[-1] - h[0] * Scalar(u_product)
    c_tilde = sum_points([c * u_j for c, u_j in zip(proof.commitments, u, strict=True)])
    a_in = sum_points([ct.c1 * u_j for ct, u_j in zip(previous, u, strict=True)])
    b_in = sum_points([ct.c2 * u_j for ct, u_j in zip(previous, u, strict=True)])
    t1 = base_mul(s1) - c_bar * e
    t2 = base_mul(s2) - c_hat * e
    t3 = base_mul(s3) + sum_points([h[i + 1] * s for i, s in enumerate(s_out)]) - c_tilde * e
    t4a = sum_points([ct.c1 * s for ct, s in zip(shuffled, s_out, strict=True)]) \
        - base_mul(s4) - a_in * e
    t4b = sum_points([ct.c2 * s for ct, s in zip(shuffled, s_out, strict=True)]) \
        - joint_key * s4 - b_in * e
    previous_chain = (h[0], *proof.chain[:-1])
    t_hat = [base_mul(s_hat[i]) + previous_chain[i] * s_out[i] - proof.chain[i] * e
             for i in range(size)]
    if _challenge(digest, proof.chain, [t1, t2, t3, t4a, t4b], t_hat) != e:
        raise ProofRejected(DOES_NOT_VERIFY, peer=peer, item="shuffle proof")



# -- one proven turn of a joint shuffle (deck.md §6.3) -----------------------------------

def make_proven_shuffle(
    previous: Sequence[Ciphertext], *, shuffle_master: bytes, round_number: int, deck: int,
    joint_key: Point, context: ProofContext,
) -> tuple[ShuffleMessage, ShuffleProof]:
    """This peer's shuffle of ``previous`` from its committed master seed, and its proof.

    ``context`` is the ``shuffle_context`` of this turn (it names the shuffler).
    """
    seed = shuffle_seed(shuffle_master, round_number, deck)
    size = len(previous)
    perm, masks = permutation(seed, size), rerandomisers(seed, size)
    shuffled = apply_shuffle(previous, seed, joint_key)
    proof = prove_shuffle(previous, shuffled, perm=perm, rerandomisers=masks,
                          joint_key=joint_key, context=context, secret=seed)
    return ShuffleMessage(shuffled), proof


#: Why a proof of shuffle is refused (pinned in tests/crypto/test_refusal_words.py).
DOES_NOT_VERIFY = ("the shuffle proof does not verify: the deck is not a permutation and "
                   "re-encryption of the previous one under the joint key")

#: This process's memo of verified proofs of shuffle.
VERIFIED = VerifiedStatements()


def verified_key(previous: Sequence[Ciphertext], shuffled: Sequence[Ciphertext], proof: bytes,
                 joint_key: Point, context: ProofContext) -> bytes:
    """The memo key of one statement and its proof: a hash of every input."""
    return hash_bytes("shuffle-proof/verified",
                      statement_digest(previous, shuffled, joint_key, context), proof)


def verify_proven_shuffle(
    message: ShuffleMessage, proof: bytes, previous: Sequence[Ciphertext], *,
    joint_key: Point, context: ProofContext,
) -> Verified[ShuffleMessage]:
    """Check a seat's turn on arrival: its shape, then its proof of shuffle (§6.3).

    Raises:
        ShuffleRejected: wrong size, a repeated ``c1``, or no proof at all.
        InvalidMessage / InvalidPoint / InvalidScalar: a malformed proof.
        ProofRejected: the proof does not verify (another deck, context or key,
            a card replaced, dropped or duplicated, a deck substituted).
    """
    verified = verify_shuffle_message(message, previous, context)
    if not proof:
        raise ShuffleRejected("the shuffle comes without its proof of shuffle",
                              peer=context.peer.hex(), item="shuffle proof")
    key = verified_key(previous, message.ciphertexts, proof, joint_key, context)
    if key in VERIFIED:
        return verified
    _check_proof(message, proof, previous, joint_key, context)
    VERIFIED.add(key)
    return verified


def _check_proof(message: ShuffleMessage, proof: bytes, previous: Sequence[Ciphertext],
                 joint_key: Point, context: ProofContext) -> None:
    """Decode and verify the proof itself (the expensive part), touching no memo."""
    decoded = ShuffleProof.from_wire(proof, size=len(previous), peer=context.peer.hex())
    verify_shuffle_proof(decoded, previous, message.ciphertexts, joint_key=joint_key,
                         context=context)


# -- checking a statement away from the caller (a worker thread or process) ---------------

@dataclass(frozen=True, slots=True)
class ShuffleStatement:
    """One shuffle turn and its proof, all in wire bytes, to be checked elsewhere.

    Plain bytes and integers, so it pickles cheaply to a worker process. The
    audit's process pool (``uno_p2p.audit.parallel``) and the network shell's
    executor (``uno_p2p.net.verify``) check these ahead of the ledger; the
    ledger still checks anything the memo does not hold, so a statement that
    is wrong, or was never checked ahead, is judged exactly as without them.
    """

    previous: tuple[bytes, ...]
    shuffled: tuple[bytes, ...]
    proof: bytes
    joint_key: bytes
    table: bytes
    round_number: int
    deck: int
    shuffler: bytes
    turn: int

    #: Where a verified statement is recorded.
    memo: ClassVar[VerifiedStatements] = VERIFIED

    def context(self) -> ProofContext:
        """The turn's proof context (deck.md §6.3: ``shuffle_context``)."""
        return shuffle_context(self.table, self.round_number, self.deck, self.shuffler,
                               turn=self.turn)

    def key(self) -> bytes:
        """Its memo key, from the wire bytes alone: equal to ``verified_key`` of the
        decoded statement (a point's and a ciphertext's wire form is their bytes)."""
        digest = hash_bytes(_STATEMENT, *self.context().encode(),
                            GENERATOR_LABEL.encode("ascii"), G.data, self.joint_key,
                            len(self.previous), b"".join(self.previous), b"".join(self.shuffled))
        return hash_bytes("shuffle-proof/verified", digest, self.proof)

    def check(self) -> bytes | None:
        """``check_statement(self)``."""
        return check_statement(self)


def check_statement(statement: ShuffleStatement) -> bytes | None:
    """Decode and verify one statement; its memo key if it verifies, else None.

    Pure and memo-free, so it runs in any thread or process; the caller adds
    the key to ``VERIFIED`` in the thread that owns the memo. Any failure
    (malformed or wrong) is None: the ledger will judge the turn itself and
    name the culprit exactly as it always does.
    """
    try:
        # The previous deck is the checker's own accepted state (the initial deck's
        # ``c1`` is the identity, which ``from_wire`` refuses): its bytes are bound
        # into the memo key, which only that same accepted deck can match.
        previous = tuple(Ciphertext(Point(c[:POINT_BYTES]), Point(c[POINT_BYTES:]))
                         for c in statement.previous)
        message = ShuffleMessage.from_wire(list(statement.shuffled), peer=None)
        joint = Point.from_wire(statement.joint_key, peer=None, item="joint key")
        context = statement.context()
        verify_shuffle_message(message, previous, context)
        if not statement.proof:
            return None
        _check_proof(message, statement.proof, previous, joint, context)
    except (UnoError, ValueError, RuntimeError, TypeError):
        return None
    return verified_key(previous, message.ciphertexts, statement.proof, joint, context)


__all__ = [
    "GENERATOR_LABEL",
    "MAX_PROOF_BYTES",
    "VERIFIED",
    "ShuffleProof",
    "ShuffleStatement",
    "check_statement",
    "generators",
    "make_proven_shuffle",
    "proof_bytes",
    "prove_shuffle",
    "statement_digest",
    "verified_key",
    "verify_proven_shuffle",
    "verify_shuffle_proof",
]
