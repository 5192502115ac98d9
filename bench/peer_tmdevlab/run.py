"""TM Dev Lab v1's load, run here against genmcp, their FastMCP server and their Node server.

The load is their k6 script's, driven by this stdlib asyncio client instead of k6 (k6 is
neither in Debian nor on npm; the npm package named k6 is an empty stub). Each of --vus
virtual users keeps one keep-alive connection, as a k6 VU does, and loops over their
iteration: for each of the four tools, a session (initialize at 2024-11-05,
notifications/initialized, tools/call with their arguments, DELETE if the server gave an
Mcp-Session-Id), then one more session for tools/list, then a 0.1 s sleep. Results are checked
as their script checks them (fibonacci(10) = 55, the JSON tool's upper-cased name, content
present); a failed check, a JSON-RPC error or a non-2xx status counts as an error.

Measured: for each repetition a fresh server pinned to CPU 1 (the driver and the mock API the
I/O tool calls sit on CPU 0), --warmup seconds of load with the users starting spread over
it, then --seconds measured: HTTP requests and iterations completed, the server process's
CPU time (/proc utime + stime) over the same window, per-request latency. Servers are
interleaved (the order rotates each repetition) so that a busy spell on the shared machine
hits all of them.

    python3 bench/peer_tmdevlab/run.py run [--reps 4] [--seconds 15] [--servers genmcp,fastmcp,node]
    python3 bench/peer_tmdevlab/run.py report [RESULT.json] [--out bench/RESULTS.md]
    python3 bench/peer_tmdevlab/run.py mock --port 8299      # the mock API alone
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CACHE = Path(os.environ.get("PEER_CACHE", "/tmp/genmcp-bench/peer_tmdevlab"))
RESULTS = REPO / "bench" / "results" / "peer_tmdevlab"
SERVER_CPU, DRIVER_CPU = "1", 0
MOCK_PORT = 8299
PORTS = {"genmcp": 8201, "fastmcp": 8202, "node": 8203, "genmcp_shared": 8204,
         "fastmcp_shared": 8205, "fastmcp_quiet": 8206}
LABELS = {
    "genmcp": "genmcp (uvicorn, 1 worker)",
    "fastmcp": "their FastMCP server (mcp.server.fastmcp, uvicorn, 1 worker)",
    "node": "their official TypeScript SDK server (express, Node)",
    "genmcp_shared": "genmcp, one shared httpx client",
    "fastmcp_shared": "their FastMCP server, one shared httpx client",
    "fastmcp_quiet": "their FastMCP server, one shared httpx client, log level WARNING",
}
START = "<!-- peer-tmdevlab:start -->"
END = "<!-- peer-tmdevlab:end -->"

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                   "clientInfo": {"name": "k6-bench", "version": "1.0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _text_json(result: dict[str, Any]) -> Any:
    return json.loads(result["content"][0]["text"])


def _content(result: dict[str, Any]) -> bool:
    return bool(result.get("content"))


# their TOOLS table: name, arguments, check of the result
TOOLS: list[tuple[str, dict[str, Any], Any]] = [
    ("calculate_fibonacci", {"n": 10}, lambda r: _text_json(r)["result"] == 55),
    ("fetch_external_data", {"endpoint": f"http://127.0.0.1:{MOCK_PORT}/api"}, _content),
    ("process_json_data", {"data": {"name": "benchmark", "count": 42, "nested": {"key": "value"}}},
     lambda r: _text_json(r)["transformed_data"]["name"] == "BENCHMARK"),
    ("simulate_database_query", {"query": "SELECT * FROM benchmarks", "delay_ms": 10}, _content),
]


def server_command(name: str, port: int) -> tuple[list[str], Path, dict[str, str]]:
    env = dict(os.environ, PYTHONPATH="")
    env.pop("PYTHONPATH")
    if name == "node":
        link = HERE / "node_server" / "node_modules"
        if not link.exists():
            link.symlink_to(CACHE / "node" / "node_modules")
        return ["node", "index.mjs"], HERE / "node_server", dict(env, PORT=str(port),
                                                                 NODE_ENV="production")
    base = name.removesuffix("_shared").removesuffix("_quiet")
    if base != name:
        env["PEER_SHARED_CLIENT"] = "1"
    if name.endswith("_quiet"):  # mcp's FastMCP logs each request at INFO through rich
        env["PEER_LOG_LEVEL"] = "WARNING"
    venv = CACHE / f"venv-{base}"
    module = f"{base}_server:app"
    return ([str(venv / "bin" / "python"), "-m", "uvicorn", module, "--host", "127.0.0.1",
             "--port", str(port), "--log-level", "warning", "--no-access-log"], HERE, env)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_health(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server on {port} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as resp:
                if resp.status == 200:
                    return
        except urllib.error.HTTPError:  # up (their FastMCP app's "/" mount shadows /health)
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"server on {port} not healthy in {timeout} s")


# ---- the client: HTTP/1.1 keep-alive over asyncio streams ------------------------------------

class Conn:
    """One virtual user's connection; reopened when the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, body: bytes | None,
                      headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        head = [f"{method} /mcp HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        head.append(f"Content-Length: {len(body) if body else 0}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + (body or b""))
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        got = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                got[k.strip().lower()] = v.strip()
        if "content-length" in got:
            data = await self.reader.readexactly(int(got["content-length"]))
        elif got.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                parts.append(chunk[:-2])
            data = b"".join(parts)
        else:
            data = await self.reader.read()
            got["connection"] = "close"
        if got.get("connection", "").lower() == "close":
            self.close()
        return status, got, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def parse_body(data: bytes) -> Any:
    """Their parseBody: plain JSON, else the first SSE data line holding a JSON object."""
    text = data.strip()
    if text[:1] in (b"{", b"["):
        try:
            return json.loads(text)
        except ValueError:
            pass
    for line in text.split(b"\n"):
        line = line.strip()
        if line.startswith(b"data:") and line[5:].strip().startswith(b"{"):
            try:
                return json.loads(line[5:].strip())
            except ValueError:
                continue
    return None


