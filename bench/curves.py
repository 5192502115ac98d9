#!/usr/bin/env python3
"""Cost curves (issue 35): how server CPU per request and p99 grow with the work, genmcp and
the SDK's MCPServer side by side. Stdlib only, like driver.py (whose Server, wrk and stream
client it reuses); the plots are drawn by `plot` under a venv with matplotlib.

    python3 bench/curves.py run [--curves conc,catalog,...] [--servers genmcp,mcp_high]
    python3 bench/curves.py report [RUN_DIR]    # tables + flags into bench/RESULTS.md
    /tmp/genmcp-bench/venvs/plot/bin/python bench/curves.py plot [RUN_DIR]   # bench/curves/*.png
    make bench-curves                           # all three (about 10 minutes)

Curves (one fresh server process per point; wrk --warmup s, then --duration s):
  conc      tools/call add at c = 1 .. 1,024
  catalog   EXTRA_TOOLS = 10 .. 100,000: start-up, idle RSS, the first tools/list page (the
            server's own page size: genmcp 100, MCPServer everything; sequential requests),
            tools/call add at c=16 (the lookup by name)
  size      tools/call echo with a text of 1 KB .. 10 MB (argument and result), c=4
  streams   N = 100 .. 10,000 simultaneous `progress` calls (10 notifications, 500 ms apart):
            RSS per open stream (peak - idle) / N, server CPU per notification received
  sessions  N = 1,000 .. 100,000 legacy sessions opened (initialize, wrk): RSS and, for
            genmcp on Redis, Redis used_memory per session; then tools/call add at c=16
  redis     legacy tools/call through 1..3 genmcp processes on one Redis (bench/scale/run.py,
            nginx in front of each, 16 connections per process): CPU per call (genmcp, Redis)

The machine is shared, so CPU per request (server process CPU time / requests answered) is
the figure, not req/s. A curve is flagged when its per-unit cost (per request, per tool
listed, per byte, per stream, per session) grows by more than 1.5x across the points and its
log-log slope exceeds 0.15: the total grows faster than linearly in the work.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import driver as D  # noqa: E402

CURVES = ("conc", "catalog", "size", "streams", "sessions", "redis")
PNG_DIR = BENCH / "curves"
BEGIN, END = "<!-- curves: begin (bench/curves.py report) -->", "<!-- curves: end -->"
D.SERVERS["genmcp_redis"] = {
    "venv": "genmcp",
    "script": "genmcp_server.py",
    "port": 8108,
    "label": "genmcp, sessions in Redis",
    "legacy": True,
}
LABELS = {"genmcp": "genmcp", "mcp_high": "MCPServer", "genmcp_redis": "genmcp (Redis)"}
POINTS = {
    "conc": [1, 16, 128, 1024],
    "catalog": [10, 1000, 10000, 100000],
    "size": [1_000, 100_000, 1_000_000, 10_000_000],
    "streams": [100, 1000, 3000, 10000],
    "sessions": [1000, 10000, 100000],
    "redis": [1, 2, 3],
}


def cpu_us(r: dict, duration: float) -> float | None:
    """Server CPU µs per answered request of one wrk phase."""
    if not r.get("requests"):
        return None
    return r["server_cpu_pct"] / 100 * duration / r["requests"] * 1e6


def wrk_point(srv: D.Server, o: argparse.Namespace, conc: int, env: dict[str, str]) -> dict:
    r = D.phase(srv, o, conc, env)
    return {
        "cpu_us": cpu_us(r, o.duration),
        "p99_ms": r["p99_ms"],
        "rps": r["rps"],
        "requests": r["requests"],
        "errors": r["errors"],
        "foreign_cpu_pct": r["foreign_cpu_pct"],
    }


def started(
    name: str, env: dict[str, str], o: argparse.Namespace, tag: str
) -> tuple[D.Server, float]:
    srv = D.Server(name, env, o.server_cpu, o.out / "logs", tag)
    t0 = time.monotonic()
    srv.start(timeout=1800)
    return srv, time.monotonic() - t0  # wall: other load stretches it; see start_cpu_s


def base_env(**more: Any) -> dict[str, str]:
    env = {"EXTRA_TOOLS": "0", "STATEFUL": "0", "JSON_RESPONSE": "1"}
    return {**env, **{k: str(v) for k, v in more.items()}}


# --------------------------------------------------------------------------- curves
def curve_conc(server: str, o: argparse.Namespace) -> list[dict]:
    points = []
    for c in o.points["conc"]:
        srv, _ = started(server, base_env(), o, f"conc-{server}-{c}")
        try:
            D.wait_ready(srv.port)
            srv.settle()
            points.append(
                {"x": c, **wrk_point(srv, o, c, D.load_env("modern", expect='"text":"3'))}
            )
        finally:
            srv.stop()
    return points


def sequential(port: int, payload: dict, headers: dict, seconds: float, least: int) -> dict:
    """Requests one after another for `seconds` (at least `least`): latencies, bytes."""
    lat: list[float] = []
    size = 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds or len(lat) < least:
        t = time.perf_counter()
        status, _, body = D.post(port, payload, headers, timeout=600)
        lat.append(time.perf_counter() - t)
        if status != 200:
            raise D.BenchError(f"status {status}: {body[:200]!r}")
        size = len(body)
    lat.sort()
    return {
        "n": len(lat),
        "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e3,
        "body_kb": size / 1024,
    }


def curve_catalog(server: str, o: argparse.Namespace) -> list[dict]:
    points = []
    listing = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {"_meta": D.modern_meta()},
    }
    heads = {"MCP-Protocol-Version": D.MODERN, "Mcp-Method": "tools/list"}
    for n in o.points["catalog"]:
        if server == "mcp_high" and n > o.mcp_max_tools:
            continue
        srv, start_s = started(server, base_env(EXTRA_TOOLS=n), o, f"catalog-{server}-{n}")
        try:
            D.wait_ready(srv.port)
            srv.settle()
            point: dict[str, Any] = {
                "x": n,
                "start_s": start_s,
                "start_cpu_s": srv.cpu_s(),
                "idle_rss_mb": srv.rss_mb(),
            }
            _, h, body = D.post(srv.port, listing, heads, timeout=600)  # built on first use
            msgs = D.rpc_messages(h, body)
            point["page_tools"] = (
                len((msgs[-1].get("result") or {}).get("tools", [])) if msgs else 0
            )
            cpu0 = srv.cpu_s()
            seq = sequential(srv.port, listing, heads, o.duration, 3)
            point["list_cpu_us"] = (srv.cpu_s() - cpu0) / seq["n"] * 1e6
            point |= {"list_p99_ms": seq["p99_ms"], "list_kb": seq["body_kb"], "list_n": seq["n"]}
            point["list_us_per_tool"] = point["list_cpu_us"] / max(1, point["page_tools"])
            srv.settle()
            call = wrk_point(srv, o, 16, D.load_env("modern", expect='"text":"3'))
            point |= {f"call_{k}": v for k, v in call.items()}
            points.append(point)
        finally:
            srv.stop()
    return points


def curve_size(server: str, o: argparse.Namespace) -> list[dict]:
    points = []
    for n in o.points["size"]:
        env = base_env(MAX_BODY_BYTES=4 * n + 65536)
        srv, _ = started(server, env, o, f"size-{server}-{n}")
        args = o.out / f"args-{n}.json"
        args.write_text(json.dumps({"text": "x" * n}))
        try:
            D.wait_ready(srv.port)
            srv.settle()
            load = D.load_env("modern", tool="echo", expect="x" * 16)
            load["BENCH_ARGS_FILE"] = str(args)
            r = wrk_point(srv, o, 4, load)
            if r["errors"] * 2 >= r["requests"]:  # refused (a body cap): no cost to show
                r |= {"cpu_us": None, "p99_ms": None}
            points.append({"x": n, **r})
        finally:
            srv.stop()
            args.unlink()
    return points


def curve_streams(server: str, o: argparse.Namespace) -> list[dict]:
    points = []
    for n in o.points["streams"]:
        srv, _ = started(server, base_env(JSON_RESPONSE=0), o, f"streams-{server}-{n}")
        try:
            D.wait_ready(srv.port)
            srv.settle()
            idle_kb = D.proc_rss_kb(srv.pid)[0]
            cpu0 = srv.cpu_s()
            argv = [
                sys.executable,
                str(BENCH / "driver.py"),
                "stream-client",
                "--port",
                str(srv.port),
                "--n",
                str(n),
                "--steps",
                "10",
                "--interval-ms",
                "500",
            ]
            if o.client_cpu != "":
                argv = ["taskset", "-c", o.client_cpu, *argv]
            p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                raise D.BenchError(f"stream client failed: {p.stderr[-800:]}")
            r = json.loads(p.stdout.strip().splitlines()[-1])
            cpu = srv.cpu_s() - cpu0
            peak_kb = D.proc_rss_kb(srv.pid)[1]
            notes = r["notifications"]  # none: the point failed (no cost to show)
            points.append(
                {
                    "x": n,
                    "completed": r["completed"],
                    "wall_s": r["wall_s"],
                    "call_p99_ms": r["call_p99_s"] * 1e3 if r["call_p99_s"] else None,
                    "rss_kb_per_stream": (peak_kb - idle_kb) / n,
                    "cpu_us_per_notification": cpu / notes * 1e6 if notes else None,
                    "cpu_s": cpu,
                    "notifications": notes,
                    "failures": r["failures"],
                }
            )
        finally:
            srv.stop()
    return points


# --- sessions: an own redis-server, and the legacy sessions opened by wrk
class Redis:
    """A redis-server of this run's own (free port, no persistence), stopped by its pid."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.dir = tempfile.mkdtemp(prefix="curves-redis-")
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self.dir,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not D.port_open(self.port):
            if time.monotonic() > deadline:
                raise D.BenchError("redis-server did not start")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def used_memory(self) -> int:
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"INFO memory\r\n")
            data = b""
            while True:
                data += s.recv(65536)
                head, _, rest = data.partition(b"\r\n")
                if head.startswith(b"$") and len(rest) >= int(head[1:]):
                    break
        for line in rest.decode().splitlines():
            if line.startswith("used_memory:"):
                return int(line.split(":")[1])
        raise D.BenchError("no used_memory in INFO")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


