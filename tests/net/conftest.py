"""Fixtures of the network tests: a throw-away namespace per test (tests/net/netns.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from tests.net.netns import Namespace, network_namespace, why_no_namespaces


@pytest.fixture
def netns() -> Iterator[Namespace]:
    reason = why_no_namespaces()
    if reason is not None:
        pytest.skip(f"real mDNS tests run in a network namespace: {reason}")
    try:
        with network_namespace() as namespace:
            yield namespace
    except subprocess.CalledProcessError as error:
        pytest.skip(f"could not set up a network namespace: {error.stderr!r}")
