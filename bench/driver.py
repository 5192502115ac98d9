#!/usr/bin/env python3
"""genmcp's benchmark driver (stdlib only; wrk does the closed-loop HTTP load).

    python3 bench/driver.py run [--servers a,b] [--scenarios call,list,...] [--runs 3] ...
    python3 bench/driver.py report [RUN_DIR] [--out bench/RESULTS.md]
    python3 bench/driver.py stream-client --port P --n 1000      (used by `run`)

Each (server, scenario, repetition) gets a fresh server process pinned to --server-cpu with
taskset; wrk and the asyncio streaming client are pinned to --client-cpu. Every metric's
median over the repetitions is reported on its own. Raw per-run JSON goes to
bench/results/<run-id>/ (gitignored); `report` turns one run directory into bench/RESULTS.md.

Scenarios:
  call     tools/call add {"a":1,"b":2}, 2026-07-28 stateless, wrk at each --conc level
           (warm-up, then --duration s): req/s, p50/p99, errors; idle RSS after start-up
  legacy   the same with STATEFUL=1 over legacy sessions: initialize +
           notifications/initialized per wrk thread, then Mcp-Session-Id on every request
  list     EXTRA_TOOLS=1000: tools/list at c=16 (req/s, p50/p99, bytes per response)
  nested   tools/call create_order (nested input schema) at c=16; first checks that the server
           rejects a payload that breaks the schema, i.e. that it validates at all
  stream   JSON_RESPONSE=0: --stream-n simultaneous `progress` calls (10 notifications 100 ms
           apart) from an asyncio client: completions, wall s, server CPU s, peak RSS
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import http.client
import json
import os
import platform
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
SERVERS_DIR = BENCH / "servers"
LUA = BENCH / "lib" / "mcp_load.lua"
VENVS = Path(os.environ.get("BENCH_VENVS", "/tmp/genmcp-bench/venvs"))
MODERN = "2026-07-28"
LEGACY_OFFER = "2025-11-25"
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024

sys.path.insert(0, str(SERVERS_DIR))
import _common as C  # noqa: E402

# name -> how to run it. `ref` marks the ceiling every ratio is taken against.
SERVERS: dict[str, dict[str, Any]] = {
    "starlette": {
        "venv": "starlette",
        "script": "starlette_server.py",
        "port": 8100,
        "label": "bare Starlette route (ceiling)",
        "legacy": True,
    },
    # the same route answering tools/list from a page encoded once (only the id spliced in, as
    # genmcp does): what serving those bytes costs uvicorn and the kernel, the list's floor
    "starlette_cached": {
        "venv": "starlette",
        "script": "starlette_server.py",
        "port": 8109,
        "label": "bare Starlette route, tools/list encoded once",
        "legacy": True,
        "env": {"CACHED_LIST": "1"},
    },
    "fastapi": {
        "venv": "fastapi",
        "script": "fastapi_server.py",
        "port": 8104,
        "label": "bare FastAPI APIRouter route",
        "legacy": True,
    },
    "genmcp": {
        "venv": "genmcp",
        "script": "genmcp_server.py",
        "port": 8105,
        "label": "genmcp (mcp_router in FastAPI)",
        "legacy": True,
    },
    # a baseline commit for before/after runs: BENCH_BASE_REV=<rev> bash bench/setup.sh genmcp_base
    "genmcp_base": {
        "venv": "genmcp_base",
        "script": "genmcp_server.py",
        "port": 8106,
        "label": "genmcp at the baseline commit (setup.sh BENCH_BASE_REV)",
        "legacy": True,
    },
    # the same genmcp venv on uvicorn's pure-Python stack: what a default install gave before
    # genmcp depended on uvloop and httptools (issue 35)
    "genmcp_plain": {
        "venv": "genmcp",
        "script": "genmcp_server.py",
        "port": 8107,
        "label": "genmcp on h11 + asyncio's loop",
        "legacy": True,
        "env": {"UVICORN_LOOP": "asyncio", "UVICORN_HTTP": "h11"},
    },
    # the genmcp venv under genmcp's request-head bound (what `genmcp run` and `make run` use)
    "genmcp_heads": {
        "venv": "genmcp",
        "script": "genmcp_server.py",
        "port": 8114,
        "label": "genmcp on httptools with BoundedHeads",
        "legacy": True,
        "env": {"UVICORN_HTTP": "genmcp.transports.http.heads:BoundedHeads"},
    },
    "mcp_low": {
        "venv": "mcp",
        "script": "mcp_low.py",
        "port": 8102,
        "label": "mcp 2.3.0 low-level Server",
        "legacy": True,
    },
    "mcp_high": {
        "venv": "mcp",
        "script": "mcp_high.py",
        "port": 8101,
        "label": "mcp 2.3.0 MCPServer",
        "legacy": True,
    },
    "fastmcp": {
        "venv": "fastmcp",
        "script": "fastmcp_server.py",
        "port": 8103,
        "label": "FastMCP 4.1.6",
        "legacy": True,
    },
}
REF = "starlette"
SCENARIOS = ("call", "list", "nested", "stream", "legacy")
VERSION_PACKAGES = (
    "uvicorn",
    "uvloop",
    "httptools",
    "starlette",
    "fastapi",
    "pydantic",
    "pydantic-core",
    "anyio",
    "jsonschema",
    "mcp",
    "fastmcp",
    "genmcp",
    "orjson",
    "sse-starlette",
)


class BenchError(RuntimeError):
    pass


# --------------------------------------------------------------------------- /proc helpers
def proc_rss_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) in kB."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except OSError:
        pass
    return rss, hwm


def proc_cpu_s(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return 0.0


def machine_busy_s() -> float:
    """Non-idle CPU seconds of the whole machine since boot (all CPUs)."""
    with open("/proc/stat") as f:
        vals = [int(x) for x in f.readline().split()[1:]]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
    return (sum(vals[:8]) - idle) / CLK_TCK


def children_cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


# --------------------------------------------------------------------------- server process
class Server:
    def __init__(self, name: str, env: dict[str, str], cpu: str, log_dir: Path, tag: str):
        spec = SERVERS[name]
        self.name = name
        self.port = spec["port"]
        py = VENVS / spec["venv"] / "bin" / "python"
        if not py.exists():
            raise BenchError(
                f"{name}: no venv at {py.parent.parent} (run bash bench/setup.sh {spec['venv']})"
            )
        argv = [str(py), str(SERVERS_DIR / spec["script"])]
        if cpu != "":
            argv = ["taskset", "-c", cpu, *argv]
        self.argv = argv
        env = {**spec.get("env", {}), **env}  # the server's own knobs, then the run's
        self.env = {**os.environ, "PORT": str(self.port), **env}
        self.env_knobs = {"PORT": str(self.port), **env}
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"{tag}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def command(self) -> str:
        knobs = " ".join(f"{k}={v}" for k, v in self.env_knobs.items())
        return f"{knobs} {' '.join(self.argv)}"

    def start(self, timeout: float = 60.0) -> None:
        if port_open(self.port):
            raise BenchError(f"port {self.port} is already in use; stop whatever listens there")
        self._log = open(self.log_path, "wb")
        # own session = own process group, so stop() can signal exactly what we started
        self.proc = subprocess.Popen(
            self.argv,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=str(BENCH.parent),
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(
                    f"{self.name} exited with {self.proc.returncode} during start-up; "
                    f"log: {self.log_path}\n{tail(self.log_path)}"
                )
            if port_open(self.port):
                return
            time.sleep(0.05)
        self.stop()
        raise BenchError(f"{self.name} did not listen on {self.port} within {timeout:.0f} s")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def rss_mb(self) -> float:
        return proc_rss_kb(self.pid)[0] / 1024

    def hwm_mb(self) -> float:
        return proc_rss_kb(self.pid)[1] / 1024

    def cpu_s(self) -> float:
        return proc_cpu_s(self.pid)

    def settle(
        self, idle_window: float = 0.25, busy_frac: float = 0.05, limit: float = 10.0
    ) -> float:
        """Wait until the server stops burning CPU (abandoned work drained); return seconds waited."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < limit:
            c0 = self.cpu_s()
            time.sleep(idle_window)
            if (self.cpu_s() - c0) / idle_window <= busy_frac:
                break
        return round(time.monotonic() - t0 - idle_window, 2)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(5)
        self._log.close()
        deadline = time.monotonic() + 5
        while port_open(self.port) and time.monotonic() < deadline:
            time.sleep(0.05)


