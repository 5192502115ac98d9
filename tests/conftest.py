"""Fixtures shared by the whole suite.

- `live_server`: `base_url = live_server(app)` runs `app` under a real uvicorn server on
  127.0.0.1 (see `support.server`); every server started is stopped at teardown.
  `live_server.last` is the most recent `LiveServer` (its `loop`, `run_in_loop`, ...).
- `modern_client`: `client = modern_client(base_url)` gives a `support.client.ModernClient`
  closed at teardown, before the servers stop.
- `redis_url`: the URL of a Redis that answered a PING (`GENMCP_TEST_REDIS_URL`, default
  `redis://127.0.0.1:6379/0`). Without one the test is skipped with the reason; with the
  environment variable `CI` set it fails instead (CI runs Redis).
- `redis_prefix`: a key prefix of its own per test; every key under it is deleted at teardown.
- `own_redis`: a redis-server of the test's own (`support.redis_server.OwnRedis`), for the
  tests that configure or fault it (`own_redis.admin()` configures it); closed at teardown.
- `http`: a plain httpx client (closed at teardown), for the multi-process tests.
- TLS roots from a directory: every httpx client loads a CA bundle file (certifi's, or
  ``SSL_CERT_FILE``) when it is made, 40 to 150 ms; the suite makes about 1,900 (15 % of its
  time) to speak plain HTTP on loopback. OpenSSL's CA directory (``SSL_CERT_DIR``) is read per
  certificate asked for, so a client costs about 1 ms; the tests and the processes they start
  use it, and a test that speaks TLS brings its own context.
- `@pytest.mark.exclusive`: under pytest-xdist (`make test` runs three workers) the test runs
  while no other worker runs one (`support.exclusive`): for a timing budget that another
  worker's load on the same cores would break. Without xdist it changes nothing.
"""

from __future__ import annotations

import os
import ssl
import uuid
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.client import ModernClient
from support.exclusive import RunLock
from support.redis_server import OwnRedis, require_redis_server
from support.server import LiveServers
from support.shared_redis import require_redis

_RUN_LOCK = pytest.StashKey[RunLock]()

_CA_DIR = ssl.get_default_verify_paths().capath  # SSL_CERT_DIR, else OpenSSL's own
if _CA_DIR and os.path.isdir(_CA_DIR):  # (httpx reads SSL_CERT_FILE first)
    os.environ.pop("SSL_CERT_FILE", None)
    os.environ["SSL_CERT_DIR"] = _CA_DIR


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "exclusive: under xdist, run while no other worker runs a test (timing)"
    )
    config.addinivalue_line(
        "markers",
        "long: a load or fault run of several seconds; `make test` leaves it to `make test-long`",
    )
    # An xdist worker's basetemp is <the run's basetemp>/popen-gwN: the parent is the run's.
    if hasattr(config, "workerinput") and config.option.basetemp:
        config.stash[_RUN_LOCK] = RunLock(Path(config.option.basetemp).parent)


def pytest_unconfigure(config: pytest.Config) -> None:
    lock = config.stash.get(_RUN_LOCK, None)
    if lock is not None:
        lock.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outermost: pytest-timeout's clock starts inside
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    lock = item.config.stash.get(_RUN_LOCK, None)
    if lock is None:
        return (yield)
    alone = item.get_closest_marker("exclusive") is not None
    lock.hold(alone=alone)
    try:
        return (yield)
    finally:  # exclusive tests in a row (one file's cases) keep the machine to themselves
        if not (alone and nextitem is not None and nextitem.get_closest_marker("exclusive")):
            lock.release()


@pytest.fixture
def live_server() -> Iterator[LiveServers]:
    servers = LiveServers()
    try:
        yield servers
    finally:
        servers.stop_all()


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServers]:
    """Servers shared by one module's tests (started once; stopped after its last test)."""
    servers = LiveServers()
    try:
        yield servers
    finally:
        servers.stop_all()


@pytest.fixture
async def modern_client(live_server: LiveServers) -> AsyncIterator[Callable[..., ModernClient]]:
    # Depends on live_server only so that clients close before the servers stop.
    clients: list[ModernClient] = []

    def make(base_url: str, path: str = "/mcp", **options: Any) -> ModernClient:
        client = ModernClient(base_url, path, **options)
        clients.append(client)
        return client

    try:
        yield make
    finally:
        for client in clients:
            await client.aclose()


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
def own_redis() -> Iterator[OwnRedis]:
    """A redis-server of the test's own (no persistence), for the tests that configure or
    fault it; closed at teardown (skipped without redis-server, failed under CI)."""
    server = OwnRedis(require_redis_server())
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """A plain httpx client for the multi-process tests (closed at teardown)."""
    async with httpx.AsyncClient(timeout=15) as client:
        yield client
