"""RateLimit (genmcp.middleware.ratelimit) on real servers: quota headers, one budget in Redis.

The IETF draft's ``RateLimit-Policy`` / ``RateLimit`` fields on limited answers of both eras
(429 + ``Retry-After`` kept); two servers on one Redis (the guide's example, served twice)
take from one budget, which a new legacy session does not refill; a limit given no store
takes the Redis of ``mcp_router(redis_url=...)``; a Redis that is down or hung fails the
limit closed (503 + ``Retry-After`` from the breaker: its deadline or the refusal, never a
socket timeout; the tool never runs), or open to this
process's own buckets with ``fail_open=True``. The multi-process form (3 processes behind
nginx) is tests/scenarios/test_ratelimit_nginx.py.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI, Request

from demo_tools import AddTool, Stats, make_suite
from genmcp import Limit, RateLimit, Suite, mcp_router
from genmcp.errors import DRAFT_RATE_LIMITED, INTERNAL_ERROR, RATE_LIMITED
from genmcp.middleware.ratelimit import assigns_key
from genmcp.storage.buckets import MemoryBuckets
from genmcp.storage.redis import RedisBuckets, RedisOptions
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.legacy_http import ACCEPT
from support.redis_server import OwnRedis
from support.server import LiveServers

GUIDE: Final = Path(__file__).resolve().parents[2] / "docs/guides/middleware.md"
LEGACY: Final = "2025-11-25"
ADD: Final = {"name": "add", "arguments": {"a": 1, "b": 2}}


async def who(request: Request) -> dict[str, Any]:
    """A stand-in for auth: the principal named by ``X-User`` (none without it)."""
    user = request.headers.get("x-user")
    return {"principal": user} if user else {}


def serve(live_server: LiveServers, suite: Suite, store: Any = None) -> str:
    """``suite`` served with ``who`` for auth; ``store`` closed when the server stops."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        if store is not None:
            await store.aclose()

    app = FastAPI(lifespan=lifespan)
    app.include_router(mcp_router(suite=suite, auth=who), prefix="/mcp")
    return live_server(app)


async def legacy_session(
    http: httpx.AsyncClient, url: str, header: str, value: str
) -> dict[str, str]:
    """A new 2025-11-25 session at ``url`` sending ``header``: the headers of its requests."""
    init = {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    headers = {"Accept": ACCEPT, header: value}
    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
    reply = await http.post(url, json=body, headers=headers)
    assert reply.status_code == 200, reply.text
    headers |= {"Mcp-Session-Id": reply.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=note, headers=headers)).status_code == 202
    return headers


async def legacy_call(
    http: httpx.AsyncClient, url: str, headers: dict[str, str], params: dict[str, Any] = ADD
) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    return await http.post(url, json=body, headers=headers)


