"""Everything a peer tells its player reads as what it is (docs/protocol/table.md §9).

A broad check over whole games (an honest round with wild powers, a player who
vanishes, a host who vanishes, a cheat), rather than one sampled mutant at a time:
mutation samples of the table kept finding words and fields that no test read.
What is checked comes from ``uno_p2p/table/events.py``'s contract and the spec,
never from the text the code happens to make:

- every peer of one log tells the same public facts in the same order (§9);
- a name is the one its peer joined under, and a seat's move names that seat's
  player, counted after every removal closed the seats up (§14.2);
- a round's scores are the running sums of its changes (RULES.md "Scoring"), a
  void round changes nothing, and the game ends on the last round's scores;
- a wait names only other seated players, never the peer itself;
- entries are entries of the log, a fault's code is one verdicts.md defines;
- and no sentence holds "None", "XX" or shouts.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from tests.table import adversaries as adv
from tests.table.test_removal import _finish_without, _table
from uno_p2p.audit.codes import CODES
from uno_p2p.rules.options import preset
from uno_p2p.table import events as ev
from uno_p2p.table.bodies import Remove
from uno_p2p.table.memnet import Network, TableSetup, game_over, seat_table
from uno_p2p.table.peer import TablePeer
from uno_p2p.table.state import TablePhase

pytestmark = pytest.mark.game

#: The facts the ledger makes, the same at every peer of one log (events.py).
PUBLIC = (ev.PlayerJoined, ev.OptionsChanged, ev.PlayerReady, ev.PlayerLeft,
          ev.GameStarted, ev.MovePlayed, ev.RoundEnded, ev.GameEnded,
          ev.SequencerChanged, ev.PlayerRemoved)
PHASES = "|".join(phase.value for phase in TablePhase)
WAIT = re.compile(rf"waiting for (?P<names>.+) \((?:{PHASES})\)")


def _strings(event: object) -> list[str]:
    return [value for field in dataclasses.fields(event)  # type: ignore[arg-type]
            if isinstance(value := getattr(event, field.name), str)]


def _reads_as_words(text: str, event: object) -> None:
    assert "None" not in text, event
    assert "XX" not in text, event
    assert not (len(text) > 3 and text.isupper()), f"shouted: {event}"


def assert_told_as_prose(net: Network, peers: list[TablePeer]) -> None:
    """Every check of the module docstring, for every event of every peer in ``peers``."""
    public = [[e for e in net.events[p.peer_id.key] if isinstance(e, PUBLIC)] for p in peers]
    assert all(facts == public[0] for facts in public), "the same public facts at every peer"
    for peer in peers:
        _check_one_peer(net, peer)


def _check_one_peer(net: Network, peer: TablePeer) -> None:
    log = net.entries(peer)
    joined: dict[bytes, str] = {}
    players: list[str] = []
    scores: list[int] | None = None
    last_entry, term = -1, 0
    for event in net.events[peer.peer_id.key]:
        for text in _strings(event):
            _reads_as_words(text, event)
        if isinstance(event, ev.PlayerJoined):
            joined[event.peer.key] = event.name
        elif isinstance(event, ev.PlayerReady | ev.PlayerLeft | ev.ChatSaid):
            assert event.name == joined[event.peer.key], event
        elif isinstance(event, ev.GameStarted):
            players = list(event.players)
            assert sorted(players) == sorted(joined.values()), "every joined peer is seated"
            scores = [0] * len(players)
        elif isinstance(event, ev.MovePlayed):
            assert event.description.startswith(players[event.seat] + " "), (event, players)
            took = re.search(r" took (\d+) (\w+) \(", event.description)
            if took:  # "Bob took 1 card (draw)", "Cy took 4 cards (penalty)"
                assert took[2] == ("card" if took[1] == "1" else "cards"), event
            assert last_entry <= event.entry < len(log), event
            last_entry = event.entry
        elif isinstance(event, ev.RoundEnded):
            assert scores is not None
            assert len(event.changes) == len(event.scores) == len(players), event
            assert list(event.scores) == [s + c for s, c in zip(scores, event.changes,
                                                                  strict=True)], event
            if event.winner == -1:
                assert not any(event.changes), "a void round changes no score"
            else:
                assert 0 <= event.winner < len(players)
            scores = list(event.scores)
        elif isinstance(event, ev.GameEnded):
            if scores is not None and any(scores):
                assert list(event.scores) == scores, "the last round's scores"
            assert (event.winner == -1) == (event.stopped != ""), event
        elif isinstance(event, ev.PlayerRemoved):
            assert event.name == joined[event.peer.key], event
            body = log[event.entry].body
            assert isinstance(body, Remove), event
            assert body.peer == event.peer, event
            assert event.reason, event
            if scores is not None and event.name in players:
                del scores[players.index(event.name)]  # §14.2: the seats close up
            players.remove(event.name)
        elif isinstance(event, ev.SequencerChanged):
            assert (event.old_name, event.new_name) == (joined[event.old.key],
                                                        joined[event.new.key]), event
            assert event.term == term + 1, event
            term = event.term
            assert 0 <= event.entry < len(log), event
        elif isinstance(event, ev.PeerMisbehaved):
            assert event.code in CODES, event
            assert event.reason, event
            if event.peer is not None and event.peer.key in joined:
                assert event.name == joined[event.peer.key], event
            assert event.entry is None or 0 <= event.entry < len(log), event
        elif isinstance(event, ev.Progress):
            wait = WAIT.fullmatch(event.what)
            if wait is not None:
                names = wait["names"].split(", ")
                assert set(names) <= set(players) or not players, event
                assert joined[peer.peer_id.key] not in names, "a peer never waits for itself"


def test_an_honest_round_with_wild_powers_is_told_as_prose() -> None:
    options = preset("official", ["target=1", "wild_powers=true", "seven_zero=true"])
    net = seat_table(TableSetup(3, options, b"told as prose"))
    net.run(until=game_over)
    peers = list(net.peers.values())
    assert_told_as_prose(net, peers)
    ended = [e for e in net.events[net.host.peer_id.key] if isinstance(e, ev.GameEnded)]
    assert [(e.stopped, e.audit) for e in ended] == [("", "")]


def test_a_player_and_then_the_host_who_vanish_are_told_as_prose() -> None:
    net = _table(b"told as prose, vanishing", 4, 30)
    host = net.host
    net.run(until=lambda n: host.state.seq > 60, max_steps=200_000)
    live = _finish_without(net, host)
    events = [e for p in live for e in net.events[p.peer_id.key]]
    assert any(isinstance(e, ev.SequencerChanged) for e in events)
    assert any(isinstance(e, ev.PlayerRemoved) for e in events)
    assert_told_as_prose(net, live)


def test_a_cheat_and_the_stop_it_causes_are_told_as_prose() -> None:
    setup = TableSetup(3, preset("official", ["target=30", "turn_timer=60"]), b"prose cheat")
    net = seat_table(setup, custom={2: adv.PlaysCardNotHeld})
    net.run(until=game_over)
    honest = [p for p in net.peers.values() if p.state.my_seat != 2]
    events = [e for p in honest for e in net.events[p.peer_id.key]]
    assert any(isinstance(e, ev.PeerMisbehaved) for e in events), "the cheat is named"
    assert_told_as_prose(net, honest)
