"""What one genmcp operation costs Redis: commands, bytes, memory (issue 36's capacity model).

Starts a redis-server of its own (or ``--redis cluster``: 3 masters, figures summed over
them) and N uvicorn processes of tests/support/redis_url_app.py on it, then runs each
workload and reads Redis before and after: ``INFO commandstats`` (commands, Lua's inner calls
apart), ``INFO stats`` (bytes in and out of Redis), ``INFO memory`` (``used_memory``). The
background (inbox heartbeats and blocking reads, health checks) is measured first, idle,
and subtracted. Prints one table and, with ``--json``, writes the figures.

    .venv/bin/python bench/redis_capacity.py --count 2000
    .venv/bin/python bench/redis_capacity.py --load --count 100000 --processes 3   # a load run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import httpx  # noqa: E402

from genmcp.storage.redis import RedisBroker  # noqa: E402
from support.redis_server import OwnRedis  # noqa: E402
from support.redis_topology import OwnCluster, admins  # noqa: E402
from support.topology import Processes  # noqa: E402

SECRET = "genmcp-capacity-not-a-secret-0123456789abcdef"
PREFIX = "cap:"
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
LEGACY = "2025-11-25"
ADMIN = ("info", "ping", "hello", "client|setinfo", "client|setname")


def sample(url: str) -> dict[str, float]:
    """Commands (outer and inner), bytes and used memory, summed over every master."""
    total: dict[str, float] = {"commands": 0, "inner": 0, "bytes": 0, "memory": 0}
    for client in admins(url):
        try:
            stats = client.info("commandstats")
            for name, entry in stats.items():
                command = name.removeprefix("cmdstat_")
                if command in ADMIN:
                    continue
                total["commands"] += entry["calls"]
            net = client.info("stats")
            total["bytes"] += net["total_net_input_bytes"] + net["total_net_output_bytes"]
            total["memory"] += client.info("memory")["used_memory"]
        finally:
            client.close()
    return total


def by_command(url: str) -> dict[str, float]:
    """Calls per command since start, summed over every master (Lua's inner calls included:
    commandstats counts a GET inside a script as a GET)."""
    calls: dict[str, float] = {}
    for client in admins(url):
        try:
            for name, entry in client.info("commandstats").items():
                command = name.removeprefix("cmdstat_")
                if command not in ADMIN:
                    calls[command] = calls.get(command, 0) + entry["calls"]
        finally:
            client.close()
    return calls


def modern_meta(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "capacity", "version": "1"},
    }


class Driver:
    """HTTP clients for the processes (round-robin over them, as nginx would)."""

    def __init__(self, bases: list[str]) -> None:
        self.bases = bases
        self.http = httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=64))
        self.turn = 0

    def base(self) -> str:
        self.turn += 1
        return self.bases[self.turn % len(self.bases)]

    async def post(self, body: dict[str, Any], session: str | None = None, **headers: str) -> Any:
        head = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        head.update(headers)
        if session:
            head.update({"mcp-session-id": session, "mcp-protocol-version": LEGACY})
        started = time.perf_counter()
        reply = await self.http.post(self.base(), json=body, headers=head)
        LATENCIES.append(time.perf_counter() - started)
        return reply

    async def session(self) -> str:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"},
            },
        }
        reply = await self.post(init)
        sid = reply.headers["mcp-session-id"]
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        return str(sid)

    async def call(self, session: str) -> None:
        body = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "pid", "arguments": {}},
        }
        reply = await self.post(body, session)
        assert reply.status_code == 200 and b'"result"' in reply.content, reply.content[:300]

    async def set_level(self, session: str) -> None:
        body = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "logging/setLevel",
            "params": {"level": "info"},
        }
        assert (await self.post(body, session)).status_code == 200

    async def task(self) -> None:
        body = {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "report", "arguments": {}, "_meta": modern_meta(TASKS)},
        }
        reply = await self.post(
            body,
            None,
            **{
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": "tools/call",
                "mcp-name": "report",
            },
        )
        assert reply.status_code == 200, reply.content[:300]

    async def modern_call(self) -> None:
        body = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "pid", "arguments": {}, "_meta": modern_meta({})},
        }
        reply = await self.post(
            body,
            None,
            **{"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "pid"},
        )
        assert reply.status_code == 200, reply.content[:300]


async def gather_n(count: int, make: Any, concurrency: int = 32) -> list[Any]:
    gate = asyncio.Semaphore(concurrency)

    async def one(index: int) -> Any:
        async with gate:
            return await make(index)

    return await asyncio.gather(*(one(i) for i in range(count)))


LATENCIES: list[float] = []
"""Seconds per HTTP request of the workload being measured."""
PIDS: list[int] = []
"""The uvicorn processes: their CPU time is read from /proc around each workload."""


def cpu_s() -> float:
    """User + system CPU seconds of the genmcp processes so far."""
    total = 0.0
    for pid in PIDS:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


async def measure(
    url: str, name: str, count: int, run: Any, idle: dict[str, float], rows: list[dict[str, Any]]
) -> None:
    before, calls_before, started = sample(url), by_command(url), time.monotonic()
    cpu_before = cpu_s()
    LATENCIES.clear()
    await run()
    took = time.monotonic() - started
    cpu = cpu_s() - cpu_before
    await asyncio.sleep(0.5)
    after, calls_after = sample(url), by_command(url)
    row = {"operation": name, "count": count, "seconds": round(took, 2)}
    row["cpu_ms"] = round(cpu * 1000 / count, 3)
    if LATENCIES:
        ordered = sorted(LATENCIES)
        row["p50_ms"] = round(ordered[len(ordered) // 2] * 1000, 1)
        row["p99_ms"] = round(ordered[int(len(ordered) * 0.99)] * 1000, 1)
    for key in ("commands", "bytes"):
        used = after[key] - before[key] - idle[key] * (took + 0.5)
        row[key] = round(max(used, 0) / count, 2)
    spent = {c: (n - calls_before.get(c, 0)) / count for c, n in calls_after.items()}
    row["by_command"] = {c: round(n, 2) for c, n in sorted(spent.items()) if n >= 0.05}
    row["memory"] = round((after["memory"] - before["memory"]) / count, 1)
    rows.append(row)
    print(json.dumps(row), flush=True)


async def workloads(url: str, bases: list[str], count: int, load: bool) -> list[dict[str, Any]]:
    driver = Driver(bases)
    rows: list[dict[str, Any]] = []
    await driver.session()  # warm: scripts loaded, epoch copied, subscriptions made
    first = sample(url)
    await asyncio.sleep(3)
    last = sample(url)
    idle = {k: (last[k] - first[k]) / 3 for k in ("commands", "bytes")}
    print(json.dumps({"idle_per_second": idle}), flush=True)
    sessions: list[str] = []

    async def open_sessions() -> None:
        sessions.extend(await gather_n(count, lambda _: driver.session()))

    await measure(
        url, "legacy session (initialize + initialized)", count, open_sessions, idle, rows
    )
    if load:  # the load run: N sessions held, then one call each
        await measure(
            url,
            "legacy tools/call",
            count,
            lambda: gather_n(count, lambda i: driver.call(sessions[i])),
            idle,
            rows,
        )
        await driver.http.aclose()
        return rows
    await measure(
        url,
        "legacy session with a log level",
        count,
        lambda: gather_n(count, lambda i: driver.set_level(sessions[i])),
        idle,
        rows,
    )
    await measure(
        url,
        "legacy tools/call",
        count,
        lambda: gather_n(count, lambda i: driver.call(sessions[i])),
        idle,
        rows,
    )
    await measure(
        url,
        "2026 tools/call",
        count,
        lambda: gather_n(count, lambda _: driver.modern_call()),
        idle,
        rows,
    )
    tasks = max(1, count // 10)
    await measure(
        url,
        "task (created, run, completed)",
        tasks,
        lambda: gather_n(tasks, lambda _: driver.task()),
        idle,
        rows,
    )
    broker = RedisBroker.from_url(url, prefix=PREFIX)
    changes = max(1, count // 10)

    async def catalog() -> None:
        for n in range(changes):
            await broker.record_change(
                f"tool:t{n}", {"kind": "tools", "name": f"t{n}", "op": "add"}
            )
            await broker.publish("catalog", {"n": n})

    await measure(url, "catalog change (record + publish)", changes, catalog, idle, rows)
    streams = min(200, count)

    holder = httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=streams + 8))

    async def open_streams() -> None:
        async def one(index: int) -> None:
            head = {
                "accept": "text/event-stream",
                "mcp-session-id": sessions[index],
                "mcp-protocol-version": LEGACY,
            }
            request = holder.build_request("GET", driver.base(), headers=head)
            response = await holder.send(request, stream=True)
            held.append(response)

        await gather_n(streams, one)
        await asyncio.sleep(1.0)

    held: list[Any] = []
    await measure(url, "open GET stream (held)", streams, open_streams, idle, rows)
    for response in held:
        await response.aclose()
    await holder.aclose()
    await broker.aclose()
    await driver.http.aclose()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--redis", choices=("single", "cluster"), default="single")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--load", action="store_true", help="sessions and one call each only")
    args = parser.parse_args()
    topology: OwnRedis | OwnCluster
    if args.redis == "cluster":
        topology = OwnCluster(3).start()
    else:
        topology = OwnRedis(shutil.which("redis-server") or "/usr/bin/redis-server")
        topology.start()
    env = {"TEST_REDIS_URL": topology.url, "TEST_PREFIX": PREFIX, "GENMCP_SECRET_KEY": SECRET}
    processes = Processes(
        args.processes, env, app="redis_url_app:app", app_dir=ROOT / "tests" / "support"
    )
    try:
        processes.start()
        PIDS.extend(processes.pid(i) for i in range(args.processes))
        bases = [f"{u}/mcp" for u in processes.urls()]
        rows = asyncio.run(workloads(topology.url, bases, args.count, args.load))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    finally:
        processes.stop()
        topology.close()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
