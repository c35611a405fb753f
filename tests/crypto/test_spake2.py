"""The join code's exchange, SPAKE2 (docs/protocol/net.md §4).

Both sides with one code derive the key of ``protocol/vectors/net.json`` from
its fixed points and seeds, another code gives another key (one guess per
handshake), and a join code has 1 to 64 bytes. The net tests check the
exchange too, but a crypto mutant runs only the crypto tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uno_p2p.crypto.spake2 import MAX_CODE_BYTES, M, N, Spake2, code_scalar
from uno_p2p.errors import CryptoError, LocalProtocolError

NET = json.loads((Path(__file__).resolve().parents[2] / "protocol" / "vectors" /
                  "net.json").read_text("utf-8"))


def test_spake2_gives_both_sides_the_key_of_the_net_vectors() -> None:
    seeds = {label: bytes.fromhex(value) for label, value in NET["seeds"].items()}
    code = NET["join_code"]
    assert M.to_wire().hex() == NET["spake2"]["M"]
    assert N.to_wire().hex() == NET["spake2"]["N"]
    assert code_scalar(code).to_wire().hex() == NET["spake2"]["w"]
    joiner = Spake2("A", code, seeds["joiner spake2"])
    host = Spake2("B", code, seeds["host spake2"])
    assert joiner.finish(host.message).hex() == NET["spake2"]["key"]
    assert host.finish(joiner.message).hex() == NET["spake2"]["key"]
    # Another join code gives another key (one guess per handshake, net.md §4).
    guess = Spake2("A", code + "x", seeds["joiner spake2"])
    assert host.finish(guess.message).hex() != NET["spake2"]["key"]


def test_a_join_code_has_one_to_sixty_four_bytes() -> None:
    code_scalar("x" * MAX_CODE_BYTES)
    assert MAX_CODE_BYTES == 64  # net.md §4
    for bad in ("", "   ", "x" * (MAX_CODE_BYTES + 1)):
        with pytest.raises(LocalProtocolError):
            code_scalar(bad)
    with pytest.raises(CryptoError) as caught:
        Spake2("A", "code", b"\x01" * 32).finish(b"\x00" * 31)
    assert "SPAKE2" in str(caught.value)
