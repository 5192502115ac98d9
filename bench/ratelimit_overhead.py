"""Cost of ``RateLimit`` on ``tools/call``: none, memory buckets, Redis buckets; same run.

    .venv/bin/python bench/ratelimit_overhead.py [calls] [rounds]
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/ratelimit_overhead.py
    .venv/bin/python bench/ratelimit_overhead.py --variant redis 500   # one variant only

Four Suites serving the same ``add`` tool (tests/demo_tools.py), the limit high enough that
nothing is refused:

- ``none``: no middleware;
- ``pass-through``: one middleware that only calls the next (the chain's own cost);
- ``memory``: ``RateLimit(Limit(1e9, 10**9))`` (this process's buckets, the default);
- ``redis``: the same with ``store=RedisBuckets`` (one budget for every process);
- ``redis+headers``: and ``headers=True`` (the quota fields on each answer).

Interleaved in ``rounds`` so that drift hits every variant alike: in-process (``Suite.handle``
and the relay drain, no HTTP; process CPU and wall µs per call, sequential, so each Redis
call waits its own round trip) and over HTTP (uvicorn on loopback, sequential calls on one
keep-alive connection, median µs). Then the Redis side, from ``INFO commandstats`` and the
pipelines the buckets sent: commands and round trips per limited call, sequential and with
64 calls in flight (the takes of one loop turn share one pipeline), and Redis's own µs per
take. Each run uses a fresh key prefix on the Redis at ``REDIS_URL``; its keys expire.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import redis
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from demo_tools import make_suite
from genmcp import Limit, RateLimit, Suite, mcp_router
from genmcp.call.relay import Relay
from genmcp.middleware import Call, MCPRequest, Next
from genmcp.protocol.jsonrpc import Request
from genmcp.storage.redis import RedisBuckets
from genmcp.storage.redis.batch import ScriptBatch
from support.server import LiveServer

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}
URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
PREFIX = f"bench-rl:{uuid.uuid4().hex[:8]}:"
HUGE = Limit(1e9, 10**9)

PIPELINES = [0]  # round trips the buckets made (each ScriptBatch flush is one pipeline)
_execute = ScriptBatch._execute


async def _counted(self: ScriptBatch, batch: Any) -> Any:
    PIPELINES[0] += 1
    return await _execute(self, batch)


ScriptBatch._execute = _counted  # type: ignore[method-assign]


async def passing(request: MCPRequest, call_next: Next) -> Call:
    return await call_next(request)


def suites() -> dict[str, Suite]:
    """Each variant with stores of its own (a store's client belongs to one event loop)."""
    return {
        "none": make_suite(),
        "pass-through": make_suite(middleware=[passing]),
        "memory": make_suite(middleware=[RateLimit(HUGE)]),
        "redis": make_suite(
            middleware=[RateLimit(HUGE, store=RedisBuckets.from_url(URL, prefix=PREFIX))]
        ),
        "redis+headers": make_suite(
            middleware=[
                RateLimit(HUGE, store=RedisBuckets.from_url(URL, prefix=PREFIX), headers=True)
            ]
        ),
    }


def request(index: int) -> Request:
    return Request(
        index, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META}
    )


async def in_process(suite: Suite, calls: int) -> tuple[float, float]:
    """(CPU µs, wall µs) per ``tools/call add`` through Suite.handle and the relay."""
    for index in range(20):  # warm: script loaded, connection open
        async for _ in Relay(await suite.handle(request(index), {}, META)):
            pass
    cpu, wall = time.process_time(), time.perf_counter()
    for index in range(calls):
        async for _ in Relay(await suite.handle(request(index), {}, META)):
            pass
    return (time.process_time() - cpu) / calls * 1e6, (time.perf_counter() - wall) / calls * 1e6


async def in_flight(suite: Suite, calls: int, concurrency: int) -> None:
    """``calls`` calls, ``concurrency`` at a time."""

    async def one(index: int) -> None:
        async for _ in Relay(await suite.handle(request(index), {}, META)):
            pass

    for start in range(0, calls, concurrency):
        await asyncio.gather(*(one(i) for i in range(start, min(calls, start + concurrency))))


