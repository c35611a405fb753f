"""What a seat at a network table is told, sans-IO (issue 25): the news as rich as
offline, from the player's seat, and the round-over box with every hand.

A whole game of bot peers on the in-memory network (``table.memnet``); one
``NetSession`` hears one seat's events as its node would hand them over, one
step at a time. Expected values come from the rules: RULES.md "Scoring"
(``points``: the round's winner scores the sum of the other hands, which the
round-end reveal opens) and the offline words (``ui.words``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import pytest

from tests.table.test_handover import MAX_STEPS
from uno_p2p.net.driver import Driver
from uno_p2p.net.node import HostNode
from uno_p2p.rules.cards import points
from uno_p2p.rules.options import preset
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.ui.netsession import NetSession
from uno_p2p.ui.words import back_line, reconnecting_line

pytestmark = [pytest.mark.game, pytest.mark.xdist_group("test_netsession_news")]

READER = 1


@dataclass
class Seat:
    """Stands in for the node: what ``NetSession`` reads of it (``seated``)."""

    seated: TablePeer
    told: int = 0
    session: NetSession = field(default_factory=NetSession)


def _play(seed: bytes, players: int = 3, target: int = 150) -> Seat:
    net: Network = seat_table(TableSetup(players, preset("official", [f"target={target}"]),
                                         seed, preset="official"))
    peer = list(net.peers.values())[READER]
    seat = Seat(peer)
    seat.session.driver = cast(Driver, seat)

    def tell(n: Network) -> bool:
        events = n.events[peer.peer_id.key]
        for event in events[seat.told:]:
            seat.session.event(event)
        seat.told = len(events)
        return game_over(n)

    net.run(until=tell, max_steps=MAX_STEPS)
    tell(net)
    return seat


@pytest.fixture(scope="module")
def seat() -> Seat:
    # One round shows the point (its news, its round-over box); a game to 150 took a
    # minute of the suite for the same checks.
    return _play(b"network news 1", target=1)


def test_the_round_over_box_shows_every_hand_the_reveal_opened(seat: Seat) -> None:
    summaries = [s for s in seat.session.summaries if s.winner >= 0]
    assert summaries, "the game had rounds"
    for summary in summaries:
        hands = summary.hands
        assert hands[summary.winner] == ()
        assert any(hands), "the losers' hands are open"
        # RULES.md "Scoring" (points): the winner scores the sum of the other hands.
        assert summary.changes[summary.winner] == sum(points(c) for h in hands for c in h)


def test_the_news_tells_the_game_from_the_players_seat(seat: Seat) -> None:
    news = list(seat.session.news)
    news = news[next(i for i, line in enumerate(news) if line.startswith("The game starts")):]
    me = seat.seated.name
    assert not [line for line in news if line.startswith(me)], "the reader is You"
    assert any(line.startswith("You ") for line in news)
    assert "You are skipped." in news
    assert any(line.startswith("To choose the dealer: ") for line in news)
    assert any(line.startswith("The starter card is ") for line in news)
    assert any(line.startswith("Round ") and " deal" in line for line in news)
    assert any(line.endswith(" won the game!") for line in news)
    assert not any("(deal)" in line or "took " in line for line in news), \
        "the table's own plain words give way to the offline narration"


async def test_a_link_that_breaks_and_comes_back_is_one_short_line_each() -> None:
    # Issue 25: "Bot 1 is reconnecting…", "Bot 1 is back.", not the node's log sentence
    # ("Bot 1 (4d8a-…) lost its link (closed): the connection was closed").
    net = seat_table(TableSetup(3, preset("official"), b"links", preset="official"))
    net.run(until=lambda n: n.host.state.engine is not None, max_steps=MAX_STEPS)
    host, bot = net.host, list(net.peers.values())[1]
    session = NetSession()
    node = HostNode(host, None, on_event=session.event, on_note=session.note)
    session.driver = node
    before = len(session.news)
    node.missing.add(bot.peer_id.key)
    session.note(f"{bot.name} ({bot.peer_id.fingerprint}) lost its link (closed): "
                 "the connection was closed")
    node.missing.discard(bot.peer_id.key)
    session.note(f"{bot.name} is back")
    assert list(session.news[before:]) == [reconnecting_line(bot.name), back_line(bot.name)]
