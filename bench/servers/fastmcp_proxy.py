"""FastMCP 4.1.6's proxy of the bench upstream, served over Streamable HTTP at /mcp.

Run: UPSTREAM_URL=http://127.0.0.1:8110/mcp PORT=8112 \
    /tmp/genmcp-bench/venvs/fastmcp/bin/python bench/servers/fastmcp_proxy.py
VARIANT=fresh (default): ``create_proxy(UPSTREAM_URL)``, FastMCP's recommended proxy: a fresh
backend client (and session) for every request, in the era the front request came in
(its default ``mode=None`` mirrors the front connection's era).
VARIANT=reuse: ``FastMCPProxy(client_factory=lambda: client)`` with one ``fastmcp.Client``
connected in the server's lifespan: the opt-in session reuse FastMCP's docs warn may mix
request contexts under concurrency, its fastest configuration.
STATEFUL=0 serves ``stateless_http=True`` (2026-07-28 requests, or 2025 requests without a
session); STATEFUL=1 serves 2025 sessions. JSON_RESPONSE as fastmcp_server.py.
"""

from __future__ import annotations

import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C
from fastmcp import Client
from fastmcp.server import create_proxy
from fastmcp.server.providers.proxy import FastMCPProxy

UPSTREAM = os.environ.get("UPSTREAM_URL", "http://127.0.0.1:8110/mcp")
VARIANT = os.environ.get("VARIANT", "fresh")

if VARIANT == "fresh":
    proxy = create_proxy(UPSTREAM, name="bench-fastmcp-proxy")
elif VARIANT == "reuse":
    client = Client(UPSTREAM)

    @contextlib.asynccontextmanager
    async def connected(server):
        async with client:
            yield {}

    proxy = FastMCPProxy(
        client_factory=lambda: client, name="bench-fastmcp-proxy", lifespan=connected
    )
else:
    raise SystemExit(f"fastmcp_proxy: VARIANT={VARIANT!r}, expected fresh or reuse")

app = proxy.http_app(path="/mcp", stateless_http=not C.STATEFUL, json_response=C.JSON_RESPONSE)

if __name__ == "__main__":
    C.serve(app)
