"""What an audit concludes: a verdict, the first violation, and the game's summary.

``uno-lan audit`` prints an ``AuditReport`` as text (``OK`` and a summary, or
the first violation in one plain paragraph) or as one JSON object
(``--json``). The report is a frozen value built by ``uno_p2p.audit.core``;
nothing here re-checks anything.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import Enum

from uno_p2p.crypto.identity import FINGERPRINT_LABEL

JsonValue = int | bool | str | None | list["JsonValue"] | dict[str, "JsonValue"]


class Status(Enum):
    """The verdict. Only ``OK`` exits 0 with a game that reached its end."""

    OK = "ok"                  # every check passed and the game ended with every reveal
    STOPPED = "stopped"        # a peer left cleanly; everything that exists was verified
    VIOLATION = "violation"    # a peer is proven to have broken the rules or the protocol
    ABORTED = "aborted"        # a peer stopped taking part (no answer, refused reveal)
    UNFINISHED = "unfinished"  # the log ends before the game did; no one can be named


#: Exit codes of ``uno-lan audit`` (the issue: 0 valid, 1 violation, 2 unreadable).
EXIT_CODES = {Status.OK: 0, Status.STOPPED: 0, Status.VIOLATION: 1, Status.ABORTED: 1,
              Status.UNFINISHED: 1}


def fingerprint_of(key: bytes) -> str:
    """The fingerprint players compare (docs/protocol/wire.md §2), for any key bytes."""
    digest = hashlib.sha256(FINGERPRINT_LABEL + key).hexdigest()[:16]
    return "-".join(digest[i:i + 4] for i in range(0, 16, 4))


@dataclass(frozen=True, slots=True)
class Player:
    """A peer as the log names it: its seat (None before the start), name and key."""

    seat: int | None
    name: str
    key: bytes
    host: bool = False

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self.key)

    def label(self) -> str:
        """``seat 2, Cy (1a2b-3c4d-5e6f-7a8b)``: how a report names a peer."""
        where = "" if self.seat is None else f"seat {self.seat}, "
        role = ", the host" if self.host else ""
        return f"{where}{self.name} ({self.fingerprint}{role})"

    def to_json(self) -> dict[str, JsonValue]:
        return {"seat": self.seat, "name": self.name, "key": self.key.hex(),
                "fingerprint": self.fingerprint, "host": self.host}


#: What breaking each stage of the audit means (issue 6, in order), for the paragraph.
STAGES = {
    "chain": "the hash chain or its signatures",
    "rules": "the rules, as the engine applies them under the game's options",
    "proofs": "a cryptographic proof (a key, a shuffle or a decryption share)",
    "reveal": "what the end-of-game reveal proves (shuffles, private reveals, hidden claims)",
    "table": "what the table recorded",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One broken rule or proof: where, by whom, and why.

    ``stage`` is a key of ``STAGES``; ``code`` the machine-readable reason
    (the wire's, the table's or the deck's code); ``rule`` the RULES.md rule
    when the rules engine refused an action.
    """

    stage: str
    code: str
    entry: int | None
    peer: Player | None
    reason: str
    rule: str | None = None
    #: False for a peer that only stopped taking part: nothing is proven against it.
    proven: bool = True

    def paragraph(self) -> str:
        """The finding as one plain paragraph."""
        who = "a peer the log cannot name" if self.peer is None else self.peer.label()
        rule = f", rule {self.rule}" if self.rule else ""
        reason = _strip_entry(self.reason).rstrip(".")
        reason = reason[:1].upper() + reason[1:]
        if self.stage == "table":
            where = "the log" if self.entry is None else f"entry {self.entry}"
            check = ("The audit checked the signed evidence again." if self.proven else
                     "Nothing in the log proves a fault: this peer stopped taking part.")
            return (f"The table stopped the game at {where}, naming {who}: code {self.code}"
                    f"{rule}. {reason}. {check}")
        where = "The log" if self.entry is None else f"Entry {self.entry}"
        return (f"{where} breaks {STAGES.get(self.stage, self.stage)}; {who} is at fault "
                f"(code {self.code}{rule}). {reason}.")

    def to_json(self) -> dict[str, JsonValue]:
        return {"stage": self.stage, "code": self.code, "entry": self.entry,
                "peer": None if self.peer is None else self.peer.to_json(),
                "rule": self.rule, "reason": self.reason, "proven": self.proven}


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One scored round: its winner (None for a void round), the changes and the totals."""

    number: int
    winner: str | None
    changes: tuple[int, ...]
    scores: tuple[int, ...]

    def to_json(self) -> dict[str, JsonValue]:
        return {"round": self.number, "winner": self.winner, "changes": list(self.changes),
                "scores": list(self.scores)}


@dataclass(frozen=True, slots=True)
class HandoverResult:
    """One hand-over of the sequencer role (table.md §13): at ``entry``, term ``term``."""

    entry: int
    term: int
    old: str
    new: str

    def to_json(self) -> dict[str, JsonValue]:
        return {"entry": self.entry, "term": self.term, "from": self.old, "to": self.new}


@dataclass(frozen=True, slots=True)
class RemovalResult:
    """A seat removed at ``entry`` because it vanished, or ``left`` (its own leave,
    table.md §8); round ``round`` was void (§14)."""

    entry: int
    name: str
    round: int
    left: bool = False

    def to_json(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {"entry": self.entry, "name": self.name,
                                     "round": self.round}
        if self.left:  # only then: a vanished seat's report reads as it always did
            out["left"] = True
        return out


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Everything the audit found out about one log."""

    status: Status
    entries: int
    players: tuple[Player, ...] = ()
    preset: str = ""
    options: tuple[tuple[str, int | bool | str], ...] = ()
    rounds: tuple[RoundResult, ...] = ()
    scores: tuple[int, ...] = ()
    winner: str | None = None
    moves: int = 0
    duration_ms: int | None = None
    violation: Finding | None = None
    stopped: str = ""
    verified: tuple[str, ...] = ()
    unverified: tuple[str, ...] = ()
    torn_bytes: int = 0
    table_id: bytes = b""
    #: The public state digest after each replayed entry (docs/protocol/table.md §2):
    #: what every live peer computed, entry by entry.
    digests: tuple[bytes, ...] = ()
    #: Every time the sequencer role moved on (table.md §13), in log order.
    handovers: tuple[HandoverResult, ...] = ()
    #: Every seat removed because it vanished (table.md §14), in log order.
    removed: tuple[RemovalResult, ...] = ()
    #: Only for ``unfinished``: the seats the table waits for at the last entry, by name
    #: in seat order (table.md §14.1: work owed, or a decision only its player makes).
    #: A fact of the log, not a finding: nobody is blamed for a log that stops.
    waiting: tuple[str, ...] | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def to_json(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {
            "status": self.status.value, "exit_code": self.exit_code, "entries": self.entries,
            "table_id": self.table_id.hex(), "players": [p.to_json() for p in self.players],
            "preset": self.preset, "options": {key: value for key, value in self.options},
            "rounds": [r.to_json() for r in self.rounds], "scores": list(self.scores),
            "winner": self.winner, "moves": self.moves, "duration_ms": self.duration_ms,
            "violation": None if self.violation is None else self.violation.to_json(),
            "stopped": self.stopped or None, "verified": list(self.verified),
            "unverified": list(self.unverified), "torn_bytes": self.torn_bytes,
            "handovers": [h.to_json() for h in self.handovers],
            "removed": [r.to_json() for r in self.removed],
        }
        if self.waiting is not None:
            out["waiting"] = list(self.waiting)
        return out

    def lines(self) -> list[str]:
        """The report as text: the verdict first, then the summary."""
        out = [self._headline()]
        if self.violation is not None:
            out.append(self.violation.paragraph())
        if self.stopped:
            out.append(self.stopped)
        out.extend(self._summary())
        return out

    def _headline(self) -> str:
        if self.status == Status.OK:
            return "OK: the game is valid from the first entry to the final scores."
        if self.status == Status.STOPPED:
            return "OK: the game was stopped early; everything it holds is valid."
        if self.status == Status.VIOLATION:
            return "VIOLATION: the log proves that a peer broke the rules or the protocol."
        if self.status == Status.ABORTED:
            return "ABORTED: a peer stopped taking part before the game could be verified."
        return "UNFINISHED: the log ends before the game did."

    def _summary(self) -> list[str]:
        out = [f"Entries: {self.entries}; moves: {self.moves}; duration: "
               f"{_duration(self.duration_ms)}."]
        if self.players:
            out.append("Players:")
            out.extend(f"  {p.label()}" for p in self.players)
        out.extend(f"Entry {h.entry}: {h.new} took over as sequencer from {h.old} "
                   f"(term {h.term})." for h in self.handovers)
        out.extend(f"Entry {r.entry}: {r.name} {'left' if r.left else 'vanished'} and was "
                   f"removed; round {r.round} is void." for r in self.removed)
        for result in self.rounds:
            won = "void round" if result.winner is None else f"won by {result.winner}"
            out.append(f"Round {result.number}: {won}; changes {list(result.changes)}; "
                       f"scores {list(result.scores)}")
        if self.scores:
            won = f"; winner {self.winner}" if self.winner else ""
            out.append(f"Final scores: {list(self.scores)}{won}.")
        if self.verified:
            out.append("Verified: " + "; ".join(self.verified) + ".")
        if self.unverified:
            out.append("Not verifiable: " + "; ".join(self.unverified) + ".")
        if self.torn_bytes:
            out.append(f"The file's last {self.torn_bytes} bytes, after entry {self.entries - 1}, "
                       "are a cut-short or damaged record and were not read.")
        return out


def _strip_entry(reason: str) -> str:
    """``entry 41: why`` -> ``why`` (the paragraph names the entry itself)."""
    head, sep, rest = reason.partition(": ")
    if sep and head.startswith("entry ") and head[6:].isdigit():
        return rest
    return reason


def _duration(ms: int | None) -> str:
    if ms is None:
        return "not recorded"
    seconds = ms // 1000
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{ms / 1000:.1f} s"
