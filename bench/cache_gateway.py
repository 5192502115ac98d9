#!/usr/bin/env python3
"""The gateway's upstream requests on repeated lists and reads, without and with its cache.

    PYTHONPATH=src .venv/bin/python bench/cache_gateway.py [-n 50] [--redis-url URL]

One upstream (a genmcp Suite: 20 tools, 20 resources, every hint ``("public", 60_000)``)
and one gateway in front of it, each on uvicorn in this process over loopback HTTP. The
gateway is proxy mode (``mcp_router(proxy=URL)``, which mounts the upstream with its default
response cache) or the same mount with ``cache=False``. A client sends ``-n`` of each of
``tools/list``, ``resources/list``, ``resources/templates/list`` and ``resources/read`` to
the gateway (2026-07-28, then a 2025 session); the upstream counts the HTTP requests that
reach it per JSON-RPC method, after the gateway has started (its own startup listing left
out). Counts, not times: the figure is deterministic.

Then two gateway processes (``genmcp proxy URL``, real processes, started one after the other:
what each start-up asks the upstream is counted too) in front of the same
upstream, with the cache off (``--no-cache``), in each process's memory (the default), and
shared in Redis (``--redis-url``, a key prefix of the run's own, deleted at the end): ``-n``
of each method to the first process, then to the second (2026-07-28), the upstream's count
per method after both started.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import uvicorn

os.environ.setdefault("GENMCP_SECRET_KEY", "genmcp-bench-not-a-secret-0123456789abcdef0123456789")

from genmcp import Client, Mount, StaticResource, Suite, mcp_app, mcp_router, tool

HINT = ("public", 60_000)


class Counting:
    """ASGI middleware counting the JSON-RPC methods POSTed to the app behind it."""

    def __init__(self, app: Any) -> None:
        self.app, self.counts = app, Counter[str]()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            self.counts[str(json.loads(body).get("method"))] += 1
        except (ValueError, AttributeError):
            self.counts["?"] += 1
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def upstream_suite() -> Suite:
    tools = []
    for index in range(20):

        @tool(name=f"tool_{index}", cache_control=HINT)
        def echo(text: str) -> str:
            """Echo the text."""
            return text

        tools.append(echo)
    resources = [
        StaticResource(f"docs://page/{index}", f"page_{index}", text="x" * 200, cache_control=HINT)
        for index in range(20)
    ]
    return Suite(server_name="upstream", server_version="1", tools=tools, resources=resources)


class Served:
    """uvicorn on a free loopback port in a thread."""

    def __init__(self, app: Any) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                lifespan="on", ws="none")  # fmt: skip
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)


async def drive(url: str, n: int, protocol: str | None) -> None:
    async with Client(url, protocol=protocol) as client:
        for _ in range(n):
            await client.list_tools()
            await client.list_resources()
            await client.list_resource_templates()
            await client.read_resource("docs://page/3")


def run(cached: bool, n: int) -> dict[str, Counter[str]]:
    counting = Counting(mcp_app(upstream_suite(), path="/mcp"))
    upstream = Served(counting)
    if cached:
        router = mcp_router(proxy=upstream.url)
    else:
        router = mcp_router(mounts=[Mount(url=upstream.url, resources=True, cache=False)],
                            server_name="genmcp-proxy", server_version="1")  # fmt: skip
    from fastapi import FastAPI

    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    gateway = Served(app)
    found: dict[str, Counter[str]] = {}
    try:
        for era in ("2026-07-28", "2025-11-25"):
            before = Counter(counting.counts)
            asyncio.run(drive(gateway.url, n, None if era == "2026-07-28" else era))
            found[era] = counting.counts - before
    finally:
        gateway.stop()
        upstream.stop()
    return found


METHODS = ("tools/list", "resources/list", "resources/templates/list", "resources/read")
MODES = {"off": ["--no-cache"], "memory": [], "redis": ["--redis-url"]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


SETTLE_S = 1.0
"""Seconds a started proxy is left to open its change stream (and re-list past its cache)."""
STARTUP = ("server/discover", "tools/list", "resources/templates/list")


@contextlib.contextmanager
def proxy_processes(
    upstream: str, extra: list[str], count: int, counting: Counting
) -> Iterator[tuple[list[str], list[Counter[str]]]]:
    """``count`` ``genmcp proxy`` processes in front of ``upstream``, started one after the
    other; their URLs, and what each one's start-up asked the upstream."""
    import httpx

    env = {k: v for k, v in os.environ.items() if k != "GENMCP_REDIS_URL"}
    started: list[tuple[subprocess.Popen[bytes], str]] = []
    startups = []
    try:
        for _ in range(count):
            before = Counter(counting.counts)
            port = free_port()
            url = f"http://127.0.0.1:{port}/mcp"
            command = [sys.executable, "-m", "genmcp", "proxy", upstream, "--port", str(port)]
            process = subprocess.Popen([*command, *extra], env=env, start_new_session=True,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
            started.append((process, url))
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.post(url, json={}, timeout=2)
                    break
                except httpx.HTTPError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        stderr = process.communicate()[1]
                        raise SystemExit(f"never served {url}: {stderr!r}") from None
                    time.sleep(0.05)
            time.sleep(SETTLE_S)
            startups.append(counting.counts - before)
        yield [url for _, url in started], startups
    finally:
        for process, _ in started:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
            try:
                process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()


def run_processes(mode: str, n: int, redis_url: str) -> tuple[list[Counter[str]], ...]:
    """The upstream's counts at each of two proxy processes' start-up, and for ``n`` of each
    method to each of them."""
    counting = Counting(mcp_app(upstream_suite(), path="/mcp"))
    upstream = Served(counting)
    prefix = f"genmcp-bench:{uuid.uuid4().hex}:"
    extra = MODES[mode] + ([redis_url, "--redis-prefix", prefix] if mode == "redis" else [])
    found = []
    try:
        with proxy_processes(upstream.url, extra, 2, counting) as (urls, startups):
            for url in urls:
                before = Counter(counting.counts)
                asyncio.run(drive(url, n, None))
                found.append(counting.counts - before)
    finally:
        upstream.stop()
        if mode == "redis":
            import redis

            client = redis.Redis.from_url(redis_url)
            keys = list(client.scan_iter(match=prefix + "*", count=1000))
            if keys:
                client.delete(*keys)
            client.close()
    return startups, found


def two_processes(n: int, redis_url: str) -> None:
    results = {mode: run_processes(mode, n, redis_url) for mode in MODES}
    print()
    print("| method | outer requests (first + second process) | upstream, cache off | "
          "upstream, each process's memory | upstream, shared in Redis |")  # fmt: skip
    print("|---|--:|--:|--:|--:|")
    for method in (*METHODS, "all four"):
        names = METHODS if method == "all four" else (method,)
        cells = []
        for mode in MODES:
            first, second = (sum(found[m] for m in names) for found in results[mode][1])
            cells.append(f"{first} + {second}")
        print(f"| {method} | {len(names) * n} + {len(names) * n} | " + " | ".join(cells) + " |")
    print()
    print("| at start-up | upstream, cache off | upstream, each process's memory | "
          "upstream, shared in Redis |")  # fmt: skip
    print("|---|--:|--:|--:|")
    for method in STARTUP:
        cells = [" + ".join(str(found[method]) for found in results[mode][0]) for mode in MODES]
        print(f"| {method} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=50, help="requests of each method per era")
    parser.add_argument(
        "--redis-url",
        default="redis://127.0.0.1:6379/0",
        help="the Redis the two processes share (redis://127.0.0.1:6379/0)",
    )
    options = parser.parse_args()
    n = options.n
    results = {"off": run(False, n), "on": run(True, n)}
    print("| outer client era | method | outer requests | upstream, cache off | "
          "upstream, cache on |")  # fmt: skip
    print("|---|---|--:|--:|--:|")
    for era in ("2026-07-28", "2025-11-25"):
        for method in METHODS:
            off, on = results["off"][era][method], results["on"][era][method]
            print(f"| {era} | {method} | {n} | {off} | {on} |")
        total_off = sum(results["off"][era][m] for m in METHODS)
        total_on = sum(results["on"][era][m] for m in METHODS)
        print(f"| {era} | all four | {4 * n} | {total_off} | {total_on} |")
    two_processes(n, options.redis_url)


if __name__ == "__main__":
    main()
