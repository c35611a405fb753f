"""Benchmark of the mental-poker deck (issue 3; docs/performance.md).

Every peer of an N-peer table runs in this process, each doing exactly its own
share of the protocol (it decodes and checks what the others send, never its
own messages), so "per peer" figures are the table's total CPU divided by N.
CPU time is ``time.process_time``. Loops are bounded in count and in time.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from uno_p2p.crypto.audit import REEXECUTED, DeckRecord, DeckResult, verify_deck
from uno_p2p.crypto.cards import CARD_COUNT
from uno_p2p.crypto.context import PURPOSE_DEAL, Verified
from uno_p2p.crypto.deck import Deck
from uno_p2p.crypto.group import OPS, VALID_POINTS, G, Point, Scalar, base_mul
from uno_p2p.crypto.identity import VERIFIED_SIGNATURES
from uno_p2p.crypto.keys import (
    KeyAnnouncement,
    PeerSecrets,
    SecretsReveal,
    verify_key_announcement,
    verify_secrets_reveal,
)
from uno_p2p.crypto.shares import DecryptionShare
from uno_p2p.crypto.shuffle import ShuffleMessage, make_shuffle
from uno_p2p.crypto.shuffle_proof import VERIFIED
from uno_p2p.wire.envelope import RECENT_DECODES

CARDS_EACH = 7


def cpu_per_call(action: Callable[[], object], *, count: int, budget: float) -> float:
    """Median CPU seconds of ``action`` over at most ``count`` runs within ``budget`` s."""
    samples: list[float] = []
    deadline = time.monotonic() + budget
    while len(samples) < count and (not samples or time.monotonic() < deadline):
        start = time.process_time()
        action()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


@dataclass
class BenchPeer:
    secrets: PeerSecrets
    keys: list[Verified[KeyAnnouncement]] = field(default_factory=list)
    deck: Deck | None = None


@dataclass
class BenchTable:
    """N peers in memory; every message crosses as its wire form."""

    n: int
    table: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    peers: list[BenchPeer] = field(default_factory=list)
    messages: list[ShuffleMessage] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.peers = [
            BenchPeer(PeerSecrets.from_seed(
                secrets.token_bytes(32), table=self.table, peer=secrets.token_bytes(32)
            ))
            for _ in range(self.n)
        ]

    def ident(self, seat: int) -> bytes:
        return self.peers[seat].secrets.peer

    def setup(self) -> None:
        wires = [peer.secrets.announce().to_wire() for peer in self.peers]
        for me, peer in enumerate(self.peers):
            peer.keys = [
                self._own_key(me) if seat == me else verify_key_announcement(
                    KeyAnnouncement.from_wire(wire, peer=str(seat)),
                    table=self.table, peer=self.ident(seat),
                )
                for seat, wire in enumerate(wires)
            ]
            peer.deck = Deck(table=self.table, round_number=1, deck=0, keys=peer.keys,
                             card_ids=range(CARD_COUNT))

    def _own_key(self, me: int) -> Verified[KeyAnnouncement]:
        # A peer checks its own announcement too (cheap: one Schnorr verify),
        # since the deck takes only verified keys.
        return verify_key_announcement(
            self.peers[me].secrets.announce(), table=self.table, peer=self.ident(me)
        )

    def deck_of(self, seat: int) -> Deck:
        deck = self.peers[seat].deck
        if deck is None:
            raise RuntimeError("setup() first")
        return deck

    def shuffle(self) -> list[float]:
        """Every seat shuffles in turn; returns each seat's CPU for making its own."""
        making = []
        for seat in range(self.n):
            start = time.process_time()
            own, proof = self.deck_of(seat).make_shuffle(self.peers[seat].secrets)
            making.append(time.process_time() - start)
            wire = own.to_wire()
            self.messages.append(own)
            for me in range(self.n):
                deck = self.deck_of(me)
                message = own if me == seat else ShuffleMessage.from_wire(wire, peer=str(seat))
                deck.accept_shuffle(deck.verify_shuffle(message, seat, proof))
        return making

    def deal(self, position: int, to_seat: int) -> int:
        recipient = self.ident(to_seat)
        for seat in range(self.n):
            if seat == to_seat:
                continue
            wire = self.deck_of(seat).make_share(
                self.peers[seat].secrets, position, purpose=PURPOSE_DEAL, recipient=recipient
            ).to_wire()
            for me in range(self.n):
                if me != seat:
                    deck = self.deck_of(me)
                    deck.accept_share(deck.verify_share(
                        DecryptionShare.from_wire(wire, peer=str(seat)), seat=seat,
                        position=position, purpose=PURPOSE_DEAL, recipient=recipient,
                    ))
        return self.deck_of(to_seat).open_private(self.peers[to_seat].secrets, position)

    def deal_all(self) -> None:
        for position in range(CARDS_EACH * self.n):
            self.deal(position, position % self.n)

    def verify_reveal(self) -> DeckResult:
        """What anyone (the audit) does with the end-of-game reveal of this deck."""
        keys = self.peers[0].keys
        reveals: dict[int, Verified[SecretsReveal]] = {}
        for seat, peer in enumerate(self.peers):
            wire = peer.secrets.reveal().to_wire()
            reveals[seat] = verify_secrets_reveal(
                SecretsReveal.from_wire(wire, peer=str(seat)), keys[seat]
            )
        record = DeckRecord(1, 0, tuple(range(CARD_COUNT)), tuple(range(self.n)),
                            tuple(self.messages))
        return verify_deck(record, keys=keys, reveals=reveals)


