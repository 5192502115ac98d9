"""Instructions per request of each bench server, whole process, under valgrind's callgrind.

The wrk figures of ``driver.py`` move with the host (on a shared VM a server's req/s spread by
up to 50 % between repetitions of one run); instruction counts do not. Each server of
``bench/servers`` (its venv from ``setup.sh``: uvicorn, uvloop, httptools) runs under
callgrind twice, once for ``--low`` and once for ``--high`` requests over 16 keep-alive
connections (as wrk's c=16) after the same warm-up; (instructions at high - at low) / (high - low) is what one
request costs in the server's user space (uvicorn, the protocol parser, the framework, the
app), start-up and shutdown cancelling out. The kernel's share (one read and one write a
request for every server) is not counted.

    python3 bench/server_instructions.py --servers genmcp,mcp_high,fastapi,starlette
    python3 bench/server_instructions.py --servers genmcp,genmcp_base --modes legacy

Prints one markdown table. The client (asyncio, outside valgrind) keeps every connection
busy, so the server reads requests in batches as it does under wrk at c=16.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from driver import SERVERS, Server, legacy_session, modern_meta, port_open

MODERN = "2026-07-28"


LIST_TOOLS = 1000
"""The extra tools the ``list`` mode's servers hold, listed in one page (as driver.py's list)."""
EXPECT = {"modern": b'"text":"3', "legacy": b'"text":"3', "list": b'"tool_0999"'}
"""What every answer holds, by mode (the sum of ``add``; the last of the extra tools)."""


def bodies(mode: str, session: tuple[str | None, str] | None) -> tuple[dict[str, str], str]:
    """The headers and the body template (``{id}``) of one ``tools/call add`` (modern,
    legacy) or one 2026-07-28 ``tools/list`` (list)."""
    method = "tools/list" if mode == "list" else "tools/call"
    params: dict[str, object] = {} if mode == "list" else {"name": "add", "arguments": {"a": 1, "b": 2}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if mode == "list":
        params["_meta"] = modern_meta()
        headers.update({"MCP-Protocol-Version": MODERN, "Mcp-Method": method})
    elif mode == "modern":
        params["_meta"] = modern_meta()
        headers.update({"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call",
                        "Mcp-Name": "add"})  # fmt: skip
    else:
        assert session is not None
        sid, version = session
        headers["MCP-Protocol-Version"] = version
        if sid:
            headers["Mcp-Session-Id"] = sid
    body = json.dumps({"jsonrpc": "2.0", "id": 12345, "method": method, "params": params})
    return headers, body.replace("12345", "{id}")


async def _one_connection(port: int, requests: list[bytes], expect: bytes) -> None:
    """Send ``requests`` one after another on one connection; each answer must hold ``expect``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for request in requests:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = head.split(b" ", 2)[1]
            fields = dict(
                line.split(b":", 1) for line in head.lower().split(b"\r\n")[1:] if b":" in line
            )
            if b"content-length" in fields:
                data = await reader.readexactly(int(fields[b"content-length"]))
            else:  # chunked
                data = b""
                while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
                    data += (await reader.readexactly(size + 2))[:-2]
                await reader.readuntil(b"\r\n")
            if status != b"200" or expect not in data.replace(b" ", b""):
                raise SystemExit(f"bad answer {status!r}: {data[:300]!r}")
    finally:
        writer.close()


SESSIONS = int(os.environ.get("BENCH_LEGACY_SESSIONS", "4"))
"""The legacy sessions the calls take turns in (driver.py: one per wrk thread, 4 at c=16)."""


def load(port: int, mode: str, n: int, connections: int) -> None:
    """``n`` calls over ``connections`` keep-alive connections, the server kept busy."""
    sessions = [legacy_session(port) for _ in range(SESSIONS)] if mode == "legacy" else [None]
    plans: list[list[bytes]] = [[] for _ in range(connections)]
    for index in range(n):
        headers, template = bodies(mode, sessions[index % len(sessions)])
        body = template.replace("{id}", str(index + 1)).encode()
        lines = ["POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}",
                 *(f"{k}: {v}" for k, v in headers.items()), f"Content-Length: {len(body)}"]  # fmt: skip
        plans[index % connections].append(("\r\n".join(lines) + "\r\n\r\n").encode() + body)

    async def run() -> None:
        await asyncio.gather(*(_one_connection(port, plan, EXPECT[mode]) for plan in plans))

    asyncio.run(run())


def count(name: str, mode: str, n: int, warmup: int, out: Path, connections: int) -> int:
    """Instructions of one server process that answered ``warmup + n`` calls."""
    env = {"EXTRA_TOOLS": "0", "STATEFUL": "1" if mode == "legacy" else "0",
           "JSON_RESPONSE": "1", "PYTHONHASHSEED": "0"}  # fmt: skip
    if mode == "list":
        env.update(EXTRA_TOOLS=str(LIST_TOOLS), PAGE_SIZE=str(LIST_TOOLS + 100))
    server = Server(name, env, "", out.parent, f"{name}-{mode}-{n}")
    server.argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *server.argv]
    server.start(timeout=600)
    try:
        load(server.port, mode, warmup, connections)
        load(server.port, mode, n, connections)
    finally:
        assert server.proc is not None
        os.killpg(server.proc.pid, signal.SIGINT)  # uvicorn's graceful exit: callgrind writes
        try:
            server.proc.wait(300)
        finally:
            server.stop()
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"{name}: no totals in {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", default="genmcp,mcp_high,fastapi,starlette")
    parser.add_argument("--modes", default="modern,legacy",
                        help="modern, legacy (tools/call add), list (tools/list of 1,000 tools)")
    parser.add_argument("--low", type=int, default=300)
    parser.add_argument("--high", type=int, default=1300)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--connections", type=int, default=16, help="concurrent connections")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for mode in args.modes.split(","):
            for name in args.servers.split(","):
                if mode == "legacy" and not SERVERS[name].get("legacy", True):
                    continue
                port = SERVERS[name]["port"]
                while port_open(port):
                    time.sleep(0.2)
                low = count(name, mode, args.low, args.warmup, Path(scratch) / "low", args.connections)
                high = count(name, mode, args.high, args.warmup, Path(scratch) / "high", args.connections)
                per = (high - low) // (args.high - args.low)
                rows.append((mode, name, per))
                print(f"{mode} {name}: {per:,} instructions per request", file=sys.stderr)
    print("| mode | server | instructions per request |")
    print("|---|---|--:|")
    for mode, name, per in rows:
        print(f"| {mode} | {SERVERS[name]['label']} | {per:,} |")


if __name__ == "__main__":
    main()
