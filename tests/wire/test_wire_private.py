"""Sealed bodies: only the recipient reads them, they stay in the log, and cannot be moved."""

from __future__ import annotations

import pytest

from uno_p2p.crypto.channel import seal
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError, RemoteProtocolError
from uno_p2p.wire.chain import verify_chain
from uno_p2p.wire.codec import pack
from uno_p2p.wire.envelope import Message
from uno_p2p.wire.private import Sealed, open_body, private_context, seal_body
from uno_p2p.wire.samples import SampleTable, sample_share


def seated() -> SampleTable:
    table = SampleTable(3)
    table.lobby()
    return table


def test_the_recipient_opens_a_sealed_share_from_the_log() -> None:
    table = seated()
    entry = table.sealed_share(1, 2, position=17)
    verify_chain(table.verifier.entries)
    bob, carol = table.peers[1], table.peers[2]
    opened = open_body(entry.message, key=carol.channel, sender_channel=bob.channel.public,
                       recipient=carol.party)
    assert opened == sample_share(1, 17)
    assert sample_share(1, 17).share not in entry.encode()


def test_nobody_else_opens_it() -> None:
    table = seated()
    entry = table.sealed_share(1, 2, position=3)
    alice, bob = table.peers[0], table.peers[1]
    with pytest.raises(LocalProtocolError):
        open_body(entry.message, key=alice.channel, sender_channel=bob.channel.public,
                  recipient=alice.party)
    # Alice pretending to be Carol (her identity, Alice's channel key) still cannot read it.
    carol_as_alice = type(alice.party)(table.peers[2].party.identity, alice.channel.public)
    with pytest.raises(CryptoError) as caught:
        open_body(entry.message, key=alice.channel, sender_channel=bob.channel.public,
                  recipient=carol_as_alice)
    assert caught.value.peer == bob.identity.peer.fingerprint


def test_a_sealed_body_moved_to_another_message_does_not_open() -> None:
    table = seated()
    entry = table.sealed_share(1, 2, position=3)
    copied = table.message(1, entry.body)  # same author, next counter
    carol, bob = table.peers[2], table.peers[1]
    with pytest.raises(CryptoError) as caught:
        open_body(copied, key=carol.channel, sender_channel=bob.channel.public,
                  recipient=carol.party)
    assert caught.value.code == "sealed_tampered"
    stolen = table.message(0, entry.body)  # replayed by another author
    with pytest.raises(CryptoError):
        open_body(stolen, key=carol.channel, sender_channel=table.peers[0].channel.public,
                  recipient=carol.party)


def test_a_tampered_ciphertext_does_not_open() -> None:
    table = seated()
    entry = table.sealed_share(1, 2, position=3)
    sealed = entry.body
    assert isinstance(sealed, Sealed)
    bent = Sealed(sealed.recipient, sealed.nonce, sealed.ciphertext[:-1] + b"\x00")
    message = entry.message
    forged = Message(message.table_id, message.author, message.counter, message.head,
                     message.kind, bent, message.signature)
    carol = table.peers[2]
    with pytest.raises(CryptoError):
        open_body(forged, key=carol.channel, sender_channel=table.peers[1].channel.public,
                  recipient=carol.party)
    with pytest.raises(RemoteProtocolError):
        forged.verify()


def _seal_raw(table: SampleTable, plaintext: bytes) -> Message:
    bob, carol = table.peers[1], table.peers[2]
    context = private_context(table.table_id, bob.identity.peer, table.counters[1])
    nonce, ciphertext = seal(bob.channel, bob.party, carol.party, context, plaintext)
    return table.message(1, Sealed(carol.identity.peer, nonce, ciphertext))


def test_a_sealed_body_that_opens_to_garbage_names_its_author() -> None:
    table = seated()
    carol, bob = table.peers[2], table.peers[1]
    inner_sealed = seal_body(sample_share(1, 1), key=bob.channel, sender=bob.party,
                             recipient=carol.party, table_id=table.table_id, counter=0)
    for plaintext in (b"\xc1", pack([9999, []]), pack([16, inner_sealed.to_wire()])):
        message = _seal_raw(table, plaintext)
        with pytest.raises(RemoteProtocolError) as caught:
            open_body(message, key=carol.channel, sender_channel=bob.channel.public,
                      recipient=carol.party)
        assert (caught.value.code, caught.value.peer) == ("sealed_malformed",
                                                          bob.identity.peer.fingerprint)


def test_sealing_a_sealed_body_is_refused() -> None:
    table = seated()
    bob, carol = table.peers[1], table.peers[2]
    sealed = table.sealed_share(1, 2, position=1).body
    with pytest.raises(LocalProtocolError):
        seal_body(sealed, key=bob.channel, sender=bob.party, recipient=carol.party,
                  table_id=table.table_id, counter=9)


def test_a_sealed_body_without_a_recipient_identity_is_refused() -> None:
    with pytest.raises(InvalidMessage) as caught:
        Sealed(b"\x01" * 32, b"\x00" * 24, b"\x00" * 40)  # type: ignore[arg-type]
    assert "recipient" in str(caught.value)
