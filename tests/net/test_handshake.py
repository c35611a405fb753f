"""The link handshake and records (docs/protocol/net.md §3-5), with no socket.

What a user relies on: the two ends agree on keys and on who is at the other
end; a wrong join code, an unexpected host key, a tampered or replayed
handshake message, and an altered, replayed or reordered record all fail,
with a code that says which.
"""

from __future__ import annotations

import contextlib
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uno_p2p.crypto.identity import Identity
from uno_p2p.crypto.spake2 import Spake2
from uno_p2p.errors import CryptoError
from uno_p2p.net.handshake import (
    Established,
    HandshakeFailed,
    HostHandshake,
    JoinerHandshake,
    RecordCipher,
)

HOST = Identity(hashlib.sha256(b"host").digest())
JOINER = Identity(hashlib.sha256(b"joiner").digest())
OTHER = Identity(hashlib.sha256(b"other").digest())
TABLE = bytes(range(16))


def rnd(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def pair(joiner_code: str | None = None, host_code: str | None = None, *,
         salt: str = "") -> tuple[JoinerHandshake, HostHandshake]:
    joiner = JoinerHandshake(JOINER, rnd("ej" + salt), rnd("pj" + salt), joiner_code)
    host = HostHandshake(HOST, TABLE, rnd("eh" + salt), rnd("ph" + salt), host_code)
    return joiner, host


def run(joiner: JoinerHandshake, host: HostHandshake) -> tuple[Established, Established]:
    last, mine = joiner.finish(host.answer(joiner.hello))
    return mine, host.finish(last)


@pytest.mark.parametrize("code", [None, "tulip-42"])
def test_both_ends_agree_on_keys_and_identities(code: str | None) -> None:
    mine, theirs = run(*pair(code, code))
    assert mine.peer == HOST.peer
    assert theirs.peer == JOINER.peer
    assert mine.table_id == TABLE
    assert mine.send_key == theirs.receive_key
    assert mine.receive_key == theirs.send_key
    assert mine.send_key != mine.receive_key
    assert mine.transcript == theirs.transcript


def test_wrong_join_code_fails_on_both_sides() -> None:
    joiner, host = pair("tulip-42", "tulip-43")
    answer = host.answer(joiner.hello)
    with pytest.raises(HandshakeFailed) as caught:
        joiner.finish(answer)
    assert caught.value.code == "wrong_join_code"
    # A joiner that presses on anyway (message 3 under its keys) is refused by the host.
    honest_joiner, _ = pair("tulip-42", "tulip-42")
    honest_host = HostHandshake(HOST, TABLE, rnd("eh"), rnd("ph"), "tulip-43")
    other_host = HostHandshake(HOST, TABLE, rnd("eh"), rnd("ph"), "tulip-42")
    last, _ = honest_joiner.finish(other_host.answer(honest_joiner.hello))
    honest_host.answer(honest_joiner.hello)
    with pytest.raises(HandshakeFailed) as refused:
        honest_host.finish(last)
    assert refused.value.code == "wrong_join_code"


def test_a_private_table_refuses_a_joiner_without_a_code() -> None:
    joiner, host = pair(None, "tulip-42")
    with pytest.raises(HandshakeFailed) as caught:
        host.answer(joiner.hello)
    assert caught.value.code == "join_code_needed"


def test_the_joiner_learns_nothing_of_a_private_table_without_the_code() -> None:
    """Without the code, message 2 hides the host's key and the table id."""
    joiner, host = pair("guess", "tulip-42")
    answer = host.answer(joiner.hello)
    assert HOST.peer.key not in answer
    assert TABLE not in answer


def test_an_unexpected_host_key_is_refused() -> None:
    joiner = JoinerHandshake(JOINER, rnd("ej"), rnd("pj"), None, expect_host=OTHER.peer)
    host = HostHandshake(HOST, TABLE, rnd("eh"), rnd("ph"), None)
    with pytest.raises(HandshakeFailed) as caught:
        joiner.finish(host.answer(joiner.hello))
    assert caught.value.code == "wrong_host"


def _flip(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 1])


def _shake(message: str) -> None:
    joiner, host = pair("tulip-42", "tulip-42")
    hello = _flip(joiner.hello) if message == "hello" else joiner.hello
    answer = host.answer(hello)
    last, _ = joiner.finish(_flip(answer) if message == "answer" else answer)
    host.finish(_flip(last) if message == "last" else last)


@pytest.mark.parametrize("message", ["hello", "answer", "last"])
def test_a_flipped_byte_anywhere_fails(message: str) -> None:
    with pytest.raises(HandshakeFailed):
        _shake(message)


def test_a_replayed_message_3_does_not_open_another_session() -> None:
    """An eavesdropper replaying a joiner's messages 1 and 3 meets a fresh host key."""
    joiner, host = pair(None, None)
    last, _ = joiner.finish(host.answer(joiner.hello))
    replay_host = HostHandshake(HOST, TABLE, rnd("another ephemeral"), rnd("ph"), None)
    replay_host.answer(joiner.hello)
    with pytest.raises(HandshakeFailed):
        replay_host.finish(last)


def test_a_signature_by_another_key_is_refused() -> None:
    """A man in the middle who swaps the joiner's key for its own cannot sign for it."""
    joiner = JoinerHandshake(OTHER, rnd("ej"), rnd("pj"), None)
    host = HostHandshake(HOST, TABLE, rnd("eh"), rnd("ph"), None)
    last, _ = joiner.finish(host.answer(joiner.hello))
    established = host.finish(last)
    assert established.peer == OTHER.peer  # it is authenticated as itself, never as JOINER


def test_garbage_is_a_named_handshake_fault() -> None:
    _, host = pair()
    with pytest.raises(HandshakeFailed) as caught:
        host.answer(b"GET / HTTP/1.1\r\n\r\n")
    assert caught.value.code == "bad_handshake"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_either_answer_or_fail_by_name(data: bytes) -> None:
    joiner, host = pair()
    for step in (lambda: host.answer(data), lambda: joiner.finish(data)):
        with contextlib.suppress(HandshakeFailed):
            step()


def test_records_refuse_tampering_replay_and_reordering() -> None:
    mine, theirs = run(*pair())
    send, receive = RecordCipher(mine.send_key), RecordCipher(theirs.receive_key)
    first, second = send.seal(b"Mfirst"), send.seal(b"Msecond")
    assert receive.open(first) == b"Mfirst"
    with pytest.raises(CryptoError):
        RecordCipher(theirs.receive_key).open(second)  # out of order: counter 0 != 1
    with pytest.raises(CryptoError):
        receive.open(first)  # replay of record 0 at position 1
    tampered = RecordCipher(theirs.receive_key)
    with pytest.raises(CryptoError):
        tampered.open(first[:-1] + bytes([first[-1] ^ 1]))


def test_spake2_agrees_only_with_the_same_code() -> None:
    a, b = Spake2("A", "1234", rnd("a")), Spake2("B", "1234", rnd("b"))
    assert a.finish(b.message) == b.finish(a.message)
    wrong = Spake2("B", "1235", rnd("b"))
    assert a.finish(wrong.message) != wrong.finish(a.message)


def test_spake2_refuses_a_point_outside_the_group() -> None:
    a = Spake2("A", "1234", rnd("a"))
    with pytest.raises(CryptoError) as caught:
        a.finish(bytes(32))
    assert caught.value.code == "bad_pake"
    with pytest.raises(CryptoError) as caught:
        a.finish(b"\x01" + bytes(31))  # the identity
    assert caught.value.code == "bad_pake"
