"""Fail fast, fail closed: a legacy server on a Redis of the test's own that stops and hangs.

Each test starts its own `redis-server` on a free port (never the shared 6379), serves one
real uvicorn app wired to it (`RedisBroker`, `RedisSessionRegistry`), and stops, hangs or
empties that Redis under it. What must hold: a legacy request that needs Redis gets HTTP 503
with `Retry-After` and a JSON-RPC error naming the storage, answered by the breaker (Redis's
refusal, the breaker's deadline or the open breaker; never a socket timeout: the error names
which); 2026 requests keep working; the first request after Redis returns (and the breaker's
cooldown) succeeds; a session that began before Redis lost its data is refused (404), never
revived; a legacy `tools/call` costs one command. No wall-clock budget (issue 45): the
clients' 5 s timeouts are hang guards only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import pytest
from fastapi import FastAPI

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.errors import INTERNAL_ERROR
from genmcp.sessions import LegacyServer
from support.client import ModernClient
from support.legacy_client import LegacyClient, LegacyReply
from support.redis_server import OwnRedis
from support.server import LiveServers

pytestmark = pytest.mark.long  # a Redis stopped and hung, about 5 s (make test-long)

SECRET: Final = "fault-test-secret-key-0123456789abcdef0123"
COOLDOWN_S: Final = 0.5  # RedisOptions.cooldown_s: the breaker probes again after it
GUARD_S: Final = 10.0  # a hang guard for polling loops, far above anything normal
OPEN: Final = "failing; not retried yet"  # the open breaker's cause: Redis not touched
DEADLINE: Final = "no answer in time"  # the breaker's deadline (a socket timeout says TimeoutError)


class Echo(Tool, name="echo", description="Says ok."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="ok"))


def build(url: str) -> FastAPI:
    from genmcp.storage.redis import RedisBroker, RedisSessionRegistry

    broker = RedisBroker.from_url(url, prefix="faults:")
    registry = RedisSessionRegistry.from_url(url, prefix="faults:")
    suite = Suite(
        server_name="faults", server_version="1", tools=[Echo], secret_key=SECRET, broker=broker
    )
    router = mcp_router(suite=suite, legacy=LegacyServer(suite, registry=registry))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        await broker.aclose()
        await registry.aclose()

    app = FastAPI(lifespan=lifespan)
    app.include_router(router, prefix="/mcp")
    app.state.suite = suite
    return app


@pytest.fixture
def url(own_redis: OwnRedis, live_server: LiveServers) -> str:
    return live_server(build(own_redis.url))


@pytest.fixture
async def legacy(url: str) -> AsyncIterator[LegacyClient]:
    async with LegacyClient(url, timeout=5) as client:
        await client.open()
        yield client


async def call(client: LegacyClient) -> LegacyReply:
    return await client.request("tools/call", {"name": "echo"}, validate=False)


def unavailable(reply: LegacyReply) -> str:
    """The cause a retryable 503 names (which path answered it)."""
    assert reply.status == 503, reply.body
    assert reply.headers.get("retry-after") == "1"
    assert reply.content_type == "application/json"
    assert reply.error is not None and reply.error["code"] == INTERNAL_ERROR
    assert reply.error["data"] == {"reason": "storage_unavailable", "store": "redis"}
    message = reply.error["message"]
    return str(message).split("(", 1)[1].rsplit(")", 1)[0]


async def settled(client: LegacyClient) -> LegacyReply:
    """The first answer to tools/list that is not the retryable 503 (a hang guard only)."""
    async with asyncio.timeout(GUARD_S):
        while True:
            reply = await client.request("tools/list", validate=False)
            if reply.status != 503:
                return reply
            await asyncio.sleep(0.02)


async def past_the_cooldown() -> None:
    """Sleep past the breaker's cooldown: the next call probes Redis (a lower bound only)."""
    await asyncio.sleep(COOLDOWN_S + 0.2)


