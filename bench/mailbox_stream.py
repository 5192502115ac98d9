"""Benchmark: 1,000 concurrent streaming calls, each fed 10 mailbox messages, each message
answered with a progress notification (the GenMCP worker/mailbox path end to end).

The server (a subprocess pinned to CPU 0) serves one tool, `feed`: `call` starts a feeder task
that posts 10 messages to the worker's mailbox 50 ms apart (an event source outside the
request) and returns `Stream`; `handle_message` sends one progress notification per message
and answers after the 10th. The client (this process, pinned to CPU 1) opens N calls at once,
each on its own connection, and checks that every call got 10 progress notifications and its
result. Reported: completed calls, wall time, per-call p50/p99, server CPU seconds, server RSS
idle and peak (sampled from /proc).

    .venv/bin/python bench/mailbox_stream.py [--calls 1000] [--runs 3] [--server]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MESSAGES = 10
INTERVAL_S = 0.05


def serve(port: int) -> None:
    """The server side (run with --server in a subprocess)."""
    import uvicorn

    from genmcp import Result, Stream, Tool, call_tool_result, mcp_app

    class Feed(Tool, name="feed", description="Streams progress for 10 mailbox messages."):
        async def call(self, request: Any, channel: Any, arg: Any) -> Stream:
            async def feeder() -> None:
                for i in range(MESSAGES):
                    await asyncio.sleep(INTERVAL_S)
                    channel.mailbox.send(i)

            channel.start_stream()
            tasks.add(task := asyncio.create_task(feeder()))
            task.add_done_callback(tasks.discard)
            return Stream(0)

        async def handle_message(self, message: Any, channel: Any, state: Any, arg: Any) -> Any:
            seen = state + 1
            channel.send_progress(seen, total=MESSAGES)
            if seen < MESSAGES:
                return Stream(seen)
            return Result(call_tool_result(text="done"))

    tasks: set[asyncio.Task[None]] = set()
    from genmcp import Suite

    suite = Suite(server_name="bench", server_version="1", tools=[Feed], secret_key="k" * 48)
    config = uvicorn.Config(
        mcp_app(suite), host="127.0.0.1", port=port, log_level="warning", access_log=False,
        loop="auto", http="auto", backlog=4096,
    )  # fmt: skip
    uvicorn.Server(config).run()


def request_bytes(port: int, token: int) -> bytes:
    body = json.dumps({
        "jsonrpc": "2.0", "id": token, "method": "tools/call",
        "params": {"name": "feed", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": token}}}).encode()  # fmt: skip
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
        f"Mcp-Method: tools/call\r\nMcp-Name: feed\r\nConnection: close\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def one_call(port: int, token: int) -> tuple[bool, float]:
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request_bytes(port, token))
    await writer.drain()
    data = await reader.read()  # Connection: close, so the body ends with the stream
    writer.close()
    progress = data.count(b'"notifications/progress"')
    ok = progress == MESSAGES and b'"text":"done"' in data
    return ok, time.perf_counter() - started


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def sample_peak(pid: int, stop: asyncio.Event, peak: list[float]) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], rss_mb(pid))
        await asyncio.sleep(0.02)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def run_once(calls: int) -> dict[str, Any]:
    port = free_port()
    server = subprocess.Popen(
        ["taskset", "-c", "0", sys.executable, __file__, "--server", "--port", str(port)]
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        idle, cpu_before = rss_mb(server.pid), cpu_s(server.pid)
        stop, peak = asyncio.Event(), [idle]
        sampler = asyncio.create_task(sample_peak(server.pid, stop, peak))
        started = time.perf_counter()
        results = await asyncio.gather(*(one_call(port, i) for i in range(calls)))
        wall = time.perf_counter() - started
        stop.set()
        await sampler
        latencies = sorted(latency for _, latency in results)
        return {
            "completed": sum(ok for ok, _ in results),
            "wall_s": wall,
            "p50_s": statistics.median(latencies),
            "p99_s": latencies[int(len(latencies) * 0.99) - 1],
            "server_cpu_s": cpu_s(server.pid) - cpu_before,
            "rss_idle_mb": idle,
            "rss_peak_mb": peak[0],
        }
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.server:
        serve(args.port)
        return
    os.sched_setaffinity(0, {1})
    runs = [asyncio.run(run_once(args.calls)) for _ in range(args.runs)]
    median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    print(json.dumps({"calls": args.calls, "runs": runs, "median": median}, indent=2))


if __name__ == "__main__":
    main()
