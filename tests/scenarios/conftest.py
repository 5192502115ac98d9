"""tests/scenarios on a Redis Cluster or a Sentinel-managed pair, when asked (`make
test-cluster-scenarios`): the ``redis_url`` and ``redis_prefix`` fixtures as in
tests/storage/conftest.py (a topology started once for the session), so the scale-out
scenarios (sessions, mail, tasks, resumed streams across processes) run on it too.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from support.redis_topology import TOPOLOGY_ENV, OwnCluster, OwnSentinel, delete_prefix
from support.shared_redis import require_redis

TOPOLOGY = os.environ.get(TOPOLOGY_ENV, "")


@pytest.fixture(scope="session")
def redis_topology() -> Iterator[str | None]:
    """The URL of the topology this run asked for (None: the shared single Redis)."""
    if not TOPOLOGY:
        yield None
        return
    if TOPOLOGY not in ("cluster", "sentinel"):
        raise pytest.UsageError(f"{TOPOLOGY_ENV}={TOPOLOGY!r}: say cluster or sentinel")
    started = OwnCluster(3).start() if TOPOLOGY == "cluster" else OwnSentinel().start()
    try:
        yield started.url
    finally:
        started.close()


@pytest.fixture
def redis_url(redis_topology: str | None) -> str:
    return redis_topology or require_redis()


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    prefix = f"genmcp-test:{uuid.uuid4().hex}:"
    yield prefix
    delete_prefix(redis_url, prefix)
