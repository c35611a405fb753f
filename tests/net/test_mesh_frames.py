"""The mesh's own frames and routing, on its sans-IO core (net.md §5.1, §5.3).

``MeshCore`` is driven with plain values (keys, bytes, a ``Standing``, a time)
and the actions it returns are checked: addresses spread by stamp, a member's
own word beats a hint, paths come from ``k`` frames, a frame with no direct
link goes through a member that holds one, and bytes that do not decode are
ignored, never raised.
"""

from __future__ import annotations

from dataclasses import replace

from uno_p2p.crypto.identity import Identity
from uno_p2p.net.meshcore import (
    ADDRESSES,
    FORWARD,
    LINKED,
    STAMP_AHEAD_MS,
    Learned,
    MeshCore,
    Send,
    Standing,
)
from uno_p2p.rules.actions import Draw
from uno_p2p.table.bodies import Move
from uno_p2p.table.frames import FRAME_ENTRY, FRAME_MESSAGE, FRAME_SYNC
from uno_p2p.table.sending import Outgoing
from uno_p2p.table.state import TablePhase
from uno_p2p.wire.codec import WireValue, pack
from uno_p2p.wire.envelope import Head, Message

#: net.md §5.1: one member (key 11 repeated 32 times) on 127.0.0.1:40000, stamp 1,700,000,000,000.
ADDRESS_VECTOR = bytes.fromhex(
    "61" "91" "94" "c420" + "11" * 32 + "a9" + b"127.0.0.1".hex() + "cd9c40"
    "cf0000018bcfe56800")
TABLE_ID = b"\x42" * 16
ANN, BOB, CY, DI = (Identity(bytes([i]) * 32) for i in (1, 2, 3, 4))
STRANGER = Identity(b"\x07" * 32)
NOW = 1_700_000_000_000


def standing(me: Identity, phase: TablePhase = TablePhase.PLAYING) -> Standing:
    """A table of four that joined in the order Ann, Bob, Cy, Di; Ann is the sequencer."""
    return Standing(me=me.peer, members=(ANN.peer, BOB.peer, CY.peer, DI.peer),
                    sequencer=ANN.peer, phase=phase)


def linked_to(*others: Identity) -> MeshCore:
    core = MeshCore(dials=False)
    for other in others:
        core.link_up(other.peer.key, None)
    return core


def address(key: bytes, port: int, stamp: int) -> list[WireValue]:
    return [key, "127.0.0.1", port, stamp]


def test_the_address_frame_has_the_bytes_of_the_spec() -> None:
    assert ADDRESSES + pack([address(b"\x11" * 32, 40000, 1_700_000_000_000)]) == \
        ADDRESS_VECTOR


def test_a_new_link_gets_our_addresses_and_every_link_our_links() -> None:
    core = linked_to(BOB)
    core.book.learn(CY.peer.key, ("127.0.0.1", 4000, 5), teller=CY.peer.key)
    _, actions = core.link_up(DI.peer.key, standing(ANN, TablePhase.LOBBY))
    keys: list[WireValue] = [*sorted([BOB.peer.key, DI.peer.key])]
    links = LINKED + pack(keys)
    assert actions == [Send(DI.peer.key, ADDRESSES + pack([address(CY.peer.key, 4000, 5)])),
                       *(Send(k, links) for k in sorted([BOB.peer.key, DI.peer.key]))]


def test_the_newest_address_wins_and_news_is_passed_on() -> None:
    core = linked_to(BOB, DI)
    cy = CY.peer.key
    news = core.hear(BOB.peer.key, ADDRESSES + pack([address(cy, 4000, 5)]), None, NOW)
    book = ADDRESSES + pack([address(cy, 4000, 5)])
    assert news == [Learned(), *(Send(k, book) for k in sorted([BOB.peer.key, DI.peer.key]))]
    # An older stamp: ignored, and nothing passed on (so the gossip ends).
    assert core.hear(BOB.peer.key, ADDRESSES + pack([address(cy, 3000, 4)]), None, NOW) == []
    assert core.book.best[cy] == ("127.0.0.1", 4000, 5)
    news = core.hear(BOB.peer.key, ADDRESSES + pack([address(cy, 5000, 9)]), None, NOW)
    assert news is not None
    assert Learned() in news
    assert core.book.best[cy] == ("127.0.0.1", 5000, 9)


