"""The chain across a change of sequencer (wire.md §4.4), on the version 2 vector
``protocol/vectors/games/v2/3p-handover.unolog``.

A chain verifier told who takes over (``successor``: the ``new`` of a kind 72
body, as wire.md §4.4 says) accepts every entry and ends with Bob as the
sequencer from the hand-over's number on; one that keeps entry 0's key refuses
the hand-over entry itself as ``bad_countersignature`` naming the sequencer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uno_p2p.crypto.identity import PeerId
from uno_p2p.errors import RemoteProtocolError
from uno_p2p.store.unolog import read_log
from uno_p2p.table import bodies  # noqa: F401 (registers the table's body kinds)
from uno_p2p.wire.chain import ChainVerifier
from uno_p2p.wire.envelope import Entry

GAMES = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "games" / "v2"
ENTRIES = list(read_log(GAMES / "3p-handover.unolog").entries)
DESCRIBED = next(g for g in json.loads((GAMES / "games.json").read_text())["games"]
                 if g["file"] == "3p-handover.unolog")
HANDOVER_KIND = 72


def new_of(entry: Entry) -> PeerId | None:
    """wire.md §4.4, from the bytes: a kind 72 body is [term, old, new, votes]."""
    if entry.message.kind != HANDOVER_KIND:
        return None
    return PeerId(entry.message.body.to_wire()[2])  # type: ignore[arg-type]


def test_the_countersigner_changes_at_the_handover_entry() -> None:
    chain = ChainVerifier(ENTRIES[0].message.table_id, ENTRIES[0].author, new_of)
    for entry in ENTRIES:
        chain.accept(entry)
    handover = next(e.seq for e in ENTRIES if e.message.kind == HANDOVER_KIND)
    bob = new_of(ENTRIES[handover])
    assert [(first, peer.key) for first, peer in chain.terms] == [
        (0, ENTRIES[0].author.key), (handover, bob.key if bob else b"")]
    signers = [e["countersigner"] for e in DESCRIBED["entries"]]
    assert set(signers[:handover]) == {ENTRIES[0].author.key.hex()}
    assert bob is not None
    assert set(signers[handover:]) == {bob.key.hex()}


def test_without_the_successor_the_handover_entry_is_refused() -> None:
    chain = ChainVerifier(ENTRIES[0].message.table_id, ENTRIES[0].author)
    handover = next(e.seq for e in ENTRIES if e.message.kind == HANDOVER_KIND)
    for entry in ENTRIES[:handover]:
        chain.accept(entry)
    with pytest.raises(RemoteProtocolError) as refused:
        chain.accept(ENTRIES[handover])
    assert (refused.value.code, refused.value.entry) == ("bad_countersignature", handover)
    assert refused.value.peer == ENTRIES[0].author.fingerprint
