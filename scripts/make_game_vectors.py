"""Write the whole-game vectors under protocol/vectors/games/ (docs/protocol/verdicts.md §6).

Each vector is a small but complete game played by the in-memory table
(``uno_p2p.table.memnet``) among bot peers from fixed public seeds, written as
a ``.unolog`` file, and described in ``games.json``: for every entry its
number, kind, author seat, entry hash and the public state digest after it
(``uno_p2p.table.ledger.digest``), the table phase after it, the expected
audit verdict, and, where the game reseats, the reseat draw's seed and
result. A second implementation reads the logs and checks itself entry by
entry against the JSON.

Each protocol version has its own set (``--version``, wire.md §3): version 1's in
``games/``, version 2's in ``games/v2/``, where ``games.json`` also names each
entry's countersigner (wire.md §4.4).

The vectors are frozen: ``tests/protocol/test_game_vectors.py`` re-derives
everything from the logs and compares, and never rewrites them. Run this
(``scripts/make-game-vectors``) only after a deliberate, documented protocol
change, and commit the new files with it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import msgpack

from uno_p2p.audit import audit_file, walk
from uno_p2p.crypto.identity import Identity
from uno_p2p.errors import RemoteProtocolError
from uno_p2p.rules.actions import Draw
from uno_p2p.rules.engine import public_part
from uno_p2p.rules.options import preset
from uno_p2p.store.unolog import GameLog, read_log
from uno_p2p.table.bodies import Abort, Move, ShuffleDeck
from uno_p2p.table.game import reseat_order
from uno_p2p.table.memnet import NAMES, Network, TableSetup, game_over, seat_table, seeded
from uno_p2p.table.state import Misbehaviour, TableState
from uno_p2p.wire.envelope import PROTOCOL_VERSION, Entry, Head, Message
from uno_p2p.wire.registry import BODIES

OUT = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "games"
#: Where each protocol version's games go (wire.md §3): version 1's in ``games/``,
#: version 2's in ``games/v2/``; each set is written whole, at its own version.
VERSION_DIRS = {1: "", 2: "v2"}
SEED = b"uno-lan/game-vectors/"
#: How many seed labels a game that needs reseats tries (``label-1`` ...).
SEARCH = 40
#: A bound on the in-memory network's steps for one game.
MAX_STEPS = 400_000


@dataclass(frozen=True, slots=True)
class Game:
    """One vector game: who plays, under which preset and overrides, from which seed."""

    name: str
    players: int
    preset: str
    overrides: tuple[str, ...]
    label: str
    what: str
    #: Stop the game by a leave of the last seat after this many entries (0: play out).
    leave_after: int = 0
    #: Cut the log at the first move and have a colluding host log there a move by
    #: seat 1 in seat 0's name (a violation, ``wrong_seat``).
    forged: bool = False
    #: The fewest reseats (a draw that changes the order) the game must show: its seed
    #: is the first of ``label-1`` ... ``label-<SEARCH>`` that gives them.
    min_reseats: int = 0
    #: The host vanishes for good after this many entries (0: never): the next seat
    #: takes over (table.md §13) and removes the host's seat (§14).
    host_vanishes_after: int = 0
    #: The protocol version the game is written in (wire.md §3).
    version: int = 1
    #: The game must start a deck of each kind that is not fresh: a reshuffle of the
    #: discard pile and a Wild Draw Four starter sent back (deck.md §6.1); its seed is
    #: the first of ``label-1`` ... ``label-<SEARCH>`` that does.
    needs_piles: bool = False
    #: Cut the log after seat 1's first move; the host then logs an ``abort`` citing as
    #: equivocation seat 1's message under that move's number signed at a head this log
    #: does not hold (table.md §7.2: judged on its body, a false accusation).
    equivocation_elsewhere: bool = False


GAMES = (
    Game("2p-official", 2, "official", ("target=1",), "2p",
         "two players, official rules, one round to a target of 1"),
    Game("3p-house", 3, "house", ("target=1",), "3p",
         "three players, house rules (stacking, jump-in), one round"),
    Game("3p-reseat", 3, "official", ("target=30", "seat_shuffle_every=1"), "r30",
         "three players, official rules, several rounds with a reseat between each",
         min_reseats=1),
    Game("2p-leave", 2, "official", ("target=1",), "2p-leave",
         "two players; the second leaves during the first round (verdict stopped)",
         leave_after=30),
    Game("4p-teams", 4, "official", ("target=80", "seat_shuffle_every=1", "teams=2"), "t80",
         "four players in two teams, several rounds, reseated after each (teams alternate)",
         min_reseats=2),
    Game("2p-forged", 2, "official", ("target=1",), "2p",
         "the 2p-official game cut at its first move, where the host countersigns Bob's "
         "move in Ann's name (verdict violation, wrong_seat, naming Bob)", forged=True),
    Game("2p-official", 2, "official", ("target=1",), "v2-2p",
         "version 2: two players, official rules, one round to a target of 1; every "
         "shuffle names its round and starting cards", version=2),
    Game("3p-handover", 3, "official", ("target=1",), "v2-handover",
         "version 2: three players; the host vanishes after entry 40, Bob takes over "
         "(the countersigner changes at the handover entry) and removes Ann's seat; Bob "
         "and Cy finish the game (verdict ok)", host_vanishes_after=40, version=2),
    Game("2p-piles", 2, "official", ("target=1", "draw_until_playable=true"), "v2-pile",
         "version 2: two players drawing until playable, so that the draw pile runs out: "
         "decks started by a reshuffle of the discard pile (sources and faces named) and "
         "by a Wild Draw Four starter sent back (sources named, no faces)",
         version=2, needs_piles=True),
    Game("2p-equivocation-elsewhere", 2, "official", ("target=1",), "v2-2p",
         "version 2: the v2 2p-official game cut after Bob's first move; the host logs an "
         "abort citing as equivocation Bob's second message under that move's number, "
         "signed at a head this log does not hold (table.md §7.2: it proves nothing, and "
         "the abort is judged on its body: verdict violation, false_accusation, naming Ann)",
         version=2, equivocation_elsewhere=True),
)


def play(game: Game, label: str | None = None) -> tuple[Entry, ...]:
    """Seat the table and run it to its end (or to the leave, then to its end)."""
    setup = TableSetup(game.players, preset(game.preset, list(game.overrides)),
                       SEED + (label or game.label).encode(), preset=game.preset,
                       version=game.version)
    net = seat_table(setup)
    if game.host_vanishes_after:
        return host_vanishes(net, game.host_vanishes_after)
    if game.leave_after:
        net.run(until=lambda n: len(n.entries()) >= game.leave_after)
        leaver = next(p for p in net.peers.values() if p.name == NAMES[game.players - 1])
        leaver.leave("the bus is here")
    net.run(until=game_over)
    entries = net.entries()
    if game.equivocation_elsewhere:
        return abort_for_equivocation_elsewhere(setup, entries)
    return forge_wrong_seat(setup, entries) if game.forged else entries


def host_vanishes(net: Network, after: int) -> tuple[Entry, ...]:
    """The host goes silent for good after ``after`` entries; the shells' link time-outs
    tell the others (``peer_lost``), who hand over and remove it (table.md §13-§14)."""
    host = net.host
    net.run(until=lambda n: host.state.seq >= after, max_steps=MAX_STEPS)
    key = host.peer_id.key
    net.silent.add(key)
    net.run(until=lambda n: all(sender != key for sender, _, _ in n.queue),
            max_steps=MAX_STEPS)
    live = [p for k, p in net.peers.items() if k != key]
    for peer in live:
        peer.peer_lost(host.peer_id)
        net.flush(peer)  # the shell's link time-out, as tests/table does
    net.run(until=game_over, max_steps=MAX_STEPS)
    return net.entries(live[0])


def reseats(entries: Sequence[Entry]) -> int:
    """How many times the seating order changes between rounds in ``entries``."""
    count = 0
    for step in walk(entries):
        if step.before.engine is not None and step.after.engine is not None and \
                step.before.engine.order != step.after.engine.order:
            count += 1
    return count


def play_searched(game: Game) -> tuple[Entry, ...]:
    """``game`` from the first seed label that gives the reseats it must show.

    Hand-picked labels break with every engine change (the deals move); the search is
    bounded and deterministic, so the vectors stay reproducible.

    Raises:
        SystemExit: no label in the bound gives enough reseats.
    """
    if not game.min_reseats and not game.needs_piles:
        return play(game)
    for k in range(1, SEARCH + 1):
        entries = play(game, f"{game.label}-{k}")
        if reseats(entries) >= game.min_reseats and \
                (not game.needs_piles or piles(entries) == {"reshuffle", "sent back"}):
            print(f"{game.name}: seed label {game.label}-{k}")
            return entries
    raise SystemExit(f"{game.name}: none of the seed labels {game.label}-1 .. "
                     f"{game.label}-{SEARCH} gives what the game must show")


def piles(entries: Sequence[Entry]) -> set[str]:
    """The kinds of non-fresh decks ``entries`` start, as their shuffles name them."""
    return {"reshuffle" if e.body.start.faces else "sent back" for e in entries
            if isinstance(e.body, ShuffleDeck) and e.body.start is not None
            and e.body.start.sources}


def forge_wrong_seat(setup: TableSetup, entries: Sequence[Entry]) -> tuple[Entry, ...]:
    """What a host colluding with seat 1 writes: the log up to the first move, then
    seat 1's signed ``Draw`` for seat 0, countersigned (docs/protocol/verdicts.md §7.2)."""
    index = next(e.seq for e in entries if isinstance(e.body, Move))
    host, bob = (Identity(seeded(setup.seed, f"identity {i}")) for i in (0, 1))
    kept = list(entries[:index])
    counter = sum(e.author == bob.peer for e in kept)
    head = Head(index, kept[-1].hash)
    message = Message.sign(bob, kept[0].message.table_id, counter, head, Move(Draw(0)),
                           version=kept[0].message.version)
    return (*kept, Entry.countersign(host, index, kept[-1].hash, message))


