"""Serve examples/everything_server.py through ``genmcp proxy`` on one port.

Starts the everything server on a free loopback port (its own process), waits until it
answers, then runs ``genmcp proxy http://127.0.0.1:<that port>/mcp --port PORT`` in this
process; the upstream is stopped when the proxy ends (SIGTERM or SIGINT included). What
``make conformance-proxy`` gives scripts/conformance.sh as its SERVER_CMD:

    SERVER_CMD='.venv/bin/python scripts/proxied.py --port $PORT' bash scripts/conformance.sh

``--protocol 2025-11-25`` makes the proxy speak a 2025 session upstream instead of probing.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def answers(url: str) -> bool:
    body = json.dumps({}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=2).close()
    except urllib.error.HTTPError:
        return True  # an HTTP status: something serves MCP there
    except OSError:
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True, help="the proxy's port")
    parser.add_argument("--protocol", help="the upstream revision (default: probe)")
    args = parser.parse_args()
    port = free_port()
    upstream_url = f"http://127.0.0.1:{port}/mcp"
    upstream = subprocess.Popen(
        [sys.executable, str(ROOT / "examples/everything_server.py"), "--port", str(port)],
        stdin=subprocess.DEVNULL,
    )

    def stop(*_: Any) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        deadline = time.monotonic() + 30
        while not answers(upstream_url):
            if upstream.poll() is not None or time.monotonic() > deadline:
                print(f"proxied.py: the upstream did not answer at {upstream_url}", file=sys.stderr)
                return 1
            time.sleep(0.1)
        from genmcp.cli.program import main as genmcp

        argv = ["proxy", upstream_url, "--port", str(args.port)]
        if args.protocol:
            argv += ["--upstream-protocol", args.protocol]
        return genmcp(argv)
    finally:
        upstream.terminate()
        try:
            upstream.wait(5)
        except subprocess.TimeoutExpired:
            upstream.kill()


if __name__ == "__main__":
    sys.exit(main())