async def test_redis_down_is_503_from_the_breaker_and_2026_keeps_working(
    own_redis: OwnRedis, url: str, legacy: LegacyClient
) -> None:
    assert (await call(legacy)).status == 200
    own_redis.stop()
    causes = [unavailable(await call(legacy)) for _ in range(5)]  # the probe, then fast ones
    causes.append(unavailable(await legacy.delete()))  # DELETE too
    assert causes[0] == "ConnectionError", causes  # refused: answered at once, not timed out
    assert set(causes[1:]) <= {OPEN, "ConnectionError"}, causes  # failing fast, or a probe
    # a body that does not parse: its own 400 (not waiting on Redis), never a 500
    garbled = await legacy.http.post(legacy.url, content=b"{not json", headers=legacy.headers())
    assert garbled.status_code == 400 and garbled.json()["error"]["code"] == -32700
    async with ModernClient(url) as modern:
        for _ in range(3):
            reply = await modern.request("tools/call", {"name": "echo", "arguments": {}})
            assert reply.status == 200 and reply.messages[-1]["result"]["content"]
    initialize = LegacyClient(url, timeout=5)
    try:
        reply = await initialize.initialize()
        assert reply.status == 503 and reply.headers.get("retry-after") == "1"
    finally:
        await initialize.aclose()
    own_redis.start()
    await past_the_cooldown()
    # Redis came back empty: the first request after the cooldown reaches it and the old
    # session is refused (its end-marker could be lost)...
    assert (await legacy.request("tools/list", validate=False)).status == 404
    # ...and a new one works at once.
    await legacy.open()
    assert (await call(legacy)).status == 200


async def test_a_hung_redis_is_503_at_the_breakers_deadline_then_recovers(
    own_redis: OwnRedis, legacy: LegacyClient
) -> None:
    assert (await call(legacy)).status == 200
    own_redis.hang()
    try:
        causes = [unavailable(await call(legacy)) for _ in range(4)]
    finally:
        own_redis.resume()
    # the first is cut by the breaker's deadline (a socket timeout would say TimeoutError and
    # come after 5 s, past the client's own timeout); the others fail fast or probe again
    assert causes[0] == DEADLINE, causes
    assert set(causes) <= {DEADLINE, OPEN}, causes
    await past_the_cooldown()
    reply = await call(legacy)  # the first probe after the cooldown: recovered
    assert reply.status == 200 and reply.error is None, reply.body


async def test_a_deleted_session_stays_ended_after_redis_restarts_empty(
    own_redis: OwnRedis, url: str, legacy: LegacyClient
) -> None:
    ended = legacy.session_id
    assert (await legacy.delete()).status == 200
    assert (await legacy.request("tools/list", validate=False)).status == 404
    own_redis.stop()
    own_redis.start()  # empty: the end-marker is gone
    legacy.session_id = ended
    assert (await settled(legacy)).status == 404
    assert (await call(legacy)).status == 404


async def test_get_streams_of_sessions_redis_lost_are_closed_at_the_next_change(
    own_redis: OwnRedis, live_server: LiveServers
) -> None:
    app = build(own_redis.url)
    url = live_server(app)
    server = live_server.last
    clients = [LegacyClient(url, timeout=5) for _ in range(5)]
    try:
        for client in clients:
            await client.open()
        async with contextlib.AsyncExitStack() as stack:
            streams = [await stack.enter_async_context(c.get_stream()) for c in clients]
            await asyncio.sleep(0.3)  # every stream follows the change log
            own_redis.stop()
            own_redis.start()  # empty: every session is gone with the registry's epoch

            async def change() -> None:
                app.state.suite.resource_list_changed()

            async def changes() -> None:
                # pub/sub is at most once: a change published before the broker has subscribed
                # again on the restarted Redis reaches nobody (redis-py 8.2 resubscribes a
                # little later than 8.1 did); the streams end at the first change that arrives
                while True:
                    await server.run_in_loop(change())
                    await asyncio.sleep(0.2)

            changing = asyncio.create_task(changes())
            try:
                ends = await asyncio.wait_for(
                    asyncio.gather(*(stream.drain() for stream in streams)), 5
                )  # each stream ends: none keeps receiving changes for a session that is gone
            finally:
                changing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await changing
        assert all(end.messages == [] for end in ends), [end.messages for end in ends]
        assert (await settled(clients[0])).status == 404  # the client initializes again
    finally:
        for client in clients:
            await client.aclose()


async def test_a_legacy_tools_call_costs_one_redis_command(
    own_redis: OwnRedis, legacy: LegacyClient
) -> None:
    assert (await call(legacy)).status == 200  # warm: scripts loaded, subscribed
    before = own_redis.command_counts()
    calls = 20
    for _ in range(calls):
        reply = await call(legacy)
        assert reply.status == 200 and reply.error is None
    after = own_redis.command_counts()
    spent = {
        name: after[name] - before.get(name, 0)
        for name in after
        if after[name] != before.get(name, 0)
        # admin and connection setup; BLPOP is the process's inbox read, re-issued every
        # block_s (1 s) whether calls come or not: background, not per call
        and name not in ("info", "ping", "hello", "client|setinfo", "blpop")
    }
    # One EVALSHA per call; commandstats also counts the three reads the script makes inside.
    assert spent == {"evalsha": calls, "get": calls, "exists": calls, "hget": calls}
