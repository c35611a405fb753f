"""``uno-lan host``: a table that cannot open says why in one sentence and keeps no file."""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

import pytest

from uno_p2p import cli
from uno_p2p.cli.bot import THINK_S
from uno_p2p.cli.host import CANNOT_LISTEN, CANNOT_LISTEN_HINT, bot_think
from uno_p2p.errors import ConfigError


def test_a_port_in_use_is_one_sentence_and_leaves_no_seat_or_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("UNO_LAN_MDNS", "off")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = cli.main(["host", "--text", "--bind", "127.0.0.1", "--port", str(port),
                         "--player", "Ann"])
    assert code == cli.EXIT_USAGE
    (line,) = capsys.readouterr().err.splitlines()
    why = os.strerror(errno.EADDRINUSE)
    said = CANNOT_LISTEN.format(address=f"127.0.0.1:{port}", why=why)
    assert line == f"uno-lan: {said}; {CANNOT_LISTEN_HINT}."
    games = tmp_path / "uno-lan" / "games"
    assert not games.exists() or list(games.iterdir()) == [], "no file for a table never opened"


def test_bots_think_as_told_else_not_at_all_with_autoplay_else_the_default() -> None:
    """docs: ``--bot-think`` defaults to THINK_S, and to 0 with ``--autoplay``."""
    assert bot_think("1.5", autoplay=True) == "1.5"
    assert bot_think(None, autoplay=True) == "0"
    assert float(bot_think(None, autoplay=False)) == THINK_S
    with pytest.raises(ConfigError):
        bot_think("11", autoplay=False)  # a bot thinks 0 to 10 seconds
