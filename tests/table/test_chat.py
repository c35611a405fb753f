"""Table chat (docs/protocol/table.md §15): signed lines among the members, never logged.

What a player relies on: every other member sees a line once, with the right
name, over whatever path is left (the host's star included); nobody, the host
included, can change a line, replay it or put one in a member's name; a bad
line costs nothing and blames nobody; the game's log does not change.
"""

from __future__ import annotations

import pytest

from tests.table.prose import reads_on
from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import InvalidMessage, LocalProtocolError
from uno_p2p.rules.options import preset
from uno_p2p.table.chat import MAX_CHAT_CHARS, ChatLine, signed_bytes
from uno_p2p.table.events import ChatSaid, PeerMisbehaved
from uno_p2p.table.frames import FRAME_CHAT, frame
from uno_p2p.table.memnet import NAMES, Network, seeded
from uno_p2p.table.peer import TablePeer
from uno_p2p.wire.codec import pack

OPTIONS = preset("official")


def table(players: int = 3) -> Network:
    """A lobby of ``players`` joined peers (members, table.md §15); nothing moves but chat."""
    net = Network()
    table_id = seeded(b"chat", "table", 16)
    identities = [Identity(seeded(b"chat", f"identity {i}")) for i in range(players)]
    net.add(TablePeer.host(identities[0], seeded(b"chat", "entropy 0"), table_id=table_id,
                           name=NAMES[0], options=OPTIONS, bot=None))
    for i in range(1, players):
        net.add(TablePeer.join(identities[i], seeded(b"chat", f"entropy {i}"),
                               table_id=table_id, host=identities[0].peer, name=NAMES[i],
                               bot=None))
        net.run(max_steps=10_000)
    lobby = net.host.state.lobby
    assert lobby is not None
    assert len(lobby.joined) == players
    return net


def said(net: Network, peer: TablePeer) -> list[tuple[str, str, bool]]:
    return [(e.name, e.text, e.mine) for e in net.events[peer.peer_id.key]
            if isinstance(e, ChatSaid)]


def peers(net: Network) -> list[TablePeer]:
    return list(net.peers.values())


def test_every_member_sees_a_line_once_with_its_authors_name_and_the_log_is_unchanged() -> None:
    net = table()
    ann, bob, cy = peers(net)
    heads = [p.state.seq for p in (ann, bob, cy)]
    typed = "good luck, everyone"  # a player's own text, passed on as typed
    bob.say(typed)
    net.flush(bob)
    net.run(until=lambda n: not n.queue, max_steps=10_000)
    assert said(net, bob) == [("Bob", typed, True)]
    assert said(net, ann) == [("Bob", typed, False)]
    assert said(net, cy) == [("Bob", typed, False)]
    assert [p.state.seq for p in (ann, bob, cy)] == heads  # chat is never logged


def test_in_a_star_the_host_passes_a_joiners_line_on() -> None:
    def star(sender: bytes, recipient: bytes, data: bytes) -> list[bytes]:
        joiners = {p.peer_id.key for p in peers(net)[1:]}
        return [] if {sender, recipient} <= joiners else [data]

    net = table()
    ann, bob, cy = peers(net)
    net.tamper = star
    typed = "Bob, nice Reverse"
    cy.say(typed)
    net.flush(cy)
    net.run(until=lambda n: not n.queue, max_steps=10_000)
    assert said(net, bob) == [("Cy", typed, False)]
    assert said(net, ann) == [("Cy", typed, False)]


def test_a_changed_replayed_or_forged_line_is_dropped_and_blames_nobody() -> None:
    net = table()
    ann, bob, cy = peers(net)
    cy.now_ms = 10**12
    typed = "I have two Wilds"
    line = bob.chat.write(typed, 10**12)
    changed = ChatLine(line.author, line.counter, "I have no Wilds", line.signature)
    outsider = Identity(seeded(b"chat", "outsider"))
    forged = ChatLine(outsider.peer, 10**12, "hello",
                      outsider.sign(signed_bytes(ann.table_id, outsider.peer, 10**12, "hello")))
    in_anns_name = ChatLine(ann.peer_id, 10**12, "I fold",
                            bob.identity.sign(signed_bytes(ann.table_id, ann.peer_id, 10**12,
                                                           "I fold")))
    # Why each is dropped (table.md §15), said for whoever reads a chat that went quiet.
    with pytest.raises(InvalidMessage, match="from a peer who is not at the table") as why:
        cy.chat.hear(forged, cy.state, 10**12)
    reads_on(str(why.value))
    for bad in (changed, in_anns_name):
        with pytest.raises(InvalidMessage, match="a chat line's signature") as why:
            cy.chat.hear(bad, cy.state, 10**12)
        reads_on(str(why.value))
    for bad in (changed, forged, in_anns_name):
        cy.receive(frame(FRAME_CHAT, bad.encode()), sender=ann.peer_id)
    cy.receive(frame(FRAME_CHAT, b"\xc1not msgpack"), sender=ann.peer_id)
    cy.receive(frame(FRAME_CHAT, line.encode()), sender=ann.peer_id)
    cy.receive(frame(FRAME_CHAT, line.encode()), sender=bob.peer_id)  # the same, again
    net.flush(cy)
    assert said(net, cy) == [("Bob", typed, False)]
    assert not [e for e in net.events[cy.peer_id.key] if isinstance(e, PeerMisbehaved)]
    assert cy.stopped is None


