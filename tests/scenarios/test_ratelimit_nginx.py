"""One rate-limit budget across three real uvicorn processes behind a real nginx, one Redis.

`bench/scale/app.py` with ``GENMCP_RATE_LIMIT=10/10`` (10 tools/call per 10 s for each
``X-User``, the buckets in Redis: ``RateLimit(store=RedisBuckets)``) in three processes on a
redis-server of the test's own, nginx round-robin in front (tests/support/topology.py).
Calls spread over every process and both eras (2026-07-28 stateless calls, 2025-11-25
sessions) take from one budget: exactly 10 succeed; a new session does not refill it; the
refused are 429 + ``Retry-After`` (2026) or -32029 with 200 (a 2025 session), the quota
headers on both; another principal has its own budget.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any, Final

import httpx
import pytest

from genmcp.errors import RATE_LIMITED
from support.legacy_http import ACCEPT
from support.redis_server import OwnRedis, require_redis_server
from support.topology import Nginx, Processes, require_nginx

MODERN: Final = "2026-07-28"
LEGACY: Final = "2025-11-25"
ADD: Final = {"name": "add", "arguments": {"a": 1, "b": 2}}
CLIENT: Final = {"name": "t", "version": "1"}


@pytest.fixture(scope="module")
def mcp() -> Iterator[str]:
    nginx_binary, redis = require_nginx(), OwnRedis(require_redis_server())
    redis.start()
    processes = Processes(3, {"REDIS_URL": redis.url, "GENMCP_RATE_LIMIT": "10/10"}).start()
    nginx = Nginx(nginx_binary, processes.ports).start()
    yield f"{nginx.url}/mcp"
    nginx.stop()
    processes.stop()
    redis.close()


async def legacy_session(http: httpx.AsyncClient, url: str, user: str) -> dict[str, str]:
    """A new 2025-11-25 session of ``user``: the headers of its requests."""
    init = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT}
    headers = {"Accept": ACCEPT, "X-User": user}
    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
    reply = await http.post(url, json=body, headers=headers)
    assert reply.status_code == 200, reply.text
    headers |= {"Mcp-Session-Id": reply.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=note, headers=headers)).status_code == 202
    return headers


def modern_headers(user: str) -> dict[str, str]:
    return {
        "Accept": ACCEPT,
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "add",
        "X-User": user,
    }


def modern_body(request_id: int) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": CLIENT,
    }
    params = {**ADD, "_meta": meta}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def legacy_body(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": ADD}


def succeeded(reply: httpx.Response) -> bool:
    """Whether a tools/call ran; a refusal must be the rate-limit contract of its era."""
    answer = reply.json()
    legacy = "mcp-session-id" in reply.request.headers
    assert "ratelimit" in reply.headers and "ratelimit-policy" in reply.headers
    if "result" in answer:
        assert reply.status_code == 200 and answer["result"]["content"][0]["text"] == "3"
        return True
    assert answer["error"]["code"] == RATE_LIMITED, answer
    assert reply.headers["ratelimit"].startswith('"default";r=0;')
    if legacy:
        assert reply.status_code == 200 and "retry-after" not in reply.headers
    else:
        assert reply.status_code == 429 and int(reply.headers["retry-after"]) >= 1
    return False


async def test_three_processes_enforce_one_budget_in_both_eras(mcp: str) -> None:
    async with httpx.AsyncClient(timeout=15) as http:
        sessions = [await legacy_session(http, mcp, "alice") for _ in range(3)]
        calls = []
        for n in range(12):  # 36 calls at once: 12 stateless, 24 over two sessions
            calls.append(http.post(mcp, json=modern_body(n), headers=modern_headers("alice")))
            calls += [http.post(mcp, json=legacy_body(n), headers=h) for h in sessions[:2]]
        started = time.monotonic()
        replies, took = await timed(calls)
        ok = [r for r in replies if succeeded(r)]
        one_budget(len(ok), took)
        served = Counter(r.headers["x-genmcp-process"] for r in replies)
        assert len(served) == 3, f"nginx did not spread the calls: {served}"
        # a session begun after the budget was spent (re-initialising) has none of it either:
        # only the tokens that came back since (one a second), never a fresh 10
        fresh = await legacy_session(http, mcp, "alice")
        again = [http.post(mcp, json=legacy_body(n), headers=fresh) for n in range(10)]
        again += [http.post(mcp, json=legacy_body(n), headers=sessions[2]) for n in range(10)]
        replies, _ = await timed(again)
        back = int(time.monotonic() - started)
        assert sum(succeeded(r) for r in replies) <= min(back, 10), f"{back} s after the burst"
        # another principal: its own budget
        bob = modern_headers("bob")
        replies, took = await timed(
            [http.post(mcp, json=modern_body(n), headers=bob) for n in range(20)]
        )
        one_budget(sum(succeeded(r) for r in replies), took)


async def timed(calls: list[Any]) -> tuple[list[httpx.Response], float]:
    """The replies to ``calls`` sent at once, and the seconds they took."""
    started = time.monotonic()
    replies = await asyncio.gather(*calls)
    return replies, time.monotonic() - started


def one_budget(ok: int, took: float) -> None:
    """Exactly 10 ran (calls that took a second or more: at most one more per second, the
    token a second that came back meanwhile)."""
    if took < 1.0:
        assert ok == 10, f"{ok} succeeded in {took:.2f} s"
    else:
        assert 10 <= ok <= 10 + int(took), f"{ok} succeeded in {took:.2f} s"
