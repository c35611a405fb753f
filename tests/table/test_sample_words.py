"""The engine's facts in words, as every peer tells its player (``MovePlayed``, table.md §11).

RULES.md: a challenged Wild Draw Four is either proven (the player who played it
held a matching colour: *guilty*, and draws four) or not (*not guilty*: the
challenger draws six). The line a player reads says which, naming both seats.
"""

from __future__ import annotations

import pytest

from tests.audit.test_fault_codes import (
    FIRST_KEY,
    FIRST_PLAY,
    FIRST_SHARES,
    LOG,
    PEOPLE,
    forge,
    mover,
)
from uno_p2p.rules.events import ChallengeResolved
from uno_p2p.table.bodies import Move, Shares
from uno_p2p.table.game import describe_event
from uno_p2p.table.ledger import apply_entry, initial_state
from uno_p2p.table.state import Misbehaviour
from uno_p2p.wire.envelope import Entry

NAMES = ("Ann", "Bob", "Cy")


@pytest.mark.parametrize("guilty", [True, False])
def test_a_challenge_verdict_says_guilty_or_not_and_names_both_players(guilty: bool) -> None:
    text = describe_event(ChallengeResolved(challenger=2, challenged=1, guilty=guilty), NAMES)
    assert "Cy" in text
    assert "Bob" in text
    assert ("not guilty" in text) is not guilty
    assert "guilty" in text


def _refusal(entries: list[Entry]) -> Misbehaviour:
    state = initial_state(entries[0].message.table_id)
    for entry in entries[:-1]:
        state, _ = apply_entry(state, entry)
    with pytest.raises(Misbehaviour) as caught:
        apply_entry(state, entries[-1])
    return caught.value


def test_shares_before_the_game_are_unexpected_and_the_reason_reads_on() -> None:
    """table.md §3.3: shares come from a seat that owes them in play (§4); the fault's
    words follow "entry N:" and the culprit's name, so they read on in lower case and
    say what came out of place (table.md §7, as tests/table/test_faults_in_words.py)."""
    refused = _refusal(forge(LOG, FIRST_KEY, 1, LOG[FIRST_SHARES].body))
    assert refused.code == "unexpected"
    assert refused.entry == FIRST_KEY
    assert refused.culprit is not None
    assert refused.culprit.key == PEOPLE[1].peer.key
    words = str(refused).split(": ", 1)[1]
    assert words[0].islower(), words
    assert "shares" in words


def test_a_play_carrying_a_share_it_cannot_carry_names_its_player() -> None:
    """table.md §5: a play carries its player's own open shares of the cards it plays;
    a deal share of another seat in it is ``unexpected_share``, and the fault names
    the move's author (the culprit is known: it signed the move)."""
    play = LOG[FIRST_PLAY].body
    assert isinstance(play, Move)
    deal = next(i for e in LOG if isinstance(e.body, Shares)
                for i in e.body.items if i.purpose == "deal")
    who = mover(FIRST_PLAY)
    refused = _refusal(forge(LOG, FIRST_PLAY, who, Move(play.action, (*play.shares, deal))))
    assert refused.code == "unexpected_share"
    assert refused.entry == FIRST_PLAY
    assert refused.culprit is not None
    assert refused.culprit.key == PEOPLE[who].peer.key


def test_a_card_shown_without_its_shares_is_an_unproven_face() -> None:
    """table.md §5: a play shows its cards' faces, proven by every seat's share; a play
    without its player's own open share is ``unproven_face``, naming the player."""
    play = LOG[FIRST_PLAY].body
    assert isinstance(play, Move)
    who = mover(FIRST_PLAY)
    refused = _refusal(forge(LOG, FIRST_PLAY, who, Move(play.action, ())))
    assert refused.code == "unproven_face"
    assert refused.entry == FIRST_PLAY
    assert refused.culprit is not None
    assert refused.culprit.key == PEOPLE[who].peer.key
