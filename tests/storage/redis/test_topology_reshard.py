"""Slots move between cluster masters while calls run (``redis-cli --cluster rebalance``).

Two real uvicorn servers of one app on a 3-master cluster of the test's own; legacy sessions
call a tool in a loop, a 2026-07-28 client runs tasks made on one server and read on the
other, and a legacy GET stream is held on the second server. Meanwhile ``redis-cli --cluster
rebalance`` empties the master that serves the app's pub/sub slot (weight 0): some of the
session buckets and the pub/sub channels move, key by key (``MIGRATE``), with ``ASK``,
``MOVED`` and ``TRYAGAIN`` answered to the clients mid-move. What must hold: every request
answers 200 (or 503 with ``Retry-After`` from the breaker, never a socket timeout: the
fail-fast rule, counted and bounded), never a 500 or a hang (the clients' 5 s timeout; no
wall-clock budget, issue 45); every task completes; and after the move the GET stream still hears a
catalog change made on the other server (the subscription found the slot's new master).
Run by ``make test-cluster`` (``GENMCP_TEST_REDIS_TOPOLOGY``); skipped otherwise.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any, Final

import pytest
from fastapi import FastAPI

from genmcp import Channel, MCPRouter, Result, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.storage.redis.registry import bucket
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.redis_topology import TOPOLOGY_ENV, OwnCluster, _ask
from support.server import LiveServer, LiveServers

SECRET: Final = "reshard-test-secret-key-0123456789abcdef"
TASKS: Final = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


def ranges(slots: list[int]) -> list[tuple[int, int]]:
    """Sorted slots as (first, last) runs."""
    runs: list[tuple[int, int]] = []
    for slot in slots:
        if runs and runs[-1][1] == slot - 1:
            runs[-1] = (runs[-1][0], slot)
        else:
            runs.append((slot, slot))
    return runs


def layout() -> tuple[set[int], list[list[tuple[int, int]]]]:
    """The slots that move, and the masters' ranges: the third master serves the pub/sub slot
    (``{p}``) and the slots of half the 256 session buckets (``{s0}``, ``{s2}``, ...), 129 slots
    in all, so ``rebalance`` moves them in a second or two (5,461 slots took 22 s) and about
    half the sessions have their keys on it; the other two split the rest."""
    from redis.crc import key_slot

    moving = {key_slot(b"p")} | {key_slot(f"s{n}".encode()) for n in range(0, 256, 2)}
    rest = [slot for slot in range(16384) if slot not in moving]
    half = len(rest) // 2
    return moving, [ranges(rest[:half]), ranges(rest[half:]), ranges(sorted(moving))]


MOVING, LAYOUT = layout()
MAX_503: Final = 0.05
"""At most this share of the requests may get the retryable 503 (none did so far)."""
heavy = pytest.mark.skipif(
    not os.environ.get(TOPOLOGY_ENV),
    reason=f"starts a Redis Cluster: make test-cluster (sets {TOPOLOGY_ENV})",
)


class Echo(Tool, name="echo", description="Says ok."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="ok"))


class Report(Tool, name="report", description="A short task.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await asyncio.sleep(0.05)
        return Result(call_tool_result(text="reported"))


class Added(Tool, name="added", description="Added at run time."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=str(arg)))


def build(url: str) -> tuple[FastAPI, MCPRouter]:
    router = mcp_router(
        server_name="reshard",
        server_version="1",
        tools=[Echo, Report],
        secret_key=SECRET,
        redis_url=url,
        redis_prefix="reshard:",
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return app, router


@pytest.fixture
def cluster() -> Iterator[OwnCluster]:
    started = OwnCluster(3, slots=LAYOUT).start()
    yield started
    started.close()


class Outcomes:
    """Every request's status (and the slowest answer) while the slots move."""

    def __init__(self) -> None:
        self.statuses: Counter[int] = Counter()
        self.slowest = 0.0
        self.bad: list[str] = []

    def take(self, what: str, status: int, headers: Any, error: Any, took: float) -> bool:
        """Record one answer; True when it succeeded."""
        self.statuses[status] += 1
        self.slowest = max(self.slowest, took)  # reported, not judged: a hang is the timeout
        if status == 503:
            if headers.get("retry-after") != "1" or (error or {}).get("data", {}).get(
                "reason"
            ) != "storage_unavailable":
                self.bad.append(f"{what}: 503 without the fail-fast shape: {error}")
            elif "Timeout" in str(error.get("message")).split("(", 1)[-1]:
                self.bad.append(f"{what}: 503 from a socket timeout, not the breaker: {error}")
            return False
        if status != 200 or error is not None:
            self.bad.append(f"{what}: {status} {error}")
            return False
        return True