class Stats:
    def __init__(self) -> None:
        self.requests = 0
        self.iterations = 0
        self.calls = 0
        self.errors = 0
        self.latencies: list[float] = []
        self.recording = False
        self.error_samples: list[str] = []
        self.deletes = 0

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what[:300])


BASE = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


async def post(conn: Conn, stats: Stats, payload: dict[str, Any],
               session: str | None) -> tuple[int, str | None, Any]:
    headers = dict(BASE)
    if session:
        headers["Mcp-Session-Id"] = session
    t0 = time.perf_counter()
    status, got, data = await asyncio.wait_for(
        conn.request("POST", json.dumps(payload).encode(), headers), 15)
    stats.requests += 1
    if stats.recording:
        stats.latencies.append(time.perf_counter() - t0)
    if status >= 400:
        stats.error(f"{payload.get('method')}: HTTP {status} {data[:200]!r}")
    return status, got.get("mcp-session-id") or session, parse_body(data) if data else None


async def session_call(conn: Conn, stats: Stats, method: str, params: dict[str, Any]) -> Any:
    _, session, _ = await post(conn, stats, INIT, None)
    await post(conn, stats, INITIALIZED, session)
    _, _, reply = await post(conn, stats, {"jsonrpc": "2.0", "id": 2, "method": method,
                                           "params": params}, session)
    if session:
        t0 = time.perf_counter()
        status, _, _ = await asyncio.wait_for(
            conn.request("DELETE", None, {"Mcp-Session-Id": session}), 15)
        stats.requests += 1
        stats.deletes += 1
        if stats.recording:
            stats.latencies.append(time.perf_counter() - t0)
        if status >= 400 and status != 405:
            stats.error(f"DELETE: HTTP {status}")
    return reply


def check(reply: Any, test: Any) -> bool:
    if not isinstance(reply, dict) or "error" in reply or not isinstance(reply.get("result"), dict):
        return False
    try:
        return bool(test(reply["result"]))
    except (KeyError, IndexError, TypeError, ValueError):
        return False


async def iteration(conn: Conn, stats: Stats) -> None:
    for name, arguments, test in TOOLS:
        reply = await session_call(conn, stats, "tools/call", {"name": name, "arguments": arguments})
        stats.calls += 1
        if not check(reply, test):
            stats.error(f"{name}: {reply!r}")
    reply = await session_call(conn, stats, "tools/list", {})
    if not check(reply, lambda r: r["tools"]):
        stats.error(f"tools/list: {reply!r}")
    stats.iterations += 1


async def vu(port: int, stats: Stats, start_after: float, stop: asyncio.Event) -> None:
    await asyncio.sleep(start_after)
    conn = Conn(port)
    while not stop.is_set():
        try:
            await iteration(conn, stats)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            stats.error(f"transport: {exc!r}")
            conn.close()
        await asyncio.sleep(0.1)
    conn.close()


