"""A malicious host logs any peer's entry with another body: the audit never crashes,
and a violation it finds is at that very entry.

Each trial takes an honest log, replaces the body of one entry with the body
of another logged entry (re-signed with the author's own key, countersigned by
the host: the worst a colluding host and peer can write), cuts the log there,
and audits it. Bounded and seeded.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from uno_p2p.audit import Status, audit_entries
from uno_p2p.crypto.identity import Identity
from uno_p2p.store.unolog import read_log
from uno_p2p.table import bodies  # noqa: F401 (registers the table's body kinds)
from uno_p2p.table.memnet import seeded
from uno_p2p.wire.envelope import Entry, Message

pytestmark = pytest.mark.game

DATA = Path(__file__).resolve().parent.parent / "data"
TRIALS = 25


def test_any_logged_body_in_another_place_is_judged_there() -> None:
    entries = list(read_log(DATA / "honest-3p-house.unolog").entries)
    seed = b"uno-lan/reference/honest-3p"
    identities = {i.peer.key: i for i in (Identity(seeded(seed, f"identity {n}"))
                                          for n in range(3))}
    host = identities[entries[0].author.key]
    rng = random.Random(11)
    violations = 0
    for _ in range(TRIALS):
        index = rng.randrange(1, len(entries))
        donor = entries[rng.randrange(1, len(entries))].body
        old = entries[index].message
        message = Message.sign(identities[old.author.key], old.table_id, old.counter,
                               old.head, donor, version=old.version)
        forged = Entry.countersign(host, index, entries[index].prev_hash, message)
        report = audit_entries([*entries[:index], forged])
        if report.status == Status.VIOLATION:
            violations += 1
            assert report.violation is not None
            assert report.violation.entry == index, report.lines()
    assert violations > TRIALS // 2
