"""A rolling restart under load: what clients lose when each process is SIGTERMed in turn.

Three uvicorn processes of `bench/scale/app.py` on one redis-server of their own, behind
Debian's nginx (round-robin, `proxy_next_upstream error`, as docs/guides/deployment.md says).
`--concurrency` clients loop, a quarter on each kind of call: 2026 quick (`add`), 2025 session
quick (`add`), 2026 streaming and 2025 streaming (`ticker`: `--ticks` log events 0.2 s apart,
then the answer). After a warm-up, each process in turn gets SIGTERM, exits (drain, then
uvicorn's graceful shutdown), starts again and takes load before the next one stops. With
`--take-out`, nginx first stops sending it requests (its `server` marked `down`, a reload).

A call counts as failed when its HTTP status is not 200, its answer is a JSON-RPC error, a
stream ends before its answer, or the connection breaks. Prints a JSON report: calls and
failures per kind, failures by reason, and the restarts' timing.

    python bench/scale/rolling.py                       # nginx opens a connection per request
    python bench/scale/rolling.py --keepalive 32        # kept-alive upstream connections (4 s)
    python bench/scale/rolling.py --take-out            # each marked down in nginx first
    python bench/scale/rolling.py --redis cluster       # on a 3-master Redis Cluster
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from support.redis_server import OwnRedis
from support.topology import Nginx, Processes, require_nginx, wait_port

ACCEPT = "application/json, text/event-stream"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "rolling", "version": "1"},
}
KINDS = ("modern_quick", "legacy_quick", "modern_stream", "legacy_stream")


class Load:
    """The clients' tallies: calls and failures per kind, failure reasons."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()
        self.examples: dict[str, str] = {}
        self.running = True

    def record(self, kind: str, failure: str | None, detail: str = "") -> None:
        self.calls[kind] += 1
        if failure is not None:
            self.failed[kind] += 1
            self.reasons[f"{kind}: {failure}"] += 1
            self.examples.setdefault(f"{kind}: {failure}", detail[:300])


def last_message(body: str, content_type: str) -> dict[str, Any] | None:
    """The JSON-RPC answer of a POST: the body, or the last SSE `data:` that has an id."""
    if content_type.startswith("application/json"):
        return json.loads(body) if body else None
    answer = None
    for line in body.splitlines():
        if line.startswith("data:"):
            data = line[5:].strip()
            if data:
                message = json.loads(data)
                if "id" in message and ("result" in message or "error" in message):
                    answer = message
    return answer


async def initialize(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "rolling", "version": "1"}}}
    reply = await http.post(url, json=body, headers={"Accept": ACCEPT})
    reply.raise_for_status()
    headers = {"Mcp-Session-Id": reply.headers["mcp-session-id"],
               "MCP-Protocol-Version": LEGACY, "Accept": ACCEPT}
    await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                    headers=headers)
    return headers


async def client(kind: str, http: httpx.AsyncClient, url: str, load: Load, ticks: int) -> None:
    legacy = kind.startswith("legacy")
    stream = kind.endswith("stream")
    name = "ticker" if stream else "add"
    arguments: dict[str, Any] = {"n": ticks, "every": 0.2} if stream else {"a": 1, "b": 2}
    expected = f"{ticks} ticks" if stream else "3"
    headers: dict[str, str] | None = None
    n = 0
    while load.running:
        n += 1
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if legacy:
            if headers is None:
                try:
                    headers = await initialize(http, url)
                except httpx.HTTPError as error:
                    load.record(kind, f"initialize {type(error).__name__}", str(error))
                    await asyncio.sleep(0.05)
                    continue
            send = headers
        else:
            params["_meta"] = META
            send = {"Accept": ACCEPT, "MCP-Protocol-Version": MODERN,
                    "Mcp-Method": "tools/call", "Mcp-Name": name}
        body = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
        try:
            async with http.stream("POST", url, json=body, headers=send) as reply:
                text = (await reply.aread()).decode()
                if reply.status_code != 200:
                    load.record(kind, f"HTTP {reply.status_code}", text)
                    if reply.status_code == 404 and legacy:
                        headers = None
                    continue
                answer = last_message(text, reply.headers.get("content-type", ""))
        except httpx.HTTPError as error:
            load.record(kind, type(error).__name__, str(error))
            continue
        if answer is None:
            load.record(kind, "stream ended before its answer", text[-300:])
        elif "error" in answer:
            load.record(kind, f"JSON-RPC {answer['error'].get('code')}", json.dumps(answer))
        elif expected not in json.dumps(answer["result"]):
            load.record(kind, "wrong answer", json.dumps(answer))
        else:
            load.record(kind, None)


