"""Known-answer vectors for the proof of shuffle (docs/protocol/deck.md §6.4, §10).

``build_vectors()`` derives every value with the real code from the fixed
inputs of ``deck_vectors`` (the same table, peers and 5-card deck);
``protocol/vectors/shuffle.json`` stores the expected bytes. The tests compare
against the stored file and never rewrite it. Regenerate (only after a
deliberate, documented change of the protocol) with::

    python -m tests.crypto.shuffle_vectors --regenerate
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from tests.crypto.deck_vectors import DECK, PEERS, ROUND, SEEDS, SMALL_DECK, TABLE
from uno_p2p.crypto.cards import CARD_COUNT
from uno_p2p.crypto.keys import PeerSecrets, joint_key, verify_key_announcement
from uno_p2p.crypto.shuffle import (
    Ciphertext,
    initial_deck,
    make_shuffle,
    permutation,
    rerandomisers,
    shuffle_context,
    shuffle_seed,
)
from uno_p2p.crypto.shuffle_proof import (
    GENERATOR_LABEL,
    generators,
    make_proven_shuffle,
    statement_digest,
)

PATH = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "shuffle.json"


def _deck_hex(deck: tuple[Ciphertext, ...]) -> list[str]:
    return [c.to_wire().hex() for c in deck]


def build_vectors() -> dict[str, Any]:
    """Every vector, as JSON-ready values (bytes as hex)."""
    secrets = [PeerSecrets.from_seed(seed, table=TABLE, peer=peer)
               for seed, peer in zip(SEEDS, PEERS, strict=True)]
    public = joint_key([verify_key_announcement(s.announce(), table=TABLE, peer=s.peer)
                        for s in secrets])
    # The small deck: peer 1's turn (turn 1), after peer 0's shuffle of deck.json.
    first = make_shuffle(initial_deck(SMALL_DECK), shuffle_master=secrets[0].shuffle_master,
                         round_number=ROUND, deck=DECK, joint_key=public).ciphertexts
    context = shuffle_context(TABLE, ROUND, DECK, PEERS[1], turn=1)
    message, proof = make_proven_shuffle(first, shuffle_master=secrets[1].shuffle_master,
                                         round_number=ROUND, deck=DECK, joint_key=public,
                                         context=context)
    seed = shuffle_seed(secrets[1].shuffle_master, ROUND, DECK)
    size = len(SMALL_DECK)
    # The full deck: peer 0's turn (turn 0) on the fresh 108 cards.
    full_context = shuffle_context(TABLE, ROUND, DECK, PEERS[0], turn=0)
    full, full_proof = make_proven_shuffle(
        initial_deck(range(CARD_COUNT)), shuffle_master=secrets[0].shuffle_master,
        round_number=ROUND, deck=DECK, joint_key=public, context=full_context)
    full_wire = full_proof.to_wire()
    return {
        "generator_label": "uno-lan/deck/v1/" + GENERATOR_LABEL,
        "generators_0_to_5": [h.data.hex() for h in generators(size)],
        "generator_108": generators(CARD_COUNT)[CARD_COUNT].data.hex(),
        "table": TABLE.hex(),
        "joint_key": public.data.hex(),
        "small": {
            "round": ROUND, "deck": DECK, "turn": 1, "shuffler": PEERS[1].hex(),
            "shuffle_master": secrets[1].shuffle_master.hex(), "seed": seed.hex(),
            "permutation": list(permutation(seed, size)),
            "rerandomisers": [r.to_wire().hex() for r in rerandomisers(seed, size)],
            "input": _deck_hex(first),
            "output": _deck_hex(message.ciphertexts),
            "statement_digest": statement_digest(first, message.ciphertexts, public,
                                                 context).hex(),
            "proof": proof.to_wire().hex(),
        },
        "full": {
            "round": ROUND, "deck": DECK, "turn": 0, "shuffler": PEERS[0].hex(),
            "card_ids": "0..107 ascending, each (O, M_id)",
            "output_sha256": hashlib.sha256(b"".join(
                c.to_wire() for c in full.ciphertexts)).hexdigest(),
            "proof_bytes": len(full_wire),
            "proof_sha256": hashlib.sha256(full_wire).hexdigest(),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regenerate", action="store_true", help="rewrite shuffle.json")
    args = parser.parse_args()
    text = json.dumps(build_vectors(), indent=1) + "\n"
    if args.regenerate:
        PATH.write_text(text, encoding="utf-8")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