def tail(path: Path, n: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


# --------------------------------------------------------------------------- tiny MCP client
def modern_meta(extra: dict | None = None) -> dict:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "genmcp-bench", "version": "1.0"},
    }
    if extra:
        meta.update(extra)
    return meta


def post(
    port: int, payload: dict, headers: dict[str, str], timeout: float = 10.0
) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(
            "POST",
            "/mcp",
            json.dumps(payload).encode(),
            {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **headers,
            },
        )
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def rpc_messages(headers: dict, body: bytes) -> list[dict]:
    """JSON-RPC messages in a JSON or SSE response body."""
    if "text/event-stream" in headers.get("content-type", ""):
        out = []
        for line in body.decode(errors="replace").splitlines():
            if line.startswith("data:") and line[5:].strip():
                try:
                    out.append(json.loads(line[5:]))
                except ValueError:
                    pass
        return out
    try:
        msg = json.loads(body)
    except ValueError:
        return []
    return msg if isinstance(msg, list) else [msg]


def modern_call(
    port: int, tool: str, args: dict, rid: int = 1, meta: dict | None = None
) -> tuple[int, list[dict]]:
    payload = {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": modern_meta(meta)},
    }
    status, headers, body = post(
        port,
        payload,
        {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool},
    )
    return status, rpc_messages(headers, body)


