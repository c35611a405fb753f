"""The audit learns every face two ways, and both must agree (deck.md §9).

When the table's own end-of-game check passed, the audit decrypts the final
decks with the revealed joint secret (``proven_faces``); otherwise it
re-executes every shuffle from its revealed seed (``re_execute``). A
reference log only ever takes the first way, so the second, which names a
cheat when there is one, was checked on cheats alone. Here both run on the
same honest games: the same card at every position of every deck, each
deck a permutation of the card ids it was made of (a round's deck holds the
108 cards, deck.md §5); without a seat's key nothing can be re-executed,
and the report says so in a phrase.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from uno_p2p.audit import Knowledge
from uno_p2p.audit.core import _Audit
from uno_p2p.store.unolog import read_log
from uno_p2p.table.state import TableState

DATA = Path(__file__).resolve().parent.parent / "data"


def _replayed(name: str) -> tuple[_Audit, TableState]:
    audit = _Audit(read_log(DATA / name).entries, 0)
    assert audit.check_chain() is None
    public = audit.replay()
    assert public.failure is None
    assert public.state is not None
    return audit, public.state


@pytest.mark.parametrize("name", ["honest-2p-official.unolog", "honest-4p-party.unolog"])
def test_re_executing_the_shuffles_gives_the_faces_the_joint_secret_gives(name: str) -> None:
    audit, state = _replayed(name)
    fast = audit.proven_faces(state)
    slow = audit.re_execute(state)
    assert fast is not None
    assert isinstance(slow, Knowledge)
    done = {deck.number for deck in state.decks[state.void_decks:] if deck.done and deck.ready}
    assert done, "the game shuffled decks"
    assert fast.decks == slow.decks == frozenset(done)
    assert slow.faces == fast.faces
    assert slow.channel_seeds == fast.channel_seeds == state.channel_seeds
    for deck in state.decks:
        faces = [slow.faces[slot] for slot in sorted(slow.faces) if slot.shuffle == deck.number]
        assert len(faces) == len(deck.start)
        if not deck.carried:
            assert Counter(faces) == Counter(deck.card_ids), f"deck {deck.number}"
    assert not audit.unverified


def test_without_every_key_nothing_is_re_executed_and_the_report_says_so() -> None:
    audit, state = _replayed("honest-2p-official.unolog")
    keyless = replace(state, keys=(state.keys[0], None))
    assert audit.proven_faces(keyless) is None
    found = audit.re_execute(keyless)
    assert found == Knowledge()
    assert len(audit.unverified) == 1
    said = audit.unverified[0]
    assert said[:1].islower()
    assert "XX" not in said
    assert "shuffles" in said
    assert "key" in said
