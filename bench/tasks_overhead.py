"""Cost of the Tasks extension: a task-mode ``tools/call`` vs a plain one, and ``tasks/get``.

    .venv/bin/python bench/tasks_overhead.py [calls] [--redis redis://127.0.0.1:6379/0]

Serves one Suite in a uvicorn process of its own (this module's ``app``) on loopback, with
the same trivial tool twice, once plain and once with ``task_support="optional"``, its tasks
in memory (and, with ``--redis``, a second server with ``RedisTaskStore``). Same run, one
keep-alive connection, sequential:

- plain ``tools/call`` latency;
- task-mode ``tools/call`` latency (until the CreateTaskResult), and until the task is seen
  ``completed`` (the create, then ``tasks/get`` polls back to back);
- then wrk (bench/lib/tasks_load.lua, 16 connections, 5 s each): plain ``tools/call``,
  task-mode ``tools/call`` (each creates a task) and ``tasks/get`` of a completed task.

Prints medians (µs) and req/s. Numbers go in bench/RESULTS.md ("Tasks").
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from genmcp import Result, Suite, Tool, call_tool_result, mcp_router

HERE = Path(__file__).resolve().parent

VERSION = "2026-07-28"
EXT = "io.modelcontextprotocol/tasks"


class Echo(Tool, name="echo", description="Answers at once."):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text="ok"))


class EchoTask(Echo, name="echo_task", task_support="optional"):
    """The same tool, run as a task."""


def message(method: str, params: dict[str, Any], request_id: int, tasks: bool) -> dict[str, Any]:
    capabilities = {"extensions": {EXT: {}}} if tasks else {}
    meta = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, "_meta": meta},
    }


def headers(method: str, name: str) -> dict[str, str]:
    return {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": method,
        "mcp-name": name,
    }


def post(client: httpx.Client, method: str, name: str, params: dict[str, Any]) -> Any:
    body = message(method, params, 1, tasks=True)
    response = client.post("/mcp", json=body, headers=headers(method, name))
    assert response.status_code == 200, response.text
    return response.json()["result"]


def sequential(url: str, calls: int) -> dict[str, float]:
    plain, create, done = [], [], []
    ids = []
    with httpx.Client(base_url=url, timeout=10) as client:
        for index in range(calls + 50):
            start = time.perf_counter()
            assert post(client, "tools/call", "echo", {"name": "echo"})["resultType"] == "complete"
            middle = time.perf_counter()
            task = post(client, "tools/call", "echo_task", {"name": "echo_task"})
            created = time.perf_counter()
            while (
                post(client, "tasks/get", task["taskId"], {"taskId": task["taskId"]})["status"]
                != "completed"
            ):
                pass
            end = time.perf_counter()
            if index >= 50:  # warm-up
                plain.append((middle - start) * 1e6)
                create.append((created - middle) * 1e6)
                done.append((end - middle) * 1e6)
                ids.append(task["taskId"])
    return {
        "plain": statistics.median(plain),
        "create": statistics.median(create),
        "done": statistics.median(done),
        "ids": ids,  # type: ignore[dict-item]
    }


def wrk(url: str, method: str, name: str, params: str, expect: str) -> float:
    """Requests per second wrk gets at 16 connections in 5 s (every answer checked)."""
    env = {"BENCH_METHOD": method, "BENCH_NAME": name, "BENCH_PARAMS": params}
    argv = ["wrk", "-t", "2", "-c", "16", "-d", "5s", "-s", str(HERE / "lib/tasks_load.lua")]
    done = subprocess.run(
        [*argv, url + "/mcp"],
        env={**os.environ, **env, "BENCH_EXPECT": expect},
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("TASKSJSON "))
    report = json.loads(line.removeprefix("TASKSJSON "))
    assert report["bad"] == 0, report
    rate: float = report["requests"] / (report["duration_us"] / 1e6)
    return rate


def load(url: str, task_id: str) -> dict[str, float]:
    call = '"name":"{0}","arguments":{{}}'
    return {
        "plain": wrk(url, "tools/call", "echo", call.format("echo"), '"complete"'),
        "create": wrk(url, "tools/call", "echo_task", call.format("echo_task"), '"task"'),
        "get": wrk(url, "tasks/get", task_id, f'"taskId":"{task_id}"', '"completed"'),
    }


def build() -> FastAPI:
    """The benchmarked app; ``BENCH_TASKS_REDIS``/``BENCH_TASKS_PREFIX`` pick a Redis store."""
    store = None
    if os.environ.get("BENCH_TASKS_REDIS"):
        from genmcp.storage.redis.tasks import RedisTaskStore

        store = RedisTaskStore.from_url(
            os.environ["BENCH_TASKS_REDIS"], prefix=os.environ["BENCH_TASKS_PREFIX"]
        )
    suite = Suite(server_name="bench", server_version="1", tools=[Echo, EchoTask], task_store=store)
    app = FastAPI()
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    return app


def run(label: str, env: dict[str, str], calls: int) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--app-dir", str(HERE), "tasks_overhead:app",
         "--port", str(port), "--log-level", "warning", "--no-access-log"],
        env={**os.environ, **env},
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.post(url + "/mcp", json={}, timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, "no server"
                time.sleep(0.05)
        numbers = sequential(url, calls)
        rates = load(url, numbers["ids"][0])  # type: ignore[index]
    finally:
        server.terminate()
        server.wait()
    print(
        f"{label}: sequential median: plain tools/call {numbers['plain']:.0f} µs, task-mode "
        f"tools/call {numbers['create']:.0f} µs (+{numbers['create'] - numbers['plain']:.0f}), "
        f"create..completed {numbers['done']:.0f} µs; wrk c16: plain tools/call "
        f"{rates['plain']:.0f} req/s, task-mode tools/call {rates['create']:.0f} req/s, "
        f"tasks/get {rates['get']:.0f} req/s"
    )


def main() -> None:
    args = sys.argv[1:]
    redis_url = None
    if "--redis" in args:
        at = args.index("--redis")
        redis_url = args[at + 1]
        del args[at : at + 2]
    calls = int(args[0]) if args else 500
    run("memory", {}, calls)
    if redis_url:
        prefix = f"genmcp-bench:{uuid.uuid4().hex}:"
        run("redis", {"BENCH_TASKS_REDIS": redis_url, "BENCH_TASKS_PREFIX": prefix}, calls)
        import redis

        client = redis.Redis.from_url(redis_url)
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)
        client.close()


if __name__ == "__main__":
    main()
else:  # imported by uvicorn in the server process
    app = build()