def wait_ready(port: int, timeout: float = 30.0) -> None:
    """A real tools/call must succeed before any load starts (the server is up and warm)."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        try:
            status, msgs = modern_call(port, "add", {"a": 1, "b": 2})
            if status == 200 and msgs and "result" in msgs[-1]:
                return
            last = f"status {status}: {msgs!r:.300}"
        except OSError as e:
            last = repr(e)
        time.sleep(0.1)
    raise BenchError(f"server on {port} never answered tools/call add: {last}")


def legacy_session(port: int) -> tuple[str | None, str]:
    """initialize + notifications/initialized; returns (Mcp-Session-Id or None, negotiated version)."""
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_OFFER,
            "capabilities": {},
            "clientInfo": {"name": "genmcp-bench", "version": "1.0"},
        },
    }
    status, headers, body = post(port, init, {})
    msgs = rpc_messages(headers, body)
    if status != 200 or not msgs or "result" not in msgs[-1]:
        raise BenchError(f"initialize failed: {status} {body[:300]!r}")
    version = msgs[-1]["result"].get("protocolVersion", LEGACY_OFFER)
    sid = headers.get("mcp-session-id")
    h = {"MCP-Protocol-Version": version}
    if sid:
        h["Mcp-Session-Id"] = sid
    status, _, body = post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, h)
    if status not in (200, 202, 204):
        raise BenchError(f"notifications/initialized failed: {status} {body[:200]!r}")
    return sid, version


# --------------------------------------------------------------------------- wrk
def wrk_threads(conc: int) -> int:
    return max(1, min(conc, 4))


def run_wrk(port: int, conc: int, duration: float, cpu: str, env: dict[str, str]) -> dict:
    if not shutil.which("wrk"):
        raise BenchError("wrk not found (bash bench/setup.sh installs it)")
    argv = [
        "wrk",
        "-t",
        str(wrk_threads(conc)),
        "-c",
        str(conc),
        "-d",
        f"{duration:g}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA),
        f"http://127.0.0.1:{port}/mcp",
    ]
    if cpu != "":
        argv = ["taskset", "-c", cpu, *argv]
    p = subprocess.run(
        argv, env={**os.environ, **env}, capture_output=True, text=True, timeout=duration + 60
    )
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("BENCHJSON ")), None)
    if p.returncode != 0 or line is None:
        raise BenchError(f"wrk failed ({p.returncode}): {p.stdout[-500:]} {p.stderr[-500:]}")
    r = json.loads(line[len("BENCHJSON ") :])
    secs = r["duration_us"] / 1e6
    sock_errors = r["err_connect"] + r["err_read"] + r["err_write"] + r["err_timeout"]
    out = {
        "rps": r["requests"] / secs if secs else 0.0,
        "requests": r["requests"],
        "p50_ms": r["p50_us"] / 1000,
        "p90_ms": r["p90_us"] / 1000,
        "p99_ms": r["p99_us"] / 1000,
        "max_ms": r["max_us"] / 1000,
        "errors": r["bad"] + sock_errors,
        "bad_bodies": r["bad"],
        "non200": r["non200"],
        "socket_errors": sock_errors,
        "bytes_per_resp": r["bytes"] / r["requests"] if r["requests"] else 0,
        "wrk_command": " ".join(argv),
    }
    if p.stderr.strip():
        out["wrk_stderr"] = p.stderr.strip()[-600:]
    return out


def load_env(
    mode: str,
    method: str = "tools/call",
    tool: str = "add",
    args: Any = None,
    expect: str = '"result"',
) -> dict[str, str]:
    return {
        "BENCH_MODE": mode,
        "BENCH_METHOD": method,
        "BENCH_TOOL": tool,
        "BENCH_ARGS": json.dumps(
            args if args is not None else {"a": 1, "b": 2}, separators=(",", ":")
        ),
        "BENCH_EXPECT": expect,
    }


# --------------------------------------------------------------------------- scenarios
def phase(srv: Server, o: argparse.Namespace, conc: int, env: dict[str, str], prep=None) -> dict:
    """Warm-up then measured wrk run at one concurrency, with idle waits around both."""
    extra = prep(conc) if prep else {}
    if o.accept_encoding:
        extra = {**extra, "BENCH_ACCEPT_ENCODING": o.accept_encoding}
    if o.warmup > 0:
        run_wrk(srv.port, conc, o.warmup, o.client_cpu, {**env, **extra})
        srv.settle()
    cpu0 = srv.cpu_s()
    busy0, kids0, t0 = machine_busy_s(), children_cpu_s(), time.monotonic()
    r = run_wrk(srv.port, conc, o.duration, o.client_cpu, {**env, **extra})
    server_cpu = srv.cpu_s() - cpu0
    wall = time.monotonic() - t0
    r["server_cpu_pct"] = 100 * server_cpu / o.duration
    # CPU burnt by anything but the server and wrk (other jobs on a shared machine)
    foreign = machine_busy_s() - busy0 - server_cpu - (children_cpu_s() - kids0)
    r["foreign_cpu_pct"] = max(0.0, 100 * foreign / wall)
    r["drain_s"] = srv.settle()
    r["rss_mb"] = srv.rss_mb()
    return r


def sc_call(srv: Server, o: argparse.Namespace) -> dict:
    wait_ready(srv.port)
    srv.settle()
    out: dict[str, Any] = {"idle_rss_mb": srv.rss_mb()}
    env = load_env("modern", expect='"text":"3')
    for c in o.conc:
        out[f"c{c}"] = phase(srv, o, c, env)
    return out


def sc_legacy(srv: Server, o: argparse.Namespace) -> dict:
    _sid, version = legacy_session(srv.port)  # probe: fails loudly when there is no legacy mode

    def sessions(conc: int) -> dict[str, str]:
        pairs = [legacy_session(srv.port) for _ in range(wrk_threads(conc))]
        ids = [s for s, _ in pairs if s]
        return {"BENCH_SESSIONS": ",".join(ids), "BENCH_VERSION": pairs[0][1]}

    srv.settle()
    out: dict[str, Any] = {
        "idle_rss_mb": srv.rss_mb(),
        "negotiated_version": version,
        "session_ids": _sid is not None,
    }
    env = load_env("legacy", expect='"text":"3')
    for c in o.conc_legacy:
        out[f"c{c}"] = phase(srv, o, c, env, prep=sessions)
    return out


def sc_list(srv: Server, o: argparse.Namespace) -> dict:
    wait_ready(srv.port)
    last = C.extra_name(o.extra_tools - 1)
    status, headers, body = post(
        srv.port,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": modern_meta()}},
        {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"},
    )
    msgs = rpc_messages(headers, body)
    tools = (msgs[-1].get("result") or {}).get("tools", []) if msgs else []
    if status != 200 or len(tools) < o.extra_tools:
        raise BenchError(
            f"tools/list returned {len(tools)} tools (status {status}), wanted >= {o.extra_tools}; "
            f"paginated or EXTRA_TOOLS ignored? body {body[:200]!r}"
        )
    srv.settle()
    out: dict[str, Any] = {
        "idle_rss_mb": srv.rss_mb(),
        "tools_listed": len(tools),
        "body_kb": len(body) / 1024,
        "paginated": bool(msgs[-1]["result"].get("nextCursor")),
    }
    env = load_env("modern", method="tools/list", expect=f'"{last}"')
    out["c16"] = phase(srv, o, 16, env)
    return out


def sc_nested(srv: Server, o: argparse.Namespace) -> dict:
    wait_ready(srv.port)
    status, msgs = modern_call(srv.port, "create_order", C.ORDER_ARGS)
    text = json.dumps(msgs)
    if status != 200 or C.ORDER_RESULT_TEXT not in text:
        raise BenchError(
            f"create_order did not answer {C.ORDER_RESULT_TEXT!r}: {status} {text[:300]}"
        )
    broken = json.loads(json.dumps(C.ORDER_ARGS))
    broken["items"][1]["sku"] = "not-a-sku"
    broken["shipping"]["method"] = "teleport"
    status, msgs = modern_call(srv.port, "create_order", broken)
    rejected = status != 200 or any(
        "error" in m or (m.get("result") or {}).get("isError") for m in msgs
    )
    srv.settle()
    out: dict[str, Any] = {"idle_rss_mb": srv.rss_mb(), "rejects_invalid": rejected}
    env = load_env("modern", tool="create_order", args=C.ORDER_ARGS, expect="order accepted")
    out["c16"] = phase(srv, o, 16, env)
    return out


def sc_stream(srv: Server, o: argparse.Namespace) -> dict:
    wait_ready(srv.port)
    srv.settle()
    idle = srv.rss_mb()
    cpu0 = srv.cpu_s()
    r = stream_client(srv.port, o.stream_n, o.client_cpu)
    r["server_cpu_s"] = srv.cpu_s() - cpu0
    r["drain_s"] = srv.settle()
    r["idle_rss_mb"] = idle
    r["peak_rss_mb"] = srv.hwm_mb()
    return r


def stream_client(port: int, n: int, cpu: str) -> dict:
    """Run the asyncio streaming client in its own process (pinned to `cpu`)."""
    argv = [
        sys.executable,
        str(Path(__file__).resolve()),
        "stream-client",
        "--port",
        str(port),
        "--n",
        str(n),
        "--steps",
        "10",
        "--interval-ms",
        "100",
    ]
    if cpu != "":
        argv = ["taskset", "-c", cpu, *argv]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=180)
    if p.returncode != 0:
        raise BenchError(f"stream client failed: {p.stderr[-800:]}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["client_command"] = " ".join(argv)
    return r


SCENARIO_FUNCS = {
    "call": sc_call,
    "legacy": sc_legacy,
    "list": sc_list,
    "nested": sc_nested,
    "stream": sc_stream,
}


def scenario_env(scenario: str, o: argparse.Namespace) -> dict[str, str]:
    env = {"EXTRA_TOOLS": "0", "STATEFUL": "0", "JSON_RESPONSE": "1"}
    if scenario == "list":
        env["EXTRA_TOOLS"] = str(o.extra_tools)
        env["PAGE_SIZE"] = str(
            o.extra_tools + 100
        )  # one page, like the servers that don't paginate
    elif scenario == "stream":
        env["JSON_RESPONSE"] = "0"
    elif scenario == "legacy":
        env["STATEFUL"] = "1"
    return env


# --------------------------------------------------------------------------- streaming client
async def _one_stream(port: int, rid: int, steps: int, interval_ms: int, limit_s: float) -> dict:
    token = f"bench-{rid}"
    payload = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {
                "name": "progress",
                "arguments": {"steps": steps, "interval_ms": interval_ms},
                "_meta": modern_meta({"progressToken": token}),
            },
        }
    ).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\n"
        f"Mcp-Method: tools/call\r\nMcp-Name: progress\r\nConnection: close\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    ).encode()
    t0 = time.perf_counter()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), limit_s)
        writer.write(head + payload)
        raw = await asyncio.wait_for(reader.read(-1), limit_s)
        writer.close()
    except (TimeoutError, OSError) as e:
        return {"ok": False, "why": type(e).__name__, "s": time.perf_counter() - t0}
    elapsed = time.perf_counter() - t0
    head_b, _, body = raw.partition(b"\r\n\r\n")
    lines = head_b.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = dechunk(body)
    msgs = rpc_messages(headers, body)
    progress = [
        m
        for m in msgs
        if m.get("method") == "notifications/progress"
        and (m.get("params") or {}).get("progressToken") == token
    ]
    final = [m for m in msgs if m.get("id") == rid and "result" in m]
    ok = (
        status == 200
        and len(progress) == steps
        and bool(final)
        and '"done"' in json.dumps(final[0]["result"])
    )
    why = "" if ok else f"status={status} progress={len(progress)} final={bool(final)}"
    return {"ok": ok, "why": why, "s": elapsed, "progress": len(progress)}


def dechunk(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data):
        j = data.find(b"\r\n", i)
        if j < 0:
            break
        size = int(data[i:j].split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += data[j + 2 : j + 2 + size]
        i = j + 2 + size + 2
    return bytes(out)


async def _stream_all(port: int, n: int, steps: int, interval_ms: int) -> dict:
    t0 = time.perf_counter()
    results = await asyncio.gather(
        *(_one_stream(port, i + 1, steps, interval_ms, 120.0) for i in range(n))
    )
    wall = time.perf_counter() - t0
    done = [r for r in results if r["ok"]]
    lat = sorted(r["s"] for r in done)
    failures: dict[str, int] = {}
    for r in results:
        if not r["ok"]:
            failures[r["why"]] = failures.get(r["why"], 0) + 1
    return {
        "n": n,
        "completed": len(done),
        "completed_pct": 100 * len(done) / n if n else 0,
        "wall_s": wall,
        "call_p50_s": lat[len(lat) // 2] if lat else None,
        "call_p99_s": lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else None,
        "notifications": sum(r.get("progress", 0) for r in results),
        "failures": dict(sorted(failures.items(), key=lambda kv: -kv[1])[:5]),
    }


def raise_nofile(want: int = 16384) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def cmd_stream_client(o: argparse.Namespace) -> None:
    raise_nofile()
    r = asyncio.run(_stream_all(o.port, o.n, o.steps, o.interval_ms))
    print(json.dumps(r))


# --------------------------------------------------------------------------- run
def median_of(runs: list[Any]) -> Any:
    """Median of each numeric leaf on its own; non-numeric leaves from the first run."""
    first = runs[0]
    if isinstance(first, dict):
        return {k: median_of([r[k] for r in runs if isinstance(r, dict) and k in r]) for k in first}
    if isinstance(first, bool):
        return all(runs)
    if isinstance(first, int | float):
        nums = [r for r in runs if isinstance(r, int | float)]
        return statistics.median(nums) if nums else None
    return first


def venv_versions(venv: str) -> dict[str, str]:
    py = VENVS / venv / "bin" / "python"
    if not py.exists():
        return {}
    code = (
        "import importlib.metadata as m, json, sys\nout = {'python': sys.version.split()[0]}\n"
        f"for p in {list(VERSION_PACKAGES)!r}:\n"
        "    try: out[p] = m.version(p)\n    except m.PackageNotFoundError: pass\nprint(json.dumps(out))"
    )
    p = subprocess.run([str(py), "-c", code], capture_output=True, text=True, timeout=60)
    return json.loads(p.stdout) if p.returncode == 0 else {}


def genmcp_source(venv: str = "genmcp") -> str:
    """What a genmcp venv was built from (setup.sh's marker: a commit snapshot or -e tree)."""
    marker = VENVS / venv / ".bench-spec"
    if not marker.exists():
        return f"no {venv} venv"
    spec = marker.read_text().split()
    src = spec[1] if spec and spec[0] == "-e" else (spec[0] if spec else "?")
    if spec and spec[0] == "-e":
        return f"editable working tree {src} (uncommitted edits included)"
    return f"commit snapshot {Path(src).name.removeprefix('genmcp-')} ({src})"


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "kernel": platform.release(),
        "arch": platform.machine(),
        "cpus": os.cpu_count(),
    }
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                info["mem_gib"] = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                info["os"] = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    w = (
        subprocess.run(["wrk", "-v"], capture_output=True, text=True)
        if shutil.which("wrk")
        else None
    )
    if w is not None:
        info["wrk"] = (w.stdout + w.stderr).split("\n")[0].strip()
    info["driver_python"] = platform.python_version()
    return info


