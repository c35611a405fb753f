"""Known-answer vectors for the deck (docs/protocol/deck.md §10).

``build_vectors()`` derives every value from fixed inputs with the real code;
``protocol/vectors/deck.json`` stores the expected bytes so that a change of
encoding is caught and a second implementation can check itself. The file is
frozen: no test writes it, and ``--regenerate`` refuses while the code still
speaks the protocol version the file was made for (its labels start
``uno-lan/deck/v1/``). Changing these bytes is a new protocol version: change
``LABEL_PREFIX``, say what changed in docs/protocol/deck.md, then::

    python -m tests.crypto.deck_vectors --regenerate
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from uno_p2p.crypto.cards import card_points
from uno_p2p.crypto.context import PURPOSE_DEAL, ProofContext
from uno_p2p.crypto.group import LABEL_PREFIX, frame
from uno_p2p.crypto.keys import PeerSecrets, joint_key, verify_key_announcement
from uno_p2p.crypto.shares import make_share
from uno_p2p.crypto.shuffle import (
    initial_deck,
    make_shuffle,
    permutation,
    rerandomisers,
    shuffle_seed,
)

PATH = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "deck.json"
TABLE = bytes.fromhex("7461626c652d766563746f72")  # "table-vector"
SEEDS = [bytes([seat + 1]) * 32 for seat in range(2)]
PEERS = [bytes([0xA0 + seat]) * 32 for seat in range(2)]
SMALL_DECK = [3, 17, 42, 100, 107]
ROUND, DECK = 1, 0


def build_vectors() -> dict[str, Any]:
    """Every vector, as JSON-ready values (bytes as hex)."""
    secrets = [
        PeerSecrets.from_seed(seed, table=TABLE, peer=peer)
        for seed, peer in zip(SEEDS, PEERS, strict=True)
    ]
    keys = [
        verify_key_announcement(s.announce(), table=TABLE, peer=s.peer) for s in secrets
    ]
    public = joint_key(keys)
    deck = initial_deck(SMALL_DECK)
    shuffles = []
    for peer_secrets in secrets:
        deck = make_shuffle(deck, shuffle_master=peer_secrets.shuffle_master,
                            round_number=ROUND, deck=DECK, joint_key=public).ciphertexts
        shuffles.append([c.to_wire().hex() for c in deck])
    context = ProofContext(TABLE, ROUND, DECK, PURPOSE_DEAL, PEERS[0], 2, PEERS[1])
    share = make_share(secrets[0], deck[2], context)
    seed = shuffle_seed(secrets[0].shuffle_master, ROUND, DECK)
    return {
        "frame_card_0": frame("card", 0).hex(),
        "card_points": [point.data.hex() for point in card_points()],
        "table": TABLE.hex(),
        "peers": [
            {
                "seed": seed_.hex(), "peer": s.peer.hex(),
                "key_share": s.key_share.to_wire().hex(),
                "public_key": s.public_key.data.hex(),
                "shuffle_master": s.shuffle_master.hex(),
                "announcement": _hex(s.announce().to_wire()),
            }
            for seed_, s in zip(SEEDS, secrets, strict=True)
        ],
        "joint_key": public.data.hex(),
        "shuffle": {
            "round": ROUND, "deck": DECK, "card_ids": SMALL_DECK,
            "peer0_seed": seed.hex(),
            "peer0_permutation_108": list(permutation(seed, 108)),
            "peer0_rerandomisers_5": [r.to_wire().hex() for r in rerandomisers(seed, 5)],
            "outputs": shuffles,
        },
        "deal_share": {
            "context": {
                "table": TABLE.hex(), "round": ROUND, "deck": DECK, "purpose": PURPOSE_DEAL,
                "peer": PEERS[0].hex(), "position": 2, "recipient": PEERS[1].hex(),
            },
            "wire": _hex(share.to_wire()),
        },
    }


def _hex(value: object) -> object:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):
        return [_hex(item) for item in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regenerate", action="store_true", help=f"write {PATH}")
    args = parser.parse_args()
    text = json.dumps(build_vectors(), indent=1) + "\n"
    if args.regenerate:
        stored = json.loads(PATH.read_text(encoding="utf-8"))["frame_card_0"]
        if LABEL_PREFIX.encode("ascii").hex() in stored:
            raise SystemExit(f"{PATH} is frozen for {LABEL_PREFIX}: a change of these bytes is a "
                             "new protocol version (change LABEL_PREFIX and the spec first)")
        PATH.write_text(text, encoding="utf-8")
        print(f"wrote {PATH}")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
