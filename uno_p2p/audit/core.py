"""``audit``: check a finished game from its log alone (issue 6).

The stages, in order; the first that fails gives the verdict:

1. *chain*: the hash chain, every author signature and every sequencer
   countersignature (``uno_p2p.wire.chain``), plus the proofs a peer's log may
   hold as evidence: two countersigned entries at one number (a forked
   sequencer), two messages with one counter (an equivocating author).
2. and 3. *rules* and *proofs*: the log replayed by an observer through the
   table's own ``Ledger`` (``uno_p2p.audit.walk``): every action under the
   recorded options with the real engine, every key, shuffle and share proof
   with the real deck. The proofs of shuffle need no reveal and are checked
   whatever the verdict, on every core ahead of the replay
   (``uno_p2p.audit.parallel``); a seat's own reveal re-executes its shuffles
   in the ledger, so it is convicted even if another seat never reveals.
4. *reveal*, when every seat revealed its secrets: every shuffle re-executed
   from its committed seed (``uno_p2p.crypto.audit``), so the card at every
   position is known; then every card opened during play is checked against
   it, every hidden claim the engine recorded (a Wild Draw Four while holding
   the colour under ``wd4_strict``, a false challenge verdict, a kept playable card) is
   judged by the
   engine's own ``Claim.verdict`` at the entry that made it, and every sealed
   private reveal is opened with its recipient's revealed channel seed and
   checked as the recipient checked it (this needs only the seeds).

The replay runs once: stage 4 uses what the single pass kept (the claims, the
state before each sealed entry), so a full game costs one ledger pass plus
the re-execution of the shuffles.

What the table itself recorded (a culprit named in an ``abort`` with
evidence, a claim proven false at a round end) is a violation too; a peer
that stopped answering or never revealed makes the game *aborted*, naming
it. Nothing but the log is needed: no keys, no configuration, no network.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from uno_p2p.audit.parallel import ProofPrefetch
from uno_p2p.audit.report import (
    AuditReport,
    Finding,
    HandoverResult,
    Player,
    RemovalResult,
    RoundResult,
    Status,
)
from uno_p2p.audit.walk import Knowledge, Step, check_private_reveal, walk
from uno_p2p.crypto.audit import DeckRecord, DeckResult, verify_deck
from uno_p2p.crypto.cards import card_of
from uno_p2p.crypto.group import Scalar
from uno_p2p.crypto.identity import PeerId
from uno_p2p.crypto.shuffle import ShuffleMessage
from uno_p2p.errors import CryptoError, RemoteProtocolError
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.rounds import describe_claim
from uno_p2p.rules.state import Claim
from uno_p2p.store.unolog import MalformedRecord, read_log
from uno_p2p.table.bodies import Abort, Clock, Move, Remove, ShuffleDeck
from uno_p2p.table.events import PeerMisbehaved, RoundEnded
from uno_p2p.table.handover import handover_successor
from uno_p2p.table.ledger import PROOF_CODES
from uno_p2p.table.removal import awaited_seats
from uno_p2p.table.state import DeckState, Misbehaviour, TablePhase, TableState
from uno_p2p.wire.chain import ChainError, ChainVerifier, check_fork
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.lobby import Leave
from uno_p2p.wire.private import Sealed
from uno_p2p.wire.raw import judge_record
from uno_p2p.wire.transcript import Roster

#: An unfinished log's ``stopped`` sentence (table.md §8, verdicts.md §3 ``waiting``): a
#: fact of the log that blames nobody; pinned in tests/audit/test_words.py.
LOG_ENDS = "The log ends; the game had not ended."
LOG_ENDS_WAITING = ("The log ends while the table waits for {names}; with no closing entry, "
                    "nobody is blamed.")

#: Table codes that only say a peer stopped answering (no rule broken, nothing proven).
SILENCE_CODES = frozenset({"unresponsive"})


def audit_file(path: Path) -> AuditReport:
    """Audit the ``.unolog`` file at ``path``.

    A whole record that is no entry is judged (docs/protocol/verdicts.md §8):
    countersigned by the sequencer, it is the sequencer's violation
    (``malformed_entry``); not even framed as an entry, the file is unreadable.

    Raises:
        UnreadableLog: the file is missing, not a log, or damaged before its end.
    """
    try:
        contents = read_log(path)
    except MalformedRecord as error:
        if not error.entries:
            raise
        broken = judge_record(error.record, error.entries[-1], error.entries[0].author)
        if broken is None:
            raise
        audit = _Audit(error.entries, error.torn_bytes, broken)
        return audit.run()
    return audit_entries(contents.entries, torn_bytes=contents.torn_bytes)


def audit_entries(entries: Sequence[Entry], *, torn_bytes: int = 0) -> AuditReport:
    """Audit a log given as its decoded entries (see the module docstring)."""
    return audit_with_knowledge(entries, torn_bytes=torn_bytes)[0]


def audit_with_knowledge(entries: Sequence[Entry], *, torn_bytes: int = 0
                         ) -> tuple[AuditReport, Knowledge | None]:
    """``audit_entries``, and what the end-of-game reveal taught it (every face and
    channel seed), or None when the shuffles could not be re-executed."""
    if not entries:
        return AuditReport(Status.UNFINISHED, 0, stopped="The log holds no entries.",
                           torn_bytes=torn_bytes), None
    audit = _Audit(entries, torn_bytes)
    report = audit.run()
    return report, audit.knowledge


@dataclass(slots=True)
class _Public:
    """What the public replay (stages 2 and 3) produced, and kept for stage 4."""

    state: TableState | None = None
    #: The public digest after each entry, as every live peer computed it.
    digests: list[bytes] = field(default_factory=list)
    rounds: list[RoundResult] = field(default_factory=list)
    recorded: list[PeerMisbehaved] = field(default_factory=list)
    failure: Finding | None = None
    #: Every hidden claim the engine recorded, with the entry that made it.
    claims: list[tuple[int, Claim]] = field(default_factory=list)
    #: Every sealed private reveal, with the state it was logged in.
    sealed: list[tuple[TableState, TableState | None, Entry]] = field(default_factory=list)
    #: The entry after which the table waited for the end-of-game reveals.
    revealing_since: int | None = None


class _Audit:
    """One audit run over one log."""

    def __init__(self, entries: Sequence[Entry], torn_bytes: int,
                 broken: ChainError | None = None) -> None:
        self.entries = entries
        self.torn_bytes = torn_bytes
        #: A countersigned record after ``entries`` that is no entry (``judge_record``).
        self.broken = broken
        self.roster = Roster()
        for entry in entries:
            self.roster.learn(entry)
        self.host = entries[0].author
        self.chain: ChainVerifier | None = None
        self.verified: list[str] = []
        #: What a removal leaves unproven (table.md §14.3): said, but no reason to doubt
        #: the result, which the seats left proved.
        self.unprovable: list[str] = []
        self.unverified: list[str] = []
        #: Seats whose incoming private reveals were all opened and checked.
        self.checked_privately: frozenset[int] = frozenset()
        #: Every face, once the shuffles re-executed (for ``replay --text``).
        self.knowledge: Knowledge | None = None

    # -- the stages ---------------------------------------------------------------------------
    def run(self) -> AuditReport:
        chain = self.check_chain()
        if chain is None and self.broken is not None:
            error = self.broken
            chain = Finding("chain", error.code, error.entry, self.player(error.peer_key),
                            str(error))
        if chain is not None:
            return self.report(Status.VIOLATION, None, chain)
        self.verified.append(f"the chain and all {len(self.entries)} signatures and "
                             "countersignatures")
        public = self.replay()
        if public.failure is not None or public.state is None:
            return self.report(Status.VIOLATION, public, public.failure)
        self.verified.append("every action under the recorded options, with the rules engine")
        shuffles = sum(isinstance(e.body, ShuffleDeck) for e in self.entries)
        self.verified.append(f"all {shuffles} proofs of shuffle (each deck a permutation and "
                             "re-encryption of the one before, checked with no reveal)")
        self.verified.append("every key and decryption-share proof")
        hidden = self.check_reveal(public)
        findings = [f for f in (hidden, *self.recorded_findings(public)) if f is not None]
        if findings:
            first = min(findings, key=_entry_order)
            return self.report(Status.VIOLATION, public, first)
        return self.conclude(public)

    def check_chain(self) -> Finding | None:
        """Stage 1 (wire.md §4): the first entry that breaks the chain, if any."""
        verifier = ChainVerifier(self.entries[0].message.table_id, self.host,
                                 handover_successor)  # table.md §13: the role moves on
        self.chain = verifier
        for entry in self.entries:
            if entry.seq < len(verifier):
                fork = self._fork(verifier, entry)
                if fork is not None:
                    return fork
            try:
                verifier.accept(entry)
            except ChainError as error:
                return self.chain_finding(error, entry)
            except RemoteProtocolError as error:
                # A bad signature or countersignature (raised by the envelope itself).
                return Finding("chain", error.code, entry.seq, self.by_fingerprint(error.peer),
                               str(error))
        return None

    def _fork(self, verifier: ChainVerifier, entry: Entry) -> Finding | None:
        try:
            check_fork(verifier.entry(entry.seq), entry, verifier.sequencer_at(entry.seq))
        except ChainError as error:
            return Finding("chain", error.code, entry.seq,
                           self.player(verifier.sequencer_at(entry.seq)),
                           f"{error}: the log holds both as evidence")
        except RemoteProtocolError:
            return None  # not countersigned: no proof; the next check reports the entry
        return None

    def chain_finding(self, error: ChainError, entry: Entry) -> Finding:
        culprit = error.peer_key
        reason = str(error)
        sequencer = self.host if self.chain is None else self.chain.sequencer_at(entry.seq)
        if error.code.startswith("head_") and entry.author != sequencer:
            # The sequencer must refuse a head it does not hold (wire.md §4.3): as the
            # live peers do, the audit blames the one that countersigned it.
            culprit = sequencer
            reason += "; the sequencer countersigned it, so it showed this author another log"
        return Finding("chain", error.code, entry.seq, self.player(culprit), reason)

    def replay(self) -> _Public:
        """Stages 2 and 3: the observer's replay through the table's ledger (``walk``).

        This is ``uno_p2p.table.replay.replay`` step by step: the same
        ``Ledger.accept`` per entry, keeping what stage 4 needs.
        """
        public = _Public()
        prefetch = ProofPrefetch(self.entries)  # every proof of shuffle, on every core
        following = iter(self.entries[1:])
        try:
            for step in walk(self.entries):
                self._record(public, step)
                prefetch.after(step.after)
                upcoming = next(following, None)
                if upcoming is not None:
                    prefetch.before(upcoming)
        except Misbehaviour as error:
            public.failure = self.misbehaviour_finding(error)
        except RemoteProtocolError as error:  # a chain error the first stage would have seen
            public.failure = Finding("chain", error.code, error.entry,
                                     self.by_fingerprint(error.peer), str(error))
        finally:
            prefetch.close()
        return public

    def _record(self, public: _Public, step: Step) -> None:
        after, seq = step.after, step.entry.seq
        public.state = after
        public.digests.append(step.digest)
        names = after.player_names
        for event in step.events:
            if isinstance(event, RoundEnded):
                winner = names[event.winner] if 0 <= event.winner < len(names) else None
                public.rounds.append(RoundResult(event.round, winner, event.changes,
                                                 event.scores))
            elif isinstance(event, PeerMisbehaved):
                public.recorded.append(event)
        if after.engine is not None and after.engine.claims:
            made = set() if step.before.engine is None else set(step.before.engine.claims)
            public.claims.extend((seq, claim) for claim in after.engine.claims
                                 if claim not in made)
        if isinstance(step.entry.body, Remove):
            # table.md §14: the removed seat never reveals, so what the reveal would
            # judge of the seating before it (claims, private reveals) stays unjudged.
            public.claims.clear()
            public.sealed.clear()
        if isinstance(step.entry.body, Sealed):
            public.sealed.append((step.before, step.seen, step.entry))
        if public.revealing_since is None and after.phase in (TablePhase.REVEALING,
                                                               TablePhase.ENDED):
            public.revealing_since = seq

    def check_reveal(self, public: _Public) -> Finding | None:
        """Stage 4: re-execute every shuffle, then judge every hidden claim and private reveal.

        Private reveals need only their recipients' channel seeds, so they are
        checked even when a missing reveal leaves the shuffles unproven.
        """
        state = public.state
        if state is None or not state.seats or not state.decks:
            return None
        seats = set(range(len(state.seats)))
        knowledge = Knowledge(channel_seeds=dict(state.channel_seeds))
        if state.removed:
            gone = ", ".join(f"{state.name_of(peer.key)} (removed at entry {seq})"
                             for seq, peer, _ in state.removed)
            self.unprovable.append(
                f"the {state.void_decks} decks shuffled before the last removal, and the "
                f"hidden claims and private reveals before it: {gone} never revealed")
        if seats <= set(state.reveals):
            found = self.proven_faces(state) or self.re_execute(state)
            if isinstance(found, Finding):
                return found
            knowledge = found
            self.knowledge = found if found.decks else None
        else:
            missing = ", ".join(state.name_of(state.seats[s].key)
                                for s in sorted(seats - set(state.reveals)))
            self.unverified.append(f"the shuffles and hidden cards ({missing} never revealed "
                                   "their secrets)")
        findings = [f for f in (self._check_sealed(public, knowledge),
                                self._check_faces(public, knowledge),
                                self._check_claims(public, knowledge)) if f is not None]
        return min(findings, key=_entry_order) if findings else None

    def _check_sealed(self, public: _Public, knowledge: Knowledge) -> Finding | None:
        """Every private reveal, opened with its recipient's revealed channel seed."""
        seeds = knowledge.channel_seeds
        if not seeds or public.state is None:
            return None
        for before, seen, entry in public.sealed:
            try:
                check_private_reveal(before, entry, seeds, seen)
            except Misbehaviour as error:
                return self.misbehaviour_finding(error, stage="reveal")
        self.checked_privately = frozenset(seeds)
        if public.sealed:
            self.verified.append(f"all {len(public.sealed)} private reveals, opened with "
                                 "their recipients' revealed channel keys")
        return None

    def _check_faces(self, public: _Public, knowledge: Knowledge) -> Finding | None:
        """Every face the shares opened during play is the one the re-executed deck holds."""
        state = public.state
        if state is None or not knowledge.decks:
            return None
        for slot, card in sorted(state.opened.items()):
            if knowledge.faces.get(slot, card) != card:
                return Finding("reveal", "contradiction", None, None,
                               f"the card opened at {tuple(slot)} is not the one the "
                               "re-executed deck holds there")
        self.verified.append(f"all {len(knowledge.decks)} shuffled decks re-executed from "
                             "their committed seeds, every card opened in play among them")
        return None

    def _check_claims(self, public: _Public, knowledge: Knowledge) -> Finding | None:
        """Every hidden claim the engine recorded, judged by the engine's own ``verdict``
        with every face known, at the entry that made it (a Wild Draw Four while
        holding the colour under ``wd4_strict``, a kept playable card, a false challenge
        verdict). A bluff allowed by the rules makes no claim, so a bluff, challenged or
        not, is never a violation; a verdict is the challenger's claim."""
        state = public.state
        if state is None or not knowledge.decks:
            return None
        for seq, claim in public.claims:
            if claim.verdict(knowledge.faces) is False:
                name = state.player_names[claim.seat]
                what = describe_claim(claim.kind, claim.rule)
                return Finding("reveal", "illegal_move", seq,
                               self.seat_player(state, claim.seat),
                               f"{name} broke {claim.rule}: {what}", claim.rule)
        self.verified.append(f"all {len(public.claims)} hidden claims and every hand scored")
        return None

    def proven_faces(self, state: TableState) -> Knowledge | None:
        """Every face, when the table's own end-of-game check already re-executed every
        shuffle (``TableState.audit_error`` empty once ended): the final decks are then
        honest, and the revealed joint secret decrypts them directly, far faster than a
        second re-execution. None sends the audit to ``re_execute`` (to name a cheat).
        """
        keys_in = all(key is not None for key in state.keys)
        if state.phase != TablePhase.ENDED or state.audit_error or not keys_in:
            return None
        secret = Scalar(0)
        for seat in range(len(state.seats)):
            secret = secret + state.reveals[seat].value.key_share
        faces: dict[Slot, int] = {}
        decks: set[int] = set()
        try:
            for deck in state.decks[state.void_decks:]:
                if deck.ready and deck.done:
                    faces.update((Slot(deck.number, position), card_of(ct.c2 - ct.c1 * secret))
                                 for position, ct in enumerate(deck.ciphertexts))
                    decks.add(deck.number)
        except CryptoError:
            return None  # not a card: let the re-execution say whose shuffle it was
        return Knowledge(faces, frozenset(decks), dict(state.channel_seeds))

    def re_execute(self, state: TableState) -> Knowledge | Finding:
        """Every shuffle from its revealed seed (docs/protocol/deck.md §9): faces or a cheat."""
        keys = [key for key in state.keys if key is not None]
        if len(keys) != len(state.seats):
            self.unverified.append("the shuffles (a seat never announced its key)")
            return Knowledge()
        records: list[DeckRecord] = []
        results: list[DeckResult] = []
        index: dict[int, int] = {}
        faces: dict[Slot, int] = {}
        decks: set[int] = set()
        for deck in state.decks[state.void_decks:]:
            if not deck.done:
                continue
            # DeckRecord.carried indexes the records list, not the deck numbers.
            try:
                record = _deck_record(deck, index)
                result = verify_deck(record, keys=keys, reveals=state.reveals, earlier=results)
            except CryptoError as error:
                return self.shuffle_finding(state, deck, error)
            index[deck.number] = len(records)
            records.append(record)
            results.append(result)
            if deck.ready:
                decks.add(deck.number)
                faces.update((Slot(deck.number, p), c) for p, c in enumerate(result.order))
        return Knowledge(faces, frozenset(decks), dict(state.channel_seeds))

    def shuffle_finding(self, state: TableState, deck: DeckState, error: CryptoError) -> Finding:
        culprit = next((p for p in state.seats if p.key.hex() == error.peer), None)
        entry = next((e.seq for e in self.entries if isinstance(e.body, ShuffleDeck)
                      and e.body.shuffle == deck.number and e.author == culprit), None)
        return Finding("reveal", error.code, entry,
                       None if culprit is None else self.player(culprit), str(error))

    def recorded_findings(self, public: _Public) -> list[Finding]:
        """Culprits the table itself named in the log, proven there."""
        findings = []
        for event in public.recorded:
            if event.code in SILENCE_CODES or self._unproven_accusation(event):
                continue
            findings.append(Finding(self._recorded_stage(event), event.code, event.entry,
                                    None if event.peer is None else self.player(event.peer),
                                    event.reason, _rule_of(event.code, event.reason)))
        return findings

    def _recorded_stage(self, event: PeerMisbehaved) -> str:
        """An ``abort`` is the table stopping the game; else what the entry itself showed
        (a claim proven false at a round end, a shuffle at the table's final check)."""
        entry = event.entry
        if entry is not None and 0 <= entry < len(self.entries) and \
                isinstance(self.entries[entry].body, Abort):
            return "table"
        if event.code == "dishonest_shuffle":
            return "reveal"
        return "proofs" if event.code in PROOF_CODES else "rules"

    def _unproven_accusation(self, event: PeerMisbehaved) -> bool:
        """An ``abort`` without evidence: a private fault only the reveal can settle."""
        if event.entry is None or not 0 <= event.entry < len(self.entries):
            return False
        body = self.entries[event.entry].body
        return isinstance(body, Abort) and not body.evidence

    # -- the conclusion -----------------------------------------------------------------------
    def conclude(self, public: _Public) -> AuditReport:
        state = public.state
        assert state is not None  # noqa: S101 (run() checked)
        silent = [e for e in public.recorded if e.code in SILENCE_CODES]
        accused = [e for e in public.recorded
                   if e.code not in SILENCE_CODES and self._unproven_accusation(e)]
        # An accusation about a private reveal is settled once the accuser's channel
        # seed opened every private reveal it received (and all were right).
        false = [e for e in accused if "private" in e.code
                 and self._accuser_seat(state, e) in self.checked_privately]
        if false:
            return self.report(Status.VIOLATION, public, self._false_accusation(false[0]))
        closed = state.phase == TablePhase.ENDED and state.closed >= 0
        if state.phase == TablePhase.ENDED and not closed and not self.unverified:
            if state.stop is None:
                return self.report(Status.OK, public)
            if state.stop.culprit is None:
                # A leave, or an accusation without evidence that every reveal left
                # unproven: the game stopped, and the log names who stopped it.
                return self.report(Status.STOPPED, public, stopped=state.stop.reason + ".")
        if self.torn_bytes and state.phase != TablePhase.ENDED:
            # A crash cut the file: what is missing may be anyone's next entry.
            return self.report(Status.UNFINISHED, public, stopped=(
                "The file ends in a cut-short record, so the log is incomplete. "
                + self._waiting(state)))
        if state.phase == TablePhase.ENDED:
            return self.aborted(public, state, [*silent, *accused])
        # table.md §8: only the sequencer's closing entry says the table stopped
        # waiting; a log that merely stops blames nobody (it may have been cut).
        return self.report(Status.UNFINISHED, public, stopped=self._waiting(state))

    def aborted(self, public: _Public, state: TableState,
                events: list[PeerMisbehaved]) -> AuditReport:
        if events:
            event = events[0]
            who = None if event.peer is None else self.player(event.peer)
            finding = Finding("table", event.code, event.entry, who, event.reason,
                              _rule_of(event.code, event.reason), proven=False)
            why = state.stop.reason + ". " if state.stop is not None else ""
            return self.report(Status.ABORTED, public, finding,
                               stopped=f"{why}The game was stopped at entry {event.entry}.")
        missing = sorted(state.reveals_expected - set(state.reveals))
        seq = public.revealing_since
        if missing:
            who = self.seat_player(state, missing[0])
            finding = Finding("reveal", "missing_reveal", seq, who,
                              f"{who.name} never revealed its key share and shuffle seed, "
                              "so the shuffles and hidden cards cannot be checked")
            return self.report(Status.ABORTED, public, finding,
                               stopped=f"The reveal was due from entry {seq} on.")
        return self.report(Status.ABORTED, public,
                           stopped=state.stop.reason + "." if state.stop else "")

    def _accuser_seat(self, state: TableState, event: PeerMisbehaved) -> int | None:
        assert event.entry is not None  # noqa: S101 (_unproven_accusation checked)
        return state.seat_of(self.entries[event.entry].author.key)

    def _false_accusation(self, event: PeerMisbehaved) -> Finding:
        """Every private reveal checked out: the accuser's ``abort`` was false."""
        assert event.entry is not None  # noqa: S101 (_unproven_accusation checked)
        accuser = self.entries[event.entry].author
        return Finding("reveal", "false_accusation", event.entry, self.player(accuser),
                       f"it accused {event.name} of {event.code}, but every private reveal "
                       "opens and proves right with the revealed keys")

    def _waiting(self, state: TableState) -> str:
        seats = awaited_seats(state)
        if not seats:
            return LOG_ENDS
        return LOG_ENDS_WAITING.format(
            names=", ".join(state.name_of(state.seats[s].key) for s in seats))

    # -- naming -------------------------------------------------------------------------------
    def misbehaviour_finding(self, error: Misbehaviour, stage: str | None = None) -> Finding:
        if stage is None:
            stage = "proofs" if error.code in PROOF_CODES else "rules"
        culprit = None if error.culprit is None else self.player(error.culprit)
        return Finding(stage, error.code, error.entry, culprit, str(error),
                       _rule_of(error.code, str(error)))

    def player(self, peer: PeerId) -> Player:
        return Player(self.roster.seats.get(peer.key), self.roster.name(peer.key), peer.key,
                      peer == self.host)

    def seat_player(self, state: TableState, seat: int) -> Player:
        return self.player(state.seats[seat])

    def by_fingerprint(self, label: str | None) -> Player | None:
        keys = {self.host.key, *self.roster.names, *self.roster.seats}
        for key in keys:
            player = self.player(PeerId(key))
            if label in (player.fingerprint, key.hex()):
                return player
        return None

    def report(self, status: Status, public: _Public | None, finding: Finding | None = None,
               *, stopped: str = "") -> AuditReport:
        state = None if public is None else public.state
        players = self._players(state)
        engine = None if state is None else state.engine
        winner = None
        if engine is not None and engine.winner is not None and status == Status.OK:
            winner = engine.players[engine.winner]
        options = () if state is None or state.lobby is None else state.lobby.options
        return AuditReport(
            status, len(self.entries), players, "" if state is None or state.lobby is None
            else state.lobby.preset, options, tuple([] if public is None else public.rounds),
            () if engine is None else engine.scores, winner,
            sum(isinstance(e.body, Move) for e in self.entries), self._duration(),
            finding, stopped, tuple(self.verified), (*self.unverified, *self.unprovable),
            self.torn_bytes,
            self.entries[0].message.table_id, tuple([] if public is None else public.digests),
            self._handovers(state), self._removed(state),
            None if status != Status.UNFINISHED or state is None else
            tuple(state.name_of(state.seats[seat].key) for seat in awaited_seats(state)))

    def _removed(self, state: TableState | None) -> tuple[RemovalResult, ...]:
        """Who vanished or left and was removed, at which entry, voiding which round
        (table.md §8, §14): a removal by the seat's own ``leave`` is told as one."""
        if state is None:
            return ()
        return tuple(RemovalResult(seq, state.name_of(peer.key), round_number,
                                   isinstance(self.entries[seq].body, Leave))
                     for seq, peer, round_number in state.removed)

    def _handovers(self, state: TableState | None) -> tuple[HandoverResult, ...]:
        """Who handed the sequencer role to whom, at which entry (table.md §13)."""
        if state is None:
            return ()
        return tuple(HandoverResult(seq, term, state.name_of(old.key), state.name_of(new.key))
                     for term, (seq, old, new) in enumerate(state.handovers, start=1))

    def _players(self, state: TableState | None) -> tuple[Player, ...]:
        if state is not None and state.seats:
            return tuple(self.player(p) for p in state.seats)
        if state is not None and state.lobby is not None:
            return tuple(self.player(p) for p in state.lobby.joined)
        # No replay (the chain broke): who the log's lobby entries say is there.
        keys = sorted(self.roster.seats, key=self.roster.seats.__getitem__) or \
            list(self.roster.names)
        return tuple(self.player(PeerId(key)) for key in keys) or (self.player(self.host),)

    def _duration(self) -> int | None:
        times = [e.body.now_ms for e in self.entries if isinstance(e.body, Clock)]
        return max(times) - min(times) if len(times) >= 2 else None


