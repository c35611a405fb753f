"""Hypothesis strategies for every registered body kind and for messages."""

from __future__ import annotations

from hypothesis import strategies as st

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.wire.envelope import Head, Message
from uno_p2p.wire.game import DecryptionShare, PlayCard, Slot
from uno_p2p.wire.lobby import (
    Join,
    Kick,
    Leave,
    OpenTable,
    OptionValue,
    Ready,
    SetOptions,
    Start,
)
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.registry import Body

identities = st.binary(min_size=32, max_size=32).map(Identity)
peers = identities.map(lambda identity: identity.peer)
printable = st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs"))
names = st.text(printable, min_size=1, max_size=32).filter(lambda name: name == name.strip())
reasons = st.text(printable, max_size=60)
keys32 = st.binary(min_size=32, max_size=32)
option_values: st.SearchStrategy[OptionValue] = (
    st.booleans() | st.integers(-(1 << 31), (1 << 31) - 1) | st.text(printable, max_size=20)
)
options = st.dictionaries(st.text(printable, min_size=1, max_size=20), option_values,
                          max_size=8).map(lambda d: tuple(sorted(d.items())))
slots = st.builds(Slot, st.integers(0, 1 << 20), st.integers(0, 107))


def _play(slot: Slot, card: int, colour: int) -> PlayCard:
    return PlayCard(slot, card, colour if card >= 100 else None)


def _seats(seats: list[PeerId]) -> Start:
    return Start(tuple(seats))


bodies: st.SearchStrategy[Body] = st.one_of(
    st.builds(OpenTable, names, keys32, st.text(printable, max_size=20), options,
              st.integers(2, 10)),
    st.builds(Join, names, keys32),
    st.builds(SetOptions, st.text(printable, max_size=20), options),
    st.builds(Ready, st.booleans()),
    st.lists(peers, min_size=2, max_size=4, unique_by=lambda peer: peer.key).map(_seats),
    st.builds(Kick, peers, reasons),
    st.builds(Leave, reasons),
    st.builds(Sealed, peers, st.binary(min_size=12, max_size=12),
              st.binary(min_size=16, max_size=200)),
    st.builds(_play, slots, st.integers(0, 107), st.integers(0, 3)),
    st.builds(DecryptionShare, slots, keys32, st.binary(min_size=64, max_size=64)),
)

heads = st.builds(Head, st.integers(0, 1 << 40), keys32)


@st.composite
def messages(draw: st.DrawFn) -> Message:
    return Message.sign(draw(identities), draw(st.binary(min_size=16, max_size=16)),
                        draw(st.integers(0, 1 << 40)), draw(heads), draw(bodies))