def abort_for_equivocation_elsewhere(setup: TableSetup, entries: Sequence[Entry]
                                     ) -> tuple[Entry, ...]:
    """The log up to seat 1's first move, then the host's ``abort`` naming seat 1 for
    equivocation, its evidence seat 1's ``Draw`` under that move's number signed at
    head ``(seen = the move's own seen, hash = 32 zero bytes)``: no entry of this log
    has that hash, so the message was signed on another chain (table.md §7.2, wire.md
    §4.2) and proves nothing; a draw on seat 1's turn breaks no rule, so the abort is a
    false accusation."""
    host, bob = (Identity(seeded(setup.seed, f"identity {i}")) for i in (0, 1))
    index = next(e.seq for e in entries if isinstance(e.body, Move) and e.author == bob.peer)
    kept = list(entries[:index + 1])
    table_id, version = kept[0].message.table_id, kept[0].message.version
    move = kept[index].message
    elsewhere = Message.sign(bob, table_id, move.counter, Head(move.head.seen, bytes(32)),
                             Move(Draw(1)), version=version)
    counter = sum(e.author == host.peer for e in kept)
    head = Head(len(kept), kept[-1].hash)
    abort = Message.sign(host, table_id, counter, head,
                         Abort(bob.peer, "equivocation", "signed two messages with one number",
                               elsewhere.encode()), version=version)
    return (*kept, Entry.countersign(host, len(kept), kept[-1].hash, abort))