def over_http(url: str, calls: int) -> float:
    """Median µs of sequential ``tools/call add`` on one connection."""
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": VERSION,
               "mcp-method": "tools/call", "mcp-name": "add"}  # fmt: skip
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META}}  # fmt: skip
    samples = []
    with httpx.Client(timeout=10) as client:
        for index in range(calls + 20):
            start = time.perf_counter()
            response = client.post(url + "/mcp", json=body, headers=headers)
            elapsed = time.perf_counter() - start
            assert response.status_code == 200, response.text
            if index >= 20:
                samples.append(elapsed * 1e6)
    return statistics.median(samples)


def evalsha_stats() -> tuple[int, float]:
    """(calls, total µs) of EVALSHA on the Redis, from ``INFO commandstats``."""
    client = redis.Redis.from_url(URL)
    try:
        entry = client.info("commandstats").get("cmdstat_evalsha", {"calls": 0, "usec": 0})
    finally:
        client.close()
    return int(entry["calls"]), float(entry["usec"])


async def redis_side(calls: int) -> None:
    """Commands and round trips per limited call, sequential and 64 in flight."""
    suite = suites()["redis"]
    await in_process(suite, 10)  # warm
    for label, concurrency in (("sequential", 1), ("64 in flight", 64)):
        before, pipelines = evalsha_stats(), PIPELINES[0]
        await in_flight(suite, calls, concurrency)
        after = evalsha_stats()
        commands = after[0] - before[0]
        print(
            f"redis, {label:<12}: {commands / calls:.2f} EVALSHA and "
            f"{(PIPELINES[0] - pipelines) / calls:.2f} round trips per call; Redis "
            f"{(after[1] - before[1]) / max(commands, 1):.1f} µs per take (commandstats; "
            "other clients of this Redis count too)"
        )


def one_variant(name: str, calls: int) -> None:
    """Only ``calls`` in-process calls of one variant (bench/ratelimit_instructions.sh)."""
    asyncio.run(in_process(suites()[name], calls))


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--variant":
        one_variant(sys.argv[2], int(sys.argv[3]))
        return
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    names = list(suites())
    cpu: dict[str, list[float]] = {name: [] for name in names}
    wall: dict[str, list[float]] = {name: [] for name in names}
    remote: dict[str, list[float]] = {name: [] for name in names}
    servers = {}
    for name, suite in suites().items():
        app = FastAPI()
        app.include_router(mcp_router(suite=suite), prefix="/mcp")
        servers[name] = LiveServer(app)
        servers[name].start()
    try:
        for _ in range(rounds):
            for name in names:
                used, waited = asyncio.run(in_process(suites()[name], calls))
                cpu[name].append(used)
                wall[name].append(waited)
                remote[name].append(over_http(servers[name].url, calls // 4))
    finally:
        for server in servers.values():
            server.stop()
    base = {
        k: statistics.median(v["none"]) for k, v in (("cpu", cpu), ("wall", wall), ("http", remote))
    }
    print(
        f"tools/call add, {calls} in-process and {calls // 4} HTTP calls x {rounds} rounds (medians)"
    )
    print(
        f"{'variant':<14} {'CPU µs':>8} {'vs none':>8} {'wall µs':>8} {'vs none':>8} {'HTTP µs':>8} {'vs none':>8}"
    )
    for name in names:
        row = [
            statistics.median(cpu[name]),
            statistics.median(wall[name]),
            statistics.median(remote[name]),
        ]
        cells = [f"{value:>8.1f} {(value / base[kind] - 1) * 100:>+7.1f}%"
                 for value, kind in zip(row, ("cpu", "wall", "http"), strict=True)]  # fmt: skip
        print(f"{name:<14} " + " ".join(cells))
    asyncio.run(redis_side(calls))


if __name__ == "__main__":
    main()