def _exit_on_term(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)  # unwinds through Server.stop() in the finally blocks


def cmd_run(o: argparse.Namespace) -> Path:
    raise_nofile()
    signal.signal(signal.SIGTERM, _exit_on_term)
    signal.signal(signal.SIGINT, _exit_on_term)
    run_id = o.run_id or dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    out_dir = Path(o.results) / run_id
    out_dir.mkdir(parents=True, exist_ok=True)
    meta_path = out_dir / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    meta.setdefault("started", dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    meta["machine"] = machine_info()
    meta["genmcp_source"] = genmcp_source()
    if "genmcp_base" in o.servers:
        meta["genmcp_source"] += f"; genmcp_base: {genmcp_source('genmcp_base')}"
    meta.setdefault("invocations", []).append(" ".join([Path(sys.argv[0]).name, *sys.argv[1:]]))
    meta["settings"] = {
        k: getattr(o, k)
        for k in (
            "runs",
            "duration",
            "warmup",
            "conc",
            "conc_legacy",
            "stream_n",
            "extra_tools",
            "server_cpu",
            "client_cpu",
        )
    }
    versions = meta.setdefault("versions", {})
    for name in o.servers:
        versions[SERVERS[name]["venv"]] = venv_versions(SERVERS[name]["venv"])
    meta_path.write_text(json.dumps(meta, indent=2))

    # repetitions are interleaved: rep 1 of every server, then rep 2, ..., so that a change of
    # load on the shared machine hits every server of a scenario alike
    for scenario in o.scenarios:
        names = [n for n in o.servers if scenario != "legacy" or SERVERS[n]["legacy"]]
        env = {**scenario_env(scenario, o), **dict(kv.split("=", 1) for kv in o.env)}
        runs: dict[str, list[dict]] = {n: [] for n in names}
        commands: dict[str, list[str]] = {n: [] for n in names}
        error: dict[str, str | None] = dict.fromkeys(names)
        for rep in range(o.runs):
            for name in names:
                if error[name]:
                    continue
                tag = f"{name}__{scenario}__{rep + 1}"
                srv = Server(name, env, o.server_cpu, out_dir / "logs", tag)
                t0 = time.monotonic()
                try:
                    srv.start()
                    r = SCENARIO_FUNCS[scenario](srv, o)
                    r["elapsed_s"] = round(time.monotonic() - t0, 1)
                    runs[name].append(r)
                    commands[name].append(srv.command)
                    print(
                        f"[{name} {scenario} {rep + 1}/{o.runs}] {summarize(scenario, r)}",
                        flush=True,
                    )
                except (BenchError, subprocess.TimeoutExpired, OSError) as e:
                    error[name] = str(e)
                    print(
                        f"[{name} {scenario} {rep + 1}/{o.runs}] FAILED: {str(e)[:500]}", flush=True
                    )
                finally:
                    srv.stop()
        for name in names:
            result = {
                "server": name,
                "label": SERVERS[name]["label"],
                "scenario": scenario,
                "env": env,
                "commands": commands[name],
                "runs": runs[name],
                "median": median_of(runs[name]) if runs[name] else None,
                "error": error[name],
                "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            }
            (out_dir / f"{name}__{scenario}.json").write_text(json.dumps(result, indent=2))
    meta["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    meta_path.write_text(json.dumps(meta, indent=2))
    latest = Path(o.results) / "latest"
    if latest.is_symlink() or not latest.exists():
        latest.unlink(missing_ok=True)
        latest.symlink_to(run_id)
    print(f"results: {out_dir}")
    return out_dir


def summarize(scenario: str, r: dict) -> str:
    if scenario in ("call", "legacy"):
        parts = [
            f"c{k[1:]}: {v['rps']:,.0f} req/s p99 {v['p99_ms']:.1f} ms err {v['errors']}"
            for k, v in r.items()
            if k.startswith("c") and isinstance(v, dict)
        ]
        return f"idle {r['idle_rss_mb']:.1f} MB | " + " | ".join(parts)
    if scenario in ("list", "nested"):
        v = r["c16"]
        extra = f" rejects_invalid={r['rejects_invalid']}" if "rejects_invalid" in r else ""
        return f"c16: {v['rps']:,.1f} req/s p50 {v['p50_ms']:.2f} ms p99 {v['p99_ms']:.1f} ms err {v['errors']}{extra}"
    if scenario == "stream":
        return (
            f"{r['completed']}/{r['n']} completed, wall {r['wall_s']:.2f} s, server CPU {r['server_cpu_s']:.2f} s, "
            f"RSS {r['idle_rss_mb']:.0f} -> {r['peak_rss_mb']:.0f} MB {r['failures'] or ''}"
        )
    return json.dumps(r)[:200]


# --------------------------------------------------------------------------- report
def load_run(run_dir: Path) -> tuple[dict, dict[tuple[str, str], dict]]:
    meta = json.loads((run_dir / "meta.json").read_text())
    res = {}
    for f in sorted(run_dir.glob("*__*.json")):
        d = json.loads(f.read_text())
        if d.get("runs"):
            for run in d["runs"]:
                for phase_result in run.values():
                    derive(phase_result)
            d["median"] = median_of(d["runs"])
        res[(d["server"], d["scenario"])] = d
    return meta, res


def derive(r: Any) -> None:
    """Add server CPU microseconds per request to a wrk phase result.

    On a shared machine other jobs take CPU from the server, which lowers req/s but not the
    CPU one request costs; at c>=16 the server is CPU-bound, so 1e6 / cpu_us_per_req is the
    req/s it would do with a core of its own.
    """
    if isinstance(r, dict) and r.get("rps") and "server_cpu_pct" in r:
        r["cpu_us_per_req"] = r["server_cpu_pct"] * 1e4 / r["rps"]
        r["rps_per_core"] = 1e6 / r["cpu_us_per_req"] if r["cpu_us_per_req"] else None


def fmt(x: Any, digits: int = 0) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int | float):
        return f"{x:,.{digits}f}"
    return str(x)


def ratio(x: Any, ref: Any, digits: int = 2) -> str:
    if not isinstance(x, int | float) or not isinstance(ref, int | float) or not ref:
        return "–"
    return f"{x / ref:.{digits}f}"


def report_markdown(run_dir: Path) -> str:
    meta, res = load_run(run_dir)
    servers = [s for s in SERVERS if any(k[0] == s for k in res)]
    st = meta["settings"]

    def med(server: str, scenario: str) -> dict | None:
        d = res.get((server, scenario))
        return d["median"] if d and d.get("median") else None

    def cell(server: str, scenario: str, *path: str) -> Any:
        m = med(server, scenario)
        for p in path:
            if not isinstance(m, dict) or p not in m:
                return None
            m = m[p]
        return m

    L: list[str] = []
    mach = meta["machine"]
    L += [
        "# genmcp benchmark results",
        "",
        f"- **Run:** `{run_dir.name}`, {meta.get('started')} → {meta.get('finished')} (UTC).",
        f"- **genmcp source:** {meta.get('genmcp_source', 'not recorded')}.",
        f"- **Machine:** {mach.get('cpus')} vCPU ({mach.get('cpu_model', '?')}), {mach.get('mem_gib')} GiB, "
        f"{mach.get('os', '?')}, kernel {mach.get('kernel')}; {mach.get('wrk', 'wrk ?')}.",
        f"- **Method:** one uvicorn worker (uvloop, httptools, access log off) pinned to CPU {st['server_cpu']}; "
        f"wrk and the asyncio client on CPU {st['client_cpu']}; a fresh server process for every repetition; "
        f"median of {st['runs']} repetitions, each metric on its own; {st['warmup']:g} s warm-up then "
        f"{st['duration']:g} s per wrk phase, with a wait for the server to go idle between phases.",
        "- **Commands:** "
        + "; ".join(f"`{c}`" for c in meta.get("invocations", []))
        + ". Server command lines per repetition: `results/<run>/<server>__<scenario>.json` → `commands`.",
        "- **Ratios** are to the bare Starlette route measured in this same run (`× ceiling`); the machine is "
        "a shared 2-vCPU VM, so compare ratios rather than absolute numbers across runs.",
        "",
    ]

    # versions
    L += ["## Versions", "", "| venv | python | packages |", "|---|---|---|"]
    for venv, v in sorted(meta.get("versions", {}).items()):
        if not v:
            continue
        pk = ", ".join(f"{k} {val}" for k, val in v.items() if k != "python")
        L.append(f"| {venv} | {v.get('python', '?')} | {pk} |")
    L.append("")

    # headline
    ref_c16 = cell(REF, "call", "c16", "rps")
    ref_list = cell(REF, "list", "c16", "rps")
    ref_stream = cell(REF, "stream", "wall_s")
    L += [
        "## Headline (2026-07-28 stateless unless noted)",
        "",
        "| server | tools/call req/s c1 / c16 / c64 | c16 × ceiling | p99 ms c64 | errors c64 | "
        "tools/list (1,000 tools) req/s c16 (× ceiling) | nested create_order req/s c16 (× ceiling) | "
        f"{st['stream_n']:,} streams: done, wall s (× ceiling) | idle RSS MB |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for s in servers:
        c = [cell(s, "call", f"c{n}", "rps") for n in st["conc"]]
        lst = cell(s, "list", "c16", "rps")
        nst = cell(s, "nested", "c16", "rps")
        wall = cell(s, "stream", "wall_s")
        hi = max(st["conc"])
        L.append(
            " | ".join(
                [
                    f"| {SERVERS[s]['label']}",
                    " / ".join(fmt(x) for x in c),
                    ratio(cell(s, "call", "c16", "rps"), ref_c16),
                    fmt(cell(s, "call", f"c{hi}", "p99_ms"), 1),
                    fmt(cell(s, "call", f"c{hi}", "errors")),
                    f"{fmt(lst, 1)} ({ratio(lst, ref_list)})",
                    f"{fmt(nst)} ({ratio(nst, cell(REF, 'nested', 'c16', 'rps'))})",
                    f"{fmt(cell(s, 'stream', 'completed'))}, {fmt(wall, 2)} ({ratio(wall, ref_stream)})",
                    fmt(cell(s, "call", "idle_rss_mb"), 1),
                ]
            )
            + " |"
        )
    L += [
        "",
        "Per core: server CPU per request, from `/proc`. Other jobs on the machine take CPU from "
        "the server and lower its req/s, but not what one request costs; at c=16 the server is "
        "CPU-bound, so `req/s per core` = 1e6 / (CPU µs per request) is what it does with a core "
        "of its own.",
        "",
        "| server | tools/call CPU µs/req c16 | req/s per core c16 (× ceiling) | tools/list CPU µs/req "
        "(× ceiling) | create_order CPU µs/req (× ceiling) | streams: server CPU s (× ceiling) | "
        "other load % during tools/call c16 |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    ref_pc = cell(REF, "call", "c16", "rps_per_core")
    ref_list_us = cell(REF, "list", "c16", "cpu_us_per_req")
    ref_nest_us = cell(REF, "nested", "c16", "cpu_us_per_req")
    ref_stream_cpu = cell(REF, "stream", "server_cpu_s")
    for s in servers:
        pc = cell(s, "call", "c16", "rps_per_core")
        lus = cell(s, "list", "c16", "cpu_us_per_req")
        nus = cell(s, "nested", "c16", "cpu_us_per_req")
        scpu = cell(s, "stream", "server_cpu_s")
        L.append(
            f"| {SERVERS[s]['label']} | {fmt(cell(s, 'call', 'c16', 'cpu_us_per_req'))} | "
            f"{fmt(pc)} ({ratio(pc, ref_pc)}) | {fmt(lus)} ({ratio(lus, ref_list_us)}) | "
            f"{fmt(nus)} ({ratio(nus, ref_nest_us)}) | {fmt(scpu, 2)} ({ratio(scpu, ref_stream_cpu)}) | "
            f"{fmt(cell(s, 'call', 'c16', 'foreign_cpu_pct'))} |"
        )
    legacy_rows = [s for s in servers if med(s, "legacy")]
    if legacy_rows:
        ref_leg = cell(REF, "legacy", "c16", "rps")
        L += [
            "",
            "Legacy session mode (initialize + Mcp-Session-Id, `STATEFUL=1`):",
            "",
            "| server | tools/call req/s "
            + " / ".join(f"c{n}" for n in st["conc_legacy"])
            + " | c16 × legacy ceiling | req/s per core c16 (× ceiling) | p99 ms c16 | errors | idle RSS MB |",
            "|---|--:|--:|--:|--:|--:|--:|",
        ]
        for s in legacy_rows:
            L.append(
                f"| {SERVERS[s]['label']} (legacy) | "
                + " / ".join(fmt(cell(s, "legacy", f"c{n}", "rps")) for n in st["conc_legacy"])
                + f" | {ratio(cell(s, 'legacy', 'c16', 'rps'), ref_leg)} | "
                f"{fmt(cell(s, 'legacy', 'c16', 'rps_per_core'))} "
                f"({ratio(cell(s, 'legacy', 'c16', 'rps_per_core'), cell(REF, 'legacy', 'c16', 'rps_per_core'))}) | "
                f"{fmt(cell(s, 'legacy', 'c16', 'p99_ms'), 1)} | "
                f"{fmt(sum(cell(s, 'legacy', f'c{n}', 'errors') or 0 for n in st['conc_legacy']))} | "
                f"{fmt(cell(s, 'legacy', 'idle_rss_mb'), 1)} |"
            )
    failed = [(k, d["error"]) for k, d in res.items() if d.get("error")]
    if failed:
        L += ["", "Scenarios that failed (no numbers):", ""]
        L += [f"- `{k[0]}` / `{k[1]}`: {e.splitlines()[0][:300]}" for k, e in failed]
    L.append("")

    L += targets_section(cell)

    # detail: call
    L += [
        "## tools/call add",
        "",
        "| server | mode | "
        + " | ".join(f"req/s c{n}" for n in st["conc"])
        + " | "
        + " | ".join(f"p50 / p99 ms c{n}" for n in st["conc"])
        + " | errors | server CPU % c16 | "
        "× ceiling " + " / ".join(f"c{n}" for n in st["conc"]) + " | other load % (max) |",
        "|---|---|" + "--:|" * (2 * len(st["conc"]) + 4),
    ]
    for scen, mode, levels in (
        ("call", "2026-07-28", st["conc"]),
        ("legacy", "legacy", st["conc_legacy"]),
    ):
        for s in servers:
            if not med(s, scen):
                continue
            cols = [fmt(cell(s, scen, f"c{n}", "rps")) if n in levels else "–" for n in st["conc"]]
            lat = [
                f"{fmt(cell(s, scen, f'c{n}', 'p50_ms'), 2)} / {fmt(cell(s, scen, f'c{n}', 'p99_ms'), 1)}"
                if n in levels
                else "–"
                for n in st["conc"]
            ]
            errs = sum(cell(s, scen, f"c{n}", "errors") or 0 for n in levels)
            rat = " / ".join(
                ratio(cell(s, scen, f"c{n}", "rps"), cell(REF, scen, f"c{n}", "rps"))
                for n in st["conc"]
            )
            L.append(
                f"| {s} | {mode} | "
                + " | ".join(cols)
                + " | "
                + " | ".join(lat)
                + f" | {errs} | {fmt(cell(s, scen, 'c16', 'server_cpu_pct'))} | {rat} | "
                + fmt(max((cell(s, scen, f"c{n}", "foreign_cpu_pct") or 0) for n in levels))
                + " |"
            )
    L.append("")

    # detail: list + nested
    L += [
        f"## tools/list with {st['extra_tools']:,} extra tools, and the nested-schema tool (c=16)",
        "",
        "| server | list req/s | list p50 / p99 ms | list response KB | list × ceiling | "
        "create_order req/s | p50 / p99 ms | rejects invalid input | errors | create_order × ceiling |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for s in servers:
        if not (med(s, "list") or med(s, "nested")):
            continue
        lst_err = cell(s, "list", "c16", "errors") or 0
        n_err = cell(s, "nested", "c16", "errors") or 0
        L.append(
            f"| {s} | {fmt(cell(s, 'list', 'c16', 'rps'), 1)} | "
            f"{fmt(cell(s, 'list', 'c16', 'p50_ms'), 1)} / {fmt(cell(s, 'list', 'c16', 'p99_ms'), 1)} | "
            f"{fmt(cell(s, 'list', 'body_kb'))} | {ratio(cell(s, 'list', 'c16', 'rps'), ref_list)} | "
            f"{fmt(cell(s, 'nested', 'c16', 'rps'))} | "
            f"{fmt(cell(s, 'nested', 'c16', 'p50_ms'), 2)} / {fmt(cell(s, 'nested', 'c16', 'p99_ms'), 1)} | "
            f"{fmt(cell(s, 'nested', 'rejects_invalid'))} | {lst_err + n_err} | "
            f"{ratio(cell(s, 'nested', 'c16', 'rps'), cell(REF, 'nested', 'c16', 'rps'))} |"
        )
    L.append("")

    # detail: stream
    L += [
        f"## {st['stream_n']:,} concurrent streaming calls (10 progress notifications, 100 ms apart)",
        "",
        "| server | completed | wall s | call p50 / p99 s | server CPU s | RSS idle → peak MB | wall × ceiling | "
        "CPU × ceiling |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for s in servers:
        if not med(s, "stream"):
            continue
        L.append(
            f"| {s} | {fmt(cell(s, 'stream', 'completed'))} / {fmt(cell(s, 'stream', 'n'))} | "
            f"{fmt(cell(s, 'stream', 'wall_s'), 2)} | {fmt(cell(s, 'stream', 'call_p50_s'), 2)} / "
            f"{fmt(cell(s, 'stream', 'call_p99_s'), 2)} | {fmt(cell(s, 'stream', 'server_cpu_s'), 2)} | "
            f"{fmt(cell(s, 'stream', 'idle_rss_mb'), 1)} → {fmt(cell(s, 'stream', 'peak_rss_mb'), 1)} | "
            f"{ratio(cell(s, 'stream', 'wall_s'), ref_stream)} | "
            f"{ratio(cell(s, 'stream', 'server_cpu_s'), cell(REF, 'stream', 'server_cpu_s'))} |"
        )
    L.append("")
    return "\n".join(L)


def targets_section(cell: Callable[..., Any]) -> list[str]:
    """Issue 7's targets, checked against this run (genmcp rows only)."""
    if cell("genmcp", "call", "c16", "rps") is None:
        return []

    def rel(a: Any, b: Any) -> float | None:
        ok = isinstance(a, int | float) and isinstance(b, int | float) and b
        return a / b if ok else None

    def row(
        what: str,
        value: float | None,
        bound: float,
        at_least: bool = True,
        unit: str = "x",
        digits: int = 2,
    ) -> str:
        if value is None:
            return f"| {what} | – | {bound:g}{unit} | – |"
        ok = value >= bound if at_least else value <= bound
        sep = "" if unit == "x" else " "
        shown = f"{value:,.{digits}f}{sep}{unit}"
        return f"| {what} | {shown} | {'≥' if at_least else '≤'} {bound:g}{sep}{unit} | " + (
            "met |" if ok else "**missed** |"
        )

    g = "genmcp"
    return [
        "## Issue 7 targets (genmcp, this run)",
        "",
        "Req/s ratios move with other load on the machine; the per-core rows divide out the "
        "server's own CPU time and are the steadier of the two.",
        "",
        "| target | measured | bound | verdict |",
        "|---|--:|--:|---|",
        row(
            "tools/call c=16 vs mcp MCPServer, req/s",
            rel(cell(g, "call", "c16", "rps"), cell("mcp_high", "call", "c16", "rps")),
            3.0,
        ),
        row(
            "tools/call c=16 vs mcp MCPServer, per core",
            rel(
                cell(g, "call", "c16", "rps_per_core"),
                cell("mcp_high", "call", "c16", "rps_per_core"),
            ),
            3.0,
        ),
        row(
            "tools/call c=16 vs bare FastAPI route, req/s",
            rel(cell(g, "call", "c16", "rps"), cell("fastapi", "call", "c16", "rps")),
            1.0,
        ),
        row(
            "tools/call c=16 vs bare FastAPI route, per core",
            rel(
                cell(g, "call", "c16", "rps_per_core"),
                cell("fastapi", "call", "c16", "rps_per_core"),
            ),
            1.0,
        ),
        row(
            "tools/list 1,000 tools vs bare Starlette, req/s",
            rel(cell(g, "list", "c16", "rps"), cell(REF, "list", "c16", "rps")),
            0.8,
        ),
        row(
            "tools/list 1,000 tools vs bare Starlette, per core",
            rel(
                cell(REF, "list", "c16", "cpu_us_per_req"), cell(g, "list", "c16", "cpu_us_per_req")
            ),
            0.8,
        ),
        row(
            "1,000 streams: wall time vs bare Starlette",
            rel(cell(g, "stream", "wall_s"), cell(REF, "stream", "wall_s")),
            1.3,
            at_least=False,
        ),
        row(
            "errors at c=64",
            cell(g, "call", "c64", "errors"),
            0,
            at_least=False,
            unit="errors",
            digits=0,
        ),
        row("idle RSS", cell(g, "call", "idle_rss_mb"), 50, at_least=False, unit="MB", digits=1),
        "",
    ]


def cmd_report(o: argparse.Namespace) -> None:
    run_dir = Path(o.run_dir) if o.run_dir else Path(o.results) / "latest"
    run_dir = run_dir.resolve()
    body = report_markdown(run_dir)
    out = Path(o.out)
    notes = ""
    if out.exists():  # keep hand-written notes below the generated part
        text = out.read_text()
        marker = "<!-- notes: kept across regenerations -->"
        if marker in text:
            notes = text[text.index(marker) :]
    if not notes:
        notes = "<!-- notes: kept across regenerations -->\n"
    out.write_text(body + "\n" + notes)
    print(f"wrote {out} from {run_dir}")


# --------------------------------------------------------------------------- profile
PROFILE_LOADS = {
    "call": lambda o: load_env("modern", expect='"text":"3'),
    "list": lambda o: load_env(
        "modern", method="tools/list", expect=f'"{C.extra_name(o.extra_tools - 1)}"'
    ),
    "legacy": lambda o: load_env("legacy", expect='"text":"3'),
    "nested": lambda o: load_env(
        "modern", tool="create_order", args=C.ORDER_ARGS, expect="order accepted"
    ),
}


def frame_name(frame: str) -> str:
    """py-spy raw frame `func (path/to/mod.py:12)` -> `func (mod.py)`, so lines of one function merge."""
    func, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    parts = path.split("/")
    if "site-packages" in parts:
        path = "/".join(parts[parts.index("site-packages") + 1 :])
    elif "src" in parts:
        path = "/".join(parts[parts.index("src") + 1 :])
    elif path.startswith("/"):
        path = parts[-1]
    return f"{func} ({path})"


def summarize_profile(raw: Path, requests: int, rate: int, top: int) -> str:
    self_t: dict[str, int] = {}
    incl: dict[str, int] = {}
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count_s = line.rpartition(" ")
        if not stack or not count_s.isdigit():
            continue
        n = int(count_s)
        frames = [frame_name(f) for f in stack.split(";") if f and not f.startswith("process ")]
        frames = [f for f in frames if not f.startswith("<thread")]
        if not frames:
            continue
        total += n
        self_t[frames[-1]] = self_t.get(frames[-1], 0) + n
        for f in set(frames):
            incl[f] = incl.get(f, 0) + n

    def us(n: int) -> str:
        return f"{n / rate / max(requests, 1) * 1e6:,.1f}"

    by_package: dict[str, int] = {}
    for f, n in self_t.items():
        where = f.rsplit(" (", 1)[-1].rstrip(")")
        top_level = where.split("/")[0].removesuffix(".py")
        if top_level == "genmcp":
            top_level = "genmcp/" + "/".join(where.split("/")[1:])
        by_package[top_level] = by_package.get(top_level, 0) + n

    out = [
        f"{requests:,} requests, {total:,} samples at {rate} Hz "
        f"= {us(total)} us of sampled CPU per request.",
        "",
        "| self us/req | self % | function |",
        "|--:|--:|---|",
    ]
    for f, n in sorted(self_t.items(), key=lambda kv: -kv[1])[:top]:
        out.append(f"| {us(n)} | {100 * n / max(total, 1):.1f} | `{f}` |")
    out += ["", "| self us/req | self % | package or genmcp module |", "|--:|--:|---|"]
    for f, n in sorted(by_package.items(), key=lambda kv: -kv[1])[:top]:
        out.append(f"| {us(n)} | {100 * n / max(total, 1):.1f} | `{f}` |")
    out += ["", "| inclusive us/req | incl % | function |", "|--:|--:|---|"]
    for f, n in sorted(incl.items(), key=lambda kv: -kv[1])[: top * 2]:
        out.append(f"| {us(n)} | {100 * n / max(total, 1):.1f} | `{f}` |")
    return "\n".join(out)


def cmd_profile(o: argparse.Namespace) -> None:
    """py-spy on one server under wrk load; writes the top costs per request."""
    raise_nofile()
    venv = VENVS / SERVERS[o.server]["venv"]
    pyspy = venv / "bin" / "py-spy"
    if not pyspy.exists():
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "py-spy"], check=True
        )
    out_dir = Path(o.results) / "profiles"
    out_dir.mkdir(parents=True, exist_ok=True)
    env = scenario_env(o.scenario, o)
    srv = Server(o.server, env, o.server_cpu, out_dir / "logs", f"{o.server}__{o.scenario}")
    raw = out_dir / f"{o.server}__{o.scenario}.txt"
    try:
        srv.start()
        wait_ready(srv.port)
        streaming = o.scenario == "stream"
        if streaming:  # N concurrent progress calls, `rounds` times, inside the py-spy window
            rounds = 3
            o.duration = float(rounds * 6)
            stream_client(srv.port, 100, o.client_cpu)  # warm-up
        else:
            load = PROFILE_LOADS[o.scenario](o)
            if o.scenario == "legacy":  # one session per wrk thread, as in the legacy scenario
                pairs = [legacy_session(srv.port) for _ in range(wrk_threads(o.conc))]
                load["BENCH_SESSIONS"] = ",".join(sid for sid, _ in pairs if sid)
                load["BENCH_VERSION"] = pairs[0][1]
            run_wrk(srv.port, o.conc, 2, o.client_cpu, load)  # warm-up
        srv.settle()
        spy_argv = [
            str(pyspy),
            "record",
            "--pid",
            str(srv.pid),
            "--rate",
            str(o.rate),
            "--format",
            "raw",
            "--nonblocking",
            "--duration",
            str(int(o.duration) + 1),
            "-o",
            str(raw),
        ]
        spy = subprocess.Popen(spy_argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(0.5)
        if streaming:
            done = [stream_client(srv.port, o.stream_n, o.client_cpu) for _ in range(rounds)]
            r = {"requests": sum(d["completed"] for d in done), "rps": 0.0}
            r["rps"] = r["requests"] / sum(d["wall_s"] for d in done)
        else:
            r = run_wrk(srv.port, o.conc, o.duration, o.client_cpu, load)
        spy.wait(timeout=120)
        if spy.returncode != 0 or not raw.exists():
            raise BenchError(f"py-spy failed: {spy.stderr.read().decode(errors='replace')[-500:]}")
    finally:
        srv.stop()
    what = (
        f"{o.stream_n:,} concurrent progress calls x 3 (11 SSE messages each; 'request' = one call)"
        if o.scenario == "stream"
        else f"c={o.conc}, {o.duration:g} s, {r['rps']:,.0f} req/s under the profiler"
    )
    text = f"### `{o.server}` / `{o.scenario}`: py-spy, {what}\n\n" + summarize_profile(
        raw, r["requests"], o.rate, o.top
    )
    md = out_dir / f"{o.server}__{o.scenario}.md"
    md.write_text(text + "\n")
    print(text)
    print(f"\nraw stacks: {raw}\nsummary: {md}")


# --------------------------------------------------------------------------- CLI
def csv(kind):
    return lambda s: [kind(x) for x in s.split(",") if x]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run scenarios, write results/<run-id>/*.json")
    r.add_argument("--servers", type=csv(str), default=list(SERVERS))
    r.add_argument("--scenarios", type=csv(str), default=list(SCENARIOS))
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--duration", type=float, default=10.0)
    r.add_argument("--warmup", type=float, default=3.0)
    r.add_argument("--conc", type=csv(int), default=[1, 16, 64])
    r.add_argument("--conc-legacy", type=csv(int), default=[1, 16, 64])
    r.add_argument("--stream-n", type=int, default=1000)
    r.add_argument("--extra-tools", type=int, default=1000)
    r.add_argument("--server-cpu", default="0")
    r.add_argument("--client-cpu", default="1")
    r.add_argument("--results", default=str(BENCH / "results"))
    r.add_argument("--run-id", default=None, help="reuse a run directory (add servers to it)")
    r.add_argument(
        "--accept-encoding",
        default=None,
        metavar="VALUE",
        help='send this Accept-Encoding with every wrk request (httpx sends "gzip, deflate")',
    )
    r.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra server environment, for experiments (repeatable)",
    )
    rp = sub.add_parser("report", help="write RESULTS.md from one run directory")
    rp.add_argument("run_dir", nargs="?")
    rp.add_argument("--results", default=str(BENCH / "results"))
    rp.add_argument("--out", default=str(BENCH / "RESULTS.md"))
    sc = sub.add_parser("stream-client", help="(internal) the asyncio streaming client")
    sc.add_argument("--port", type=int, required=True)
    sc.add_argument("--n", type=int, default=1000)
    sc.add_argument("--steps", type=int, default=10)
    sc.add_argument("--interval-ms", type=int, default=100)
    pf = sub.add_parser("profile", help="py-spy one server under wrk load, top costs per request")
    pf.add_argument("--server", default="genmcp", choices=list(SERVERS))
    pf.add_argument("--scenario", default="call", choices=[*PROFILE_LOADS, "stream"])
    pf.add_argument("--stream-n", type=int, default=1000)
    pf.add_argument("--conc", type=int, default=16)
    pf.add_argument("--duration", type=float, default=10.0)
    pf.add_argument("--rate", type=int, default=250)
    pf.add_argument("--top", type=int, default=15)
    pf.add_argument("--extra-tools", type=int, default=1000)
    pf.add_argument("--server-cpu", default="0")
    pf.add_argument("--client-cpu", default="1")
    pf.add_argument("--results", default=str(BENCH / "results"))
    o = ap.parse_args(argv)
    if o.cmd == "run":
        for s in o.servers:
            if s not in SERVERS:
                ap.error(f"unknown server {s!r}; known: {', '.join(SERVERS)}")
        for s in o.scenarios:
            if s not in SCENARIOS:
                ap.error(f"unknown scenario {s!r}; known: {', '.join(SCENARIOS)}")
        if 16 not in o.conc:
            o.conc = sorted({*o.conc, 16})
        cmd_run(o)
    elif o.cmd == "report":
        cmd_report(o)
    elif o.cmd == "profile":
        cmd_profile(o)
    else:
        cmd_stream_client(o)


if __name__ == "__main__":
    main()
