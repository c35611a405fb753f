"""The audit and the live peers agree, digest by digest, on random simulated games.

Each game is played by bot peers through the full protocol in memory; each
peer records the public digest after every entry it accepted. The audit's
public replay and its full-knowledge walk after the reveal must compute the
very same digests from the log alone.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uno_p2p.audit import Status, audit_entries, revealed_knowledge, walk
from uno_p2p.rules.options import PRESETS, preset
from uno_p2p.table.ledger import digest
from uno_p2p.table.memnet import TableSetup, game_over, seat_table


@pytest.mark.slow
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), preset_name=st.sampled_from(sorted(PRESETS)),
       target=st.sampled_from([30, 60]), seed=st.binary(min_size=4, max_size=8),
       grace=st.sampled_from([0, 800, 2000]), timer=st.sampled_from([0, 20]),
       bots=st.sampled_from(["heuristic", "random"]))
def test_audit_digests_equal_every_peers(players: int, preset_name: str, target: int,
                                         seed: bytes, grace: int, timer: int,
                                         bots: str) -> None:
    # Random games every run (three per run, new ones each time), the clock included:
    # random bots forget UNO, so the others wait out the grace period (Clock entries).
    overrides = [f"target={target}", f"catch_grace_ms={grace}", f"turn_timer={timer}"]
    setup = TableSetup(players, preset(preset_name, overrides), seed, preset=preset_name,
                       bots=(bots,) * players)
    net = seat_table(setup)
    net.run(until=game_over)
    entries = net.entries()
    report = audit_entries(entries)
    assert report.status == Status.OK, report.lines()
    for peer in net.peers.values():
        assert peer.ledger.digests == list(report.digests)
    knowledge = revealed_knowledge(entries)
    assert knowledge is not None
    omniscient = [digest(step.after) for step in walk(entries, knowledge)]
    assert omniscient == list(report.digests)