async def legacy_loop(client: LegacyClient, outcomes: Outcomes, until: asyncio.Event) -> float:
    """Call until ``until``; when the session's last call succeeded (``time.monotonic``)."""
    last = 0.0
    while not until.is_set():
        started = time.perf_counter()
        params = {"name": "echo", "arguments": {}}
        reply = await client.request("tools/call", params, validate=False)
        if outcomes.take("legacy call", reply.status, reply.headers, reply.error,
                         time.perf_counter() - started):
            last = time.monotonic()
        await asyncio.sleep(0.01)
    return last


async def task_loop(
    maker: ModernClient, reader: ModernClient, outcomes: Outcomes, until: asyncio.Event
) -> int:
    """Tasks made on one server and polled on the other until completed; how many completed."""
    completed = 0
    while not until.is_set():
        started = time.perf_counter()
        made = await maker.request(
            "tools/call", {"name": "report", "arguments": {}}, capabilities=TASKS, validate=False
        )
        if not outcomes.take("task create", made.status, made.headers, made.error,
                             time.perf_counter() - started):
            continue
        assert made.result["resultType"] == "task", made.result
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            started = time.perf_counter()
            got = await reader.request(
                "tasks/get", {"taskId": made.result["taskId"]}, capabilities=TASKS, validate=False
            )
            if outcomes.take("tasks/get", got.status, got.headers, got.error,
                             time.perf_counter() - started) and got.result["status"] != "working":
                assert got.result["status"] == "completed", got.result
                completed += 1
                break
            await asyncio.sleep(0.05)
        else:
            outcomes.bad.append(f"task {made.result['taskId']} never completed")
    return completed


def rebalance_away(cluster: OwnCluster, port: int) -> float:
    """Move every slot off the master on ``port`` (weight 0); the seconds it took."""
    node_id = _ask(port, "CLUSTER", "MYID").split("\r\n")[1]
    command = [cluster.cli, "--cluster", "rebalance", f"127.0.0.1:{port}",
               "--cluster-weight", f"{node_id}=0", "--cluster-pipeline", "50"]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=25)
    assert done.returncode == 0, done.stdout[-800:] + done.stderr[-400:]
    return time.monotonic() - started


async def hears_a_change(
    stream: Any, server: LiveServer, router: MCPRouter, within: float
) -> float:
    """Add tools on ``router``'s server until the stream (on the other) announces one."""
    started = time.monotonic()
    messages = stream.__aiter__()

    async def add(n: int) -> None:  # on the server's own loop: a change each time
        if n > 1:
            router.suite.remove_tool("added")
        router.suite.add_tool((Added, n))
        await router.suite.catalog_synced()

    n = 0
    while time.monotonic() - started < within:
        n += 1
        await server.run_in_loop(add(n))
        try:
            while True:
                message = await asyncio.wait_for(messages.__anext__(), 0.5)
                if message.get("method") == "notifications/tools/list_changed":
                    return time.monotonic() - started
        except TimeoutError:
            continue
        except StopAsyncIteration:
            raise AssertionError("the GET stream ended after the slots moved") from None
    raise AssertionError(f"the GET stream heard no catalog change in {within} s")


def moving(client: LegacyClient) -> bool:
    """Whether the session's keys are in the slots that move (the third master's)."""
    from redis.crc import key_slot

    return key_slot(bucket(client.session_id or "")[1:-1].encode()) in MOVING


