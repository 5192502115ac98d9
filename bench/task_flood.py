"""One hostile owner creates 10,000 two-minute tasks: the server's RSS and live asyncio tasks.

    .venv/bin/python bench/task_flood.py [--src SRC] [--n 10000] [--c 16]

Starts a server (one uvicorn process, ``SRC`` first on its path: compare two trees) whose
one tool sleeps 120 s as a task, sends ``n`` task creations at concurrency ``c`` from one
owner, then prints what the server answered (by result type or HTTP status, code, limit),
its RSS before and after (``/proc``) and its live asyncio tasks. Loopback only; stops itself.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import socket
import subprocess
import sys
import time
from typing import Any

import httpx

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    "io.modelcontextprotocol/clientInfo": {"name": "flood", "version": "0"},
}
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "nap",
}


def serve(port: int) -> None:
    import uvicorn
    from fastapi import FastAPI

    from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result, mcp_router

    class Nap(Tool, name="nap", description="Sleeps two minutes.", task_support="optional"):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
            await asyncio.sleep(120)
            return Result(call_tool_result(text="rested"))

    app = FastAPI()
    app.include_router(
        mcp_router(suite=Suite(server_name="flood", server_version="1", tools=[Nap])),
        prefix="/mcp",
    )

    @app.get("/debug/tasks")
    async def tasks() -> int:
        return len(asyncio.all_tasks())

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def flood(url: str, n: int, c: int) -> collections.Counter[str]:
    outcomes: collections.Counter[str] = collections.Counter()
    slots = asyncio.Semaphore(c)
    async with httpx.AsyncClient(timeout=60) as http:

        async def one(i: int) -> None:
            body = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "nap", "arguments": {}, "_meta": META}}  # fmt: skip
            async with slots:
                try:
                    reply = await http.post(url + "/mcp", json=body, headers=HEADERS)
                except httpx.TransportError as exc:  # e.g. a keep-alive closed under load
                    outcomes[type(exc).__name__] += 1
                    return
            answer = reply.json()
            if "result" in answer:
                outcomes[answer["result"]["resultType"]] += 1
            else:
                error = answer["error"]
                limit = (error.get("data") or {}).get("limit", "")
                outcomes[f"{reply.status_code} {error['code']} {limit}"] += 1

        await asyncio.gather(*(one(i) for i in range(n)))
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", default=os.path.join(os.path.dirname(__file__), "..", "src"))
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--c", type=int, default=16)
    parser.add_argument("--serve", type=int)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(args.src), "GENMCP_SECRET_KEY": "k" * 48}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # never write into the tree compared
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)], env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.get(url + "/debug/tasks")
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        before = rss_mb(server.pid), httpx.get(url + "/debug/tasks").json()
        started = time.monotonic()
        outcomes = asyncio.run(flood(url, args.n, args.c))
        took = time.monotonic() - started
        after = rss_mb(server.pid), httpx.get(url + "/debug/tasks").json()
        print(json.dumps({
            "src": os.path.abspath(args.src), "n": args.n, "c": args.c, "seconds": round(took, 1),
            "outcomes": dict(outcomes),
            "rss_mb": [round(before[0], 1), round(after[0], 1)],
            "asyncio_tasks": [before[1], after[1]],
        }))  # fmt: skip
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
