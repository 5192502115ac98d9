"""tests/storage on a Redis Cluster or a Sentinel-managed pair, when asked (`make test-cluster`).

With ``GENMCP_TEST_REDIS_TOPOLOGY=cluster`` (or ``sentinel``) the ``redis_url`` and
``redis_prefix`` fixtures of these tests name a topology started once for the session from
Debian's redis-server (``support.redis_topology``: 3 masters; a master, a replica and a
Sentinel), so the same contract suite runs on it. Unset, they are tests/conftest.py's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from support.redis_topology import redis_prefix, redis_topology, redis_url
from tests.storage.backend_kit import Backend

__all__ = ["redis_prefix", "redis_topology", "redis_url"]  # fixtures for the tests below


@pytest.fixture(params=["memory", "redis"])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    if request.param == "memory":
        made = Backend("memory")
    else:
        made = Backend(
            "redis", request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
        )
    try:
        yield made
    finally:
        await made.aclose()
