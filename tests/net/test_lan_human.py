"""A human at a LAN table, in plain text (until the full-screen LAN UI lands).

The joiner sees its hand and its legal moves as a numbered list, types a
number, sees its move played; ``quit`` leaves the game, which stops cleanly
with every log auditable.
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from pathlib import Path

import pytest

from tests.net.processes import UNO, Uno, host_port


@pytest.mark.timeout(300)
def test_a_human_reads_the_moves_types_one_and_quits(tmp_path: Path) -> None:
    xdg = tmp_path / "data"
    host = Uno(["host", "--autoplay", "--players", "2", "--bind", "127.0.0.1", "--player",
                "Ann", "--option", "target=30"], xdg, tmp_path / "host.out")
    port = host_port(host)
    env = dict(os.environ, XDG_DATA_HOME=str(xdg), PYTHONUNBUFFERED="1")
    me = subprocess.Popen([*UNO, "join", "--address", f"127.0.0.1:{port}", "--player", "Me"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, env=env)
    assert me.stdin is not None
    assert me.stdout is not None
    seen, turns = "", 0
    try:
        deadline = time.monotonic() + 120
        while turns < 3 and time.monotonic() < deadline and me.poll() is None:
            ready, _, _ = select.select([me.stdout], [], [], 0.5)
            if not ready:
                continue
            chunk = os.read(me.stdout.fileno(), 65536).decode()
            seen += chunk
            for line in chunk.splitlines():
                if line.startswith("Your turn. [1]"):
                    turns += 1
                    me.stdin.write(b"1\n")
                    me.stdin.flush()
        me.stdin.write(b"quit\n")
        me.stdin.flush()
        assert me.wait(120) in (0, 1)
        seen += me.stdout.read().decode()
        assert host.wait(120) in (0, 1)
    finally:
        me.kill()
        host.stop()
    assert turns == 3
    assert "Your hand: " in seen
    assert "Me played " in seen or "Me took " in seen
    assert "Game over, no winner: Me left the table." in seen
    assert "Audit: OK: the game was stopped early" in seen
