"""Redis down, hung and restarted empty under a steady legacy client: what it sees, and when.

One uvicorn process of `bench/scale/app.py`, a redis-server of its own. A legacy client calls
`add` every 20 ms (and a 2026 client alongside); Redis is SIGKILLed for 2 s, restarted empty,
then SIGSTOPped for 2 s. Prints, per phase, status counts and the slowest answer, and the
time from Redis's return to the first success (re-initializing when the session is refused).

    python bench/scale/faults.py
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from support.redis_server import OwnRedis
from support.topology import Processes

ACCEPT = "application/json, text/event-stream"


async def initialize(http: httpx.AsyncClient, url: str) -> dict[str, str] | None:
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "f", "version": "1"},
        },
    }
    reply = await http.post(url, json=body, headers={"Accept": ACCEPT})
    if reply.status_code != 200:
        return None
    return {
        "Mcp-Session-Id": reply.headers["mcp-session-id"],
        "MCP-Protocol-Version": "2025-11-25",
        "Accept": ACCEPT,
    }


async def main() -> None:
    redis = OwnRedis(shutil.which("redis-server") or "/usr/bin/redis-server")
    redis.start()
    procs = Processes(1, {"REDIS_URL": redis.url}).start()
    url = procs.urls()[0] + "/mcp"
    modern_headers = {
        "Accept": ACCEPT,
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "add",
    }
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "f", "version": "1"},
    }
    phases: dict[str, dict[str, Counter[int] | float]] = {}
    try:
        async with httpx.AsyncClient(timeout=10) as http:
            headers = await initialize(http, url)
            phase, back_at, first_ok = "up", None, None

            async def tick(n: int) -> None:
                nonlocal headers, first_ok
                body = {
                    "jsonrpc": "2.0",
                    "id": n,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 1, "b": 1}},
                }
                started = time.perf_counter()
                if headers is None:
                    headers = await initialize(http, url)
                    status = 0 if headers is None else -1  # -1: re-initialized
                else:
                    reply = await http.post(url, json=body, headers=headers)
                    status = reply.status_code
                    if status == 404:
                        headers = None
                took = time.perf_counter() - started
                modern = await http.post(
                    url,
                    json={**body, "params": {**body["params"], "_meta": meta}},
                    headers=modern_headers,
                )
                entry = phases.setdefault(
                    phase, {"legacy": Counter(), "modern": Counter(), "max_s": 0.0}
                )
                entry["legacy"][status] += 1  # type: ignore[index]
                entry["modern"][modern.status_code] += 1  # type: ignore[index]
                entry["max_s"] = max(entry["max_s"], took)  # type: ignore[type-var,assignment]
                if back_at is not None and first_ok is None and status == 200:
                    first_ok = time.perf_counter() - back_at

            n = 0
            for phase, seconds, action in (
                ("up", 1.0, None),
                ("down", 2.0, redis.stop),
                ("restarted-empty", 2.0, redis.start),
                ("hung", 2.0, redis.hang),
                ("resumed", 1.5, redis.resume),
            ):
                if action is not None:
                    action()
                if phase in ("restarted-empty", "resumed"):
                    back_at, first_ok = time.perf_counter(), None
                end = time.perf_counter() + seconds
                while time.perf_counter() < end:
                    n += 1
                    await tick(n)
                    await asyncio.sleep(0.02)
                if back_at is not None:
                    phases[phase]["first_success_s"] = first_ok if first_ok is not None else -1.0
                    back_at = None
    finally:
        procs.stop()
        redis.close()
    print(
        json.dumps(
            {
                k: {
                    kk: (dict(vv) if isinstance(vv, Counter) else round(vv, 3))
                    for kk, vv in v.items()
                }
                for k, v in phases.items()
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
