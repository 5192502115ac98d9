"""Legacy tools/call on a 3-master Redis Cluster against one Redis node, same run: `make scale-cluster`.

Rounds alternate the two topologies (single, cluster, single, cluster, ...), each a fresh Redis
of its own (``redis-server``; the cluster from ``--cluster-enabled yes`` + ``redis-cli --cluster
create``, tests/support/redis_topology.py) and one uvicorn process of bench/scale/app.py on it.
In each round: one legacy session per wrk thread, a 2 s warm-up, then wrk (bench/lib/mcp_load.lua)
for ``--seconds`` at ``--concurrency``: calls/s, p99, bad responses, the genmcp process's CPU per
call (from /proc), Redis's (every master summed), and Redis commands per call (INFO commandstats
on every master, Lua's inner calls apart). Then 2026-07-28 tools/call for ``--seconds``: its
Redis commands, against the same process idle for as long (inbox heartbeat, BLPOP, health
checks): the 2026 call must add none. Prints per-round JSON, then medians per topology.

    .venv/bin/python bench/scale/cluster.py --rounds 3 --seconds 10 --concurrency 16
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import redis  # noqa: E402
from run import LUA, ROOT, cpu_of, legacy_session, run_wrk  # noqa: E402

from support.redis_server import OwnRedis  # noqa: E402
from support.redis_topology import OwnCluster, admins  # noqa: E402
from support.topology import Processes  # noqa: E402

SCRIPTED = {"get", "exists", "hget"}  # what the lookup script runs inside its one EVALSHA
SETUP = {"info", "ping", "hello", "client|setinfo", "client", "script|load", "script",
         "cluster|slots", "cluster|shards", "cluster", "command", "command|docs", "readonly"}


def counts(url: str) -> dict[str, int]:
    """INFO commandstats summed over every master of ``url``."""
    total: dict[str, int] = {}
    for client in admins(url):
        try:
            for name, entry in client.info("commandstats").items():
                command = name.removeprefix("cmdstat_")
                total[command] = total.get(command, 0) + entry["calls"]
        finally:
            client.close()
    return total


def delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}


def client_commands(spent: dict[str, int]) -> int:
    """Commands a client sent (setup and introspection left out, a script's inner calls too)."""
    inside = len(SCRIPTED) * spent.get("evalsha", 0)
    return sum(v for k, v in spent.items() if k not in SETUP) - inside


def modern_wrk(url: str, concurrency: int, seconds: int, threads: int) -> dict[str, Any]:
    """wrk sending 2026-07-28 tools/call add (no session)."""
    env = {**os.environ, "BENCH_MODE": "modern", "BENCH_TOOL": "add"}
    command = ["wrk", "-t", str(threads), "-c", str(concurrency), "-d", f"{seconds}s",
               "--timeout", "10s", "-s", str(LUA), url]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=seconds + 60)
    line = next(x for x in done.stdout.splitlines() if x.startswith("BENCHJSON "))
    stats: dict[str, Any] = json.loads(line.removeprefix("BENCHJSON "))
    return stats


def redis_pids(topology: OwnRedis | OwnCluster) -> list[int]:
    if isinstance(topology, OwnCluster):
        return [n.process.pid for n in topology.nodes if n.process is not None]
    return [topology.process.pid] if topology.process is not None else []


def one_round(kind: str, o: argparse.Namespace) -> dict[str, Any]:
    topology: OwnRedis | OwnCluster
    if kind == "cluster":
        topology = OwnCluster(3).start()
    else:
        topology = OwnRedis(shutil.which("redis-server") or "/usr/bin/redis-server")
        topology.start()
    processes = Processes(1, {"REDIS_URL": topology.url, "GENMCP_PREFIX": "bench:"})
    try:
        processes.start()
        url = processes.urls()[0] + "/mcp"
        sessions = [legacy_session(url) for _ in range(o.threads)]
        run_wrk(url, sessions, o.concurrency, 2, o.threads)  # warm-up (connections, scripts)
        genmcp, servers = [processes.pid(0)], redis_pids(topology)
        before, cpu0, redis0 = counts(topology.url), cpu_of(genmcp), cpu_of(servers)
        legacy = run_wrk(url, sessions, o.concurrency, o.seconds, o.threads)
        cpu1, redis1, after = cpu_of(genmcp), cpu_of(servers), counts(topology.url)
        calls = max(legacy["requests"], 1)
        # the 2026 call: its commands against the idle background over as long a time
        idle0 = counts(topology.url)
        time.sleep(o.seconds)
        idle = client_commands(delta(idle0, counts(topology.url)))
        modern0 = counts(topology.url)
        modern = modern_wrk(url, o.concurrency, o.seconds, o.threads)
        modern_spent = delta(modern0, counts(topology.url))
    finally:
        processes.stop()
        topology.close()
    spent = delta(before, after)
    errors = sum(legacy[k] for k in ("err_connect", "err_read", "err_write", "err_timeout"))
    return {
        "redis": kind,
        "legacy_calls": legacy["requests"],
        "legacy_rps": round(legacy["requests"] / (legacy["duration_us"] / 1e6)),
        "legacy_p99_ms": legacy["p99_us"] / 1000,
        "legacy_bad": legacy["bad"] + errors,
        "genmcp_cpu_us_per_call": round((cpu1 - cpu0) / calls * 1e6, 1),
        "calls_per_core_s": round(calls / max(cpu1 - cpu0, 1e-9)),
        "redis_cpu_us_per_call": round((redis1 - redis0) / calls * 1e6, 1),
        "redis_commands_per_call": round(client_commands(spent) / calls, 3),
        "redis_spent": spent,
        "modern_calls": modern["requests"],
        "modern_bad": modern["bad"],
        "modern_redis_commands": client_commands(modern_spent),
        "idle_redis_commands": idle,
        "modern_spent": modern_spent,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    o = parser.parse_args()
    print(json.dumps({"load_average": os.getloadavg(), "python": platform.python_version(),
                      "redis_py": redis.__version__, "root": str(ROOT)}), flush=True)
    rows: list[dict[str, Any]] = []
    for _ in range(o.rounds):
        for kind in ("single", "cluster"):
            row = one_round(kind, o)
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(json.dumps({"load_average": os.getloadavg()}), flush=True)
    print("\n| Redis | calls/s | p99 ms | bad | genmcp CPU µs/call | calls per core-second "
          "| Redis CPU µs/call | Redis commands/call | 2026 calls | 2026 commands (idle as long) |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    failed = False
    for kind in ("single", "cluster"):
        mine = [r for r in rows if r["redis"] == kind]

        def med(key: str, rs: list[dict[str, Any]] = mine) -> float:
            return statistics.median(r[key] for r in rs)

        print(f"| {kind} | {med('legacy_rps'):,.0f} | {med('legacy_p99_ms'):.1f} "
              f"| {sum(r['legacy_bad'] for r in mine)} | {med('genmcp_cpu_us_per_call'):.0f} "
              f"| {med('calls_per_core_s'):,.0f} | {med('redis_cpu_us_per_call'):.0f} "
              f"| {med('redis_commands_per_call')} | {med('modern_calls'):,.0f} "
              f"| {med('modern_redis_commands'):.0f} ({med('idle_redis_commands'):.0f}) |")
        for r in mine:  # the 2026 call adds nothing to the idle background
            if r["modern_bad"] or r["modern_redis_commands"] > r["idle_redis_commands"] + 20:
                failed = True
    print(f"\nmedians of {o.rounds} rounds each; 2026 check: {'FAILED' if failed else 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
