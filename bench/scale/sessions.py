"""The capacity model's load run: N legacy sessions through 3 processes on Redis, `make scale-sessions`.

Starts a Redis of its own (one node, or ``--redis cluster``: 3 masters from ``redis-server
--cluster-enabled yes`` + ``redis-cli --cluster create``), ``--processes`` uvicorn processes of
bench/scale/app.py on it, and ``--clients`` client processes that spread their requests
round-robin over the genmcp processes (as nginx would, without its CPU on this small machine).
Three phases, Redis read before and after each (``used_memory`` and keys summed over every
master, INFO commandstats):

1. ``--sessions`` sessions opened: ``initialize`` then ``notifications/initialized``;
2. one ``tools/call add`` in each session (the sessions all held, none ended);
3. ``logging/setLevel`` in each (``--no-state`` skips it): the session now has state in Redis.

Reports per phase: seconds, p50/p99 of the phase's request (``initialize``, ``tools/call``,
``logging/setLevel``), errors (any status but 200/202, a JSON-RPC error, a transport error), Redis
memory and commands per session. Exits 1 unless errors = 0. Sessions are never ended: each is
one the servers still accept when the run ends.

    .venv/bin/python bench/scale/sessions.py --sessions 100000 --processes 3
    .venv/bin/python bench/scale/sessions.py --sessions 100000 --redis cluster
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import redis  # noqa: E402

from support.redis_server import OwnRedis  # noqa: E402
from support.redis_topology import OwnCluster, admins  # noqa: E402
from support.topology import Processes  # noqa: E402

VERSION = "2025-11-25"
HEAD = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "load", "version": "1"}}}
READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
LEVEL = {"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "info"}}
IDLE_S = 4.0
"""A connection idle this long is closed, not reused: uvicorn closes one idle for 5 s
(``--timeout-keep-alive``), and a request sent as it does is lost (the 80 errors of the first
100,000-session run: idle 5.2-5.8 s)."""
ADMIN = {"info", "ping", "hello", "client|setinfo", "client|setname", "client", "cluster|slots",
         "cluster|shards", "command", "command|docs", "dbsize"}


def redis_state(url: str) -> dict[str, int]:
    """used_memory, keys and client commands so far, summed over every master."""
    state = {"memory": 0, "dataset": 0, "keys": 0, "commands": 0}
    for client in admins(url):
        try:
            memory = client.info("memory")
            state["memory"] += memory["used_memory"]
            state["dataset"] += memory["used_memory_dataset"]
            state["keys"] += client.dbsize()
            for name, entry in client.info("commandstats").items():
                if name.removeprefix("cmdstat_") not in ADMIN:
                    state["commands"] += entry["calls"]
        finally:
            client.close()
    return state


class Tally:
    """Latencies of the measured request and the errors of one phase in one client process."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.resent: list[str] = []

    def fail(self, what: str) -> None:
        self.errors.append(what[:200])


