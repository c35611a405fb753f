"""The one error tree of uno-lan, split by who is at fault (STYLE.md).

Every layer raises from here so that the CLI can turn any ``UnoError`` into
one plain sentence and an exit code; a traceback reaching the user is a bug.
Errors caused by a peer carry the peer's identity and a machine-readable code,
so that a cheater is named with evidence rather than crashing anyone.
"""

from __future__ import annotations


class UnoError(Exception):
    """Base of every error uno-lan raises on purpose."""

    #: A short stable identifier, for logs, ``--json`` output and tests.
    code: str = "uno_error"


class InvalidMessage(UnoError):
    """Bytes that do not decode to a well-formed, canonical message."""

    code = "invalid_message"


class IllegalAction(UnoError):
    """The rules say no. The message names the rule in plain words."""

    code = "illegal_action"

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        #: The RULES.md rule or option that forbids the action, if one does.
        self.rule = rule


class ProtocolError(UnoError):
    """A message that decodes but breaks the table protocol."""

    code = "protocol_error"


class LocalProtocolError(ProtocolError):
    """We were about to break the protocol ourselves (a bug or misuse)."""

    code = "local_protocol_error"


class RemoteProtocolError(ProtocolError):
    """A peer broke the protocol; ``peer`` names it and ``entry`` the evidence."""

    code = "remote_protocol_error"

    def __init__(
        self,
        message: str,
        *,
        peer: str | None = None,
        entry: int | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.peer = peer
        self.entry = entry
        if code is not None:
            self.code = code


class CryptoError(UnoError):
    """A cryptographic value or step failed to verify."""

    code = "crypto_error"

    def __init__(
        self,
        message: str,
        *,
        peer: str | None = None,
        item: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        #: Who supplied the bad value (a seat, name or key fingerprint).
        self.peer = peer
        #: Which value it was (a deck position, a proof, a commitment...).
        self.item = item
        if code is not None:
            self.code = code


class ProofRejected(CryptoError):
    """A zero-knowledge proof (Schnorr, DLEQ, shuffle) did not verify."""

    code = "proof_rejected"


class ConfigError(UnoError):
    """A setting or option the user gave is unknown or out of range."""

    code = "config_error"
