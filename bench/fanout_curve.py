"""Server CPU per delivered change notification as the open streams grow (issue 50).

A notification (``notifications/resources/updated``) fanned out to N open 2026-07-28
``subscriptions/listen`` streams, N = 1,000 / 3,000 / 10,000 by default: what one delivery
costs the server, and whether that cost stays flat as N grows.

    python3 bench/fanout_curve.py run --trees base=/tmp/base,new=. --points 1000,3000,10000

One fresh server per (tree, N) point: one uvicorn worker (uvloop, httptools, no access log)
pinned to CPU 0, serving a Suite with one static resource; the client (a separate process,
asyncio Protocols on raw sockets, on CPU 1) opens N listen streams subscribed to that
resource, waits for every acknowledgement, lets the server settle, measures the server's
idle CPU for ``--idle-s`` (keepalive timers: the baseline), then sends notifications one at
a time: each one is triggered by ``POST /_notify`` and the next only once all N streams
received it, until about ``--deliveries`` deliveries (so every point delivers the same total).
The server's CPU (utime + stime from /proc) over that burst, divided by the deliveries, is the
figure; the idle rate times the burst's wall time is subtracted for the net figure. Trees
alternate point by point (base N1, new N1, base N2, ...), ``--runs`` times. With
``--profile`` the server runs under cProfile and writes its stats next to the results.

    python3 bench/fanout_curve.py held --trees base=/tmp/base,new=. --streams 2000

What each open stream keeps alive while it waits for its next notification, by type (the
objects made since the last collection, counted after a notification reached every stream,
collector off): those outlive the young collections, are promoted, and the count of
promoted objects is what triggers a full collection, whose cost grows with the streams.

Knobs (the server's environment): ``FANOUT_KEEPALIVE_S`` sets the streams' ``keepalive_s``
(0: no keepalive pings, so that only the fan-out is measured); ``FANOUT_GC=off`` disables the
cyclic collector; ``FANOUT_REDIS=redis://...`` hands the change out through a ``RedisBroker``
on that server (its notice stream) instead of the in-memory broker. The server counts its
collections by generation (``GET /_gc``), reported per point with the CPU spent in them.

Stdlib only (the server side imports the tree's genmcp, FastAPI and uvicorn from the
interpreter given by ``--python``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TICK = os.sysconf("SC_CLK_TCK")
URI = "bench://fanout"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "fanout", "version": "1"},
}


# --- the server (run as `fanout_curve.py serve PORT` under the tree's PYTHONPATH)
def serve(port: int, profile: str | None) -> None:
    import uvicorn
    from fastapi import FastAPI

    from genmcp import StaticResource, Suite, mcp_router

    broker: Any = None
    if os.environ.get("FANOUT_REDIS"):  # the knob: a RedisBroker (its notice stream) instead
        from genmcp.storage.redis import RedisBroker

        broker = RedisBroker.from_url(os.environ["FANOUT_REDIS"], prefix=f"fanout-{port}:")
    suite = Suite(
        server_name="fanout",
        server_version="1",
        resources=[StaticResource(uri=URI, name="fanout", text="x", mime_type="text/plain")],
        broker=broker,
    )
    app = FastAPI()
    keepalive = (
        {"keepalive_s": float(os.environ["FANOUT_KEEPALIVE_S"])}
        if os.environ.get("FANOUT_KEEPALIVE_S")
        else {}
    )
    app.include_router(mcp_router(suite=suite, **keepalive), prefix="/mcp")

    @app.post("/_notify")
    async def notify() -> dict[str, bool]:
        suite.resource_updated(URI)
        return {"ok": True}

    gc_stats = _watch_gc()

    @app.get("/_gc")
    async def gc_report() -> dict[str, list[float]]:
        return gc_stats

    @app.get("/_young")
    async def young() -> dict[str, int]:  # `held`: the young objects alive, then promoted
        import collections
        import gc

        kinds = collections.Counter(_kind(o) for o in gc.get_objects(0) + gc.get_objects(1))
        gc.collect(1)
        return dict(kinds)

    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        loop="uvloop",
        http="httptools",
        access_log=False,
        log_level="warning",
        backlog=4096,
    )
    server = uvicorn.Server(config)
    if os.environ.get("FANOUT_GC") == "off":  # an experiment's knob: no cyclic collector
        import gc

        gc.disable()
    if profile is None:
        server.run()
        return
    import cProfile
    import signal

    # uvicorn re-raises the SIGTERM it caught once it stopped: exit through ``finally``
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        server.run()
    finally:
        profiler.disable()
        profiler.dump_stats(profile)


def _kind(o: object) -> str:
    code = getattr(o, "cr_code", None)  # a coroutine: which one
    return type(o).__qualname__ if code is None else f"coroutine {code.co_qualname}"


def _watch_gc() -> dict[str, list[float]]:
    """Collections and their CPU seconds by generation, counted from now (``GET /_gc``)."""
    import gc

    stats: dict[str, list[float]] = {"runs": [0, 0, 0], "cpu_s": [0.0, 0.0, 0.0]}
    started = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            stats["runs"][info["generation"]] += 1
            stats["cpu_s"][info["generation"]] += time.process_time() - started[0]

    gc.callbacks.append(callback)
    return stats


# --- the client (run as `fanout_curve.py client PORT N DELIVERIES`, one JSON line out)
class _Stream(asyncio.Protocol):
    """One listen stream: counts acknowledgements and updates in what it reads."""

    def __init__(self, counts: dict[str, int], wake: asyncio.Event) -> None:
        self.counts, self.wake, self.tail = counts, wake, b""

    def data_received(self, data: bytes) -> None:
        text = self.tail + data
        self.counts["ack"] += text.count(b"subscriptions/acknowledged")
        got = text.count(b"resources/updated")
        self.counts["updates"] += got
        self.tail = data[-40:]
        if got:
            self.wake.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.counts["lost"] += 1
        self.wake.set()


def _listen_request(i: int) -> bytes:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": i,
            "method": "subscriptions/listen",
            "params": {"notifications": {"resourceSubscriptions": [URI]}, "_meta": META},
        }
    ).encode()
    head = (
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        "accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n"
        f"mcp-method: subscriptions/listen\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def _notify(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /_notify HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n")
    await reader.readuntil(b"\r\n\r\n")
    writer.close()


async def _until(
    counts: dict[str, int], wake: asyncio.Event, key: str, n: int, limit: float
) -> None:
    deadline = time.monotonic() + limit
    while counts[key] < n:
        if counts["lost"]:
            raise SystemExit(f"{counts['lost']} streams lost: {counts}")
        wake.clear()
        try:
            await asyncio.wait_for(wake.wait(), max(0.01, min(0.2, deadline - time.monotonic())))
        except TimeoutError:
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out waiting for {n} {key}: {counts}") from None


async def _open_streams(
    port: int, n: int, counts: dict[str, int], wake: asyncio.Event
) -> list[asyncio.BaseTransport]:
    loop = asyncio.get_running_loop()
    transports: list[asyncio.BaseTransport] = []
    for start in range(0, n, 250):  # connect in batches: the listen backlog stays short
        batch = range(start, min(n, start + 250))
        opened = await asyncio.gather(
            *(
                loop.create_connection(lambda: _Stream(counts, wake), "127.0.0.1", port)
                for _ in batch
            )
        )
        for i, (transport, _) in zip(batch, opened, strict=True):
            transport.write(_listen_request(i))
            transports.append(transport)
        await _until(counts, wake, "ack", start + len(batch), 120)
    return transports


async def client(port: int, n: int, deliveries: int) -> None:
    counts = {"ack": 0, "updates": 0, "lost": 0}
    wake = asyncio.Event()
    transports = await _open_streams(port, n, counts, wake)
    print(json.dumps({"ready": n}), flush=True)
    sys.stdin.readline()  # the harness read the server's CPU; go
    notes = max(1, round(deliveries / n))
    started = time.monotonic()
    for k in range(1, notes + 1):
        await _notify(port)
        await _until(counts, wake, "updates", k * n, 120)
    wall = time.monotonic() - started
    print(
        json.dumps({"notifications": notes, "deliveries": counts["updates"], "wall_s": wall}),
        flush=True,
    )
    sys.stdin.readline()  # the harness read the server's CPU; close
    for transport in transports:
        transport.close()


async def held_client(port: int, n: int) -> None:
    """Two notifications, a count of the young objects after each (``held``)."""
    counts = {"ack": 0, "updates": 0, "lost": 0}
    wake = asyncio.Event()
    transports = await _open_streams(port, n, counts, wake)
    loop = asyncio.get_running_loop()
    young: dict[str, int] = {}
    for k in (1, 2):  # the first promotes what the streams' opening left
        await _notify(port)
        await _until(counts, wake, "updates", k * n, 120)
        young = await loop.run_in_executor(None, _get, port, "/_young")
    per_stream = {kind: round(c / n, 2) for kind, c in young.items() if c >= n / 20}
    print(json.dumps({"per_stream": per_stream, "total": round(sum(young.values()) / n, 2)}))
    for transport in transports:
        transport.close()


# --- the harness
def _cpu_s(pid: int, sys_only: bool = False) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[12]) + (0 if sys_only else int(fields[11]))) / TICK


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _gc(port: int) -> dict[str, list[float]]:
    return _get(port, "/_gc")


def _get(port: int, path: str) -> Any:
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return json.loads(data.partition(b"\r\n\r\n")[2])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(port: int, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit(f"server exited {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("server did not start")


def _settle(pid: int, quiet_s: float = 0.5) -> None:
    """Wait until the server used under 5 % of a core over ``quiet_s``."""
    for _ in range(60):
        before = _cpu_s(pid)
        time.sleep(quiet_s)
        if _cpu_s(pid) - before < 0.05 * quiet_s + 0.011:
            return


def point(
    o: argparse.Namespace, tree: str, n: int, profile: str | None, extra: dict[str, str]
) -> dict[str, object]:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": f"{Path(tree).resolve()}/src", "GENMCP_SECRET_KEY": "b" * 48}
    env.update(extra)
    argv = [o.python, __file__, "serve", str(port), *(["--profile", profile] if profile else [])]
    server = subprocess.Popen(["taskset", "-c", o.server_cpu, *argv], env=env)
    try:
        _wait_up(port, server)
        _settle(server.pid)
        idle_kb = _rss_kb(server.pid)
        argv = [sys.executable, __file__, "client", str(port), str(n), str(o.deliveries)]
        cli = subprocess.Popen(
            ["taskset", "-c", o.client_cpu, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert cli.stdin is not None and cli.stdout is not None
        json.loads(cli.stdout.readline())
        open_kb = _rss_kb(server.pid)
        _settle(server.pid)
        c0, t0 = _cpu_s(server.pid), time.monotonic()
        time.sleep(o.idle_s)
        idle_rate = (_cpu_s(server.pid) - c0) / (time.monotonic() - t0)
        gc0 = _gc(port)
        c0, s0 = _cpu_s(server.pid), _cpu_s(server.pid, sys_only=True)
        cli.stdin.write("go\n")
        cli.stdin.flush()
        r = json.loads(cli.stdout.readline())
        cpu = _cpu_s(server.pid) - c0
        kernel = _cpu_s(server.pid, sys_only=True) - s0
        gc1 = _gc(port)
        gc_runs = [b - a for a, b in zip(gc0["runs"], gc1["runs"], strict=True)]
        gc_s = [round(b - a, 3) for a, b in zip(gc0["cpu_s"], gc1["cpu_s"], strict=True)]
        cli.stdin.write("close\n")
        cli.stdin.flush()
        cli.wait(timeout=120)
        d = r["deliveries"]
        return {
            "tree": tree,
            "streams": n,
            "notifications": r["notifications"],
            "deliveries": d,
            "wall_s": round(r["wall_s"], 3),
            "cpu_s": round(cpu, 3),
            "sys_us_per_delivery": round(kernel / r["deliveries"] * 1e6, 2),
            "idle_cpu_pct": round(idle_rate * 100, 2),
            "us_per_delivery": round(cpu / d * 1e6, 2),
            "net_us_per_delivery": round((cpu - idle_rate * r["wall_s"]) / d * 1e6, 2),
            "gc_runs": gc_runs,
            "gc_cpu_s": gc_s,
            "kb_per_stream": round((open_kb - idle_kb) / n, 1),
        }
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def run(o: argparse.Namespace) -> None:
    trees = dict(t.split("=", 1) for t in o.trees.split(","))
    envs: dict[str, dict[str, str]] = {name: {} for name in trees}
    for spec in o.tree_env or ():  # NAME:VAR=VALUE, e.g. off:FANOUT_KEEPALIVE_S=0
        name, _, assignment = spec.partition(":")
        var, _, value = assignment.partition("=")
        envs[name][var] = value
    out = Path(o.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for rep in range(o.runs):
        for n in [int(p) for p in o.points.split(",")]:
            for name, tree in trees.items():
                prof = str(out.with_suffix(f".{name}.{n}.prof")) if o.profile else None
                r = {"run": rep, "name": name, **point(o, tree, n, prof, envs[name])}
                print(json.dumps(r), flush=True)
                with out.open("a") as f:
                    f.write(json.dumps(r) + "\n")


def held(o: argparse.Namespace) -> None:
    for name, tree in (t.split("=", 1) for t in o.trees.split(",")):
        port = _free_port()
        env = {
            **os.environ,
            "PYTHONPATH": f"{Path(tree).resolve()}/src",
            "GENMCP_SECRET_KEY": "b" * 48,
            "FANOUT_GC": "off",
        }
        server = subprocess.Popen([o.python, __file__, "serve", str(port)], env=env)
        try:
            _wait_up(port, server)
            argv = [sys.executable, __file__, "held-client", str(port), str(o.streams)]
            out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
            print(json.dumps({"name": name, "streams": o.streams, **json.loads(out)}))
        finally:
            server.terminate()
            server.wait(timeout=30)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("port", type=int)
    s.add_argument("--profile")
    c = sub.add_parser("client")
    c.add_argument("port", type=int)
    c.add_argument("n", type=int)
    c.add_argument("deliveries", type=int)
    hc = sub.add_parser("held-client")
    hc.add_argument("port", type=int)
    hc.add_argument("n", type=int)
    h = sub.add_parser("held")
    h.add_argument("--trees", default=f"this={HERE.parent}")
    h.add_argument("--streams", type=int, default=2000)
    h.add_argument("--python", default=sys.executable)
    r = sub.add_parser("run")
    r.add_argument("--trees", default=f"this={HERE.parent}")
    r.add_argument("--points", default="1000,3000,10000")
    r.add_argument("--deliveries", type=int, default=200_000)
    r.add_argument("--runs", type=int, default=1)
    r.add_argument("--idle-s", type=float, default=2.0)
    r.add_argument("--python", default=sys.executable)
    r.add_argument("--server-cpu", default="0")
    r.add_argument("--client-cpu", default="1")
    r.add_argument("--profile", action="store_true")
    r.add_argument(
        "--tree-env",
        action="append",
        help="NAME:VAR=VALUE, one tree's server environment (a tree twice, a knob apart)",
    )
    r.add_argument(
        "--out",
        default=str(HERE / "results" / "fanout" / f"{time.strftime('%Y%m%dT%H%M%S')}.jsonl"),
    )
    o = p.parse_args()
    if o.cmd == "serve":
        serve(o.port, o.profile)
    elif o.cmd == "client":
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
        asyncio.run(client(o.port, o.n, o.deliveries))
    elif o.cmd == "held-client":
        asyncio.run(held_client(o.port, o.n))
    elif o.cmd == "held":
        held(o)
    else:
        run(o)


if __name__ == "__main__":
    main()
