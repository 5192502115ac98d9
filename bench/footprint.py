#!/usr/bin/env python3
"""Idle RSS of examples/app.py beside a bare FastAPI app's, and `import genmcp` time (issue 35).

    .venv/bin/python bench/footprint.py [--runs 5]

Each app runs as `uvicorn <module>:app` in a fresh process of this interpreter (the same
FastAPI, uvicorn, uvloop), answers one request (examples/app.py: a tools/call; the bare app:
its one route), then VmRSS is read from /proc once it is idle. `import genmcp` is timed with
`python -X importtime` (the package's cumulative figure) and, repeatable on a busy machine,
as instructions under callgrind (`--instructions`; the cost of `python -c pass` subtracted).
Medians of --runs; prints one Markdown table.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BARE = """
from fastapi import FastAPI

app = FastAPI()


@app.post("/mcp")
async def mcp(body: dict) -> dict:
    return {"jsonrpc": "2.0", "id": body.get("id"), "result": {}}
"""
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "add",
        "arguments": {"a": 1, "b": 2},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "footprint", "version": "1"},
        },
    },
}
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "add",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def idle_rss(app_dir: str, module: str) -> float:
    port = free_port()
    env = {**os.environ, "GENMCP_SECRET_KEY": "footprint-" + "k" * 40}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--app-dir",
            app_dir,
            f"{module}:app",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("POST", "/mcp", json.dumps(CALL), HEADERS)
                answer = conn.getresponse()
                answer.read()
                conn.close()
                if answer.status != 200:
                    raise SystemExit(f"{module}: status {answer.status}")
                break
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"{module} did not start") from None
                time.sleep(0.1)
        time.sleep(1.0)
        return rss_kb(proc.pid) / 1024
    finally:
        proc.terminate()
        proc.wait(10)


def import_us() -> int:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import genmcp"],
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(ln for ln in reversed(done.stderr.splitlines()) if ln.endswith("| genmcp"))
    return int(line.split("|")[1])


def instructions(code: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-c",
                code,
            ],
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise SystemExit("no callgrind summary")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bare_fastapi.py").write_text(BARE)
        bare = statistics.median(idle_rss(tmp, "bare_fastapi") for _ in range(args.runs))
    example = statistics.median(idle_rss(str(ROOT / "examples"), "app") for _ in range(args.runs))
    imports = statistics.median(import_us() for _ in range(args.runs))
    print("| measure | value |\n|---|--:|")
    print(f"| idle RSS, bare FastAPI app (one route), MB | {bare:.1f} |")
    print(f"| idle RSS, examples/app.py, MB | {example:.1f} (+{example - bare:.1f}) |")
    print(f"| `import genmcp`, -X importtime, ms (median of {args.runs}) | {imports / 1000:.0f} |")
    if args.instructions:
        cost = instructions("import genmcp") - instructions("pass")
        print(f"| `import genmcp`, instructions (callgrind) | {cost / 1e6:.0f} M |")


if __name__ == "__main__":
    main()