def timed(action: Callable[[], object]) -> tuple[float, dict[str, int]]:
    OPS.reset()
    start = time.process_time()
    action()
    return time.process_time() - start, OPS.snapshot()


def timed_shuffle(table: BenchTable) -> tuple[float, float, dict[str, int]]:
    """The whole shuffle phase, and the median CPU of one peer making its shuffle."""
    OPS.reset()
    start = time.process_time()
    making = table.shuffle()
    return time.process_time() - start, statistics.median(making), OPS.snapshot()


def per_players(n: int) -> dict[str, object]:
    """Setup, shuffle, deal 7 each and reveal for one N-peer table."""
    table = BenchTable(n)
    setup_s, _ = timed(table.setup)
    shuffle_total, one_shuffle, shuffle_ops = timed_shuffle(table)
    deal_total, deal_ops = timed(table.deal_all)
    reveal_s, reveal_ops = timed(table.verify_reveal)
    cards = CARDS_EACH * n
    return {
        "shuffle_s": round(one_shuffle, 4),  # one peer making its shuffle of 108
        # The whole shuffle phase per peer: its shuffle and its checks of the others'.
        "shuffle_phase_per_peer_s": round(shuffle_total / n, 4),
        "deal_s": round(deal_total / n, 4),  # per peer
        "deal_table_total_s": round(deal_total, 4),
        "reveal_verify_s": round(reveal_s, 4),
        "ready_per_peer_s": round((setup_s + shuffle_total + deal_total) / n, 4),
        "ready_table_total_s": round(setup_s + shuffle_total + deal_total, 4),
        "ops": {
            # Each shuffle: N muls (r·H) + 5N+1 for its proof to make; 8N+7 to verify
            # the proof (7N+6 for seat 0's, whose input has c1 = O), here by all N peers.
            "shuffle_mul": shuffle_ops["mul"],
            "shuffle_mul_min": n * (6 * CARD_COUNT + 1) + n * (7 * CARD_COUNT + 6)
            + n * (n - 1) * (8 * CARD_COUNT + 7),
            "shuffle_validate": shuffle_ops["validate"],
            # The others decode the deck (2N points); everyone decodes the proof (2N).
            "shuffle_validate_min": n * (n - 1) * 2 * CARD_COUNT + n * n * 2 * CARD_COUNT,
            # Per share: 1 mul (the share) + 1 (the proof's nonce on c1) to make,
            # 3 muls to verify, by each of the N-1 peers other than its maker; plus
            # the recipient's own share.
            "deal_mul": deal_ops["mul"],
            "deal_mul_min": cards * ((n - 1) * (2 + 3 * (n - 1)) + 1),
            "reveal_mul": reveal_ops["mul"], "reveal_base_mul": reveal_ops["base_mul"],
            "reveal_base_mul_min": n * 2 * CARD_COUNT + n,
        },
    }


