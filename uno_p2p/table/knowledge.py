"""What only one peer may know: private reveals to it, and the cards it can open.

docs/protocol/table.md §4.2-§4.3. Pure helpers of ``TablePeer``: open a
sealed private reveal addressed to this peer and check every share in it;
find the cards this peer can now open with its own key share.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set

from uno_p2p.crypto.channel import ChannelKey, Party
from uno_p2p.crypto.group import Point, Scalar
from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import InvalidMessage
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.rounds import describe_claim
from uno_p2p.rules.state import Claim
from uno_p2p.table.bodies import PrivateShares, ShareItem
from uno_p2p.table.game import check_opened_once, discharged, open_with, verify_item
from uno_p2p.table.state import TableState
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.private import open_body


def private_items(state: TableState, entry: Entry, channel: ChannelKey,
                  me: PeerId, seen: TableState | None = None
                  ) -> list[tuple[Slot, int, ShareItem, Point]]:
    """Open a sealed private reveal to ``me`` and check every share in it (``state``: the
    table before the entry; ``seen``: at its author's head).

    Raises:
        InvalidMessage / CryptoError / RemoteProtocolError: it does not open, or
            a share is not the author's, not for ``me``, or not proven.
    """
    author = entry.author
    seat, mine, lobby = state.seat_of(author.key), state.seat_of(me.key), state.lobby
    if lobby is None or seat is None or mine is None:
        raise InvalidMessage("a private reveal from a stranger")
    body = open_body(entry.message, key=channel, sender_channel=lobby.channels[author.key],
                     recipient=Party(me.key, channel.public))
    if not isinstance(body, PrivateShares):
        raise InvalidMessage("a sealed body that is not a private reveal")
    found = []
    for item in body.items:
        if item.prover != seat or item.recipient != mine:
            raise InvalidMessage("a private share for someone else")
        slot = Slot(item.shuffle, item.position)
        found.append((slot, seat, item, verify_item(state, item, entry, entry.seq)))
    check_covers(state, seen, seat, mine, {slot for slot, *_ in found})
    return found


def check_covers(state: TableState, seen: TableState | None, seat: int, to: int,
                 given: set[Slot]) -> None:
    """A private reveal must cover every card of the reveals it discharges, and give no
    card no reveal asked for (table.md §4.3): a short one would leave its recipient
    unable to decide (a challenge verdict) for ever.

    ``state`` is the table before the sealed entry, ``seen`` the table at its author's
    head (None when forgotten).

    Raises:
        InvalidMessage: a card owed is missing, or one not owed is given.
    """
    owed = {slot for due in discharged(state, seat, to, seen) for slot in due.slots
            if seat in state.missing_shares(slot)}
    asked = {slot for past in (state, seen) if past is not None for due in past.privates
             if due.to == to and seat in due.owed for slot in due.slots}
    if owed - given:
        missing = ", ".join(str(tuple(s)) for s in sorted(owed - given))
        raise InvalidMessage(f"the private reveal leaves out the card at {missing}")
    if given - asked:
        extra = ", ".join(str(tuple(s)) for s in sorted(given - asked))
        raise InvalidMessage(f"a private share of {extra} that was not owed")


def openable(state: TableState, wanted: Iterable[Slot],
             private: Mapping[Slot, Mapping[int, Point]], key_share: Scalar
             ) -> list[tuple[Slot, int]]:
    """The ``wanted`` cards this peer does not know yet but can open now: every other
    seat's share is in the log or was revealed to it (docs/protocol/deck.md §7).

    Raises:
        Misbehaviour: a card opens to no card, or to a card already seen in
            the same deck (a dishonest shuffle).
    """
    game, me = state.game, state.my_seat
    if me is None:
        return []  # a peer with no seat holds no part of any card's key
    faces = []
    seen = {**game.known, **state.opened}
    for slot in sorted(wanted):
        if slot in game.known or slot.shuffle < state.void_decks or not state.slot_ready(slot):
            continue  # a void round's card stays shut for good (table.md §14)
        shares = {**state.shares.get(slot, {}), **private.get(slot, {})}
        shares.pop(me, None)  # our own part comes from our key share
        if len(shares) == len(state.seats) - 1:
            own = state.ciphertext(slot).c1 * key_share
            card = open_with(state, slot, shares, seq=state.seq, own=own)
            check_opened_once(seen, slot, card, state.seq)  # a named fault, never a crash
            seen[slot] = card
            faces.append((slot, card))
    return faces


def false_claims(state: TableState, named: Set[Claim]) -> list[tuple[Claim, str]]:
    """Claims this viewer's faces prove false (a Wild Draw Four while holding the colour
    it saw), not in ``named``, each with its reason. The table judged the entry with
    public knowledge (table.md §7); this viewer's own finding is only its word, and the
    round-end reveal proves it to everyone."""
    game = state.engine
    if game is None:
        return []
    return [(claim, f"{game.players[claim.seat]} broke {claim.rule}: "
             f"{describe_claim(claim.kind, claim.rule)}")
            for claim in game.claims
            if claim not in named and claim.verdict(game.known) is False]