def _entry_order(finding: Finding) -> int:
    return -1 if finding.entry is None else finding.entry


def _rule_of(code: str, reason: str) -> str | None:
    """The RULES.md rule an engine refusal names (the table writes ``... (rule X)``)."""
    if code != "illegal_move" or "(rule " not in reason:
        return None
    return reason.rsplit("(rule ", 1)[1].split(")", 1)[0]


def _deck_record(deck: DeckState, index: dict[int, int]) -> DeckRecord:
    """The deck's record for ``verify_deck``; ``index`` maps deck numbers to record indices.

    Raises:
        CryptoError: a carried card comes from a deck that was never shuffled.
    """
    carried = []
    for slot in deck.carried:
        if slot.shuffle not in index:
            raise CryptoError(f"deck {deck.number} carries a card of unshuffled deck "
                              f"{slot.shuffle}", item=f"deck {deck.number}", code="bad_deck")
        carried.append((index[slot.shuffle], slot.position))
    return DeckRecord(deck.round, deck.number, deck.card_ids, deck.done,
                      tuple(ShuffleMessage(s) for s in deck.shuffles), tuple(carried))


def revealed_knowledge(entries: Sequence[Entry]) -> Knowledge | None:
    """Every face and channel seed the end-of-game reveal gives, or None.

    None when the log holds no complete reveal, or a shuffle does not
    re-execute (then ``audit_entries`` reports who cheated).
    """
    return audit_with_knowledge(entries)[1]