def open_sessions(port: int, n: int, o: argparse.Namespace) -> dict:
    """Open about `n` legacy sessions with wrk (bench/lib/mcp_init.lua), in runs of a few
    seconds (wrk runs for its whole duration, so each run's length is fitted to the rate
    seen so far; each thread stops sending at its share). Gives up past `o.open_limit_s`."""
    threads, conc = 4, 64
    answered = bad = 0
    p99 = 0
    rate, t0 = None, time.monotonic()
    while answered < n:
        left = n - answered
        seconds = 2 if rate is None else max(1, math.ceil(left / rate * 1.1))
        if rate is not None and time.monotonic() - t0 + left / rate > o.open_limit_s:
            return {"answered": answered, "bad": bad, "p99_us": p99, "gave_up_rate": rate}
        argv = [
            "wrk",
            "-t",
            str(threads),
            "-c",
            str(conc),
            "-d",
            f"{seconds}s",
            "--timeout",
            "10s",
            "-s",
            str(BENCH / "lib" / "mcp_init.lua"),
            f"http://127.0.0.1:{port}/mcp",
        ]
        if o.client_cpu != "":
            argv = ["taskset", "-c", o.client_cpu, *argv]
        env = {**os.environ, "BENCH_COUNT": str(math.ceil(left / threads))}
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=seconds + 60)
        line = next((ln for ln in p.stdout.splitlines() if ln.startswith("BENCHJSON ")), None)
        if line is None:
            raise D.BenchError(f"wrk (initialize) failed: {p.stdout[-300:]} {p.stderr[-300:]}")
        r = json.loads(line.removeprefix("BENCHJSON "))
        answered, bad, p99 = answered + r["answered"], bad + r["bad"], max(p99, r["p99_us"])
        rate = max(answered / (time.monotonic() - t0), 1.0)
    return {"answered": answered, "bad": bad, "p99_us": p99}


