#!/usr/bin/env python3
"""One OpenAPI document imported by genmcp and by FastMCP, side by side (issue 49).

    python3 bench/openapi_import.py run [--calls 2000] [--runs 5]
        [--genmcp-python .venv/bin/python] [--fastmcp-python /tmp/genmcp-bench/venvs/fastmcp/bin/python]

The upstream (bench/servers/openapi_upstream.py, a FastAPI app) runs in its own uvicorn
process; its document is written to a file both importers read. Each importer runs in its
own interpreter (FastMCP in its venv, never a genmcp dependency) and:

* imports the whole document (the lines between ``# --- import`` and ``# --- end`` are the
  "lines of code" figure: what a user writes);
* lists the tools it produced and calls ``getItem {"item_id": 3}`` once (the result shown);
* calls it ``--calls`` times through its in-process client (genmcp: ``MCPTestClient`` on the
  Suite; FastMCP: ``fastmcp.Client`` on the server object, its in-memory transport), one
  after the other, and reports the importer process's CPU (``time.process_time``) per call.
  The upstream's CPU is not counted: it is another process.

Repetitions alternate the two; the min and median over ``--runs`` are printed (a Markdown
table for bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

GENMCP = '''
import asyncio, json, os, sys, time
os.environ.setdefault("GENMCP_SECRET_KEY", "genmcp-bench-not-a-secret-0123456789abcdef0123456789")
SPEC, BASE, CALLS = sys.argv[1], sys.argv[2], int(sys.argv[3])
# --- import
from genmcp import OpenAPI, Suite
from genmcp.testing import MCPTestClient

suite = Suite(server_name="gw", server_version="1", mounts=[OpenAPI(SPEC, base_url=BASE)])
# --- end


async def main():
    async with MCPTestClient(suite) as client:
        tools = sorted(t["name"] for t in await client.list_tools())
        first = await client.call_tool("getItem", {"item_id": 3})
        start = time.process_time()
        for _ in range(CALLS):
            await client.call_tool("getItem", {"item_id": 3})
        spent = time.process_time() - start
    print(json.dumps({"tools": tools, "result": first.result, "cpu_us": spent / CALLS * 1e6}))


asyncio.run(main())
'''

FASTMCP = '''
import asyncio, json, sys, time
SPEC, BASE, CALLS = sys.argv[1], sys.argv[2], int(sys.argv[3])
# --- import
import json as _json
import httpx2
from fastmcp import Client, FastMCP

with open(SPEC) as f:
    spec = _json.load(f)
mcp = FastMCP.from_openapi(openapi_spec=spec, client=httpx2.AsyncClient(base_url=BASE))
# --- end


async def main():
    async with Client(mcp) as client:
        tools = sorted(t.name for t in await client.list_tools())
        first = await client.call_tool("getItem", {"item_id": 3})
        start = time.process_time()
        for _ in range(CALLS):
            await client.call_tool("getItem", {"item_id": 3})
        spent = time.process_time() - start
    result = {"structuredContent": first.structured_content,
              "content": [c.model_dump(exclude_none=True) for c in first.content]}
    print(json.dumps({"tools": tools, "result": result, "cpu_us": spent / CALLS * 1e6}))


asyncio.run(main())
'''


def lines_of_code(script: str) -> int:
    """The non-blank lines a user writes to import the document."""
    body = script.split("# --- import", 1)[1].split("# --- end", 1)[0]
    return sum(1 for line in body.splitlines() if line.strip())


def wait_up(url: str) -> None:
    for _ in range(200):
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"the upstream at {url} did not start")


def run_one(python: str, script: str, spec: str, base: str, calls: int, env: dict[str, str]) -> dict:
    out = subprocess.run([python, "-c", script, spec, base, str(calls)], capture_output=True,
                         text=True, env=env, check=False, timeout=600)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["run"])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--genmcp-python", default=sys.executable)
    parser.add_argument("--fastmcp-python", default="/tmp/genmcp-bench/venvs/fastmcp/bin/python")
    options = parser.parse_args()
    upstream_script = os.path.join(HERE, "servers", "openapi_upstream.py")
    spec = os.path.join(tempfile.mkdtemp(prefix="openapi-bench-"), "inventory.json")
    subprocess.run([options.genmcp_python, upstream_script, "--spec", spec], check=True)
    base = f"http://127.0.0.1:{options.port}"
    upstream = subprocess.Popen([options.genmcp_python, upstream_script, "--port",
                                 str(options.port)])
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}
    fastmcp_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    found: dict[str, list[dict]] = {"genmcp": [], "fastmcp": []}
    try:
        wait_up(base + "/items/1")
        for _ in range(options.runs):
            found["genmcp"].append(run_one(options.genmcp_python, GENMCP, spec, base,
                                           options.calls, env))
            found["fastmcp"].append(run_one(options.fastmcp_python, FASTMCP, spec, base,
                                            options.calls, fastmcp_env))
    finally:
        upstream.terminate()
        upstream.wait(10)
    print(f"{options.calls} sequential calls of getItem per run, {options.runs} runs\n")
    print("| importer | tools produced | lines of code | CPU µs per call (min) | (median) |")
    print("| --- | --- | --- | --- | --- |")
    for name, script in (("genmcp", GENMCP), ("fastmcp", FASTMCP)):
        runs = found[name]
        cpu = [r["cpu_us"] for r in runs]
        print(f"| {name} | {len(runs[0]['tools'])}: {', '.join(runs[0]['tools'])} | "
              f"{lines_of_code(script)} | {min(cpu):.0f} | {statistics.median(cpu):.0f} |")
    for name in found:
        print(f"\n{name}'s result of getItem {{item_id: 3}}:\n{json.dumps(found[name][0]['result'])}")


if __name__ == "__main__":
    main()
