"""The pure core never reaches for I/O, a clock, randomness or the UI.

STYLE.md: ``rules/``, ``crypto/`` and ``table/`` are sans-IO so that every
peer's replay and the audit are the very same code. This walks the import
statements of every module there (not just the text, so a commented-out import
does not count and an aliased one does).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "uno_p2p"
PURE_LAYERS = ("rules", "crypto", "table")
FORBIDDEN = {
    "asyncio", "socket", "time", "random", "secrets", "selectors", "threading",
    "subprocess", "prompt_toolkit", "zeroconf", "os",
}
#: What each layer may import of ours (imports point only down, STYLE.md).
ALLOWED_OURS = {
    "rules": {"uno_p2p.rules", "uno_p2p.errors"},
    "crypto": {"uno_p2p.crypto", "uno_p2p.errors"},
    "table": {
        "uno_p2p.table", "uno_p2p.rules", "uno_p2p.crypto", "uno_p2p.wire", "uno_p2p.errors",
    },
    # The asyncio shell: sockets and files, but never the UI, the CLI or the audit.
    "net": {
        "uno_p2p.net", "uno_p2p.table", "uno_p2p.rules", "uno_p2p.crypto", "uno_p2p.wire",
        "uno_p2p.store", "uno_p2p.errors",
    },
}
#: Layers whose imports must point down (the pure ones and the network shell).
LAYERS = (*PURE_LAYERS, "net")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def modules_of(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", PURE_LAYERS)
def test_pure_layer_imports_no_io(layer: str) -> None:
    offenders = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in modules_of(layer)
        for name in imported_modules(path)
        if name.split(".")[0] in FORBIDDEN
    }
    assert not offenders, f"{layer}/ must stay pure but imports: {sorted(offenders)}"


@pytest.mark.parametrize("layer", LAYERS)
def test_pure_layer_imports_point_down(layer: str) -> None:
    offenders = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in modules_of(layer)
        for name in imported_modules(path)
        if name.startswith("uno_p2p")
        and not any(name == ok or name.startswith(ok + ".") for ok in ALLOWED_OURS[layer])
    }
    assert not offenders, f"{layer}/ imports upward: {sorted(offenders)}"


#: The network layer's sans-IO cores: the link's crypto (net.md §3-4) and the mesh's
#: decisions (net.md §5.3), each under an asyncio adapter (``link.py``, ``mesh.py``).
NET_CORES = ("handshake.py", "meshcore.py")


def test_the_handshake_is_sans_io() -> None:
    """The link's crypto (docs/protocol/net.md §3-4) is unit-testable without sockets."""
    for path in (PACKAGE / "net" / "handshake.py", PACKAGE / "crypto" / "spake2.py"):
        bad = {n for n in imported_modules(path) if n.split(".")[0] in FORBIDDEN}
        assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("core", NET_CORES)
def test_the_nets_cores_import_no_io_nor_their_adapters(core: str) -> None:
    """A core of ``net/`` imports no I/O, clock or randomness, and of ``net/`` only the
    other cores: an adapter (``link``, ``mesh``, ``node``) would bring asyncio in."""
    names = imported_modules(PACKAGE / "net" / core)
    bad = {n for n in names if n.split(".")[0] in FORBIDDEN or (
        n.startswith("uno_p2p.net") and n.removeprefix("uno_p2p.net.") + ".py" not in NET_CORES)}
    assert not bad, f"{core} imports {sorted(bad)}"


def test_walker_sees_imports(tmp_path: Path) -> None:
    """The checker itself must be able to fail."""
    sample = tmp_path / "sample.py"
    sample.write_text("import time as clock\nfrom asyncio import sleep\n# import socket\n")
    assert imported_modules(sample) == {"time", "asyncio"}


# -- the peer and its parts (issue 26) ----------------------------------------------------
PEER = "uno_p2p.table.peer"
#: What may import ``table/peer.py`` inside ``table/``: the package's face, and what
#: seats whole peers (the in-memory network, the fuzzing harness). The shells above
#: (net/, ui/, cli/) may too; the parts a peer is made of may not.
SEATS_PEERS = {"__init__.py", "memnet.py", "fuzzing.py", "peer.py"}


def imports_of_the_peer(path: Path) -> bool:
    """Whether ``path`` imports ``table/peer.py`` in any form (``TYPE_CHECKING`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == PEER for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom):
            module = "uno_p2p.table" if node.level else (node.module or "")
            if node.level and node.module:
                module = f"{module}.{node.module}"
            if module == PEER or (module == "uno_p2p.table" and
                                  any(a.name == "peer" for a in node.names)):
                return True
    return False


def test_no_part_of_the_peer_imports_the_peer() -> None:
    """The parts own their state and return decisions (STYLE.md): none reaches back
    into ``TablePeer``, so none can write its attributes."""
    importers = {p.name for p in modules_of("table") if imports_of_the_peer(p)}
    assert importers - SEATS_PEERS == set(), "a part imports table/peer.py"


def test_the_peer_import_check_sees_every_form(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    for text in ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                 "    from uno_p2p.table.peer import TablePeer\n",
                 "import uno_p2p.table.peer\n", "from uno_p2p.table import peer\n",
                 "from .peer import TablePeer\n", "from . import peer\n"):
        sample.write_text(text)
        assert imports_of_the_peer(sample), text
    sample.write_text("from uno_p2p.table.peers import x\n# from uno_p2p.table.peer import y\n")
    assert not imports_of_the_peer(sample)