def describe(game: Game, path: Path) -> dict[str, object]:
    """The JSON description of one written log, re-read from the file itself."""
    report = audit_file(path)
    log = read_log(path, BODIES).entries
    entries: list[dict[str, object]] = []
    preimages: dict[str, str] = {}
    reseats: list[dict[str, object]] = []
    seats: dict[bytes, int] = {}
    try:
        for step in walk(log):
            entry, before, after = step.entry, step.before, step.after
            seats = {p.key: i for i, p in enumerate(after.seats)} or seats
            entries.append({
                "seq": entry.seq, "kind": entry.message.kind,
                "author_seat": seats.get(entry.author.key),
                **countersigner(game, after),
                "entry_hash": entry.hash.hex(), "digest": step.digest.hex(),
                "phase": after.phase.value,
            })
            engine = after.engine
            # The digest's preimage where the engine starts and after the last entry.
            if engine is not None and (not preimages or entry.seq == len(log) - 1):
                preimages[str(entry.seq)] = msgpack.packb(public_part(engine),
                                                          use_bin_type=True).hex()
            if before.engine is not None and engine is not None and \
                    before.engine.order != engine.order and \
                    len(before.engine.order) == len(engine.order):  # a removal is no reseat
                reseats.append(reseat_record(before, after, entry.seq))
    except (Misbehaviour, RemoteProtocolError) as error:
        # The refused entry: no state after it (every peer stops there).
        entry = log[len(entries)]
        entries.append({"seq": entry.seq, "kind": entry.message.kind,
                        "author_seat": seats.get(entry.author.key),
                        "entry_hash": entry.hash.hex(), "digest": None, "phase": None,
                        "refused": error.code})
    violation = report.violation
    return {
        "file": path.name, "what": game.what,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "players": game.players, "preset": game.preset, "overrides": list(game.overrides),
        "table_id": report.table_id.hex(), "entries": entries,
        "public_part_msgpack": preimages, "reseats": reseats,
        "verdict": {
            "status": report.status.value, "exit_code": report.exit_code,
            "code": None if violation is None else violation.code,
            "entry": None if violation is None else violation.entry,
            "peer": None if violation is None or violation.peer is None
            else violation.peer.name,
            "winner": report.winner, "scores": list(report.scores),
        },
    }