def start_again(procs: Processes, index: int) -> None:
    """Start process ``index`` again on its port; say why (its log) if it does not serve."""
    procs.start_one(index)
    process = procs.processes[index]
    assert process is not None
    try:
        wait_port(procs.ports[index], process)
    except RuntimeError:
        sys.stderr.write(procs.log(index)[-3000:])
        raise


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--ticks", type=int, default=10, help="log events per streaming call")
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds before the first stop")
    parser.add_argument("--between", type=float, default=6.0, help="seconds between restarts")
    parser.add_argument("--rounds", type=int, default=1, help="how many times to restart all 3")
    parser.add_argument("--keepalive", type=int, default=None,
                        help="upstream connections nginx keeps alive (default: none)")
    parser.add_argument("--keepalive-timeout", type=float, default=4.0)
    parser.add_argument("--next-upstream", default="error",
                        help="nginx proxy_next_upstream (e.g. 'error non_idempotent')")
    parser.add_argument("--request-buffering", action="store_true",
                        help="nginx proxy_request_buffering on (a sent POST can be retried)")
    parser.add_argument("--take-out", action="store_true",
                        help="mark each process down in nginx (reload) before stopping it")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every call succeeded (make rolling, CI)")
    parser.add_argument("--redis", choices=("node", "cluster"), default="node",
                        help="one redis-server, or a 3-master Redis Cluster (issue 36)")
    parser.add_argument("--graceful", type=float, default=35.0,
                        help="uvicorn --timeout-graceful-shutdown (the drain plus a margin)")
    args = parser.parse_args()

    redis: Any
    if args.redis == "cluster":
        from support.redis_topology import OwnCluster

        redis = OwnCluster(masters=3).start()
    else:
        redis = OwnRedis(shutil.which("redis-server") or "/usr/bin/redis-server")
        redis.start()
    procs = Processes(3, {"REDIS_URL": redis.url, "GENMCP_PREFIX": "rolling:"},
                      graceful_s=args.graceful).start()
    nginx = Nginx(require_nginx(), procs.ports, keepalive=args.keepalive,
                  keepalive_timeout_s=args.keepalive_timeout if args.keepalive else None,
                  next_upstream=args.next_upstream,
                  request_buffering=args.request_buffering).start()
    url = nginx.url + "/mcp/"
    load = Load()
    restarts: list[dict[str, float]] = []
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    started = time.perf_counter()
    tasks: list[asyncio.Task[None]] = []
    try:
        async with httpx.AsyncClient(timeout=60, limits=limits) as http:
            tasks = [asyncio.create_task(client(KINDS[i % 4], http, url, load, args.ticks))
                     for i in range(args.concurrency)]
            await asyncio.sleep(args.warmup)
            for _ in range(args.rounds):
                for index in range(3):
                    if args.take_out:
                        nginx.take_out(procs.ports[index])
                        await asyncio.sleep(1.0)  # nginx's new workers take the load
                    stop_at = time.perf_counter()
                    await asyncio.to_thread(procs.terminate, index)
                    exited = time.perf_counter()
                    await asyncio.to_thread(start_again, procs, index)
                    if args.take_out:
                        nginx.take_out()
                    restarts.append({"process": index, "exit_s": round(exited - stop_at, 2),
                                     "back_s": round(time.perf_counter() - exited, 2)})
                    await asyncio.sleep(args.between)
            load.running = False
            await asyncio.gather(*tasks)
    except BaseException:
        load.running = False
        for task in tasks:
            task.cancel()
        raise
    finally:
        errors = (nginx.dir / "error.log").read_text(errors="replace").splitlines()
        nginx.stop()
        procs.stop()
        redis.close()
    total = sum(load.calls.values())
    report = {
        "seconds": round(time.perf_counter() - started, 1),
        "concurrency": args.concurrency,
        "nginx_upstream_keepalive": args.keepalive,
        "taken_out_first": args.take_out,
        "proxy_next_upstream": args.next_upstream,
        "proxy_request_buffering": args.request_buffering,
        "redis": args.redis,
        "calls": total,
        "failed": sum(load.failed.values()),
        "per_kind": {kind: {"calls": load.calls[kind], "failed": load.failed[kind]} for kind in KINDS},
        "reasons": dict(load.reasons),
        "examples": load.examples,
        "restarts": restarts,
        "nginx_upstream_errors": [line[20:] for line in errors if "upstream" in line][-10:],
    }
    print(json.dumps(report, indent=1))
    if args.check and (report["failed"] or not all(load.calls[kind] for kind in KINDS)):
        sys.exit(f"rolling restart: {report['failed']} of {total} calls failed")


if __name__ == "__main__":
    asyncio.run(main())
