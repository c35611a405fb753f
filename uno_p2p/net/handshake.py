"""The link handshake and record layer: sans-IO, every byte documented in net.md §3-5.

A link joins a joiner (initiator) to the host (responder). Three messages,
SIGMA-I style (Krawczyk 2003), on primitives the project already uses:

1. joiner -> host ``[1, e_J, X]``: an ephemeral X25519 key, and the SPAKE2
   message ``X`` when the joiner has a join code (else an empty bin);
2. host -> joiner ``[1, e_H, Y, c2]``: the host's ephemeral key, its SPAKE2
   message, and ``c2``: the host's identity key, the table id and the host's
   Ed25519 signature over the transcript, sealed under a key derived from
   ``X25519(e_J, e_H)`` and the SPAKE2 key;
3. joiner -> host ``[c3]``: the joiner's identity key and signature, sealed.

Both then derive one ChaCha20-Poly1305 key per direction from the whole
transcript. Records carry a 64-bit counter as the nonce, so a record that is
replayed, dropped, reordered or altered fails to open, and the link ends.

No I/O, clock or randomness: the ephemeral and SPAKE2 secrets come in as
bytes, so ``protocol/vectors/net.json`` replays a handshake exactly.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from uno_p2p.crypto.identity import Identity, PeerId
from uno_p2p.crypto.spake2 import Spake2
from uno_p2p.errors import CryptoError, InvalidMessage, LocalProtocolError, RemoteProtocolError
from uno_p2p.wire import fields
from uno_p2p.wire.codec import DEFAULT_LIMITS, Limits, pack, unpack
from uno_p2p.wire.envelope import TABLE_ID_BYTES

VERSION = 1
LABEL = "uno-lan/net/v1/"
KEY_BYTES = 32
TAG_BYTES = 16
#: A handshake message is small; anything bigger is refused before it is read.
MAX_HANDSHAKE_BYTES = 1024
#: A record's plaintext: one table frame (tag + the largest entry) or a control frame.
MAX_PLAINTEXT = DEFAULT_LIMITS.max_frame + 1
MAX_RECORD = MAX_PLAINTEXT + TAG_BYTES
#: Decoding limits for handshake messages.
HANDSHAKE_LIMITS = Limits(max_frame=MAX_HANDSHAKE_BYTES, max_array=8, max_str=256,
                          max_bin=512, max_depth=2)
_ZERO_NONCE = bytes(12)


class HandshakeFailed(RemoteProtocolError):
    """The handshake did not authenticate; ``code`` says why (net.md §6)."""

    code = "handshake_failed"


def _frame(label: str, *parts: bytes) -> bytes:
    chunks = [(LABEL + label).encode("ascii"), *parts]
    return b"".join(len(c).to_bytes(4, "big") + c for c in chunks)


def mix(transcript: bytes, data: bytes) -> bytes:
    """The running transcript hash: ``SHA-256(frame("transcript", th, data))``."""
    return hashlib.sha256(_frame("transcript", transcript, data)).digest()


def _kdf(label: str, salt: bytes, secret: bytes) -> tuple[bytes, bytes]:
    """HKDF-SHA256 to two keys: (joiner -> host, host -> joiner)."""
    okm = HKDF(algorithm=hashes.SHA256(), length=2 * KEY_BYTES, salt=salt,
               info=(LABEL + label).encode("ascii")).derive(secret)
    return okm[:KEY_BYTES], okm[KEY_BYTES:]


def _digest(label: str, *parts: bytes) -> bytes:
    return hashlib.sha256(_frame(label, *parts)).digest()


def refusal(code: str, reason: str) -> bytes:
    """A clear-text refusal the host may send instead of message 2 (unauthenticated)."""
    return pack(["refused", code[:48], reason[:200]])


def _decode(data: bytes, length: int, what: str) -> list[object]:
    try:
        value = unpack(data, HANDSHAKE_LIMITS)
        items = fields.array(value, length, what)
    except InvalidMessage as error:
        raise HandshakeFailed(f"{what} is malformed: {error}", code="bad_handshake") from error
    return list(items)


def _bin(value: object, sizes: tuple[int, ...], what: str) -> bytes:
    if type(value) is not bytes or len(value) not in sizes:
        raise HandshakeFailed(f"{what} has the wrong size", code="bad_handshake")
    return value


class _Ephemeral:
    """An X25519 key pair for one handshake, from 32 caller-drawn bytes."""

    def __init__(self, seed: bytes) -> None:
        if len(seed) != KEY_BYTES:
            raise LocalProtocolError("an ephemeral key seed is 32 bytes")
        self._private = X25519PrivateKey.from_private_bytes(seed)
        self.public = self._private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def exchange(self, other: bytes) -> bytes:
        try:
            return self._private.exchange(X25519PublicKey.from_public_bytes(other))
        except ValueError as error:  # a small-order key: the shared secret would be zero
            raise HandshakeFailed("the ephemeral key is weak", code="bad_handshake") from error


def _seal(key: bytes, plaintext: bytes, transcript: bytes) -> bytes:
    return ChaCha20Poly1305(key).encrypt(_ZERO_NONCE, plaintext, transcript)


def _open(key: bytes, ciphertext: bytes, transcript: bytes, code: str, why: str) -> bytes:
    try:
        return ChaCha20Poly1305(key).decrypt(_ZERO_NONCE, ciphertext, transcript)
    except InvalidTag as error:
        raise HandshakeFailed(why, code=code) from error


@dataclass(frozen=True, slots=True)
class Established:
    """A finished handshake: who is at the other end, and the two record keys."""

    peer: PeerId
    table_id: bytes
    send_key: bytes = field(repr=False)
    receive_key: bytes = field(repr=False)
    transcript: bytes


class JoinerHandshake:
    """The initiator: ``hello()``, then ``finish(message 2)`` gives message 3 and the link.

    ``expect_host`` refuses any other host key (from a saved seat or an advert).
    """

    def __init__(self, identity: Identity, ephemeral: bytes, pake_secret: bytes,
                 code: str | None = None, expect_host: PeerId | None = None) -> None:
        self.identity = identity
        self._eph = _Ephemeral(ephemeral)
        self._pake = Spake2("A", code, pake_secret) if code else None
        self.expect_host = expect_host
        pake_message = b"" if self._pake is None else self._pake.message
        self.hello = pack([VERSION, self._eph.public, pake_message])
        self._transcript = mix(b"", self.hello)

    def finish(self, answer: bytes) -> tuple[bytes, Established]:
        """Check the host's message 2; return message 3 and the established link.

        Raises:
            HandshakeFailed: a refusal, a malformed message, a wrong join code,
                a bad signature or an unexpected host key (``code`` says which).
        """
        items = _decode_answer(answer)
        if items[0] != VERSION:
            raise HandshakeFailed(f"the host speaks link version {items[0]}", code="version")
        e_host = _bin(items[1], (KEY_BYTES,), "the host's ephemeral key")
        y = _bin(items[2], (0, KEY_BYTES), "the host's SPAKE2 message")
        c2 = _bin(items[3], tuple(range(TAG_BYTES, 256)), "the host's sealed identity")
        secret = self._eph.exchange(e_host) + self._pake_key(y)
        th1 = mix(self._transcript, pack([VERSION, e_host, y]))
        to_host, from_host = _kdf("handshake", th1, secret)
        why = "the host's identity does not open: a wrong join code, or a tampered handshake"
        host_key, table_id, signature = _decode(_open(from_host, c2, th1, "wrong_join_code", why),
                                                3, "the host's identity")
        host = _peer(host_key, "the host's key")
        table = _bin(table_id, (TABLE_ID_BYTES,), "the table id")
        _verify(host, _digest("host-sig", th1, host.key, table), signature, "host")
        if self.expect_host is not None and host != self.expect_host:
            raise HandshakeFailed(f"the host is {host.fingerprint}, not the expected "
                                  f"{self.expect_host.fingerprint}", code="wrong_host")
        th2 = mix(th1, c2)
        me = self.identity.peer.key
        signed = self.identity.sign(_digest("joiner-sig", th2, me, host.key))
        c3 = _seal(to_host, pack([me, signed]), th2)
        th3 = mix(th2, c3)
        send, receive = _kdf("session", th3, secret)
        return pack([c3]), Established(host, table, send, receive, th3)

    def _pake_key(self, y: bytes) -> bytes:
        if self._pake is None:
            if y:
                raise HandshakeFailed("the host sent a SPAKE2 message we did not ask for",
                                      code="bad_handshake")
            return b""
        if not y:
            raise HandshakeFailed("the host did not answer our join code",
                                  code="join_code_unexpected")
        try:
            return self._pake.finish(y)
        except CryptoError as error:
            raise HandshakeFailed(str(error), code="bad_handshake") from error


def _decode_answer(answer: bytes) -> list[object]:
    try:
        value = unpack(answer, HANDSHAKE_LIMITS)
    except InvalidMessage as error:
        raise HandshakeFailed(f"message 2 is malformed: {error}", code="bad_handshake") from error
    if isinstance(value, list) and len(value) == 3 and value[0] == "refused":
        code, reason = value[1], value[2]
        if isinstance(code, str) and isinstance(reason, str):
            raise HandshakeFailed(f"the host refused: {reason}", code=code[:48])
    return _decode(answer, 4, "message 2")


def _peer(value: object, what: str) -> PeerId:
    try:
        return PeerId.from_wire(value)
    except InvalidMessage as error:
        raise HandshakeFailed(f"{what} is not an Ed25519 key", code="bad_handshake") from error


def _verify(peer: PeerId, digest: bytes, signature: object, who: str) -> None:
    if type(signature) is not bytes:
        raise HandshakeFailed(f"the {who}'s signature is missing", code="bad_signature")
    try:
        peer.verify(digest, signature, item=f"the {who}'s handshake signature")
    except CryptoError as error:
        raise HandshakeFailed(str(error), code="bad_signature", peer=peer.fingerprint) from error


class HostHandshake:
    """The responder: ``answer(message 1)`` gives message 2; ``finish(message 3)`` the link."""

    def __init__(self, identity: Identity, table_id: bytes, ephemeral: bytes,
                 pake_secret: bytes, code: str | None = None) -> None:
        self.identity = identity
        self.table_id = table_id
        self._eph = _Ephemeral(ephemeral)
        self._code = code
        self._pake_secret = pake_secret
        self._state: tuple[bytes, bytes, bytes, bytes] | None = None

    def answer(self, hello: bytes) -> bytes:
        """Message 2 for a joiner's message 1.

        Raises:
            HandshakeFailed: malformed, another version, or a join code missing
                or unexpected (send ``refusal`` with its code and reason).
        """
        version, e_joiner, x = _decode(hello, 3, "message 1")
        if version != VERSION:
            raise HandshakeFailed(f"link version {version} is not {VERSION}", code="version")
        e_joiner = _bin(e_joiner, (KEY_BYTES,), "the joiner's ephemeral key")
        x = _bin(x, (0, KEY_BYTES), "the joiner's SPAKE2 message")
        pake_key, y = self._pake(x)
        secret = self._eph.exchange(e_joiner) + pake_key
        th1 = mix(mix(b"", hello), pack([VERSION, self._eph.public, y]))
        from_joiner, to_joiner = _kdf("handshake", th1, secret)
        me = self.identity.peer.key
        signed = self.identity.sign(_digest("host-sig", th1, me, self.table_id))
        c2 = _seal(to_joiner, pack([me, self.table_id, signed]), th1)
        self._state = (mix(th1, c2), secret, from_joiner, me)
        return pack([VERSION, self._eph.public, y, c2])

    def _pake(self, x: bytes) -> tuple[bytes, bytes]:
        if self._code is None:
            if x:
                raise HandshakeFailed("this table has no join code", code="join_code_unexpected")
            return b"", b""
        if not x:
            raise HandshakeFailed("this table needs a join code", code="join_code_needed")
        pake = Spake2("B", self._code, self._pake_secret)
        try:
            return pake.finish(x), pake.message
        except CryptoError as error:
            raise HandshakeFailed(str(error), code="bad_handshake") from error

    def finish(self, last: bytes) -> Established:
        """Check message 3: the joiner's identity and signature.

        Raises:
            HandshakeFailed: malformed, a wrong join code (it does not open) or a
                bad signature.
            LocalProtocolError: called before ``answer``.
        """
        if self._state is None:
            raise LocalProtocolError("answer message 1 first")
        th2, secret, from_joiner, me = self._state
        (c3,) = _decode(last, 1, "message 3")
        c3 = _bin(c3, tuple(range(TAG_BYTES, 256)), "the joiner's sealed identity")
        why = "the joiner's identity does not open: a wrong join code, or a tampered handshake"
        key, signature = _decode(_open(from_joiner, c3, th2, "wrong_join_code", why), 2,
                                 "the joiner's identity")
        joiner = _peer(key, "the joiner's key")
        _verify(joiner, _digest("joiner-sig", th2, joiner.key, me), signature, "joiner")
        th3 = mix(th2, c3)
        receive, send = _kdf("session", th3, secret)
        return Established(joiner, self.table_id, send, receive, th3)


class RecordCipher:
    """One direction of a link's records: ChaCha20-Poly1305, nonce = 4 zero bytes || u64 counter.

    A record that does not open (altered, replayed, reordered, from another
    link) ends the link: nothing is retried.
    """

    def __init__(self, key: bytes) -> None:
        self._aead = ChaCha20Poly1305(key)
        self.counter = 0

    def _nonce(self) -> bytes:
        if self.counter >= 1 << 64:
            raise LocalProtocolError("a link wore out its nonces")  # pragma: no cover
        nonce = bytes(4) + self.counter.to_bytes(8, "big")
        self.counter += 1
        return nonce

    def seal(self, plaintext: bytes) -> bytes:
        """Encrypt the next record.

        Raises:
            LocalProtocolError: a record over the limit (a bug of ours).
        """
        if len(plaintext) > MAX_PLAINTEXT:
            raise LocalProtocolError(f"a record of {len(plaintext)} bytes is over the limit")
        return self._aead.encrypt(self._nonce(), plaintext, None)

    def open(self, ciphertext: bytes) -> bytes:
        """Decrypt the next record.

        Raises:
            CryptoError: code ``bad_record`` when it does not open.
        """
        try:
            return self._aead.decrypt(self._nonce(), ciphertext, None)
        except InvalidTag as error:
            raise CryptoError("a record does not open: altered, replayed or out of order",
                              item="record", code="bad_record") from error
