"""tools/call through a mount against the direct call, in one run, in process (no sockets).

Three ASGI apps answer the same ``add`` call (bench/servers/genmcp_server.py's tool), driven
as bench/inproc.py drives one:

* ``direct``: a Suite serving the tool;
* ``inproc``: an outer Suite mounting that Suite in-process (``Mount(suite)``);
* ``remote``: an outer Suite mounting the direct app by URL (``Mount(url=...)``), its pooled
  ``genmcp.Client`` on an ``httpx.ASGITransport`` to the upstream app in this same process;
  the figure is the whole hop (outer server, client, upstream server) and the upstream
  requests are counted.

    .venv/bin/python bench/mounts.py                    # all three, alternating, min of 7 runs
    .venv/bin/python bench/mounts.py --mode inproc -n 500 --runs 1   # one (for callgrind)

Prints microseconds of process CPU per call (min and median) and, for ``remote``, upstream
HTTP requests per call.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from typing import Any

import httpx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "servers"))
os.environ.setdefault("GENMCP_SECRET_KEY", "genmcp-bench-not-a-secret-0123456789abcdef0123456789")

import httpx._transports.asgi as asgi_transport  # noqa: E402
import inproc  # noqa: E402  (bench/ is on sys.path only now)
from genmcp_server import AddTool  # noqa: E402

from genmcp import Mount, Suite, mcp_app  # noqa: E402

MODES = ("direct", "inproc", "remote")


# httpx's ASGITransport tries `import sniffio` on every request (to detect trio); without
# sniffio installed that is a failed import per call, a cost of this harness, not of a real
# HTTP hop: asyncio only here.
asgi_transport.is_running_trio = lambda: False  # type: ignore[attr-defined]


class Counting(httpx.ASGITransport):
    """An ASGI transport that counts the requests it carries."""

    requests = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        Counting.requests += 1
        return await super().handle_async_request(request)


def apps() -> dict[str, Any]:
    direct = mcp_app(Suite(server_name="bench", server_version="1", tools=[AddTool]))
    inner = Suite(server_name="inner", server_version="1", tools=[AddTool])
    inproc_app = mcp_app(
        Suite(server_name="outer", server_version="1", mounts=[Mount(inner)])
    )
    upstream = mcp_app(Suite(server_name="upstream", server_version="1", tools=[AddTool]))
    pool = httpx.AsyncClient(transport=Counting(app=upstream), base_url="http://127.0.0.1:8000")
    remote = mcp_app(
        Suite(
            server_name="outer", server_version="1",
            mounts=[Mount(url="http://127.0.0.1:8000/mcp", http=pool, protocol="2026-07-28")],
        )
    )  # fmt: skip
    return {"direct": direct, "inproc": inproc_app, "remote": remote}


async def measure(modes: list[str], n: int, runs: int) -> dict[str, list[float]]:
    built = apps()
    found: dict[str, list[float]] = {mode: [] for mode in modes}
    counted: dict[str, float] = {}

    async def go() -> None:
        for _ in range(runs):
            for mode in modes:  # alternating: load drifts hit every mode alike
                before = Counting.requests
                found[mode].append(await inproc.run(built[mode], n))
                if mode == "remote":
                    counted[mode] = (Counting.requests - before) / (n + 201)

    await inproc.lifespan(built["remote"], go)
    for mode in modes:
        low, mid = min(found[mode]), statistics.median(found[mode])
        extra = f"  upstream requests per call {counted[mode]:.3f}" if mode in counted else ""
        print(f"{mode:<7} {low:8.1f} us/call (median {mid:8.1f}){extra}")
    if "direct" in found and len(modes) > 1:
        base = min(found["direct"])
        for mode in modes:
            if mode != "direct":
                print(f"{mode} / direct: {min(found[mode]) / base:.3f}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=MODES, action="append", help="(default: all three)")
    parser.add_argument("-n", type=int, default=2000, help="calls per run")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(measure(args.mode or list(MODES), args.n, args.runs))


if __name__ == "__main__":
    main()
