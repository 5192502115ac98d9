"""Run a command against a scaled-out server: N uvicorn processes behind nginx, one Redis.

Starts a redis-server of its own (free port, no persistence), N uvicorn processes of an app
(default: examples/everything_server.py with GENMCP_REDIS_URL set, so its processes share
that Redis) and nginx round-robin in front (tests/support/topology.py), then runs the
command with URL=http://127.0.0.1:<nginx port>/mcp in its environment, and stops them all.
Its exit status is the command's.

    python scripts/scaled.py --processes 3 -- bash scripts/conformance.sh   # make conformance-scaled

``--redis cluster`` runs a 3-master Redis Cluster of its own instead (one replica per master,
tests/support/redis_topology.py), ``--redis sentinel`` a master, a replica and a Sentinel;
``--kill-master-after S`` SIGKILLs one master S seconds into the command (a failover mid-run)
and prints when the topology had failed over.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.redis_server import OwnRedis  # noqa: E402
from support.redis_topology import OwnCluster, OwnSentinel  # noqa: E402
from support.topology import Nginx, Processes  # noqa: E402

SECRET = "genmcp-scaled-conformance-not-a-secret-0123456789abcdef"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--app", default="everything_server:app")
    parser.add_argument("--app-dir", default=str(ROOT / "examples"))
    parser.add_argument("--redis", choices=("single", "cluster", "sentinel"), default="single")
    parser.add_argument("--kill-master-after", type=float, default=None, metavar="SECONDS")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give a command after --")
    redis: OwnRedis | OwnCluster | OwnSentinel
    if args.redis == "cluster":
        redis = OwnCluster(3, replicas=1).start()
    elif args.redis == "sentinel":
        redis = OwnSentinel().start()
    else:
        redis = OwnRedis(shutil.which("redis-server") or "/usr/bin/redis-server")
        redis.start()
    if args.kill_master_after is not None:
        if isinstance(redis, OwnRedis):
            parser.error("--kill-master-after needs --redis cluster or sentinel")
        killer = threading.Thread(target=_kill_master, args=(redis, args.kill_master_after))
        killer.daemon = True
        killer.start()
    env = {"GENMCP_REDIS_URL": redis.url, "REDIS_URL": redis.url, "GENMCP_SECRET_KEY": SECRET}
    processes = Processes(args.processes, env, app=args.app, app_dir=Path(args.app_dir))
    nginx = None
    try:
        processes.start()
        nginx = Nginx(shutil.which("nginx") or "/usr/sbin/nginx", processes.ports).start()
        url = f"{nginx.url}/mcp"
        print(f"scaled.py: {args.processes} processes behind nginx at {url}", file=sys.stderr)
        return subprocess.call(command, env={**os.environ, "URL": url})
    finally:
        if nginx is not None:
            nginx.stop()
        for index in range(args.processes):
            if processes.processes[index] is not None and processes.processes[index].poll():
                print(processes.log(index)[-2000:], file=sys.stderr)
        processes.stop()
        redis.close()


def _kill_master(redis: OwnCluster | OwnSentinel, after_s: float) -> None:
    time.sleep(after_s)
    started = time.monotonic()
    port = redis.kill_master()
    print(f"scaled.py: killed the Redis master on port {port}", file=sys.stderr)
    if isinstance(redis, OwnCluster):
        redis.wait_failover(timeout=30)
    else:
        redis.wait_failover(port, timeout=30)
    took = time.monotonic() - started
    print(f"scaled.py: failed over in {took:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
