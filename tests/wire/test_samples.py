"""The sample log (``uno_p2p.wire.samples``): the fixture of the CLI, store and fuzz
tests has the shape its docstring gives, so what those tests read is what they mean."""

from __future__ import annotations

from uno_p2p.wire.game import DecryptionShare, PlayCard
from uno_p2p.wire.lobby import Start
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.samples import sample_log


def test_the_sample_log_has_the_shape_its_docstring_gives() -> None:
    players, turns = 3, 5
    log = sample_log(players=players, turns=turns)
    start = next(e for e in log if isinstance(e.body, Start))
    assert isinstance(start.body, Start)
    seats = start.body.seats
    rounds = log[start.seq + 1:]
    assert len(rounds) == 3 * turns
    for t in range(turns):
        share, sealed, play = rounds[3 * t:3 * t + 3]
        p = t % players
        assert isinstance(share.body, DecryptionShare)
        assert (share.author, share.body.slot.position) == (seats[(p + 1) % players], t)
        assert isinstance(sealed.body, Sealed)
        assert (sealed.author, sealed.body.recipient) == (seats[(p + 2) % players], seats[p])
        assert isinstance(play.body, PlayCard)
        assert play.author == seats[p]
