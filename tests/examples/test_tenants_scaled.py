"""examples/tenants.py in three real uvicorn processes on one Redis, behind a real nginx.

Every process shows each caller the same list (visibility is decided alike everywhere); a
tool an admin adds to tenant ``acme`` on one process is listed by ``acme`` on every process
and announced to ``acme``'s listeners on every process, while ``globex`` never lists it or
hears of it anywhere. Through nginx (round-robin, no stickiness) a 2025 session of one
tenant is served by whichever process a request lands on, and a principal's rate limit is one
budget, whichever process its calls reach.

Three processes take a few seconds to start: the module runs with ``GENMCP_SCALED_TESTS=1``
(``make test-tenants-scaled``, a step of ``.ci/run``), not in ``make test``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from support.client import ModernClient
from support.legacy_http import open_session
from support.redis_server import OwnRedis, require_redis_server
from support.topology import Nginx, Processes, require_nginx

pytestmark = pytest.mark.skipif(
    os.environ.get("GENMCP_SCALED_TESTS") != "1",
    reason="three processes and nginx: GENMCP_SCALED_TESTS=1 (make test-tenants-scaled)",
)

EXAMPLES: Final = Path(__file__).resolve().parents[2] / "examples"
TOKENS: Final = ("alice-acme", "bob-acme", "carol-globex", "dan-globex", None)
LISTEN: Final = {"notifications": {"toolsListChanged": True}}
ADMIN: Final = {"X-Admin-Token": "admin-secret"}


class Deployment:
    def __init__(self, processes: Processes, nginx: Nginx) -> None:
        self.processes, self.nginx = processes, nginx


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    nginx_binary, redis = require_nginx(), OwnRedis(require_redis_server())
    redis.start()
    env = {"GENMCP_REDIS_URL": redis.url, "GENMCP_SECRET_KEY": "s" * 43}
    processes = Processes(3, env, app="tenants:app", app_dir=EXAMPLES).start()
    nginx = Nginx(nginx_binary, processes.ports).start()
    try:
        yield Deployment(processes, nginx)
    finally:
        nginx.stop()
        processes.stop()
        redis.close()


@contextlib.asynccontextmanager
async def client(base: str, tenant: str, token: str | None) -> AsyncIterator[ModernClient]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    made = ModernClient(base, f"/t/{tenant}/mcp", headers=headers)
    try:
        yield made
    finally:
        await made.aclose()


def tenant_of(token: str | None) -> str:
    return "acme" if token is None else token.split("-")[1]


async def listing(base: str, tenant: str, token: str | None) -> Any:
    async with client(base, tenant, token) as made:
        return (await made.request("tools/list")).result


async def test_every_process_shows_each_caller_the_same_list(deployment: Deployment) -> None:
    for token in TOKENS:
        seen = [await listing(url, tenant_of(token), token) for url in deployment.processes.urls()]
        assert seen[0] == seen[1] == seen[2], token
    through_nginx = await listing(deployment.nginx.url, "acme", "bob-acme")
    assert "delete_ticket" not in [tool["name"] for tool in through_nginx["tools"]]


async def next_message(exchange: Any, within: float) -> dict[str, Any]:
    message: dict[str, Any] = await asyncio.wait_for(exchange.__anext__(), within)
    return message


async def test_a_tenants_runtime_tool_reaches_that_tenant_on_every_process(
    deployment: Deployment,
) -> None:
    urls = deployment.processes.urls()
    async with contextlib.AsyncExitStack() as stack:
        heard: dict[str, list[Any]] = {"acme": [], "globex": []}
        for url in urls:
            for tenant, token in (("acme", "bob-acme"), ("globex", "dan-globex")):
                made = await stack.enter_async_context(client(url, tenant, token))
                listen = made.stream("subscriptions/listen", LISTEN)
                stream = await stack.enter_async_context(listen)
                assert (await next_message(stream, 10))["method"].endswith("acknowledged")
                heard[tenant].append(stream)
        async with httpx.AsyncClient(base_url=urls[1]) as http:
            tool = {"name": "acme_scaled", "text": "made on process 1"}
            added = await http.post("/admin/t/acme/tools", json=tool, headers=ADMIN)
            assert added.status_code == 201
        for stream in heard["acme"]:  # every process tells its acme listeners
            assert (await next_message(stream, 10))["method"] == "notifications/tools/list_changed"
        for url in urls:
            acme = [t["name"] for t in (await listing(url, "acme", "bob-acme"))["tools"]]
            globex = [t["name"] for t in (await listing(url, "globex", "dan-globex"))["tools"]]
            assert "acme_scaled" in acme and "acme_scaled" not in globex
        for stream in heard["globex"]:
            with pytest.raises(TimeoutError):
                await next_message(stream, 0.3)


async def test_a_tenants_session_moves_between_processes(deployment: Deployment) -> None:
    mcp = f"{deployment.nginx.url}/t/globex/mcp"
    bearer = {"Authorization": "Bearer carol-globex"}
    async with httpx.AsyncClient(timeout=15, headers=bearer) as http:
        headers = await open_session(http, mcp, initialized=True)
        for n in range(1, 7):
            body = {"jsonrpc": "2.0", "id": n, "method": "tools/list"}
            reply = await http.post(mcp, json=body, headers=headers)
            assert reply.status_code == 200, reply.text
            assert "beta_search" in reply.text


async def test_one_rate_limit_budget_holds_across_the_processes(deployment: Deployment) -> None:
    """The example's limit (burst 10, 5 a second) is one budget in Redis: 30 calls at once
    for one principal, spread over three processes, get about 10 through, not 30."""
    call = {"name": "search_docs", "arguments": {"query": "x"}}
    started = asyncio.get_running_loop().time()
    async with client(deployment.nginx.url, "globex", "carol-globex") as made:
        replies = await asyncio.gather(*(made.request("tools/call", call) for _ in range(30)))
    elapsed = asyncio.get_running_loop().time() - started
    statuses = [reply.status for reply in replies]
    assert set(statuses) <= {200, 429}, statuses
    refilled = 5 * elapsed  # what the bucket gained while the calls were in flight
    assert 10 <= statuses.count(200) <= 10 + refilled + 1, (statuses.count(200), elapsed)
