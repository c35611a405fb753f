"""``scripts/lan-sim``: hosts in separate namespaces find each other by mDNS."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.net.netns import why_no_namespaces

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "lan-sim"


def namespaces() -> set[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                            timeout=30, check=False)
    names = {line.split()[0] for line in listed.stdout.splitlines() if line.strip()}
    return {name for name in names if name.startswith("unolan-")}  # lan-sim's own


@pytest.mark.slow
def test_lan_sim_finds_the_table_from_every_other_host_and_cleans_up() -> None:
    reason = why_no_namespaces()
    if reason is not None:
        pytest.skip(f"scripts/lan-sim makes network namespaces: {reason}")
    # One round, bots that do not stop to think: a whole game across the namespaces
    # (the long games over processes are the other tests of tests/net).
    with subprocess.Popen([str(SCRIPT), "--hosts", "3", "--json"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          env=dict(os.environ, LAN_SIM_TARGET="1",
                                   LAN_SIM_THINK="0")) as done:
        try:
            stdout, stderr = done.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            done.kill()
            stdout, stderr = done.communicate()
    assert done.returncode == 0, stdout + stderr
    result = json.loads(stdout.splitlines()[-1])
    assert result["discovery_ok"] is True
    assert {host: seen["listed"] for host, seen in result["listed"].items()} == {
        "2": True, "3": True}
    assert result["game"] in ("ok", "skipped")
    # Its own namespaces are named by its process id (``unolan-$$-``): another copy of
    # the suite running beside this one makes its own meanwhile.
    assert {name for name in namespaces() if name.startswith(f"unolan-{done.pid}-")} == set()
