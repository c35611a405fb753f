"""``uno-lan replay FILE --text``: the whole game move by move, as the audit saw it.

Each entry is one line (``entry 41, seat 2 (Cy): played Red 7``), followed by
what it made happen at the table (``Bob took 2 cards (penalty)``, ``round 1
over``). Once the end-of-game reveal is in the log and every shuffle
re-executes, every hand is shown face up after each entry that changed one;
without it only what the table made public is shown, and hidden cards are
``??``. The audit's verdict is printed under the entry it names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from uno_p2p.audit.report import Finding
from uno_p2p.audit.walk import walk
from uno_p2p.errors import RemoteProtocolError
from uno_p2p.rules.cards import short_name
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.state import State
from uno_p2p.table.events import GameEnded, MovePlayed, PeerMisbehaved, RoundEnded, TableEvent
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.transcript import Roster


def replay_lines(entries: Sequence[Entry], faces: Mapping[Slot, int] | None = None,
                 finding: Finding | None = None) -> Iterator[str]:
    """The game as text, one line at a time; it stops with a line at a refused entry.

    ``faces`` (every card, from the re-executed shuffles) shows every hand;
    ``finding`` (the audit's first violation) is printed under its entry.
    """
    roster = Roster()
    shown: tuple[tuple[str, ...], ...] = ()
    known = faces or {}
    try:
        for step in walk(entries):
            entry = step.entry
            roster.learn(entry)
            what = entry.body.describe(roster.name)
            yield f"entry {entry.seq}, {roster.who(entry.author.key)}: {what}"
            said = f"{roster.name(entry.author.key)} {what}"
            for event in step.events:
                line = describe_fact(event, step.after.player_names)
                if line and line != said:
                    yield f"    {line}"
            if finding is not None and finding.entry == entry.seq:
                yield f"    !! AUDIT: {finding.paragraph()}"
            engine = step.after.engine
            if engine is not None:
                hands = hand_texts(engine, known)
                if hands != shown:
                    shown = hands
                    yield from (f"    | {name}: {' '.join(cards) or '(none)'}"
                                for name, cards in zip(engine.players, hands, strict=True))
    except RemoteProtocolError as error:
        yield f"STOP: {error} (code {error.code}); the audit reports it."


def hand_texts(engine: State, faces: Mapping[Slot, int]) -> tuple[tuple[str, ...], ...]:
    """Each seat's hand: faces the table opened, else the revealed ones, else ``??``."""
    out = []
    for seat in range(len(engine.players)):
        cards = []
        for slot in engine.hands[seat]:
            face = engine.known.get(slot, faces.get(slot))
            cards.append("??" if face is None else short_name(face))
        out.append(tuple(cards))
    return tuple(out)


def describe_fact(event: TableEvent, names: tuple[str, ...]) -> str:
    """One table fact in plain words, or "" for facts the entry line already says."""
    if isinstance(event, MovePlayed):
        return event.description
    if isinstance(event, RoundEnded):
        won = "a void round" if event.winner < 0 else f"won by {names[event.winner]}"
        return f"round {event.round} over, {won}: changes {list(event.changes)}, " \
               f"scores {list(event.scores)}"
    if isinstance(event, PeerMisbehaved):
        who = event.name or "someone"
        return f"VIOLATION by {who} ({event.code}): {event.reason}"
    if isinstance(event, GameEnded):
        if event.stopped:
            return f"the game stopped: {event.stopped}"
        winner = names[event.winner] if 0 <= event.winner < len(names) else "nobody"
        audit = f"; reveal: {event.audit}" if event.audit else "; every shuffle proven"
        return f"game over, won by {winner}, scores {list(event.scores)}{audit}"
    return ""