def curve_sessions(server: str, o: argparse.Namespace) -> list[dict]:
    points = []
    for n in o.points["sessions"]:
        if server == "mcp_high" and n > o.mcp_max_sessions:
            continue
        redis = Redis() if server == "genmcp_redis" else None
        env = base_env(STATEFUL=1, UNCAPPED_SESSIONS=1)
        if redis is not None:
            env["REDIS_URL"] = redis.url
        srv, _ = started(server, env, o, f"sessions-{server}-{n}")
        try:
            points.append(session_point(srv, redis, n, o))
        except D.BenchError as exc:
            points.append({"x": n, "error": " ".join(str(exc).split())[:300]})
        finally:
            srv.stop()
            if redis is not None:
                redis.close()
    return points


def session_point(srv: D.Server, redis: Redis | None, n: int, o: argparse.Namespace) -> dict:
    """One point of the session curve on a started server (and its Redis)."""
    D.wait_ready(srv.port)
    D.legacy_session(srv.port)
    srv.settle()
    idle_kb = D.proc_rss_kb(srv.pid)[0]
    redis0 = redis.used_memory() if redis else 0
    cpu0 = srv.cpu_s()
    opened = open_sessions(srv.port, n, o)
    open_cpu = srv.cpu_s() - cpu0
    srv.settle()
    point: dict[str, Any] = {
        "x": n,
        "opened": opened["answered"],
        "bad": opened["bad"],
        "rss_kb_per_session": (D.proc_rss_kb(srv.pid)[0] - idle_kb) / opened["answered"],
        "init_cpu_us": open_cpu / opened["answered"] * 1e6,
        "init_p99_ms": opened["p99_us"] / 1e3,
    }
    if "gave_up_rate" in opened:
        point["gave_up"] = f"{opened['gave_up_rate']:.0f} initialize/s"
    if redis is not None:
        point["redis_bytes_per_session"] = (redis.used_memory() - redis0) / opened["answered"]

    def sessions(conc: int, port: int = srv.port) -> dict[str, str]:
        pairs = [D.legacy_session(port) for _ in range(D.wrk_threads(conc))]
        return {
            "BENCH_SESSIONS": ",".join(s for s, _ in pairs if s),
            "BENCH_VERSION": pairs[0][1],
        }

    r = D.phase(srv, o, 16, D.load_env("legacy", expect='"text":"3'), prep=sessions)
    point |= {
        "call_cpu_us": cpu_us(r, o.duration),
        "call_p99_ms": r["p99_ms"],
        "call_errors": r["errors"],
    }
    return point


