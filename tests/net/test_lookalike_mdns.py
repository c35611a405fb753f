"""Look-alike table names over real mDNS (issue 24 item 9, discovery.md §5).

Inside a network namespace the test makes (every packet on its own
loopback): a real ``uno-lan host`` called "Friday night", and an advert of a
look-alike "Friday night" with a Cyrillic "i" (U+0456) from another host key.
``uno-lan bot "Friday night"`` refuses to choose, lists both host keys, and
prints nothing else (no traceback); with ``--fingerprint`` it joins the real
host.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.net.netns import UNO_LAN, Namespace, read_event

MALLORYS_KEY = "0b0b-0b0b-0b0b-0b0b"
PORT = 40031


def uno(xdg: Path, *argv: str) -> list[str]:
    return ["env", "UNO_LAN_MDNS=on", "UNO_LAN_MDNS_INTERFACES=127.0.0.1", f"XDG_DATA_HOME={xdg}",
            "PYTHONUNBUFFERED=1", UNO_LAN, *argv]


def listed(netns: Namespace, xdg: Path, count: int) -> list[dict[str, Any]]:
    tables: list[dict[str, Any]] = []
    for _ in range(20):
        done = netns.run(uno(xdg, "list", "--json"))
        tables = json.loads(done.stdout or "[]")
        if len(tables) >= count:
            return tables
        time.sleep(0.5)
    raise AssertionError(f"fewer than {count} tables listed: {tables}")


@pytest.mark.timeout(120)
def test_a_join_by_a_look_alike_name_is_refused_and_a_fingerprint_picks_one(
        netns: Namespace, tmp_path: Path) -> None:
    netns.start(uno(tmp_path / "ann", "host", "--bind", "127.0.0.1", "--port", str(PORT),
                    "--name", "Friday night", "--player", "Ann", "--players", "3"))
    mallory = netns.start([sys.executable, "-m", "uno_p2p.net.discotool", "--interface",
                           "127.0.0.1", "announce", "--table", "Friday n\u0456ght",
                           "--host-player", "mallory", "--port", str(PORT + 1),
                           "--fingerprint", MALLORYS_KEY, "--hold", "60"])
    read_event(mallory.stdout, "announced")
    tables = listed(netns, tmp_path / "list", 2)
    anns_key = next(t["host_fingerprint"] for t in tables if t["host"] == "Ann")

    refused = netns.run(uno(tmp_path / "bot", "bot", "Friday night"), timeout=30)
    assert refused.returncode != 0
    said = refused.stdout + refused.stderr
    assert "2 tables are named Friday night or look like it" in said
    assert anns_key in said
    assert MALLORYS_KEY in said
    assert "--fingerprint" in said
    assert "Traceback" not in refused.stderr
    assert "Task exception" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) <= 1  # the one sentence, if there

    joiner = netns.start(uno(tmp_path / "bot", "bot", "Friday night", "--fingerprint", anns_key))
    assert joiner.stdout is not None
    deadline, seen = time.monotonic() + 30, ""
    while time.monotonic() < deadline and f"Connected to the host {anns_key}" not in seen:
        line = joiner.stdout.readline()
        if not line:
            break
        seen += line
    assert f"Connected to the host {anns_key}" in seen, seen
    joiner.kill()
    _, errors = joiner.communicate(timeout=10)
    assert "Task exception" not in errors, errors
    assert "NotRunning" not in errors, errors
