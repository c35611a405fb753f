"""``uno-lan replay FILE --text``: the whole game move by move, as the audit saw it.

Each entry is one line (``entry 41, seat 2 (Cy): moved: play``), followed by
what it made happen at the table (``Cy played Red 7``, ``Round 1 is over``).
Once the end-of-game reveal is in the log and every shuffle re-executes,
every hand is shown face up after each entry that changed one; before that
(or without a reveal) only what the table made public is shown, and hidden
cards are ``??``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from uno_p2p.audit.walk import Knowledge, walk
from uno_p2p.errors import RemoteProtocolError
from uno_p2p.rules.cards import short_name
from uno_p2p.rules.state import State
from uno_p2p.table.events import GameEnded, MovePlayed, PeerMisbehaved, RoundEnded, TableEvent
from uno_p2p.wire.envelope import Entry
from uno_p2p.wire.transcript import Roster


def replay_lines(entries: Sequence[Entry], knowledge: Knowledge | None = None) -> Iterator[str]:
    """The game as text, one line at a time; stops with a line at the first bad entry.

    ``knowledge`` (from ``uno_p2p.audit.core.revealed_knowledge``) makes every hand
    visible; without it only public faces are shown.
    """
    roster = Roster()
    shown: tuple[tuple[str, ...], ...] = ()
    try:
        for step in walk(entries, knowledge):
            entry = step.entry
            roster.learn(entry)
            what = entry.body.describe(roster.name)
            yield f"entry {entry.seq}, {roster.who(entry.author.key)}: {what}"
            said = f"{roster.name(entry.author.key)} {what}"
            for event in step.events:
                line = describe_fact(event, step.after.player_names)
                if line and line != said:
                    yield f"    {line}"
            engine = step.after.engine
            if engine is not None:
                hands = hand_texts(engine)
                if hands != shown:
                    shown = hands
                    yield from (f"    | {name}: {' '.join(cards) or '(none)'}"
                                for name, cards in zip(engine.players, hands, strict=True))
    except RemoteProtocolError as error:
        yield f"STOP: {error} (code {error.code}); the audit reports it."


def hand_texts(engine: State) -> tuple[tuple[str, ...], ...]:
    """Each seat's hand, faces as far as this (observer) engine knows them."""
    return tuple(tuple("??" if face is None else short_name(face)
                       for face in engine.hand_faces(seat))
                 for seat in range(len(engine.players)))


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