async def load(port: int, pid: int, vus: int, warmup: float, seconds: float) -> dict[str, Any]:
    stats, stop = Stats(), asyncio.Event()
    tasks = [asyncio.create_task(vu(port, stats, warmup * 0.5 * i / vus, stop)) for i in range(vus)]
    await asyncio.sleep(warmup)
    r0, i0, c0, e0 = stats.requests, stats.iterations, stats.calls, stats.errors
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    stats.recording = True
    await asyncio.sleep(seconds)
    cpu1, t1 = cpu_seconds(pid), time.monotonic()
    stats.recording = False
    r1, i1, c1, e1 = stats.requests, stats.iterations, stats.calls, stats.errors
    stop.set()
    await asyncio.wait(tasks, timeout=30)
    lat = sorted(stats.latencies)
    elapsed, cpu, requests = t1 - t0, cpu1 - cpu0, r1 - r0

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else 0.0

    return {
        "seconds": elapsed, "requests": requests, "iterations": i1 - i0, "calls": c1 - c0,
        "errors": e1 - e0, "errors_total": stats.errors, "error_samples": stats.error_samples,
        "server_cpu_s": cpu, "session_ids": stats.deletes > 0, "rps": requests / elapsed, "calls_per_s": (c1 - c0) / elapsed,
        "cpu_us_per_request": cpu / requests * 1e6 if requests else 0.0,
        "cpu_ms_per_iteration": cpu / (i1 - i0) * 1e3 if i1 > i0 else 0.0,
        "server_cpu_util": cpu / elapsed,
        "latency_ms": {"avg": statistics.fmean(lat) * 1000 if lat else 0.0,
                       "p50": pct(0.5), "p95": pct(0.95), "p99": pct(0.99)},
    }


# ---- the mock API (their mockserver's /api) ---------------------------------------------------

MOCK_BODY = json.dumps({"status": "success", "data": {"id": 1, "name": "mock"}}).encode()


async def mock_serve(port: int) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await reader.readuntil(b"\r\n\r\n")
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (len(MOCK_BODY), MOCK_BODY))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


# ---- orchestration ---------------------------------------------------------------------------

def versions() -> dict[str, str]:
    out = {"python": platform.python_version(), "machine": platform.machine(),
           "cpus": str(os.cpu_count())}
    for name, packages in (("genmcp", ["genmcp", "fastapi", "uvicorn", "httpx"]),
                           ("fastmcp", ["fastmcp", "mcp", "fastapi", "uvicorn", "httpx"])):
        py = CACHE / f"venv-{name}" / "bin" / "python"
        if py.exists():
            code = ("import importlib.metadata as m,sys;print(' '.join(p+'='+m.version(p) "
                    "for p in sys.argv[1:]))")
            out[name] = subprocess.run([str(py), "-c", code, *packages], capture_output=True,
                                       text=True, check=False).stdout.strip()
    pkg = CACHE / "node" / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
    if pkg.exists():
        node = subprocess.run(["node", "--version"], capture_output=True, text=True,
                              check=False).stdout.strip()
        sdk = json.loads(pkg.read_text())["version"]
        out["node"] = f"node={node} @modelcontextprotocol/sdk={sdk}"
    return out


def run(args: argparse.Namespace) -> Path:
    servers = args.servers.split(",")
    RESULTS.mkdir(parents=True, exist_ok=True)
    run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out = RESULTS / f"{run_id}.json"
    mock = subprocess.Popen(["taskset", "-c", str(DRIVER_CPU), sys.executable, __file__, "mock",
                             "--port", str(MOCK_PORT)])
    os.sched_setaffinity(0, {DRIVER_CPU})
    doc: dict[str, Any] = {"run_id": run_id, "vus": args.vus, "seconds": args.seconds,
                           "warmup": args.warmup, "reps": args.reps, "versions": versions(),
                           "loadavg_start": os.getloadavg(), "rows": {s: [] for s in servers}}
    try:
        for rep in range(args.reps):
            order = servers[rep % len(servers):] + servers[:rep % len(servers)]
            for name in order:
                port = PORTS[name]
                cmd, cwd, env = server_command(name, port)
                log = open(RESULTS / f"{run_id}-{name}.log", "ab")
                proc = subprocess.Popen(["taskset", "-c", SERVER_CPU, *cmd], cwd=cwd, env=env,
                                        stdout=log, stderr=log, start_new_session=True)
                try:
                    wait_health(port, proc)
                    row = asyncio.run(load(port, proc.pid, args.vus, args.warmup, args.seconds))
                finally:
                    os.killpg(proc.pid, signal.SIGTERM)
                    try:
                        proc.wait(10)
                    except subprocess.TimeoutExpired:
                        os.killpg(proc.pid, signal.SIGKILL)
                        proc.wait()
                    log.close()
                row["rep"] = rep
                row["loadavg"] = os.getloadavg()[0]
                doc["rows"][name].append(row)
                print(f"rep {rep} {name:8s} {row['rps']:7.0f} req/s {row['calls_per_s']:6.0f} "
                      f"calls/s cpu {row['cpu_us_per_request']:6.0f} us/req "
                      f"{row['cpu_ms_per_iteration']:6.2f} ms/iter util {row['server_cpu_util']:.2f} "
                      f"p95 {row['latency_ms']['p95']:.1f} ms errors {row['errors']}",
                      flush=True)
                if row["error_samples"]:
                    print("  e.g.", row["error_samples"][:2], flush=True)
                out.write_text(json.dumps(doc, indent=1))
    finally:
        mock.terminate()
        mock.wait()
    return out