def redirects(cluster: OwnCluster) -> Counter[str]:
    """What the masters turned away so far: commands rejected before they ran (``MOVED``,
    ``ASK``, ``TRYAGAIN``: commandstats' ``rejected_calls``) and the ``ASKING`` that follow an
    ``ASK``; errorstats' ``NOSCRIPT`` (a script run first on the node a slot moved to)."""
    import redis

    seen: Counter[str] = Counter()
    for node in cluster.nodes:  # the emptied master is a replica now (replica migration)
        with redis.Redis(port=node.port, socket_timeout=2) as client:
            for name, entry in client.info("commandstats").items():
                seen["rejected"] += entry.get("rejected_calls", 0)
                if name == "cmdstat_asking":
                    seen["asking"] += entry["calls"]
            errors = client.info("errorstats")
            seen["noscript"] += errors.get("errorstat_NOSCRIPT", {}).get("count", 0)
    return seen


@heavy
async def test_slots_move_between_masters_under_calls_tasks_and_a_get_stream(
    cluster: OwnCluster, live_server: LiveServers
) -> None:
    from redis.crc import key_slot

    app_a, router_a = build(cluster.url)
    app_b, _ = build(cluster.url)
    url_a = live_server(app_a)
    server_a = live_server.last
    url_b = live_server(app_b)
    listener = LegacyClient(url_b, timeout=30)
    maker, reader = ModernClient(url_a), ModernClient(url_b)
    outcomes, until = Outcomes(), asyncio.Event()
    doomed = cluster.master_of(key_slot(b"p")).port  # the pub/sub slot's master
    sessions: list[LegacyClient] = []
    try:
        await listener.open()
        while sum(moving(c) for c in sessions) < 4 or len(sessions) < 8:
            client = LegacyClient(url_a if len(sessions) % 2 else url_b, timeout=5)
            await client.open()
            if moving(client) or len(sessions) - sum(moving(c) for c in sessions) < 4:
                sessions.append(client)  # 4 whose keys move, 4 whose keys stay
                reply = await client.request("logging/setLevel", {"level": "info"})
                assert reply.status == 200  # and some state to move: the session's hash
            else:
                await client.aclose()
        async with listener.get_stream() as stream:
            assert stream.reply.status == 200
            loops = [asyncio.create_task(legacy_loop(c, outcomes, until)) for c in sessions]
            tasks = asyncio.create_task(task_loop(maker, reader, outcomes, until))
            await asyncio.sleep(0.5)
            before = sum(outcomes.statuses.values())
            took = await asyncio.to_thread(rebalance_away, cluster, doomed)
            moved_at = time.monotonic()
            await asyncio.sleep(0.5)
            until.set()
            last_ok = await asyncio.gather(*loops)
            completed = await tasks
            redirected = redirects(cluster)
            assert cluster.master_of(key_slot(b"p")).port != doomed, "the pub/sub slot stayed"
            assert doomed not in {cluster.master_of(s).port for s in range(0, 16384, 64)}
            heard = await hears_a_change(stream, server_a, router_a, within=10)
    finally:
        for client in [*sessions, listener]:
            await client.aclose()
        await maker.aclose()
        await reader.aclose()
    total = sum(outcomes.statuses.values())
    print(f"rebalance moved the third master's slots in {took:.1f} s, {total - before} requests: "
          f"{dict(outcomes.statuses)}, slowest {outcomes.slowest:.2f} s, {completed} tasks, "
          f"the GET stream heard a change {heard:.2f} s after; redirections {dict(redirected)}")
    moved = [c for c in sessions if moving(c)]  # their keys are on another master now...
    assert all(ok > moved_at for c, ok in zip(sessions, last_ok, strict=True) if c in moved)
    assert outcomes.bad == [], outcomes.bad[:5]
    assert completed >= 3
    assert outcomes.statuses[503] <= MAX_503 * total, dict(outcomes.statuses)