async def test_quota_headers_on_modern_and_legacy_answers(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    limits = {"tools": {"count": Limit(0.5, 1)}, "headers": True}
    limit = RateLimit(Limit(rate=1, burst=3), clock=lambda: 0.0, **limits)  # no refill: exact
    url = serve(live_server, make_suite(middleware=[limit]))
    client = modern_client(url, headers={"X-User": "alice"})
    seen = []
    for _ in range(4):
        reply = await client.request("tools/call", ADD)
        seen.append((reply.status, reply.headers["ratelimit"]))
        assert reply.headers["ratelimit-policy"] == '"default";q=3;w=3'
    fields = ['"default";r=2;t=1', '"default";r=1;t=2', '"default";r=0;t=3', '"default";r=0;t=3']
    assert seen == list(zip([200, 200, 200, 429], fields, strict=True))
    assert reply.headers["retry-after"] == "1"
    assert reply.error["code"] == RATE_LIMITED and reply.error["data"]["retryAfter"] == 1
    own = await client.request("tools/call", {"name": "count", "arguments": {"n": 1}})
    assert own.headers["ratelimit-policy"] == '"default:count";q=1;w=2'
    assert own.headers["ratelimit"] == '"default:count";r=0;t=2'
    async with LegacyClient(url) as legacy:  # no X-User: the anonymous caller's own bucket
        await legacy.open()
        answers = [await legacy.request("tools/call", ADD) for _ in range(4)]
    fields = [a.headers["ratelimit"] for a in answers]
    assert fields[::3] == ['"default";r=2;t=1', '"default";r=0;t=3']
    assert answers[3].status == 200 and answers[3].error["code"] == RATE_LIMITED
    plain = serve(live_server, make_suite(middleware=[RateLimit(Limit(1, 3))]))
    quiet = await modern_client(plain).request("tools/call", ADD)
    assert "ratelimit" not in quiet.headers and "ratelimit-policy" not in quiet.headers


def guide_app(redis_url: str) -> FastAPI:
    """The app of the guide's "Rate limits across processes" block, on ``redis_url``."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    code = next(block for block in blocks if "RedisBuckets.from_url" in block)
    namespace: dict[str, Any] = {}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("REDIS_URL", redis_url)
        env.setenv("GENMCP_SECRET_KEY", "rate-limit-guide-test-key-0123456789abcdef")
        exec(compile(code, str(GUIDE), "exec"), namespace)
    app: FastAPI = namespace["app"]
    return app


async def test_the_guides_two_processes_on_one_redis_take_from_one_budget(
    live_server: LiveServers, own_redis: OwnRedis
) -> None:
    bases = [live_server(guide_app(own_redis.url)) for _ in range(2)]
    urls = [base + "/mcp" for base in bases]
    search = {"name": "search", "arguments": {}}
    async with httpx.AsyncClient(timeout=10) as http:
        sessions = [await legacy_session(http, urls[n % 2], "X-Tenant", "acme") for n in range(4)]
        calls = [legacy_call(http, urls[n % 2], sessions[n % 4], search) for n in range(8)]
        tenant = {"X-Tenant": "acme"}
        async with (
            ModernClient(bases[0], headers=tenant) as one,
            ModernClient(bases[1], headers=tenant) as two,
        ):
            calls += [(one, two)[n % 2].request("tools/call", search) for n in range(8)]
            started = time.monotonic()
            replies = await asyncio.gather(*calls)
            ran = [r for r in replies if "result" in as_json(r)]
            took = time.monotonic() - started
            others = [as_json(r) for r in replies if "result" not in as_json(r)]
            assert all(o["error"]["code"] == RATE_LIMITED for o in others), others
            assert 10 <= len(ran) <= 10 + int(took), (len(ran), took)  # a token a second back
            assert {r.headers["ratelimit-policy"] for r in replies} == {'"default";q=10;w=10'}
            fresh = await legacy_session(http, urls[0], "X-Tenant", "acme")  # a new session
            refused = as_json(await legacy_call(http, urls[0], fresh, search))
            if time.monotonic() - started < 1:  # (a second later, one token is back)
                assert refused["error"]["code"] == RATE_LIMITED  # keeps the tenant's budget
        async with ModernClient(bases[1], headers={"X-Tenant": "other"}) as other:
            assert (await other.request("tools/call", search)).status == 200


def as_json(reply: Any) -> Any:
    """The JSON-RPC answer of an httpx response or a ModernClient reply."""
    return reply.json() if isinstance(reply, httpx.Response) else reply.messages[-1]


async def test_a_down_or_hung_redis_fails_the_limit_closed(
    live_server: LiveServers, own_redis: OwnRedis
) -> None:
    stats = Stats()
    store = RedisBuckets.from_url(own_redis.url, prefix="rl:", options=RedisOptions(cooldown_s=0.1))
    suite = make_suite(stats, middleware=[RateLimit(Limit(1, 5), store=store)])
    url = serve(live_server, suite, store)
    nap = {"name": "nap", "arguments": {"seconds": 0}}
    async with ModernClient(url) as client:
        assert (await client.request("tools/call", nap)).status == 200
        # hung: no answer at all, cut by the breaker's deadline (a socket timeout would say
        # TimeoutError, after 5 s); then down: the connection refused, answered at once
        faults = ((own_redis.hang, "no answer in time"), (own_redis.stop, "ConnectionError"))
        for fault, cause in faults:
            fault()
            reply = await client.request("tools/call", nap)
            assert reply.status == 503 and reply.headers["retry-after"] == "1", reply.body
            assert reply.error["code"] == INTERNAL_ERROR
            assert reply.error["data"] == {"reason": "storage_unavailable", "store": "redis"}
            assert f"redis is unreachable ({cause})" in reply.error["message"], reply.error
            if fault == own_redis.hang:
                own_redis.resume()
            await asyncio.sleep(0.12)  # past the cooldown: the next one probes Redis again
        assert stats.started == 1  # no refused call ran the tool
        own_redis.start()
        await asyncio.sleep(0.12)
        assert (await client.request("tools/call", nap)).status == 200


async def test_fail_open_limits_with_this_process_buckets_while_redis_is_down(
    live_server: LiveServers, own_redis: OwnRedis
) -> None:
    store = RedisBuckets.from_url(own_redis.url, prefix="rl:")
    limit = RateLimit(Limit(0.01, 2), store=store, fail_open=True)
    url = serve(live_server, make_suite(middleware=[limit]), store)
    own_redis.stop()
    async with ModernClient(url, headers={"X-User": "alice"}) as client:
        statuses = [(await client.request("tools/call", ADD)).status for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert limit.remaining('["user","","alice"]') is None  # not the owner key: a plain principal
    assert limit.remaining("alice") is not None and limit.remaining("alice") < 1


def test_limits_names_and_keys_are_checked() -> None:
    for bad in ((0, 1), (-1, 1), (float("inf"), 1), (1, 0)):
        with pytest.raises(ValueError, match="Limit"):
            Limit(*bad)
    assert Limit.per(10, 10) == Limit(1.0, 10)
    for name in ("", 'a"b', "x" * 65, "a b"):
        with pytest.raises(ValueError, match="name"):
            RateLimit(name=name)
    quoted = RateLimit(None, tools={'a"b\\c': Limit(1, 1)})._policies['a"b\\c']
    assert quoted == ('"default:a\\"b\\\\c";q=1;w=1', '"default:a\\"b\\\\c"')  # sf-string
    with pytest.raises(ValueError, match="printable ASCII"):
        RateLimit(tools={"café": Limit(1, 1)})
    tenant = assigns_key("tenant")
    from genmcp.middleware.chain import MCPRequest
    from genmcp.protocol.jsonrpc import Request as RPCRequest

    request = MCPRequest(RPCRequest(1, "tools/list", {}), {"tenant": "acme"})
    assert tenant(request) == "acme" and tenant(request.replace(assigns={})) is None
    assert RateLimit(None).remaining(None) is None  # no default limit: no bucket


async def test_a_limit_given_no_store_takes_the_routers_redis(
    live_server: LiveServers, redis_url: str, redis_prefix: str
) -> None:
    import redis

    shared, kept = RateLimit(Limit(0.01, 2)), RateLimit(Limit(0.01, 2), store=MemoryBuckets())
    router = mcp_router(
        server_name="s",
        server_version="1",
        tools=[AddTool],
        middleware=[shared, kept],
        redis_url=redis_url,
        redis_prefix=redis_prefix,
    )
    assert router.redis is not None and shared.store is router.redis.buckets
    assert isinstance(kept.store, MemoryBuckets) and kept.store is not kept.local
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    async with ModernClient(live_server(app)) as client:
        statuses = [(await client.request("tools/call", ADD)).status for _ in range(3)]
    assert statuses == [200, 200, 429]
    client = redis.Redis.from_url(redis_url)
    try:
        assert len(list(client.scan_iter(match=redis_prefix + "bucket:*"))) == 1
    finally:
        client.close()


async def test_sep3304_shape_in_both_eras_only_when_asked(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    limit = RateLimit(Limit(rate=0.5, burst=2), clock=lambda: 0.0, sep3304=True)  # no refill
    url = serve(live_server, make_suite(middleware=[limit]))
    client = modern_client(url, headers={"X-User": "alice"})
    modern = [await client.request("tools/call", ADD) for _ in range(3)]
    async with httpx.AsyncClient(timeout=30) as http:
        session = await legacy_session(http, url + "/mcp", "X-User", "bob")
        legacy = [await legacy_call(http, url + "/mcp", session) for _ in range(3)]
    assert [r.status for r in modern[:2]] == [200, 200]
    refused = modern[2]
    assert refused.status == 429 and refused.error["code"] == DRAFT_RATE_LIMITED
    assert refused.error["data"] == {"retryAfterMs": 2000, "limit": 2, "remaining": 0}
    assert refused.headers["retry-after"] == "2"
    assert refused.headers["ratelimit-limit"] == "2"
    assert refused.headers["ratelimit-remaining"] == "0"
    assert [r.status_code for r in legacy] == [200, 200, 429]  # the session's answer too
    answer = legacy[2].json()
    assert answer["error"]["code"] == DRAFT_RATE_LIMITED
    assert answer["error"]["data"]["retryAfterMs"] == 2000
    assert legacy[2].headers["retry-after"] == "2"
    assert legacy[2].headers["ratelimit-limit"] == "2"
    # off by default: the -32029 contract, a session's refusal with 200
    frozen = RateLimit(Limit(0.5, 1), clock=lambda: 0.0)
    plain = serve(live_server, make_suite(middleware=[frozen]))
    async with httpx.AsyncClient(timeout=30) as http:
        session = await legacy_session(http, plain + "/mcp", "X-User", "carol")
        before = [await legacy_call(http, plain + "/mcp", session) for _ in range(2)]
    assert before[1].status_code == 200 and before[1].json()["error"]["code"] == RATE_LIMITED
    assert "ratelimit-limit" not in before[1].headers
    quiet = [await modern_client(plain).request("tools/call", ADD) for _ in range(2)]
    assert quiet[1].error["code"] == RATE_LIMITED and "retryAfterMs" not in quiet[1].error["data"]
