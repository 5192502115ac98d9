"""Fixtures for the storage tests: a real Redis when one answers, else a skip (a failure in CI).

- `redis_url`: the URL of a Redis that answered a PING (`GENMCP_TEST_REDIS_URL`, default
  `redis://127.0.0.1:6379/0`). Without one the test is skipped with the reason; with the
  environment variable `CI` set it fails instead (CI runs Redis).
- `redis_prefix`: a key prefix of its own per test; every key under it is deleted at teardown.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Final

import httpx
import pytest

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


@pytest.fixture
def redis_url() -> str:
    return require_redis()


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    import redis

    prefix = f"genmcp-test:{uuid.uuid4().hex}:"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """A plain httpx client for the multi-process tests (closed at teardown)."""
    async with httpx.AsyncClient(timeout=15) as client:
        yield client