def test_a_restarted_author_keeps_its_lines_fresh_with_its_clock() -> None:
    net = table()
    ann, bob, _ = peers(net)
    first = bob.chat.write("before the crash", 5_000)
    assert ann.chat.hear(first, ann.state, 5_000)
    bob.chat.heard.clear()  # a restart from disk keeps no chat counters
    again = bob.chat.write("back again", 6_000)
    assert again.counter > first.counter
    assert ann.chat.hear(again, ann.state, 6_000)
    assert not ann.chat.hear(first, ann.state, 5_000)  # an old line is not news


@pytest.mark.parametrize("text", ["", "   ", "x" * (MAX_CHAT_CHARS + 1), "bell\x07"])
def test_a_line_the_chat_refuses_is_never_sent(text: str) -> None:
    net = table(2)
    bob = peers(net)[1]
    bob.data_to_send()
    with pytest.raises(LocalProtocolError) as why:
        bob.say(text)
    assert not bob.data_to_send()
    # The UI shows the sentence as it is (netsession.say): it names what was refused.
    assert str(why.value).startswith("a chat line "), str(why.value)
    reads_on(str(why.value))


def test_chat_opens_with_a_place_at_the_table() -> None:
    ann = TablePeer.host(Identity(seeded(b"c", "ann")), seeded(b"c", "e"),
                         table_id=seeded(b"c", "t", 16), name="Ann", options=OPTIONS)
    stranger = TablePeer.join(Identity(seeded(b"c", "x")), seeded(b"c", "f"),
                              table_id=ann.table_id, host=ann.peer_id, name="X")
    with pytest.raises(LocalProtocolError, match="place at the table"):
        stranger.say("hi")
    ann.say("welcome")  # the host is a member from the first entry


def test_the_line_bytes_are_the_specified_vector() -> None:
    # table.md §15, spelled out from the spec's words rather than through our codec.
    table_id, bob = bytes(range(16)), Identity(b"\x02" * 32)
    counter, text = 1764590400000, "good luck"
    array = (b"\x93\xc4\x20" + bob.peer.key + b"\xcf" + counter.to_bytes(8, "big")
             + b"\xa9" + text.encode())
    spelled = b"uno-lan/table/v1/chat\x00" + table_id + array
    assert signed_bytes(table_id, bob.peer, counter, text) == spelled
    signature = bytes.fromhex(
        "0b203fbb6ed0c9d9c3253c0551690996000e88723926677c5a3bab6aa5f74f2c4b"
        "9b42ce90c16fa6739d938e47e3c030ee66777c587e12916e7431ba3fb2700c")
    assert bob.sign(spelled) == signature
    payload = b"\x94" + array[1:] + b"\xc4\x40" + signature
    assert ChatLine(bob.peer, counter, text, signature).encode() == payload
    assert ChatLine.decode(payload) == ChatLine(bob.peer, counter, text, signature)


def test_a_flood_is_held_to_four_lines_a_second_and_a_minute_ahead() -> None:
    net = table(2)
    ann, bob = peers(net)

    def line(counter: int) -> ChatLine:
        return ChatLine(bob.peer_id, counter, "spam", bob.identity.sign(
            signed_bytes(ann.table_id, bob.peer_id, counter, "spam")))

    now = 1_000_000
    assert ann.chat.hear(line(now), ann.state, now)
    with pytest.raises(InvalidMessage, match="too soon"):
        ann.chat.hear(line(now + 249), ann.state, now)
    assert ann.chat.hear(line(now + 250), ann.state, now)
    with pytest.raises(InvalidMessage, match="ahead"):
        ann.chat.hear(line(now + 60_251), ann.state, now)
    assert ann.chat.hear(line(now + 60_000), ann.state, now)
    # Our own lines keep that pace, so that nobody drops them.
    first = bob.chat.write("one", now)
    assert bob.chat.write("two", now).counter == first.counter + 250


@pytest.mark.parametrize(("text", "words"), [("bell\x07", "a chat line's text"),
                                             ("", "a chat line's text")])
def test_a_line_that_cannot_be_shown_is_refused_naming_its_text(text: str, words: str) -> None:
    """table.md §15: a line is printable text; one sent by a peer that skipped our own
    checks is refused on decoding, naming the text (and dropped quietly, as any bad line)."""
    bob = Identity(seeded(b"chat", "identity 1"))
    line = ChatLine(bob.peer, 5, text, bytes(64))
    with pytest.raises(InvalidMessage) as why:
        ChatLine.decode(line.encode())
    assert str(why.value).startswith(words), str(why.value)
    reads_on(str(why.value))


@pytest.mark.parametrize("counter", [-1, "5", 1 << 60])
def test_a_line_with_a_bad_counter_is_refused_naming_the_counter(counter: object) -> None:
    """table.md §15: a line's counter is an unsigned integer below 2^48; any other is
    refused on decoding, naming the counter, in words that read on."""
    bob = Identity(seeded(b"chat", "identity 1"))
    payload = pack([bob.peer.to_wire(), counter, "hi", bytes(64)])  # type: ignore[list-item]
    with pytest.raises(InvalidMessage) as why:
        ChatLine.decode(payload)
    assert str(why.value).startswith("a chat counter"), str(why.value)
    reads_on(str(why.value))
