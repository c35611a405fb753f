"""Whom a joiner resumed from its seat file dials (net.md §5.3, §8): the sequencer the
log names, at the address its seat saved (after a hand-over the host is gone), then the
other members, then the host; and what it tells the seat file as it learns addresses.

The peers are the in-memory table's (``uno_p2p.table.memnet``): no socket is opened.
"""

from __future__ import annotations

import pytest

from uno_p2p.net.mesh import ADDRESSES
from uno_p2p.net.node import JoinNode
from uno_p2p.rules.options import preset
from uno_p2p.table.memnet import Network, TableSetup, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.wire.codec import pack

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("test_resume_targets")]

MAX_STEPS = 400_000
HOST = ("192.0.2.1", 7777)
#: A member passing on where others listen: what it says is a hint (net.md §5.3).
TELLER = b"\x09" * 32


def _table(seed: bytes) -> tuple[Network, list[TablePeer]]:
    net = seat_table(TableSetup(4, preset("official", ["target=30"]), seed, preset="official"))
    lobby = net.host.state.lobby
    assert lobby is not None
    return net, [net.peers[p.key] for p in lobby.joined]


def _where(peers: list[TablePeer]) -> dict[bytes, tuple[str, int]]:
    return {p.peer_id.key: ("127.0.0.1", 41000 + i) for i, p in enumerate(peers)}


def _hint(node: JoinNode, key: bytes, host: str, port: int, stamp: int) -> None:
    """What a member passes on of where ``key`` listens (an ``a`` frame, net.md §5.1)."""
    assert node.mesh.control(TELLER, ADDRESSES + pack([[key, host, port, stamp]]))


def _resumed(me: TablePeer, host: TablePeer, members: dict[bytes, tuple[str, int]],
             told: list[dict[bytes, tuple[str, int]]] | None = None) -> JoinNode:
    return JoinNode(me.identity, HOST, make_peer=None, peer=me, on_event=lambda _: None,
                    on_note=lambda _: None, code="tulip-42", expect_host=host.peer_id,
                    members=members, on_members=None if told is None else told.append)


@pytest.fixture(scope="module")
def handed_over() -> tuple[Network, list[TablePeer]]:
    """A table of four whose host went silent mid-game: Bob took over (read only)."""
    net, peers = _table(b"resume targets")
    ann = peers[0]
    net.run(until=lambda n: ann.state.seq > 40, max_steps=MAX_STEPS)
    net.silent.add(ann.peer_id.key)  # the host is gone: the next seat takes over
    net.run(until=lambda n: all(p.state.term >= 1 for p in peers[1:]), max_steps=MAX_STEPS)
    assert all(p.host_id == peers[1].peer_id for p in peers[1:])
    return net, peers


def test_after_a_hand_over_it_dials_the_new_sequencer_first_then_the_others_then_the_host(
        handed_over: tuple[Network, list[TablePeer]]) -> None:
    _, (ann, bob, cy, di) = handed_over
    where = _where([bob, cy, di])
    node = _resumed(cy, ann, where)
    assert node._targets() == [(where[bob.peer_id.key], bob.peer_id, None),
                               (where[di.peer_id.key], di.peer_id, None),
                               (HOST, ann.peer_id, "tulip-42")]


def test_a_member_whose_address_it_never_learned_is_not_dialled(
        handed_over: tuple[Network, list[TablePeer]]) -> None:
    _, (ann, _, cy, di) = handed_over
    where = _where([di])
    node = _resumed(cy, ann, where)
    assert node._targets() == [(where[di.peer_id.key], di.peer_id, None),
                               (HOST, ann.peer_id, "tulip-42")]


def test_while_the_host_is_the_sequencer_it_is_dialled_first_with_the_join_code() -> None:
    _, (ann, bob, cy, di) = _table(b"resume targets, host alive")
    where = _where([bob, di])
    node = _resumed(cy, ann, where)
    assert node._targets() == [(HOST, ann.peer_id, "tulip-42"),
                               (where[bob.peer_id.key], bob.peer_id, None),
                               (where[di.peer_id.key], di.peer_id, None)]


def test_a_node_with_a_link_dials_only_the_host(
        handed_over: tuple[Network, list[TablePeer]]) -> None:
    _, (ann, bob, cy, di) = handed_over
    node = _resumed(cy, ann, _where([bob, di]))
    node.mesh.links[di.peer_id.key] = object()  # type: ignore[assignment]
    assert node._targets() == [(HOST, ann.peer_id, "tulip-42")]


def test_the_seat_is_told_the_members_addresses_only_as_they_change() -> None:
    _, (ann, bob, cy, di) = _table(b"resume targets, learning")
    told: list[dict[bytes, tuple[str, int]]] = []
    node = _resumed(cy, ann, _where([bob]), told)
    _hint(node, cy.peer_id.key, "127.0.0.1", 42000, 5)  # itself: no dial
    _hint(node, b"\x07" * 32, "127.0.0.1", 42001, 5)  # no member of this table
    _hint(node, bob.peer_id.key, "127.0.0.1", 41000, 5)  # what the seat had
    assert told == []
    _hint(node, di.peer_id.key, "10.0.0.4", 42002, 5)
    _hint(node, bob.peer_id.key, "10.0.0.2", 42003, 6)
    assert told == [{bob.peer_id.key: ("127.0.0.1", 41000), di.peer_id.key: ("10.0.0.4", 42002)},
                    {bob.peer_id.key: ("10.0.0.2", 42003), di.peer_id.key: ("10.0.0.4", 42002)}]


def test_a_resume_tries_every_address_it_knows_for_a_member(
        handed_over: tuple[Network, list[TablePeer]]) -> None:
    """Issue 24 item 7: the seat file's address and a hint a member passed on since are
    both tried, so one false hint cannot leave a resumed joiner with nobody to reach."""
    _, (ann, bob, cy, _) = handed_over
    where = _where([bob])
    node = _resumed(cy, ann, where)
    _hint(node, bob.peer_id.key, "127.0.0.1", 9, 5)  # a false hint
    assert node._targets() == [(("127.0.0.1", 9), bob.peer_id, None),
                               (where[bob.peer_id.key], bob.peer_id, None),
                               (HOST, ann.peer_id, "tulip-42")]
