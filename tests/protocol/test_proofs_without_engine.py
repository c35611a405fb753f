"""Every proof of a version 2 log (shuffles and shares) checks from the log and the spec alone.

docs/protocol/deck.md §6.1 and table.md §4.1: a version 2 ``shuffle_deck``
names its round and its deck's starting cards, so a verifier without the
rules engine rebuilds each proof's context and input deck from the entries:
the seats from ``start`` and ``remove``, the joint key from the ``key_setup``
entries of the seats left, the turn from the earlier shuffles of that deck.
This test is such a verifier; it uses the deck library only (no table, no
engine), and checks the proof itself, not a memo of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from uno_p2p.crypto.context import ProofContext
from uno_p2p.crypto.group import Point, sum_points
from uno_p2p.crypto.proofs import Proof, verify_dleq
from uno_p2p.crypto.shuffle import Ciphertext, ShuffleMessage, initial_deck, shuffle_context
from uno_p2p.crypto.shuffle_proof import ShuffleProof, verify_shuffle_proof
from uno_p2p.errors import ProofRejected
from uno_p2p.store.unolog import read_log
from uno_p2p.table.bodies import KeySetup, Move, Remove, ShareItem, Shares, ShuffleDeck
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import Start

V2 = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "games" / "v2"
LOGS = sorted(p.name for p in V2.glob("*.unolog"))
FRESH = 108


def proofs(entries: list[Entry]) -> list[tuple[ShuffleDeck, list[Ciphertext], Point, int]]:
    """Each shuffle with its input deck, joint key and turn, from the entries alone."""
    seats: list[bytes] = []
    keys: dict[bytes, Point] = {}
    decks: dict[int, list[list[Ciphertext]]] = {}
    found = []
    for entry in entries:
        body, author = entry.body, entry.author.key
        if isinstance(body, Start):
            seats = [peer.key for peer in body.seats]
        elif isinstance(body, Remove):
            seats.remove(body.peer.key)
        elif isinstance(body, KeySetup):
            keys[author] = Point.from_wire(body.public_key, peer=None, item="key")
        elif isinstance(body, ShuffleDeck):
            assert body.start is not None, "a version 2 shuffle names its deck"
            outputs = decks.setdefault(body.shuffle, [])
            found.append((body, start_of(body, decks) if not outputs else outputs[-1],
                          sum_points([keys[s] for s in seats]), len(outputs)))
            outputs.append(list(ShuffleMessage.from_wire(list(body.ciphertexts),
                                                         peer=None).ciphertexts))
    return found


def start_of(body: ShuffleDeck, decks: dict[int, list[list[Ciphertext]]]) -> list[Ciphertext]:
    """deck.md §6.1: fresh, the named faces sorted, or the carried ciphertexts."""
    assert body.start is not None
    if not body.start.sources:
        return list(initial_deck(range(FRESH)))
    if body.start.faces:
        return list(initial_deck(sorted(body.start.faces)))
    return [decks[slot.shuffle][-1][slot.position] for slot in body.start.sources]


def check(body: ShuffleDeck, deck: list[Ciphertext], key: Point, turn: int, author: bytes,
          table_id: bytes, round_: int) -> None:
    context = shuffle_context(table_id, round_, body.shuffle, author, turn=turn)
    proof = ShuffleProof.from_wire(body.proof, size=len(deck), peer=None)
    shuffled = ShuffleMessage.from_wire(list(body.ciphertexts), peer=None).ciphertexts
    verify_shuffle_proof(proof, deck, shuffled, joint_key=key, context=context)


@pytest.mark.game
@pytest.mark.parametrize("name", LOGS)
def test_every_proof_checks_from_the_log_alone(name: str) -> None:
    entries = list(read_log(V2 / name).entries)
    table_id = entries[0].message.table_id
    shuffles = [e for e in entries if isinstance(e.body, ShuffleDeck)]
    found = proofs(entries)
    assert len(found) == len(shuffles) > 0
    for entry, (body, deck, key, turn) in zip(shuffles, found, strict=True):
        assert body.start is not None
        check(body, deck, key, turn, entry.author.key, table_id, body.start.round)


def shares(entries: list[Entry]) -> list[tuple[ShareItem, ProofContext, Point, Ciphertext]]:
    """Each public share item with its context, prover key and ciphertext, from the
    entries alone (deck.md §7, table.md §3.3): the deck's round from its shuffles, the
    seats (closed up by each removal) from ``start`` and ``remove``."""
    seats: list[bytes] = []
    keys: dict[bytes, Point] = {}
    rounds: dict[int, int] = {}
    outputs: dict[int, tuple[Ciphertext, ...]] = {}
    found = []
    for entry in entries:
        body = entry.body
        if isinstance(body, Start):
            seats = [peer.key for peer in body.seats]
        elif isinstance(body, Remove):
            seats.remove(body.peer.key)
        elif isinstance(body, KeySetup):
            keys[entry.author.key] = Point.from_wire(body.public_key, peer=None, item="key")
        elif isinstance(body, ShuffleDeck):
            assert body.start is not None
            rounds[body.shuffle] = body.start.round
            outputs[body.shuffle] = ShuffleMessage.from_wire(list(body.ciphertexts),
                                                             peer=None).ciphertexts
        elif isinstance(body, Shares | Move):
            for item in body.items if isinstance(body, Shares) else body.shares:
                to = b"" if item.recipient < 0 else seats[item.recipient]
                context = ProofContext(entry.message.table_id, rounds[item.shuffle],
                                       item.shuffle, item.purpose, seats[item.prover],
                                       item.position, to)
                found.append((item, context, keys[seats[item.prover]],
                              outputs[item.shuffle][item.position]))
    return found


@pytest.mark.parametrize("name", LOGS)
def test_every_share_proof_checks_from_the_log_alone(name: str) -> None:
    found = shares(list(read_log(V2 / name).entries))
    assert found
    for item, context, key, ciphertext in found:
        proof = Proof.from_wire(item.proof, peer=None, item="share proof")
        share = Point.from_wire(item.share, peer=None, item="share")
        verify_dleq(proof, key, ciphertext.c1, share, context, peer=None, item="share")


def test_the_vectors_start_every_kind_of_deck() -> None:
    """deck.md §6.1's three starting lists each meet the verifier above at least once."""
    kinds = set()
    for name in LOGS:
        for entry in read_log(V2 / name).entries:
            start = entry.body.start if isinstance(entry.body, ShuffleDeck) else None
            if start is not None:
                kinds.add("sent back" if start.sources and not start.faces else
                          "reshuffle" if start.faces else "fresh")
    assert kinds == {"fresh", "reshuffle", "sent back"}


def test_the_named_round_is_the_one_the_proof_binds() -> None:
    """A neighbouring round (the stranger's guess of issue 29) fails the proof."""
    entries = list(read_log(V2 / "3p-handover.unolog").entries)
    table_id = entries[0].message.table_id
    shuffles = [e for e in entries if isinstance(e.body, ShuffleDeck)]
    # The dealer selection after the removal: deck 2, named in the void round 1.
    entry, (body, deck, key, turn) = next(
        (e, f) for e, f in zip(shuffles, proofs(entries), strict=True) if f[0].shuffle == 2)
    assert body.start is not None
    assert body.start.round == 1
    for wrong in (0, 2):
        with pytest.raises(ProofRejected):
            check(body, deck, key, turn, entry.author.key, table_id, wrong)
