"""Legacy tools/call under load, through 1..N real processes: `make scale` (bench/RESULTS.md).

Starts a redis-server of its own (free port, no persistence), N uvicorn processes of
`bench/scale/app.py` and, for N > 1, nginx round-robin in front (tests/support/topology.py);
opens one legacy session per wrk thread, then runs wrk (bench/lib/mcp_load.lua) at the given
concurrency. Reports requests/s, p50/p99, bad responses by kind, and Redis commands per call
(INFO commandstats delta / requests; commands run inside Lua scripts counted apart), and the
CPU each part spent per call (from /proc: the genmcp processes together, Redis, nginx).

The CPU per call is what tells what an added process costs on a machine too small to give it a
core of its own: wrk, nginx, Redis and every process here share 2 cores, so req/s cannot grow
with N, but if the genmcp processes together spend no more CPU per call at N than at 1, the
coordination costs nothing, and N processes on N free cores serve N times one's calls (until
Redis or the proxy is the limit: their CPU per call is shown apart). ``cpu efficiency`` is
genmcp CPU per call at 1 process over that at N. CPU per call falls as a process gets busier
(more calls share each event-loop turn), so compare it at the same load per process
(``--per-process``), on the same path (``--proxy-one``: nginx in front at N = 1 too), with
upstream connections kept (``--upstream-keepalive``).

    python bench/scale/run.py --processes 1,2,3 --concurrency 512 --seconds 10
    python bench/scale/run.py --processes 1,2,3 --per-process 16 --proxy-one \
        --upstream-keepalive 128 --seconds 10
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support.redis_server import OwnRedis  # noqa: E402
from support.topology import Nginx, Processes  # noqa: E402

LUA = ROOT / "bench" / "lib" / "mcp_load.lua"
VERSION = "2025-11-25"
SCRIPTED = {"get", "exists", "hget"}  # what the lookup script runs inside its one EVALSHA
SETUP = {"info", "ping", "hello", "client|setinfo", "client", "script|load", "script"}


def legacy_session(url: str) -> str:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {},
        "clientInfo": {"name": "scale-bench", "version": "1"}}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=10) as reply:
        session = reply.headers["Mcp-Session-Id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    headers |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION}
    urllib.request.urlopen(urllib.request.Request(url, json.dumps(note).encode(), headers), timeout=10)
    return session


def run_wrk(url: str, sessions: list[str], concurrency: int, seconds: int, threads: int) -> dict:
    env = {**os.environ, "BENCH_MODE": "legacy", "BENCH_TOOL": "add", "BENCH_VERSION": VERSION,
           "BENCH_SESSIONS": ",".join(sessions)}
    command = ["wrk", "-t", str(threads), "-c", str(concurrency), "-d", f"{seconds}s",
               "--timeout", "10s", "-s", str(LUA), url]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=seconds + 60)
    line = next(x for x in done.stdout.splitlines() if x.startswith("BENCHJSON "))
    stats = json.loads(line.removeprefix("BENCHJSON "))
    stats["stderr"] = done.stderr.strip().splitlines()[:2]
    return stats


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` and its waited-for children, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK  # utime stime cutime cstime


def family(pid: int) -> list[int]:
    """``pid`` and its children (nginx's master and workers)."""
    found = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.append(int(entry.name))
    return found


def cpu_of(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            total += cpu_seconds(pid)
        except OSError:
            pass  # gone (an nginx worker replaced): its CPU is not counted
    return total


def measure(
    n: int, concurrency: int, seconds: int, threads: int, proxied: bool, keepalive: int | None
) -> dict:
    redis = OwnRedis(shutil.which("redis-server") or "/usr/bin/redis-server")
    redis.start()
    processes = Processes(n, {"REDIS_URL": redis.url, "GENMCP_PREFIX": "bench:"}).start()
    nginx = None
    try:
        if n > 1 or proxied:
            binary = shutil.which("nginx") or "/usr/sbin/nginx"
            nginx = Nginx(binary, processes.ports, keepalive=keepalive,  # as measured so far
                          request_buffering=False).start()
            url = nginx.url + "/mcp"
        else:
            url = processes.urls()[0] + "/mcp"
        sessions = [legacy_session(url) for _ in range(threads)]
        run_wrk(url, sessions, 16, 2, threads)  # warm-up
        parts = {
            "genmcp": [processes.pid(i) for i in range(n)],
            "redis": [redis.process.pid] if redis.process is not None else [],
            "nginx": family(nginx.process.pid) if nginx and nginx.process else [],
        }
        before = redis.command_counts()
        cpu_before = {name: cpu_of(pids) for name, pids in parts.items()}
        stats = run_wrk(url, sessions, concurrency, seconds, threads)
        cpu_after = {name: cpu_of(pids) for name, pids in parts.items()}
        after = redis.command_counts()
    finally:
        if nginx is not None:
            nginx.stop()
        processes.stop()
        redis.close()
    spent = {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
    requests = max(stats["requests"], 1)
    inside = len(SCRIPTED) * spent.get("evalsha", 0)  # run inside the lookup script
    client = sum(v for k, v in spent.items() if k not in SETUP) - inside
    stats |= {
        "processes": n, "concurrency": concurrency, "seconds": seconds,
        "rps": stats["requests"] / (stats["duration_us"] / 1e6),
        "redis_commands_per_call": round(client / requests, 3),
        "redis_spent": spent,
        "cpu_us_per_call": {
            name: round((cpu_after[name] - cpu_before[name]) / requests * 1e6, 1)
            for name in parts
        },
    }
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--processes", default="1")
    parser.add_argument("--concurrency", type=int, default=512)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--per-process", type=int, default=None, metavar="K",
                        help="concurrency K x N at N processes instead of --concurrency: each "
                        "process has the same load, so CPU per call compares across N")
    parser.add_argument("--proxy-one", action="store_true",
                        help="put nginx in front of a single process too (same path at every N)")
    parser.add_argument("--upstream-keepalive", type=int, default=None, metavar="K",
                        help="nginx keeps K idle upstream connections (default: none, a new "
                        "connection per proxied request)")
    args = parser.parse_args()
    rows = []
    for n in (int(x) for x in args.processes.split(",")):
        concurrency = args.concurrency if args.per_process is None else args.per_process * n
        stats = measure(n, concurrency, args.seconds, args.threads, args.proxy_one,
                        args.upstream_keepalive)
        rows.append(stats)
        print(json.dumps(stats), flush=True)
    base = rows[0]["rps"]
    print("\n(Redis commands/call counts what Redis ran over what wrk saw answered; up to c")
    print(" requests still in flight at the end are counted by Redis only.)")
    base_cpu = rows[0]["cpu_us_per_call"]["genmcp"]
    print("\n| processes | c | req/s | efficiency | p50 ms | p99 ms | bad | non-200 | socket errors "
          "| Redis commands/call | CPU µs/call: genmcp / Redis / nginx | cpu efficiency |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        errors = r["err_connect"] + r["err_read"] + r["err_write"] + r["err_timeout"]
        efficiency = r["rps"] / (r["processes"] * base)
        cpu = r["cpu_us_per_call"]
        print(f"| {r['processes']} | {r['concurrency']} | {r['rps']:,.0f} | {efficiency:.2f} | "
              f"{r['p50_us'] / 1000:.1f} | {r['p99_us'] / 1000:.1f} | {r['bad']} | {r['non200']} | "
              f"{errors} | {r['redis_commands_per_call']} | {cpu['genmcp']:.0f} / {cpu['redis']:.0f}"
              f" / {cpu['nginx']:.0f} | {base_cpu / cpu['genmcp']:.2f} |")


if __name__ == "__main__":
    main()