def primitives(budget: float) -> dict[str, float]:
    """Per-operation CPU costs, median of bounded repetitions."""
    scalar = Scalar.of(secrets.randbits(256))
    point = base_mul(scalar)
    table = BenchTable(4)
    table.setup()
    table.shuffle()
    deck, dealer = table.deck_of(0), table.peers[1].secrets
    share = table.deck_of(1).make_share(dealer, 0, purpose=PURPOSE_DEAL, recipient=table.ident(0))
    positions = iter(range(1, CARD_COUNT))  # each timed deal uses a fresh position

    def one_shuffle() -> ShuffleMessage:
        return make_shuffle(deck.ciphertexts, shuffle_master=dealer.shuffle_master,
                            round_number=1, deck=1, joint_key=deck.joint_key)

    def verify_one_share() -> object:
        return deck.verify_share(share, seat=1, position=0, purpose=PURPOSE_DEAL,
                                 recipient=table.ident(0))

    def verify_one_shuffle() -> object:
        wire = table.messages[1].to_wire()
        return ShuffleMessage.from_wire(wire, peer="1")

    return {
        "scalarmult_us": cpu_per_call(lambda: point * scalar, count=2000, budget=budget) * 1e6,
        "base_mul_us": cpu_per_call(lambda: base_mul(scalar), count=2000, budget=budget) * 1e6,
        "validate_point_us": cpu_per_call(
            lambda: Point.from_wire(G.data, peer=None, item="p"), count=2000, budget=budget
        ) * 1e6,
        "shuffle_108_ms": cpu_per_call(one_shuffle, count=20, budget=budget) * 1e3,
        "decode_shuffle_108_ms": cpu_per_call(verify_one_shuffle, count=20, budget=budget) * 1e3,
        "make_share_ms": cpu_per_call(
            lambda: table.deck_of(1).make_share(dealer, 0, purpose=PURPOSE_DEAL,
                                                recipient=table.ident(0)),
            count=200, budget=budget,
        ) * 1e3,
        "verify_share_ms": cpu_per_call(verify_one_share, count=200, budget=budget) * 1e3,
        # All 3 other peers make their share, each checked by the 3 peers other
        # than its maker; the recipient opens the card. Table total.
        "deal_one_card_n4_ms": cpu_per_call(
            lambda: table.deal(next(positions), 2), count=50, budget=budget
        ) * 1e3,
    }


def render(result: dict[str, object], counts: list[int]) -> str:
    """The readable table."""
    lines = ["Per operation (CPU, median)"]
    for key, value in result.items():
        if not isinstance(value, dict):
            lines.append(f"  {key:<24} {value:>10.3f}")
    header = f"{'N':>3} {'shuffle_s':>10} {'phase/peer':>10} {'deal_s':>9} {'ready/peer':>11} "
    header += f"{'ready/table':>12} "
    header += f"{'reveal_s':>9}  mul counted/min (shuffle, deal)"
    lines += [
        "",
        "Per table of N peers, CPU seconds: shuffle_s = one peer making its shuffle of 108;",
        "phase/peer = that plus checking the others'; deal_s = 7 cards to everybody, all",
        "proofs made and checked by every peer, per peer; reveal_s = checking the end-of-game",
        "reveal of one deck (re-executing every shuffle).",
        header,
    ]
    for n in counts:
        row = result[str(n)]
        if not isinstance(row, dict):
            continue
        ops = row["ops"]
        lines.append(
            f"{n:>3} {row['shuffle_s']:>10.4f} {row['shuffle_phase_per_peer_s']:>10.4f} "
            f"{row['deal_s']:>9.4f} "
            f"{row['ready_per_peer_s']:>11.4f} {row['ready_table_total_s']:>12.4f} "
            f"{row['reveal_verify_s']:>9.4f}  {ops['shuffle_mul']}/{ops['shuffle_mul_min']}, "
            f"{ops['deal_mul']}/{ops['deal_mul_min']}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="Benchmark the mental-poker deck.")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--players", default="2,4,6,10", help="comma-separated N values")
    parser.add_argument("--budget", type=float, default=2.0,
                        help="max seconds spent on each per-operation figure")
    args = parser.parse_args()
    # Every peer pays its own checks, as on separate machines (no shared memo).
    VERIFIED.enabled = REEXECUTED.enabled = VALID_POINTS.enabled = RECENT_DECODES.enabled = False
    VERIFIED_SIGNATURES.enabled = False
    counts = [int(n) for n in args.players.split(",")]
    if any(not 2 <= n <= 10 for n in counts):
        parser.error("player counts are 2..10")
    result: dict[str, object] = {
        key: round(value, 4) for key, value in primitives(args.budget).items()
    }
    for n in counts:
        result[str(n)] = per_players(n)
    row = result.get("4")
    if isinstance(row, dict):
        result["setup_4_ready_s"] = row["ready_table_total_s"]
    print(json.dumps(result) if args.json else render(result, counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