def _spread(values: list[float], fmt: str) -> str:
    med = statistics.median(values)
    lo, hi = min(values), max(values)
    return f"{med:{fmt}} ({lo:{fmt}}–{hi:{fmt}})"


def report(path: Path) -> str:
    doc = json.loads(path.read_text())
    rows = doc["rows"]
    lines = [
        f"Run `{doc['run_id']}`: {doc['vus']} virtual users, {doc['reps']} interleaved repetitions "
        f"of {doc['warmup']:.0f} s warm-up + {doc['seconds']:.0f} s measured, one fresh server per "
        "repetition pinned to CPU 1; median (min–max) over the repetitions. CPU per iteration = "
        "CPU per HTTP request × requests per iteration (a slow server completes few iterations "
        "in a window; its request count is the steadier base).",
        "",
        "| server | HTTP requests / iteration | server CPU ms / iteration | server CPU µs / HTTP request | HTTP req/s per core (1 / CPU per request) | HTTP req/s as measured | server CPU busy | latency avg / p95 ms | errors |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for name, reps in rows.items():
        if not reps:
            continue
        lat_avg = statistics.median(r["latency_ms"]["avg"] for r in reps)
        lat_p95 = statistics.median(r["latency_ms"]["p95"] for r in reps)
        # 4 tool sessions + 1 list session of 3 POSTs each, plus a DELETE each if the server
        # handed out session ids
        per_iter = 20 if reps[0].get("session_ids", name.startswith("genmcp")) else 15
        lines.append(
            f"| {LABELS[name]} | {per_iter:.0f} "
            f"| {_spread([r['cpu_us_per_request'] * per_iter / 1000 for r in reps], '.1f')} "
            f"| {_spread([r['cpu_us_per_request'] for r in reps], ',.0f')} "
            f"| {_spread([1e6 / r['cpu_us_per_request'] for r in reps], ',.0f')} "
            f"| {_spread([r['rps'] for r in reps], ',.0f')} "
            f"| {statistics.median(r['server_cpu_util'] for r in reps):.0%} "
            f"| {lat_avg:.1f} / {lat_p95:.1f} | {sum(r['errors'] for r in reps)} |")
    v = doc["versions"]
    lines += ["", "Versions: " + "; ".join(f"{k}: {v[k]}" for k in ("genmcp", "fastmcp", "node")
                                           if k in v)
              + f"; Python {v['python']}, {v['cpus']} CPUs ({v['machine']})."]
    return "\n".join(lines)


def write_block(text: str, out: Path) -> None:
    body = out.read_text()
    block = f"{START}\n{text}\n{END}"
    if START in body and END in body:
        head, rest = body.split(START, 1)
        body = head + block + rest.split(END, 1)[1]
    else:
        body = body.rstrip("\n") + "\n\n## A peer's benchmark: TM Dev Lab v1, run here\n\n" + block + "\n"
    out.write_text(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_run = sub.add_parser("run")
    p_run.add_argument("--servers", default="genmcp,fastmcp,node,genmcp_shared,fastmcp_shared,fastmcp_quiet")
    p_run.add_argument("--vus", type=int, default=50)
    p_run.add_argument("--reps", type=int, default=4)
    p_run.add_argument("--seconds", type=float, default=15)
    p_run.add_argument("--warmup", type=float, default=12)
    p_run.add_argument("--out", type=Path, default=None, help="also write the table block here")
    p_rep = sub.add_parser("report")
    p_rep.add_argument("result", nargs="?", type=Path)
    p_rep.add_argument("--out", type=Path, default=None)
    p_mock = sub.add_parser("mock")
    p_mock.add_argument("--port", type=int, default=MOCK_PORT)
    args = parser.parse_args()
    if args.cmd == "mock":
        asyncio.run(mock_serve(args.port))
        return
    if args.cmd == "run":
        for name in args.servers.split(","):
            if name not in PORTS:
                parser.error(f"unknown server {name} (known: {', '.join(PORTS)})")
        if "node" in args.servers and not shutil.which("node"):
            parser.error("node is not installed")
        result = run(args)
    else:
        result = args.result or max(RESULTS.glob("*.json"))
    text = report(result)
    print(text)
    if args.out:
        write_block(text, args.out)


if __name__ == "__main__":
    main()
