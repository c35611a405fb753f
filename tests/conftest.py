"""Settings shared by the whole suite.

Under ``scripts/mutate`` (``UNO_MUTATION=1``) hypothesis runs derandomised and
without its example database, so that a mutant's verdict does not depend on
the run, and each property test runs at most ``UNO_MUTATION_EXAMPLES``
examples (default 20), so that a surviving mutant, which runs every test that
reaches it, costs seconds and not minutes. The scores are therefore a lower
bound of what the full suite kills (docs/testing.md).
"""

from __future__ import annotations

import os
import resource
import time
import types
from collections.abc import Generator, Iterator

import pytest
from hypothesis import settings

from uno_p2p.crypto.audit import REEXECUTED
from uno_p2p.crypto.group import VALID_POINTS
from uno_p2p.crypto.identity import VERIFIED_SIGNATURES
from uno_p2p.crypto.shares import VERIFIED_SHARES
from uno_p2p.crypto.shuffle_proof import VERIFIED
from uno_p2p.wire.envelope import RECENT_DECODES

MUTATION = bool(os.environ.get("UNO_MUTATION"))

# Test traffic stays home: a `uno-lan host` or `join` a test starts (and every
# process it starts) neither announces nor browses by mDNS on the machine's
# real interfaces. The mDNS tests run their own namespaces and pin interfaces.
os.environ["UNO_LAN_MDNS"] = "off"

if MUTATION:
    settings.register_profile("mutation", derandomize=True, database=None, deadline=None,
                              print_blob=False)
    settings.load_profile("mutation")


#: Where the long tests live. pytest-xdist hands tests out in collection order, so
#: these start first and the short ones fill in at the end: without it, the whole
#: suite waited minutes for one worker finishing a long game alone.
LONG_FIRST = ("tests/net/", "tests/ui/test_net_terminal.py", "tests/table/")


@pytest.fixture(autouse=True)
def _memos_on() -> Iterator[None]:
    """Each test starts with the proof memos on. A benchmark run in-process turns them
    off (every peer pays its own checks), and that must not reach the next test that
    the same xdist worker runs (a test that wants them off turns them off itself)."""
    memos = (VERIFIED, REEXECUTED, VERIFIED_SHARES, VALID_POINTS, RECENT_DECODES,
             VERIFIED_SIGNATURES)
    for memo in memos:
        memo.enabled = True
    yield
    for memo in memos:
        memo.enabled = True


#: Where each test's CPU time goes, one line per test ("cpu_s wall_s
#: children_cpu_s end_unix_s worker nodeid"), when set:
#: on a machine shared with other work the wall time of a test says more about the
#: load than about the test, and its CPU time does not (docs/testing.md, "Budget").
#: The end time and the xdist worker give the run's timeline: when a core sat idle.
CPU_LOG = os.environ.get("UNO_TEST_CPU_LOG")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    """Appends the CPU time of this test's process (every thread, its set-up and
    tear-down included: a shared fixture counts to the first test that asks for it) to
    ``UNO_TEST_CPU_LOG``, then its wall time and the CPU time of the processes it
    started and waited for (``uno-lan`` peers, scripts: the kernel counts a child's
    time to its parent once it is reaped)."""
    cpu, wall, children = time.process_time(), time.monotonic(), _children_cpu()
    yield
    if CPU_LOG:
        with open(CPU_LOG, "a", encoding="utf-8") as log:
            log.write(f"{time.process_time() - cpu:.2f} {time.monotonic() - wall:.2f} "
                      f"{_children_cpu() - children:.2f} {time.time():.1f} "
                      f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {item.nodeid}\n")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: The xdist group of the tests that load both cores on purpose (busy loops). They
#: start before anything else, beside the long real-process tests that mostly wait on
#: the protocol's timers, not later beside in-memory games that need the cores.
BUSY_LOOPS = "busy_loops"


def _start_order(item: pytest.Item) -> int:
    group = item.get_closest_marker("xdist_group")
    if group is not None and BUSY_LOOPS in (*group.args, group.kwargs.get("name")):
        return -1
    if item.get_closest_marker("slow") is not None:
        return 0
    return 1 if item.nodeid.startswith(LONG_FIRST) else 2


#: What a test module imports when its tests start real processes (``uno-lan``, a
#: script, tmux) or network namespaces: ``scripts/test --quick`` leaves them out
#: (``-m "not processes and not netns"``), so a new test of that kind is marked
#: without anyone remembering to.
PROCESS_HELPERS = frozenset({"subprocess", "tests.net.processes", "tests.ui.test_terminal"})
NAMESPACE_HELPERS = frozenset({"tests.net.netns"})


def _helpers(module: types.ModuleType | None) -> set[str]:
    """The modules ``module`` took something from (itself, or a class or function)."""
    found: set[str] = set()
    for value in vars(module).values() if module is not None else ():
        if isinstance(value, types.ModuleType):
            found.add(value.__name__)
        else:
            found.add(str(getattr(value, "__module__", "")))
    return found


def _mark_kinds(item: pytest.Item) -> None:
    helpers = _helpers(getattr(item, "module", None))
    if helpers & NAMESPACE_HELPERS or "netns" in getattr(item, "fixturenames", ()):
        item.add_marker(pytest.mark.netns)
    if helpers & PROCESS_HELPERS:
        item.add_marker(pytest.mark.processes)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        _mark_kinds(item)
    if not MUTATION:
        items.sort(key=_start_order)  # stable: the same order in every worker
        return
    cap = int(os.environ.get("UNO_MUTATION_EXAMPLES", "20"))
    for item in items:
        test = getattr(item, "obj", None)
        # hypothesis reads the settings from this attribute when the test runs.
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and own.max_examples > cap:
            test._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
                own, max_examples=cap, derandomize=True, database=None)
