"""The public plug for what a seat sends (``uno_p2p/table/player.py``): a ``Player``
given to a peer decides its moves, and the seat sends those and no other."""

from __future__ import annotations

from uno_p2p.errors import IllegalAction
from uno_p2p.rules.actions import Action, TimeOut
from uno_p2p.rules.legal import legal_actions
from uno_p2p.rules.options import preset
from uno_p2p.table.bodies import Move, PrivateShares
from uno_p2p.table.memnet import TableSetup, game_over, seat_table
from uno_p2p.table.player import Seat
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.registry import Body


class FirstListed:
    """A scripted player: on each decision of its own, the first legal action listed
    (not what the seat's bot would choose); it reveals and works as it owes."""

    def __init__(self) -> None:
        self.chosen: list[Action] = []

    def move(self, seat: Seat) -> bool:
        state = seat.state
        game, me = state.engine, state.my_seat
        if game is None or me is None or state.phase != TablePhase.PLAYING or \
                game.awaiting or game.decider() != me or seat.outstanding is not None or \
                any(s not in game.known for s in game.hands[me]):
            return False
        actions = legal_actions(game, me)
        if not actions:
            return False
        try:
            seat.act(actions[0])
        except IllegalAction:
            return False
        self.chosen.append(actions[0])
        return True

    def reveal(self, seat: Seat, shares: PrivateShares) -> PrivateShares:
        return shares

    def work(self, seat: Seat, body: Body) -> Body | None:
        return body


def test_a_seat_sends_the_moves_its_player_chose_and_no_other() -> None:
    net = seat_table(TableSetup(2, preset("official", ["target=30", "turn_timer=60"]),
                                b"a scripted player"))
    bob = list(net.peers.values())[1]
    script = FirstListed()
    bob.player = script
    net.run(until=game_over, max_steps=400_000)
    assert all(p.state.phase == TablePhase.ENDED and p.stopped is None
               for p in net.peers.values())
    sent = [e.body.action for e in net.entries() if e.author == bob.peer_id
            and isinstance(e.body, Move) and not isinstance(e.body.action, TimeOut)]
    assert script.chosen, "the player was asked"
    assert sent == script.chosen
