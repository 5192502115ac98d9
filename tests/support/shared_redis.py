"""The shared Redis of the test run (127.0.0.1:6379, or ``GENMCP_TEST_REDIS_URL``), if one answers.

``require_redis()`` gives its URL, or skips the test with the reason there is none (a failure
when the environment variable ``CI`` is set: CI runs Redis). The fixtures built on it
(``redis_url``, ``redis_prefix``) are in tests/conftest.py.
"""

from __future__ import annotations

import functools
import os
from typing import Final

from support.required import unavailable

REDIS_URL: Final = os.environ.get("GENMCP_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@functools.cache
def redis_problem() -> str | None:
    """Why no Redis can be used here (None: one answered a PING within half a second)."""
    try:
        import redis
    except ImportError:
        return "the redis package is not installed (pip install -e '.[dev]')"
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        client.ping()
    except redis.RedisError as exc:
        return f"no Redis answers at {REDIS_URL} ({exc})"
    finally:
        client.close()
    return None


def require_redis() -> str:
    """The Redis URL, or skip (fail under CI) with the reason there is none."""
    problem = redis_problem()
    if problem is None:
        return REDIS_URL
    unavailable(problem, "the Redis tests")