def countersigner(game: Game, after: TableState) -> dict[str, str]:
    """Version 2 vectors name each entry's countersigner: the sequencer of its term,
    the new one from its ``handover`` entry on (wire.md §4, table.md §13.2)."""
    if game.version < 2 or after.host is None:
        return {}
    return {"countersigner": after.host.key.hex()}


def reseat_record(before: TableState, after: TableState, seq: int) -> dict[str, object]:
    """The reseat draw's inputs and result (docs/protocol/table.md §4.2).

    The draw happens inside the entry that completes the round end's reveal:
    its round is the one that ended (``before``), its faces every face opened
    by then (``after``: the next round opens nothing in the same entry).
    """
    ended = before.game.round
    at_draw = replace(after, engine=replace(after.game, round=ended))
    order = after.game.order
    assert reseat_order(at_draw, seq) == order  # noqa: S101 (the table's own draw)
    faces = [[slot.shuffle, slot.position, card] for slot, card in sorted(after.opened.items())]
    return {"entry": seq, "round": ended, "teams": after.rules.teams, "faces": faces,
            "order": list(order)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write")
    parser.add_argument("--version", type=int, choices=sorted(VERSION_DIRS),
                        default=PROTOCOL_VERSION, help="which protocol version's set")
    parser.add_argument("--only", default=None, metavar="NAME",
                        help="write only this game (a new vector), keeping the others' "
                             "files and descriptions as they are")
    args = parser.parse_args(argv)
    out = args.out / VERSION_DIRS[args.version]
    out.mkdir(parents=True, exist_ok=True)
    games = []
    kept: dict[str, object] = {}
    if args.only is not None:
        kept = {g["file"]: g for g in json.loads((out / "games.json").read_text())["games"]}
    for game in (g for g in GAMES if g.version == args.version):
        if args.only is not None and game.name != args.only:
            games.append(kept[f"{game.name}.unolog"])
            continue
        entries = play_searched(game)
        path = out / f"{game.name}.unolog"
        path.unlink(missing_ok=True)
        with GameLog.create(path) as log:
            for entry in entries:
                log.append(entry)
        described = describe(game, path)
        games.append(described)
        print(f"{path.name}: {len(entries)} entries, {path.stat().st_size} bytes, "
              f"verdict {described['verdict']}")
    document = {
        "about": "Whole-game vectors (docs/protocol/verdicts.md section 6). For each log: "
                 "every entry's hash, the public state digest and table phase after it, "
                 "and the audit verdict. Frozen: regenerate only with "
                 "scripts/make-game-vectors after a deliberate protocol change.",
        "games": games,
    }
    (out / "games.json").write_text(json.dumps(document, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