def test_a_stamp_far_in_the_future_is_refused() -> None:
    """Issue 24 item 7: the highest stamp the codec allows (2^62) would outrank every
    honest address to come; more than ``STAMP_AHEAD_MS`` past our clock is refused."""
    core = linked_to(BOB, CY)
    poison: list[WireValue] = [address(p.peer.key, 9, 1 << 62) for p in (CY, DI)]
    assert core.hear(BOB.peer.key, ADDRESSES + pack(poison), None, NOW) == []
    late = ADDRESSES + pack([address(DI.peer.key, 9, NOW + STAMP_AHEAD_MS + 1)])
    assert core.hear(BOB.peer.key, late, None, NOW) == []
    assert core.book.best == {}
    within = ADDRESSES + pack([address(CY.peer.key, 4000, NOW + STAMP_AHEAD_MS)])
    assert core.hear(CY.peer.key, within, None, NOW)
    assert core.book.best[CY.peer.key] == ("127.0.0.1", 4000, NOW + STAMP_AHEAD_MS)


def test_a_members_own_word_on_its_address_wins_over_what_others_say() -> None:
    """Issue 24 item 7: what one member says of another's address is a hint; the member's
    own ``a`` wins whatever the hint's stamp, and a resume still has every address."""
    core = linked_to(BOB, CY)
    cy, di = CY.peer.key, DI.peer.key
    core.hear(cy, ADDRESSES + pack([address(cy, 4000, 5)]), None, NOW)
    core.hear(BOB.peer.key, ADDRESSES + pack([address(cy, 9, 50), address(di, 9, 50)]),
              None, NOW)
    assert core.book.best[cy] == ("127.0.0.1", 4000, 5)
    assert core.member_addresses(standing(ANN))[cy] == ("127.0.0.1", 4000)  # the seat file's
    assert core.book.candidates(cy) == [("127.0.0.1", 4000), ("127.0.0.1", 9)]
    core.hear(cy, ADDRESSES + pack([address(cy, 4001, 6)]), None, NOW)
    assert core.book.best[cy] == ("127.0.0.1", 4001, 6)  # its newer word
    # With no word of Di's own, the newest hint is the best guess, and Di's own word,
    # once heard, overrides it even with an older stamp.
    assert core.book.best[di] == ("127.0.0.1", 9, 50)
    core.link_up(di, None)
    core.hear(di, ADDRESSES + pack([address(di, 4002, 7)]), None, NOW)
    assert core.book.best[di] == ("127.0.0.1", 4002, 7)
    assert core.hear(BOB.peer.key, ADDRESSES + pack([address(di, 9, 60)]), None, NOW) == []
    assert core.book.best[di] == ("127.0.0.1", 4002, 7)


def test_the_seat_files_address_is_the_oldest_hint_and_tried_with_the_others() -> None:
    """net.md §5.3: the seat file's address is a hint of the oldest stamp: anything the
    table says since wins, and a dial still tries it."""
    core = MeshCore(dials=True)
    bob = BOB.peer.key
    core.book.remember(bob, "127.0.0.1", 41000)
    assert core.address_to_try(bob, 0) == ("127.0.0.1", 41000)
    core.hear(CY.peer.key, ADDRESSES + pack([address(bob, 42000, 1)]), None, NOW)
    assert [core.address_to_try(bob, n) for n in range(3)] == [
        ("127.0.0.1", 42000), ("127.0.0.1", 41000), ("127.0.0.1", 42000)]
    assert core.address_to_try(DI.peer.key, 0) is None