def curve_redis(server: str, o: argparse.Namespace) -> list[dict]:
    """bench/scale/run.py under genmcp's dev venv (it imports the tests' Redis and nginx kits)."""
    python = BENCH.parent / ".venv" / "bin" / "python"
    procs = ",".join(str(n) for n in o.points["redis"])
    argv = [
        str(python),
        str(BENCH / "scale" / "run.py"),
        "--processes",
        procs,
        "--per-process",
        "16",
        "--proxy-one",
        "--upstream-keepalive",
        "64",
        "--seconds",
        str(max(2, round(o.duration))),
    ]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=BENCH.parent)
    rows = [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")]
    if not rows:
        raise D.BenchError(f"scale/run.py failed: {p.stdout[-400:]} {p.stderr[-800:]}")
    failed = [] if p.returncode == 0 else [{"error": p.stderr.strip().splitlines()[-1][:300]}]
    return [
        {
            "x": r["processes"],
            "cpu_us": r["cpu_us_per_call"]["genmcp"],
            "redis_cpu_us": r["cpu_us_per_call"]["redis"],
            "nginx_cpu_us": r["cpu_us_per_call"]["nginx"],
            "p99_ms": r["p99_us"] / 1e3,
            "rps": r["rps"],
            "errors": r["bad"] + r["non200"],
            "redis_commands_per_call": r["redis_commands_per_call"],
        }
        for r in rows
    ] + failed


RUNNERS = {
    "conc": curve_conc,
    "catalog": curve_catalog,
    "size": curve_size,
    "streams": curve_streams,
    "sessions": curve_sessions,
    "redis": curve_redis,
}
SERVERS_OF = {"sessions": ["genmcp", "genmcp_redis", "mcp_high"], "redis": ["genmcp"]}


def cmd_run(o: argparse.Namespace) -> Path:
    D.raise_nofile(65536)
    run_id = o.run_id or "curves-" + dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    o.out = Path(o.results) / run_id
    o.out.mkdir(parents=True, exist_ok=True)
    o.points = {k: list(v) for k, v in POINTS.items()}
    for spec in o.point:
        curve, _, values = spec.partition("=")
        o.points[curve] = [int(float(x)) for x in values.split(",")]
    path = o.out / "curves.json"
    data = json.loads(path.read_text()) if path.exists() else {"curves": {}}
    data.setdefault("started", dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    data["args"] = {"warmup": o.warmup, "duration": o.duration, "points": o.points}
    for curve in o.curves:
        for server in SERVERS_OF.get(curve, o.servers):
            if server not in o.servers and not (
                server.startswith("genmcp") and "genmcp" in o.servers
            ):
                continue
            t0 = time.monotonic()
            print(f"curves: {curve} / {server} ...", flush=True)
            try:
                points = RUNNERS[curve](server, o)
            except D.BenchError as exc:
                print(f"curves: {curve} / {server} failed: {exc}", flush=True)
                points = [{"error": " ".join(str(exc).split())[:300]}]
            # points of another x already in the run stay (a rerun of some points merges)
            old = data["curves"].setdefault(curve, {}).get(server, [])
            xs = {q.get("x") for q in points}
            kept = [
                q for q in old if "x" in q and q["x"] not in xs and q["x"] not in o.points[curve]
            ]
            data["curves"][curve][server] = sorted(kept + points, key=lambda q: q.get("x", 1e18))
            data["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            path.write_text(json.dumps(data, indent=1))
            print(f"curves: {curve} / {server} done in {time.monotonic() - t0:.0f} s", flush=True)
    latest = Path(o.results) / "curves-latest"
    if latest.is_symlink() or latest.exists():
        latest.unlink()
    latest.symlink_to(run_id)
    print(f"curves: wrote {path}")
    return o.out


# --------------------------------------------------------------------------- report
# curve -> [(metric key, heading, per-unit divisor: None = per request already, "x" = per x)]
METRICS: dict[str, list[tuple[str, str, str | None]]] = {
    "conc": [("cpu_us", "CPU µs/req", None), ("p99_ms", "p99 ms", "x"), ("errors", "errors", None)],
    "catalog": [
        ("start_cpu_s", "start-up CPU s", "x"),
        ("idle_rss_mb", "idle RSS MB", None),
        ("page_tools", "tools in page", None),
        ("list_kb", "page KB", None),
        ("list_cpu_us", "tools/list CPU µs/req", None),
        ("list_us_per_tool", "tools/list CPU µs per tool in page", None),
        ("list_p99_ms", "tools/list p99 ms", None),
        ("call_cpu_us", "tools/call CPU µs/req", None),
        ("call_p99_ms", "tools/call p99 ms", None),
    ],
    "size": [("cpu_us", "CPU µs/req", "x"), ("p99_ms", "p99 ms", "x"), ("errors", "errors", None)],
    "streams": [
        ("rss_kb_per_stream", "RSS KB/stream", None),
        ("cpu_us_per_notification", "CPU µs/notification", None),
        ("call_p99_ms", "call p99 ms", None),
        ("completed", "completed", None),
    ],
    "sessions": [
        ("opened", "opened", None),
        ("gave_up", "stopped at", None),
        ("rss_kb_per_session", "RSS KB/session", None),
        ("redis_bytes_per_session", "Redis B/session", None),
        ("init_cpu_us", "initialize CPU µs", None),
        ("call_cpu_us", "tools/call CPU µs/req", None),
        ("call_p99_ms", "tools/call p99 ms", None),
    ],
    "redis": [
        ("cpu_us", "genmcp CPU µs/call", None),
        ("redis_cpu_us", "Redis CPU µs/call", None),
        ("p99_ms", "p99 ms", None),
        ("redis_commands_per_call", "Redis cmds/call", None),
    ],
}
X_NAMES = {
    "conc": "concurrency",
    "catalog": "tools",
    "size": "bytes",
    "streams": "streams",
    "sessions": "sessions",
    "redis": "processes",
}
# metrics whose growth is expected and not a cost of the work (a whole-list page, latency
# under a closed loop) are still shown but flagged only per unit (their divisor)
NOT_FLAGGED = {
    ("catalog", "list_kb"),
    ("catalog", "page_tools"),
    ("catalog", "idle_rss_mb"),
    ("conc", "errors"),
    ("size", "errors"),
    ("streams", "completed"),
    ("streams", "call_p99_ms"),
    ("sessions", "opened"),
    ("sessions", "gave_up"),
}
PAGE_BOUND = {"list_cpu_us", "list_p99_ms"}
"""Catalog metrics flagged only where the page stays the same size (genmcp's pages; not a
server that lists everything at once, whose cost per tool listed is flagged instead)."""


def per_unit(curve: str, key: str, div: str | None, point: dict) -> float | None:
    if curve == "streams" and not point.get("notifications"):
        return None  # nothing arrived: a failed point, not a cost
    v = point.get(key)
    if not isinstance(v, int | float):
        return None
    if div == "x":
        return v / point["x"]
    return v


def growth(points: list[dict], curve: str, key: str, div: str | None) -> tuple[float, float] | None:
    """(last / first per-unit cost, log-log slope of per-unit cost against x)."""
    pts = [(p["x"], per_unit(curve, key, div, p)) for p in points if "x" in p]
    pts = [(x, y) for x, y in pts if y is not None and y > 0]
    if len(pts) < 2:
        return None
    (x0, y0), (x1, y1) = pts[0], pts[-1]
    if x1 == x0:
        return None
    return y1 / y0, math.log(y1 / y0) / math.log(x1 / x0)


def flags(data: dict) -> list[str]:
    out = []
    for curve, by_server in data["curves"].items():
        for server, points in by_server.items():
            for key, heading, div in METRICS.get(curve, []):
                if (curve, key) in NOT_FLAGGED:
                    continue
                sizes = {p.get("page_tools") for p in points}
                if curve == "catalog" and key in PAGE_BOUND and len(sizes) > 1:
                    continue
                g = growth(points, curve, key, div)
                if g and g[0] > 1.5 and g[1] > 0.15:
                    unit = "per " + X_NAMES[curve].rstrip("s") if div == "x" else ""
                    out.append(
                        f"{curve} / {LABELS.get(server, server)}: {heading} {unit} grows "
                        f"{g[0]:.1f}x over the curve (slope {g[1]:.2f})"
                    )
    return out


def fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def report_markdown(run_dir: Path) -> str:
    data = json.loads((run_dir / "curves.json").read_text())
    lines = [
        BEGIN,
        "",
        "## Cost curves (issue 35)",
        "",
        f"Run `{run_dir.name}`, {data.get('started')} → {data.get('finished')} (UTC); "
        f"`bench/curves.py` (`make bench-curves`), one run per point, a fresh server per "
        f"point, {data['args']['warmup']:g} s warm-up then {data['args']['duration']:g} s "
        "per wrk phase. CPU is the server process's own (from /proc) over the requests it "
        "answered: robust to the other load on this shared machine, unlike req/s. "
        "Plots: `bench/curves/<curve>.png`.",
        "",
    ]
    found = flags(data)
    lines += ["**Grows faster than linear** (per-unit cost up > 1.5x, log-log slope > 0.15):", ""]
    lines += [f"- {f}" for f in found] or ["- none"]
    lines.append("")
    for curve in CURVES:
        by_server = data["curves"].get(curve)
        if not by_server:
            continue
        lines += [f"### {curve}: {X_NAMES[curve]}", "", f"![{curve}](curves/{curve}.png)", ""]
        metrics = METRICS[curve]
        lines.append(
            "| server | " + X_NAMES[curve] + " | " + " | ".join(m[1] for m in metrics) + " |"
        )
        lines.append("|---|--:|" + "--:|" * len(metrics))
        for server, points in by_server.items():
            for p in points:
                if "error" in p:
                    lines.append(f"| {LABELS.get(server, server)} | failed: {p['error'][:120]} |")
                    continue
                failed = curve == "streams" and not p.get("notifications")
                cells = [
                    fmt(None if failed and k != "completed" else p.get(k)) for k, _, _ in metrics
                ]
                lines.append(
                    f"| {LABELS.get(server, server)} | {p['x']:,} | " + " | ".join(cells) + " |"
                )
        lines.append("")
    lines += [END, ""]
    return "\n".join(lines)


def cmd_report(o: argparse.Namespace) -> None:
    run_dir = Path(o.run_dir or Path(o.results) / "curves-latest").resolve()
    block = report_markdown(run_dir)
    out = Path(o.out)
    text = out.read_text() if out.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block.rstrip("\n") + rest.split(END, 1)[1]
    else:  # below the notes marker, which driver.py's report keeps across regenerations
        marker = "<!-- notes: kept across regenerations -->"
        if marker not in text:
            text += "\n" + marker + "\n"
        text += "\n" + block
    out.write_text(text)
    print(f"curves: wrote {out} from {run_dir}")


def cmd_plot(o: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(o.run_dir or Path(o.results) / "curves-latest").resolve()
    data = json.loads((run_dir / "curves.json").read_text())
    PNG_DIR.mkdir(exist_ok=True)
    for curve, by_server in data["curves"].items():
        metrics = [
            m
            for m in METRICS[curve]
            if m[0] not in ("errors", "completed", "list_kb", "page_tools", "opened", "gave_up")
        ]
        cols = min(3, len(metrics))
        rows = math.ceil(len(metrics) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
        for ax, (key, heading, _div) in zip(axes.flat, metrics, strict=False):
            for server, points in by_server.items():
                values = [(p["x"], per_unit(curve, key, None, p)) for p in points if "x" in p]
                pts = [(x, v) for x, v in values if v is not None and v > 0]
                if pts:
                    ax.plot(*zip(*pts, strict=True), marker="o", label=LABELS.get(server, server))
            ax.set_xscale("log")
            if curve != "redis":
                ax.set_yscale("log")
            ax.set_title(heading, fontsize=10)
            ax.set_xlabel(X_NAMES[curve])
            ax.grid(True, which="both", alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=8)
        for ax in list(axes.flat)[len(metrics) :]:
            ax.axis("off")
        fig.suptitle(f"{curve}: cost as {X_NAMES[curve]} grow ({run_dir.name})", fontsize=11)
        fig.tight_layout()
        fig.savefig(PNG_DIR / f"{curve}.png", dpi=90)
        plt.close(fig)
        print(f"curves: wrote {PNG_DIR / (curve + '.png')}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--curves", type=D.csv(str), default=list(CURVES))
    r.add_argument("--servers", type=D.csv(str), default=["genmcp", "mcp_high"])
    r.add_argument(
        "--point",
        action="append",
        default=[],
        metavar="CURVE=X,Y,...",
        help="other points for one curve (repeatable), e.g. conc=1,64",
    )
    r.add_argument("--duration", type=int, default=3, help="seconds per wrk phase (wrk: whole)")
    r.add_argument("--warmup", type=int, default=1)
    r.add_argument(
        "--mcp-max-tools",
        type=int,
        default=10000,
        help="MCPServer's catalog points stop here (start-up takes minutes beyond)",
    )
    r.add_argument("--mcp-max-sessions", type=int, default=100000)
    r.add_argument(
        "--open-limit-s",
        type=float,
        default=240,
        help="stop opening sessions when the rate says it would take longer",
    )
    r.add_argument("--server-cpu", default="0")
    r.add_argument("--client-cpu", default="1")
    r.add_argument("--results", default=str(BENCH / "results"))
    r.add_argument("--run-id", default=None)
    for name in ("report", "plot"):
        p = sub.add_parser(name)
        p.add_argument("run_dir", nargs="?")
        p.add_argument("--results", default=str(BENCH / "results"))
        p.add_argument("--out", default=str(BENCH / "RESULTS.md"))
    o = ap.parse_args()
    if o.cmd == "run":
        bad = [c for c in o.curves if c not in CURVES]
        if bad:
            ap.error(f"unknown curves {bad}; known: {', '.join(CURVES)}")
        cmd_run(o)
    elif o.cmd == "report":
        cmd_report(o)
    else:
        cmd_plot(o)


if __name__ == "__main__":
    main()
