"""In-process cost of a visibility decision: tools/list and tools/call with and without one.

The same Suite (20 tools, 5 of them for the ``admin`` role only) is served three ways, each
request answered by the HTTP endpoint in-process (no sockets) with the same assigns (a
``member``: the admin tools are hidden from it):

- ``none``: no visibility (every tool listed, as before issue 33);
- ``cached``: ``Suite(visibility=by_role)``, the decision cached per caller key (the default);
- ``uncached``: ``Visibility(by_role, key=None)``: the policy runs on every request.

    .venv/bin/python bench/visibility.py                    # CPU us/request, every variant
    .venv/bin/python bench/visibility.py --variant cached --method tools/call -n 2000 --runs 1

Prints microseconds of process CPU per request (min and median of the runs, alternating
variants in one sitting); ``bench/visibility_instructions.sh`` counts instructions instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("GENMCP_SECRET_KEY", "bench-" + "k" * 40)

from inproc import headers_of, one_call  # noqa: E402

from genmcp import Caller, Item, Result, Suite, Tool, Visibility, call_tool_result  # noqa: E402
from genmcp.fastapi.endpoint import MCPEndpoint  # noqa: E402

ADMIN_ONLY = frozenset(f"admin_{n}" for n in range(5))
ASSIGNS = {"principal": "bench-user", "roles": ("member",)}
NUMBERS = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
           "required": ["a", "b"]}  # fmt: skip


def by_role(caller: Caller, item: Item) -> bool:
    return item.name not in ADMIN_ONLY or "admin" in caller.roles


def tool(tool_name: str) -> type[Tool]:
    class Add(Tool, name=tool_name, description="Adds two numbers.", input_schema=NUMBERS):
        async def call(self, request: Any, channel: Any, arg: Any) -> Result:
            a, b = request.arguments["a"], request.arguments["b"]
            return Result(call_tool_result(text=str(a + b)))

    return Add


def app(variant: str) -> Any:
    names = ["add", *sorted(ADMIN_ONLY), *(f"tool_{n}" for n in range(14))]
    visibility = {"none": None, "cached": by_role,
                  "uncached": Visibility(by_role, key=None)}[variant]  # fmt: skip
    suite = Suite(server_name="bench", server_version="1", tools=[tool(n) for n in names],
                  visibility=visibility)  # fmt: skip
    endpoint = MCPEndpoint(suite)

    async def serve(scope: Any, receive: Any, send: Any) -> None:
        await endpoint.serve(scope, receive, send, ASSIGNS, guarded=False)

    return serve


def request(method: str) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "genmcp-bench", "version": "1.0"},
    }
    params: dict[str, Any] = {"_meta": meta}
    extra = [(b"mcp-protocol-version", b"2026-07-28"), (b"mcp-method", method.encode())]
    if method == "tools/call":
        params.update(name="add", arguments={"a": 1, "b": 2})
        extra.append((b"mcp-name", b"add"))
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    return body, headers_of(body, *extra)


async def measure(serve: Any, method: str, n: int, hides: bool) -> float:
    body, headers = request(method)
    answer = await one_call(serve, body, headers)
    expected = b'"text":"3"' if method == "tools/call" else b'"tool_9"'
    if expected not in answer.replace(b" ", b"") or (hides and b'"admin_0"' in answer):
        raise SystemExit(f"unexpected answer: {answer[:300]!r}")
    for _ in range(200):  # warm-up
        await one_call(serve, body, headers)
    start = time.process_time()
    for _ in range(n):
        await one_call(serve, body, headers)
    return (time.process_time() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=["none", "cached", "uncached"], action="append")
    parser.add_argument("--method", choices=["tools/call", "tools/list"], action="append")
    parser.add_argument("-n", type=int, default=3000, help="requests per run")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    variants = args.variant or ["none", "cached", "uncached"]
    methods = args.method or ["tools/call", "tools/list"]
    apps = {variant: app(variant) for variant in variants}
    results: dict[tuple[str, str], list[float]] = {}

    async def run() -> None:
        for _ in range(args.runs):  # alternating: the machine's drift hits every variant alike
            for method in methods:
                for variant in variants:
                    figure = await measure(apps[variant], method, args.n, variant != "none")
                    results.setdefault((method, variant), []).append(figure)

    asyncio.run(run())
    for method in methods:
        base = min(results[(method, variants[0])])
        for variant in variants:
            got = results[(method, variant)]
            print(f"{method:10} {variant:8} {min(got):6.1f} us/req min, "
                  f"{statistics.median(got):6.1f} median, {min(got) / base - 1:+.1%} vs "
                  f"{variants[0]}")  # fmt: skip


if __name__ == "__main__":
    main()
