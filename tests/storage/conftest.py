"""tests/storage on a Redis Cluster or a Sentinel-managed pair, when asked (`make test-cluster`).

With ``GENMCP_TEST_REDIS_TOPOLOGY=cluster`` (or ``sentinel``) the ``redis_url`` and
``redis_prefix`` fixtures of these tests name a topology started once for the session from
Debian's redis-server (``support.redis_topology``: 3 masters; a master, a replica and a
Sentinel), so the same contract suite runs on it. Unset, they are tests/conftest.py's.
"""

from __future__ import annotations

from support.redis_topology import redis_prefix, redis_topology, redis_url

__all__ = ["redis_prefix", "redis_topology", "redis_url"]  # fixtures for the tests below
