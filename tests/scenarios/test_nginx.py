"""Three real uvicorn processes behind a real nginx (round-robin, no stickiness), one Redis.

The deployment docs/guides/scaling-out.md describes, on loopback: `bench/scale/
app.py` in three processes sharing a redis-server of the test's own, nginx started with a
config of its own (tests/support/topology.py). Every request may land anywhere: each
response says where (`X-Genmcp-Process`), and the tests check that requests really moved.
With `GENMCP_TEST_REDIS_TOPOLOGY=cluster` (`make test-cluster`) the three share a 3-master Redis
Cluster of the test's own instead of one redis-server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Iterator
from typing import Any, Final

import httpx
import pytest

from support.legacy_http import ACCEPT, EventReader, all_sse_events, open_session, sse_events
from support.redis_server import OwnRedis, require_redis_server
from support.redis_topology import TOPOLOGY_ENV, OwnCluster, admins
from support.sse import SSEEvent, SSEParser
from support.topology import Nginx, Processes, require_nginx

pytestmark = pytest.mark.long  # three processes behind nginx, about 9 s (make test-long)

MODERN: Final = "2026-07-28"


class Deployment:
    def __init__(self, redis: OwnRedis | OwnCluster, processes: Processes, nginx: Nginx) -> None:
        self.redis, self.processes, self.nginx = redis, processes, nginx
        self.mcp = f"{nginx.url}/mcp"


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    nginx_binary = require_nginx()
    redis: OwnRedis | OwnCluster
    if os.environ.get(TOPOLOGY_ENV) == "cluster":
        redis = OwnCluster(3).start()
    else:
        redis = OwnRedis(require_redis_server())
        redis.start()
    processes = Processes(
        3, {"REDIS_URL": redis.url, "GENMCP_HEARTBEAT_S": "0.3", "GENMCP_HEARTBEAT_TTL_S": "1"}
    ).start()
    nginx = Nginx(nginx_binary, processes.ports).start()
    yield Deployment(redis, processes, nginx)
    nginx.stop()
    processes.stop()
    redis.close()


def request(request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return body


def modern(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }
    return request(request_id, method, {**params, "_meta": meta})


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"Accept": ACCEPT, "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    return headers if name is None else {**headers, "Mcp-Name": name}


async def test_one_legacy_session_is_served_by_every_process(
    deployment: Deployment, http: httpx.AsyncClient
) -> None:
    headers = await open_session(http, deployment.mcp)
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(deployment.mcp, json=note, headers=headers)).status_code == 202
    served_by = set()
    for n in range(1, 10):
        add = {"name": "add", "arguments": {"a": n, "b": 1}}
        reply = await http.post(deployment.mcp, json=request(n, "tools/call", add), headers=headers)
        assert reply.status_code == 200 and reply.json()["result"]["content"][0]["text"] == str(
            n + 1
        )
        served_by.add(reply.headers["x-genmcp-process"])
    assert len(served_by) == 3, "nginx did not spread the requests"
    assert (await http.delete(deployment.mcp, headers=headers)).status_code == 200
    for n in range(3):  # ended on every process
        reply = await http.post(deployment.mcp, json=request(90 + n, "tools/list"), headers=headers)
        assert reply.status_code == 404


async def test_a_2026_call_and_a_legacy_call_at_once_through_nginx(
    deployment: Deployment, http: httpx.AsyncClient
) -> None:
    headers = await open_session(http, deployment.mcp)
    calls = []
    for n in range(30):
        add = {"name": "add", "arguments": {"a": n, "b": 0}}
        calls.append(http.post(deployment.mcp, json=request(n, "tools/call", add), headers=headers))
        calls.append(
            http.post(
                deployment.mcp,
                json=modern(n, "tools/call", add),
                headers=modern_headers("tools/call", "add"),
            )
        )
    replies = await asyncio.gather(*calls)
    assert [r.status_code for r in replies] == [200] * 60
    assert all("result" in r.json() for r in replies)


async def test_a_post_through_nginx_reaches_the_worker_wherever_it_runs(
    deployment: Deployment, http: httpx.AsyncClient
) -> None:
    headers = await open_session(http, deployment.mcp)
    body = request(1, "tools/call", {"name": "wait_mail", "arguments": {}})
    async with http.stream("POST", deployment.mcp, json=body, headers=headers) as response:
        parser, events = SSEParser(), response.aiter_bytes()
        first: list[Any] = []
        while not first:
            first = [
                e for e in parser.feed(await anext(events)) if isinstance(e, SSEEvent) and e.data
            ]
        worker = json.loads(first[0].data)["params"]["data"]["worker"]
        posted = [
            await http.post(f"{deployment.nginx.url}/post/{worker}", json={"n": n})
            for n in range(3)
        ]
        assert posted[0].json() == {"delivered": True}  # the worker answers the first
        assert len({p.headers["x-genmcp-process"] for p in posted}) > 1
        rest: list[SSEEvent] = []
        async for chunk in events:
            rest += [e for e in parser.feed(chunk) if isinstance(e, SSEEvent)]
    final = json.loads(rest[-1].data)
    assert final["result"]["structuredContent"] == {"message": {"n": 0}}
    gone = await http.post(f"{deployment.nginx.url}/post/0badc0ffee00-1", json={"n": 9})
    assert gone.json() == {"delivered": False}


async def until(check: Any, within: float = 10.0) -> None:
    """Wait for ``check()`` (a hang guard: fails past ``within``)."""
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.005)


async def test_a_tool_added_at_run_time_is_listed_everywhere_once_announced(
    deployment: Deployment, http: httpx.AsyncClient
) -> None:
    """Each process applies the change before its listeners hear ``tools/list_changed``: a
    client that refetches on the notice finds the tool, whichever process it asks (an order,
    not a time: the three get it through Redis as fast as the machine lets them)."""
    listen = modern(1, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    changed = "notifications/tools/list_changed"
    urls = deployment.processes.urls()

    async def lists_extra(url: str) -> bool:
        reply = await http.post(
            f"{url}/mcp", json=modern(2, "tools/list", {}), headers=modern_headers("tools/list")
        )
        return "extra" in {tool["name"] for tool in reply.json()["result"]["tools"]}

    seen: list[list[dict[str, Any]]] = [[] for _ in urls]
    async with contextlib.AsyncExitStack() as streams:
        readers = []
        for url, messages in zip(urls, seen, strict=True):
            post = await streams.enter_async_context(
                http.stream("POST", f"{url}/mcp", json=listen,
                            headers=modern_headers("subscriptions/listen"))
            )  # fmt: skip
            assert post.status_code == 200
            readers.append(asyncio.create_task(collect(post, messages)))
        await until(lambda: all(messages for messages in seen))  # the acknowledgements
        assert not any(await asyncio.gather(*map(lists_extra, urls)))  # all have served
        added = await http.post(f"{deployment.nginx.url}/admin/extra/hello")
        assert added.status_code == 200
        started = time.monotonic()
        told = [False] * len(urls)
        while not all(told):  # each process is asked the moment its stream is told
            for n, (url, messages) in enumerate(zip(urls, seen, strict=True)):
                if not told[n] and changed in [m.get("method") for m in messages]:
                    told[n] = True
                    assert await lists_extra(url), f"{url} announced the change before it"
            assert time.monotonic() - started < 10, f"not announced everywhere: {told}"
            await asyncio.sleep(0.005)
        print(f"announced everywhere after {(time.monotonic() - started) * 1000:.0f} ms")
        for reader in readers:
            reader.cancel()
    for url in deployment.processes.urls():
        called = await http.post(
            f"{url}/mcp",
            json=modern(3, "tools/call", {"name": "extra"}),
            headers=modern_headers("tools/call", "extra"),
        )
        assert called.json()["result"]["content"][0]["text"] == "extra says hello"
    assert (await http.delete(f"{deployment.nginx.url}/admin/extra")).status_code == 200


async def test_a_stream_resumed_through_nginx_gets_the_rest_and_the_response(
    deployment: Deployment, http: httpx.AsyncClient
) -> None:
    headers = await open_session(http, deployment.mcp)
    body = request(5, "tools/call", {"name": "ticker", "arguments": {"n": 4, "every": 0.1}})
    async with http.stream("POST", deployment.mcp, json=body, headers=headers) as response:
        streamed = await sse_events(response)
    resume = {**headers, "Last-Event-ID": streamed[1].id or ""}
    async with http.stream("GET", deployment.mcp, headers=resume) as response:
        replayed = await sse_events(response)
    assert [e.data for e in replayed] == [e.data for e in streamed[2:]]
    assert json.loads(replayed[-1].data)["result"]["content"][0]["text"] == "4 ticks"


async def test_a_stream_its_tool_closed_is_resumed_through_nginx(
    deployment: Deployment, http: httpx.AsyncClient
) -> None:
    headers = await open_session(http, deployment.mcp)
    body = request(6, "tools/call", {"name": "poll", "arguments": {"n": 2, "every": 0.05}})
    async with http.stream("POST", deployment.mcp, json=body, headers=headers) as response:
        [priming] = await all_sse_events(response)  # closed by the tool: no result
        posted_on = response.headers["x-genmcp-process"]
    resume = {**headers, "Last-Event-ID": priming.id or ""}
    resumed_on = set()
    for _ in range(3):  # round-robin: at least one of them lands on another process
        async with http.stream("GET", deployment.mcp, headers=resume) as response:
            rest = await sse_events(response)
            resumed_on.add(response.headers["x-genmcp-process"])
        assert (
            json.loads(rest[-1].data)["result"]["content"][0]["text"] == "2 ticks after the close"
        )
    assert resumed_on - {posted_on}


async def test_a_get_stream_resumed_through_nginx_replays_the_change_it_missed(
    deployment: Deployment, http: httpx.AsyncClient
) -> None:
    headers = await open_session(http, deployment.mcp)
    admin = f"{deployment.nginx.url}/admin/extra"
    async with http.stream("GET", deployment.mcp, headers=headers) as response:
        opened_on = response.headers["x-genmcp-process"]
        reader = EventReader(response)
        priming = await reader.next()
        assert priming is not None and priming.data == "" and priming.id
        assert (await http.post(f"{admin}/hi")).status_code == 200
        added = await reader.next()
        assert added is not None and added.id
    assert (await http.delete(admin)).status_code == 200  # while the client is away
    resumed_on, replays = set(), []
    for _ in range(3):  # round-robin: at least one of them lands on another process
        resume = {**headers, "Last-Event-ID": added.id}
        async with http.stream("GET", deployment.mcp, headers=resume) as response:
            resumed_on.add(response.headers["x-genmcp-process"])
            replays.append(await EventReader(response).take(1))
    assert resumed_on - {opened_on}
    [[missed], *others] = replays
    assert json.loads(missed.data)["method"] == "notifications/tools/list_changed"
    assert missed.id != added.id and all(r == [missed] for r in others)


async def collect(response: httpx.Response, into: list[dict[str, Any]]) -> None:
    """Append every message of an open SSE response to ``into`` (a task: a timeout around
    one read would end the response's byte iterator)."""
    parser = SSEParser()
    async for chunk in response.aiter_bytes():
        events = parser.feed(chunk)
        into += [json.loads(e.data) for e in events if isinstance(e, SSEEvent) and e.data]


def heard_since(before: list[int], seen: list[list[dict[str, Any]]]) -> Any:
    """A check: every stream has more messages than it had in ``before``."""
    return lambda: all(len(m) > n for n, m in zip(before, seen, strict=True))


async def test_a_runtime_catalog_change_reaches_each_listening_stream_once(
    deployment: Deployment, http: httpx.AsyncClient
) -> None:
    """Issue 29 item 5: one ``tools/list_changed`` per change on every stream, each process
    holding a 2025 GET stream and a 2026 listen stream (none twice, as once on a shared
    Redis)."""
    listen = modern(1, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    admin = f"{deployment.nginx.url}/admin/extra"
    seen: list[list[dict[str, Any]]] = []
    readers: list[asyncio.Task[None]] = []
    async with contextlib.AsyncExitStack() as streams:
        for url in deployment.processes.urls():
            headers = await open_session(http, f"{url}/mcp", initialized=True)
            get = await streams.enter_async_context(
                http.stream("GET", f"{url}/mcp", headers=headers)
            )
            post = await streams.enter_async_context(
                http.stream("POST", f"{url}/mcp", json=listen,
                            headers=modern_headers("subscriptions/listen"))
            )  # fmt: skip
            for response in (get, post):
                assert response.status_code == 200
                seen.append([])
                readers.append(asyncio.create_task(collect(response, seen[-1])))
        # waited for, not slept on (issue 45): each listen stream's acknowledgement
        await until(lambda: all(seen[n] for n in range(1, 6, 2)), 20)
        opened = [[message.get("method") for message in messages] for messages in seen]
        ack = "notifications/subscriptions/acknowledged"
        assert opened == [[], [ack]] * 3  # a priming event has no data
        changed = "notifications/tools/list_changed"
        for change in (http.post(f"{admin}/once"), http.delete(admin)):
            before = [len(messages) for messages in seen]
            assert (await change).status_code == 200
            await until(heard_since(before, seen), 20)  # every stream, since the change
            # a second notice for one change would come with the first: give it a moment
            # (a late one is caught by the next change's check, or missed: never a flake)
            await asyncio.sleep(0.3)
            after = (messages[n:] for n, messages in zip(before, seen, strict=True))
            methods = [[message["method"] for message in messages] for messages in after]
            assert methods == [[changed]] * 6, methods
        for reader in readers:
            assert not reader.done()  # each stream still open
            reader.cancel()


async def test_killing_a_process_loses_no_session_and_new_requests_succeed(
    deployment: Deployment, http: httpx.AsyncClient
) -> None:
    headers = await open_session(http, deployment.mcp)
    deployment.processes.kill(2)
    try:
        for n in range(12):  # nginx moves on from the dead process (proxy_next_upstream)
            add = {"name": "add", "arguments": {"a": n, "b": 0}}
            reply = await http.post(
                deployment.mcp, json=request(n, "tools/call", add), headers=headers
            )
            assert reply.status_code == 200, reply.text
    finally:
        deployment.processes.start_one(2)


def test_every_key_left_in_redis_expires(deployment: Deployment) -> None:
    """After everything above: no key without a TTL (the leak check)."""
    keys, forever = [], []
    for client in admins(deployment.redis.url):  # every master of a cluster
        try:
            found = list(client.scan_iter(count=1000))
            keys += found
            forever += [key for key in found if client.pttl(key) == -1]
        finally:
            client.close()
    assert keys, "the tests above left nothing in Redis: this check checks nothing"
    assert forever == []
