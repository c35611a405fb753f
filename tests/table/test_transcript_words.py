"""Every table body and engine action in words, as ``log show`` and ``replay --text`` print it.

A transcript line reads ``entry 41, seat 2 (Cy): played Red 7``: the words go
on after the author's name, so they start in lower case, and they name what
a reader needs to follow the game: the cards (RULES.md's names, "Red 7",
"Wild Draw Four"), the colour named, the seat targeted, the deck and the
count of cards or shares, the peer named in an abort or a removal, and the
game's word UNO in capitals (RULES.md). Expected words come from the rules'
names for cards and from the log's own values, not from the code.
"""

from __future__ import annotations

import pytest

from tests.audit.test_fault_codes import (
    BOB,
    CY,
    HOST,
    LOG,
    STRANGER,
)
from uno_p2p.rules.actions import (
    CatchUno,
    Challenge,
    ChallengeVerdict,
    ChooseColour,
    Draw,
    Pass,
    Play,
    SayUno,
    TimeOut,
)
from uno_p2p.rules.cards import Rank, colour_of, rank_of
from uno_p2p.rules.codec import Slot
from uno_p2p.rules.events import ChallengeResolved
from uno_p2p.table.bodies import (
    Abort,
    Clock,
    KeySetup,
    Move,
    Remove,
    RevealSecrets,
    Shares,
    ShuffleDeck,
    describe_action,
)
from uno_p2p.table.game import describe_event

NAMES = {HOST.key: "Ann", BOB.key: "Bob", CY.key: "Cy"}
RED, YELLOW, GREEN, BLUE = range(4)


def name(key: bytes) -> str:
    return NAMES.get(key, "someone")


def card(rank: Rank, colour: int = -1) -> int:
    """The first card id of this rank and colour (docs/protocol/deck.md's card list)."""
    return next(c for c in range(108) if rank_of(c) == rank and colour_of(c) == colour)


def _reads_on(text: str) -> None:
    assert text, "never empty"
    assert text[0].islower(), f"continues a sentence after a name: {text!r}"
    assert "None" not in text


def test_every_body_of_a_real_log_reads_on_after_its_authors_name() -> None:
    kinds = set()
    for entry in LOG:
        text = entry.body.describe(name)
        _reads_on(text)
        kinds.add(type(entry.body))
        body = entry.body
        if isinstance(body, ShuffleDeck):
            assert f"deck {body.shuffle}" in text
            assert str(len(body.ciphertexts)) in text, "the deck's size"
        elif isinstance(body, Shares):
            assert str(len(body.items)) in text
            assert "share" in text
        elif isinstance(body, Clock):
            assert str(body.now_ms) in text
            assert "clock" in text
        elif isinstance(body, KeySetup):
            assert "key" in text
        elif isinstance(body, RevealSecrets):
            assert "revealed" in text
            assert "key" in text
    assert {ShuffleDeck, Shares, Clock, KeySetup, RevealSecrets, Move} <= kinds


def test_an_abort_and_a_removal_name_the_peer() -> None:
    abort = Abort(BOB, "illegal_move", "played out of turn", b"").describe(name)
    _reads_on(abort)
    assert "Bob" in abort
    assert "illegal_move" in abort
    assert "Ann" not in abort
    removed = Remove(CY, "vanished").describe(name)
    _reads_on(removed)
    assert "Cy" in removed
    assert "vanished" in removed
    stranger = Remove(STRANGER, "gone").describe(name)
    assert "someone" in stranger, "the names function decides who is unknown"


@pytest.mark.parametrize(("action", "words"), [
    (Draw(1), ["drew"]),
    (Pass(1), ["kept", "drawn card"]),
    (SayUno(1), ["said", "UNO"]),
    (Challenge(1), ["challenged", "Wild Draw Four"]),
    (TimeOut(1), ["timed out"]),
    (CatchUno(0, 2), ["caught", "seat 2", "UNO"]),
    (ChallengeVerdict(1, guilty=True), ["verdict", "guilty"]),
    (ChooseColour(0, BLUE), ["named", "Blue"]),
])
def test_every_action_in_words(action: object, words: list[str]) -> None:
    text = describe_action(action)  # type: ignore[arg-type]
    _reads_on(text)
    for word in words:
        assert word in text, (word, text)


def test_a_verdict_says_guilty_or_not() -> None:
    assert "not guilty" in describe_action(ChallengeVerdict(1, guilty=False))
    assert "not" not in describe_action(ChallengeVerdict(1, guilty=True))


def test_a_play_names_its_cards_colour_power_and_uno() -> None:
    red7 = card(Rank.SEVEN, RED)
    plain = describe_action(Play(0, (Slot(0, 3),), (red7,)))
    _reads_on(plain)
    assert "Red 7" in plain
    assert "UNO" not in plain
    assert "naming" not in plain
    skip = card(Rank.SKIP, GREEN)
    two = describe_action(Play(0, (Slot(0, 3), Slot(0, 4)), (skip, skip), say_uno=True))
    assert two.count("Green Skip") == 2, "both cards named"
    assert two.endswith("said UNO")
    wild = describe_action(Play(0, (Slot(0, 5),), (card(Rank.WILD_DRAW_FOUR),), colour=YELLOW))
    assert "Wild Draw Four" in wild
    assert "Yellow" in wild
    seven = describe_action(Play(0, (Slot(0, 6),), (red7,), target=2, power="swap"))
    assert "swap" in seven
    assert "seat 2" in seven


SEAT_NAMES = ("Ann", "Bob", "Cy")


@pytest.mark.parametrize("guilty", [True, False])
def test_a_challenge_verdict_says_guilty_or_not_and_names_both_players(guilty: bool) -> None:
    text = describe_event(ChallengeResolved(challenger=2, challenged=1, guilty=guilty), SEAT_NAMES)
    assert "Cy" in text
    assert "Bob" in text
    assert ("not guilty" in text) is not guilty
    assert "guilty" in text
