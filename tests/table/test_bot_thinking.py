"""A bot that thinks (``Initiative.think_ms``) so people can follow it: it moves
that long after it first saw the position it answers, once per position, never
long enough to be timed out, and the game goes on to its end."""

from __future__ import annotations

import pytest

from tests.table import adversaries as adv
from uno_p2p.rules.actions import TimeOut
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Move
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.player import Seat
from uno_p2p.wire.envelope import Entry

THINK_MS = 700


class Watched(adv.Playing):
    """Notes when it first saw each log position, and when its bot moved at one."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.seen: dict[int, int] = {}
        self.moved: list[tuple[int, int]] = []

    def _note(self) -> None:
        self.seen.setdefault(self.state.seq, self.now_ms)

    def receive(self, data: bytes, now_ms: int | None = None, sender: object = None,
                arrived_ms: int | None = None) -> None:
        super().receive(data, now_ms, sender, arrived_ms)  # type: ignore[arg-type]
        self._note()

    def handle_timer(self, now_ms: int) -> None:
        super().handle_timer(now_ms)
        self._note()

    def move(self, seat: Seat) -> bool:
        self._note()
        seq = seat.state.seq
        made = super().move(seat)
        if made:
            self.moved.append((seq, self.now_ms))
        return made


def _play(think_ms: int, options: str) -> tuple[Network, tuple[Entry, ...]]:
    """A one-round game of three bots; the joiners think ``think_ms``, the host not."""
    net = seat_table(TableSetup(3, preset("official", ["target=1", *options.split()]),
                                b"thinking bots"), peer_class=Watched)
    for peer in net.peers.values():
        if not peer.is_host:
            peer.initiative.think_ms = think_ms
    net.run(until=game_over)
    assert game_over(net)
    return net, net.entries()


def _moves(entries: tuple[Entry, ...]) -> list[tuple[bytes, Move]]:
    return [(e.author.key, e.body) for e in entries if isinstance(e.body, Move)]


def test_without_thinking_a_bot_answers_at_once() -> None:
    net, _ = _play(0, "")
    for peer in net.peers.values():
        assert isinstance(peer, Watched)
        assert peer.moved
        assert all(at == peer.seen[seq] for seq, at in peer.moved)


@pytest.mark.parametrize("options", ["", "turn_timer=30"])
def test_a_thinking_bot_moves_after_its_time(options: str) -> None:
    slow_net, slow = _play(THINK_MS, options)
    assert len(_moves(slow)) > 10
    thinkers = [p for p in slow_net.peers.values() if not p.is_host]
    for peer in thinkers:
        assert isinstance(peer, Watched)
        assert peer.moved, f"{peer.name} never moved"
        for seq, at in peer.moved:
            assert at - peer.seen[seq] >= THINK_MS, (peer.name, seq)
    waits = [at - p.seen[seq] for p in thinkers if isinstance(p, Watched) for seq, at in p.moved]
    assert max(waits) == THINK_MS  # it thinks once per position, not once per look
    host = slow_net.host
    assert isinstance(host, Watched)
    assert all(at == host.seen[seq] for seq, at in host.moved)  # think_ms 0: at once


def test_a_bot_never_thinks_past_half_the_turn_timer() -> None:
    net, _ = _play(10_000, "turn_timer=2")
    waits = [at - p.seen[seq] for p in net.peers.values() if isinstance(p, Watched)
             and not p.is_host for seq, at in p.moved]
    assert waits
    assert max(waits) == 1_000
    assert not [m for _, m in _moves(net.entries()) if isinstance(m.action, TimeOut)]