class Connection:
    """One keep-alive HTTP/1.1 connection on asyncio streams (httpx's async client spent ~20 ms
    a request here, more than the server): POST a JSON body, read the status, headers and a
    Content-Length or chunked body."""

    def __init__(self, base: str) -> None:
        rest = base.removeprefix("http://")
        hostport, _, path = rest.partition("/")
        self.host, _, port = hostport.partition(":")
        self.port, self.path = int(port), "/" + path
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.uses, self.last = 0, time.monotonic()  # requests on the open connection, when

    async def post(self, body: bytes, head: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if self.streams is not None and time.monotonic() - self.last > IDLE_S:
            await self.close()  # uvicorn closes it at 5 s idle: maybe as this request goes out
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
            self.uses = 0
        reader, writer = self.streams
        self.uses += 1
        self.idle, self.last = time.monotonic() - self.last, time.monotonic()
        lines = [f"POST {self.path} HTTP/1.1", f"host: {self.host}:{self.port}",
                 f"content-length: {len(body)}", *(f"{k}: {v}" for k, v in head.items())]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        try:
            status_line = await reader.readuntil(b"\r\n")
            headers: dict[str, str] = {}
            while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            if "content-length" in headers:
                data = await reader.readexactly(int(headers["content-length"]))
            elif headers.get("transfer-encoding") == "chunked":
                data = b""
                while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
                    data += await reader.readexactly(size + 2)
                    data = data[:-2]
                await reader.readuntil(b"\r\n")
            else:
                data = b""
        except BaseException:
            await self.close()
            raise
        if headers.get("connection") == "close":
            await self.close()
        return int(status_line.split()[1]), headers, data

    async def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


async def post(conn: Connection, body: dict[str, Any], session: str | None, tally: Tally,
               timed: bool) -> dict[str, str] | None:
    """One request; its headers, or None (counted an error) unless 200/202 without an error."""
    head = dict(HEAD)
    if session:
        head |= {"mcp-session-id": session, "mcp-protocol-version": VERSION}
    started = time.perf_counter()
    for attempt in (1, 2):
        try:
            status, headers, data = await asyncio.wait_for(conn.post(json.dumps(body).encode(), head), 30)
            break
        except asyncio.IncompleteReadError as error:
            # closed before a byte of the answer on a kept-alive connection: the server may
            # have closed it as it went idle; sent again once, on a new one, and counted
            if attempt == 1 and not error.partial and conn.uses > 1:
                tally.resent.append(f"{body['method']}: use {conn.uses}, idle {conn.idle:.2f} s")
                continue
            tally.fail(f"{body['method']}: {type(error).__name__} {error} (use {conn.uses}, idle {conn.idle:.2f} s)")
            return None
        except (OSError, asyncio.LimitOverrunError, TimeoutError, ValueError) as error:
            tally.fail(f"{body['method']}: {type(error).__name__} {error}")
            return None
    if timed:
        tally.latencies.append(time.perf_counter() - started)
    if status not in (200, 202) or b'"error"' in data:
        tally.fail(f"{body['method']}: {status} {data[:150]!r}")
        return None
    return headers


async def phase(name: str, bases: list[str], work: list[Any], concurrency: int) -> dict[str, Any]:
    """Run ``name`` on each item of ``work`` (a count or session ids), ``concurrency`` at once."""
    tally, opened = Tally(), []
    items = iter(enumerate(work))

    async def worker(turn: int) -> None:
        conns = [Connection(base) for base in bases]  # one per process, the next item's
        try:
            for index, item in items:
                conn = conns[(index + turn) % len(conns)]
                if name == "open":
                    headers = await post(conn, INIT, None, tally, True)
                    sid = headers.get("mcp-session-id") if headers is not None else None
                    if sid and await post(conn, READY, sid, tally, False) is not None:
                        opened.append(sid)
                else:
                    await post(conn, CALL if name == "call" else LEVEL, item, tally, True)
        finally:
            for conn in conns:
                await conn.close()

    await asyncio.gather(*(worker(n) for n in range(concurrency)))
    return {"latencies": tally.latencies, "errors": tally.errors, "resent": tally.resent,
            "sessions": opened}


def client_process(args: tuple[str, list[str], list[Any], int]) -> dict[str, Any]:
    name, bases, work, concurrency = args
    return asyncio.run(phase(name, bases, work, concurrency))


def run_phase(pool: Any, name: str, bases: list[str], work: list[Any], o: argparse.Namespace,
              url: str) -> tuple[dict[str, Any], list[str]]:
    shares = [work[i::o.clients] for i in range(o.clients)]
    per = max(1, o.concurrency // o.clients)
    before, started = redis_state(url), time.monotonic()
    results = pool.map(client_process, [(name, bases, share, per) for share in shares])
    took = time.monotonic() - started
    time.sleep(0.5)
    after = redis_state(url)
    latencies = sorted(x for r in results for x in r["latencies"])
    errors = [e for r in results for e in r["errors"]]
    resent = [e for r in results for e in r["resent"]]
    count = len(work)

    def pct(p: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000, 1) if latencies else 0.0

    row = {
        "phase": name, "count": count, "seconds": round(took, 1), "per_s": round(count / took),
        "p50_ms": pct(0.5), "p99_ms": pct(0.99), "max_ms": pct(1.0), "errors": len(errors),
        "first_errors": errors[:3], "resent": len(resent), "first_resent": resent[:3], "memory_before": before["memory"], "memory_after": after["memory"],
        "memory_per_session": round((after["memory"] - before["memory"]) / count, 1),
        "dataset_per_session": round((after["dataset"] - before["dataset"]) / count, 1),
        "keys_after": after["keys"],
        "commands_per_session": round((after["commands"] - before["commands"]) / count, 3),
        "load_average": os.getloadavg(),
    }
    return row, [s for r in results for s in r["sessions"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--concurrency", type=int, default=64, help="requests in flight, all clients")
    parser.add_argument("--redis", choices=("single", "cluster"), default="single")
    parser.add_argument("--no-state", action="store_true", help="skip the logging/setLevel phase")
    parser.add_argument("--json", type=Path, default=None, help="write the rows there too")
    o = parser.parse_args()
    topology: OwnRedis | OwnCluster
    if o.redis == "cluster":
        topology = OwnCluster(3).start()
    else:
        topology = OwnRedis(shutil.which("redis-server") or "/usr/bin/redis-server")
        topology.start()
    processes = Processes(o.processes, {"REDIS_URL": topology.url, "GENMCP_PREFIX": "load:"})
    rows: list[dict[str, Any]] = []
    opened = 0
    print(json.dumps({"redis": o.redis, "processes": o.processes, "sessions": o.sessions,
                      "redis_py": redis.__version__, "load_average": os.getloadavg()}), flush=True)
    try:
        processes.start()
        bases = [u + "/mcp" for u in processes.urls()]
        with multiprocessing.get_context("spawn").Pool(o.clients) as pool:
            pool.map(client_process, [("open", bases, [0] * 8, 4)] * o.clients)  # warm-up
            row, sessions = run_phase(pool, "open", bases, [0] * o.sessions, o, topology.url)
            rows.append(row)
            print(json.dumps(row), flush=True)
            opened = len(sessions)
            phases = ["call"] if o.no_state else ["call", "state"]
            for name in phases:
                row, _ = run_phase(pool, name, bases, sessions, o, topology.url)
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        processes.stop()
        topology.close()
    if o.json:
        o.json.write_text(json.dumps(rows, indent=1))
    print(f"\n{o.sessions:,} sessions, {o.processes} processes, Redis {o.redis}")
    print("| phase | count | s | per s | p50 ms | p99 ms | errors | resent | Redis memory after "
          "| memory / session | dataset / session | keys | Redis commands / session |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        print(f"| {r['phase']} | {r['count']:,} | {r['seconds']} | {r['per_s']:,} | {r['p50_ms']} "
              f"| {r['p99_ms']} | {r['errors']} | {r['resent']} | {r['memory_after'] / 1e6:.1f} MB "
              f"| {r['memory_per_session']} B | {r['dataset_per_session']} B | {r['keys_after']:,} "
              f"| {r['commands_per_session']} |")
    print(f"before: {rows[0]['memory_before'] / 1e6:.2f} MB")
    return 0 if all(r["errors"] == 0 for r in rows) and opened == o.sessions else 1


if __name__ == "__main__":
    sys.exit(main())