def test_without_a_direct_link_a_frame_goes_through_a_member_that_has_one() -> None:
    core = linked_to(CY, BOB)
    table = standing(ANN)
    entry = FRAME_ENTRY + b"entry bytes"
    assert core.route(Outgoing((DI.peer,), entry), table) == []  # nobody holds a link to Di
    assert not core.reachable(DI.peer.key)
    for holder in (CY, BOB):
        core.hear(holder.peer.key, LINKED + pack([ANN.peer.key, DI.peer.key]), table, NOW)
    assert core.reachable(DI.peer.key)
    # The first member by key whose last ``k`` lists Di: Bob (02…) before Cy (03…).
    assert core.route(Outgoing((DI.peer,), entry), table) == [
        Send(BOB.peer.key, FORWARD + pack([DI.peer.key, entry]))]
    # ``S`` names its sender: never passed on.
    assert core.route(Outgoing((DI.peer,), FRAME_SYNC + pack([3])), table) == []
    # A direct link is used as it is; ourselves we send nothing.
    assert core.route(Outgoing((CY.peer, ANN.peer), entry), table) == [Send(CY.peer.key, entry)]
    # No ``to``: the sequencer, here through Bob once it says it holds a link to Ann.
    core.hear(BOB.peer.key, LINKED + pack([ANN.peer.key]), standing(CY), NOW)
    assert core.route(Outgoing(None, entry), standing(CY)) == [
        Send(BOB.peer.key, FORWARD + pack([ANN.peer.key, entry]))]


def test_a_member_passes_a_forwarded_frame_on_once_and_only_table_frames() -> None:
    core = linked_to(CY, ANN)
    table = standing(BOB)
    signed = Message.sign(ANN, TABLE_ID, 0, Head.genesis(TABLE_ID), Move(Draw(0)))
    message = FRAME_MESSAGE + signed.encode()
    assert core.hear(ANN.peer.key, FORWARD + pack([CY.peer.key, message]), table, NOW) == [
        Send(CY.peer.key, message)]
    # table.md §3.1: a member passes on no forgery (a message its author did not sign),
    # only the table frames that may travel so, only to a member it is linked to, and
    # only for a member of the table.
    forged = replace(signed, author=CY.peer)
    for sender, bad in (
            (ANN, FORWARD + pack([CY.peer.key, FRAME_MESSAGE + forged.encode()])),
            (ANN, FORWARD + pack([CY.peer.key, FRAME_MESSAGE + b"not a message"])),
            (ANN, FORWARD + pack([CY.peer.key, FRAME_SYNC + b"x"])),
            (ANN, FORWARD + pack([CY.peer.key, b"p" + b"x"])),
            (ANN, FORWARD + pack([DI.peer.key, message])),
            (STRANGER, FORWARD + pack([CY.peer.key, message])),
            (ANN, FORWARD + b"\xc1"), (ANN, FORWARD + pack([b"short", message]))):
        assert core.hear(sender.peer.key, bad, table, NOW) == [], bad


def test_bytes_that_do_not_decode_are_ignored() -> None:
    core = linked_to(BOB)
    for junk in (ADDRESSES + b"\xc1", ADDRESSES + pack([[b"k", "h", 0, 0]]),
                 LINKED + pack(["not a key"]), LINKED + pack([b"\x00" * 32] * 40),
                 ADDRESSES + pack([[b"\x01" * 32, "x" * 100, 1, 1]])):
        assert core.hear(BOB.peer.key, junk, standing(ANN), NOW) == []
    assert not core.book.best
    assert not core.reports
    assert core.hear(BOB.peer.key, FRAME_MESSAGE + b"for the peer", standing(ANN), NOW) is None


def test_an_address_frame_with_one_bad_entry_is_ignored_whole() -> None:
    """net.md §5.1: a frame of these kinds that does not decode is ignored: none of its
    entries is taken, not even those before the bad one."""
    core = linked_to(BOB)
    frame = ADDRESSES + pack([address(CY.peer.key, 4000, 5), [b"k", "h", 0, 0]])
    assert core.hear(BOB.peer.key, frame, None, NOW) == []
    assert core.book.best == {}
