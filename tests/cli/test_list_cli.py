"""``uno-lan list``: what a player reads, over an in-memory network (no sockets)."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
from dataclasses import replace

import pytest

from tests.net.test_memdiscovery import ADVERT
from uno_p2p.cli import list as list_cli
from uno_p2p.cli import main
from uno_p2p.net.adverts import Discovery
from uno_p2p.net.memdiscovery import MemoryDiscovery, MemoryNetwork
from uno_p2p.net.txt import OUR_PROTOCOL_VERSION


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> MemoryNetwork:
    shared = MemoryNetwork()

    def memory(args: argparse.Namespace) -> Discovery:
        return MemoryDiscovery(shared)

    monkeypatch.setattr(list_cli, "make_discovery", memory)
    return shared


def announce(network: MemoryNetwork, *adverts: object) -> None:
    async def publish() -> None:
        for advert in adverts:
            await MemoryDiscovery(network).announce(advert)  # type: ignore[arg-type]

    asyncio.run(publish())


def test_tables_are_listed_one_per_line(network: MemoryNetwork,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    announce(network, replace(ADVERT, addresses=("192.168.1.20",)),
             replace(ADVERT, host_player="bob", join_code=True,
                     protocol_version=OUR_PROTOCOL_VERSION + 1))
    assert main(["list", "--timeout", "0.1"]) == 0
    line = functools.partial(list_cli.TABLE_LINE.format, taken=1, seats=4,
                             fingerprint=ADVERT.host_fingerprint)
    other = list_cli.CANNOT_JOIN.format(version=OUR_PROTOCOL_VERSION + 1)
    assert capsys.readouterr().out.splitlines() == [
        list_cli.TABLES_SEEN.format(count=2, s="s"),
        line(label="Friday night", host="alice", notes="lobby, official",
             where="192.168.1.20:45123"),
        line(label="Friday night [Friday night-2]", host="bob",
             notes=f"lobby, official, {list_cli.CODE_NEEDED}, {other}", where="127.0.0.1:45123"),
    ]


def test_json_is_one_array(network: MemoryNetwork, capsys: pytest.CaptureFixture[str]) -> None:
    announce(network, ADVERT)
    assert main(["list", "--json", "--timeout", "0.1"]) == 0
    (table,) = json.loads(capsys.readouterr().out)
    assert table == {
        "instance": "Friday night", "table": "Friday night", "host": "alice",
        "addresses": ["127.0.0.1"], "port": 45123, "protocol_version": OUR_PROTOCOL_VERSION,
        "compatible": True,
        "seats_taken": 1, "seats_free": 3, "preset": "official", "phase": "lobby",
        "join_code": False, "host_fingerprint": "625f-8f5e-3da1-b31c",
    }


def test_no_table_is_said_on_stderr_and_is_no_error(
        network: MemoryNetwork, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--timeout", "0.2"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == list_cli.NO_TABLES.format(seconds=0.2) + "\n"
    assert main(["list", "--json", "--timeout", "0.2"]) == 0
    assert capsys.readouterr().out == "[]\n"


@pytest.mark.parametrize(("argv", "message", "code"), [
    # uno-lan --help: 2 for a bad value, 1 for a check that failed (mDNS unusable here)
    (["list", "--timeout", "0"], "--timeout must be more than 0 and at most 60 seconds", 2),
    (["list", "--timeout", "61"], "--timeout must be more than 0 and at most 60 seconds", 2),
    (["list", "--interface", "eth0"], "'eth0' is not an interface IP address", 1),
])
def test_bad_arguments_are_one_sentence(argv: list[str], message: str, code: int,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == code
    err = capsys.readouterr().err
    assert err.startswith(f"uno-lan: {message}")
    assert err.count("\n") == 1
