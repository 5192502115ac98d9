"""Run a command against a scaled-out server: N uvicorn processes behind nginx, one Redis.

Starts a redis-server of its own (free port, no persistence), N uvicorn processes of an app
(default: examples/everything_server.py with GENMCP_REDIS_URL set, so its processes share
that Redis) and nginx round-robin in front (tests/support/topology.py), then runs the
command with URL=http://127.0.0.1:<nginx port>/mcp in its environment, and stops them all.
Its exit status is the command's.

    python scripts/scaled.py --processes 3 -- bash scripts/conformance.sh   # make conformance-scaled
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.redis_server import OwnRedis  # noqa: E402
from support.topology import Nginx, Processes  # noqa: E402

SECRET = "genmcp-scaled-conformance-not-a-secret-0123456789abcdef"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--app", default="everything_server:app")
    parser.add_argument("--app-dir", default=str(ROOT / "examples"))
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give a command after --")
    redis = OwnRedis(shutil.which("redis-server") or "/usr/bin/redis-server")
    redis.start()
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


if __name__ == "__main__":
    sys.exit(main())
