"""tests/scenarios on a Redis Cluster or a Sentinel-managed pair, when asked (`make
test-cluster-scenarios`): the ``redis_url`` and ``redis_prefix`` fixtures as in
tests/storage/conftest.py (a topology started once for the session), so the scale-out
scenarios (sessions, mail, tasks, resumed streams across processes) run on it too.
"""

from __future__ import annotations

from support.redis_topology import redis_prefix, redis_topology, redis_url

__all__ = ["redis_prefix", "redis_topology", "redis_url"]  # fixtures for the tests below
