"""What a fourth random sample of mutants (seed 19) found untested (docs/testing.md).

wire.md §7: the array elements of one frame, all arrays together, are
bounded (``max_elements``): a frame with exactly that many is decoded, one
more is refused saying so. §3: a message's table id is 16 bytes, and one
of another size is refused naming it. The sample log (``sample_log``, the
fixture of the CLI, store and fuzz tests) has the shape its docstring gives.
"""

from __future__ import annotations

import copy

import pytest

from uno_p2p.errors import InvalidMessage
from uno_p2p.wire.codec import pack, unpack
from uno_p2p.wire.envelope import Message
from uno_p2p.wire.game import DecryptionShare, PlayCard
from uno_p2p.wire.limits import DEFAULT_LIMITS, Limits
from uno_p2p.wire.lobby import Start
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.samples import sample_log


def test_a_frame_may_hold_exactly_max_elements_array_elements() -> None:
    assert DEFAULT_LIMITS.max_elements == 131_072  # wire.md §7
    frame = pack([[1, 2], 3])  # 2 elements inside, 2 in the outer array: 4 in all
    assert unpack(frame, Limits(max_elements=4)) == [[1, 2], 3]
    with pytest.raises(InvalidMessage) as caught:
        unpack(frame, Limits(max_elements=3))
    assert str(caught.value) == "more than 3 array elements in one message"


def test_a_table_id_of_another_size_is_refused_by_name() -> None:
    log = sample_log(players=3, turns=1)
    wire = copy.deepcopy(log[3].message.to_wire())
    assert isinstance(wire, list)
    for size in (15, 17):
        wire[1] = b"\x01" * size
        with pytest.raises(InvalidMessage) as caught:
            Message.from_wire(wire)
        assert str(caught.value) == f"a table id must be 16 bytes, not {size}"


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
