"""genmcp's proxy: ``mcp_router(proxy=UPSTREAM_URL)`` included into a FastAPI app at /mcp.

Run: UPSTREAM_URL=http://127.0.0.1:8110/mcp PORT=8111 \
    /tmp/genmcp-bench/venvs/genmcp/bin/python bench/servers/genmcp_proxy.py
What ``genmcp proxy URL`` serves (the CLI builds the same Mount), on the bench's uvicorn
settings: one pooled ``genmcp.Client`` to the upstream, whose era it learns with one
``server/discover`` (a 2026-07-28 upstream: one upstream request per call). Served in both
eras; bench/proxy.py drives it at 2026-07-28 stateless. UPSTREAM_PROTOCOL fixes the upstream's
revision instead of probing it (``Mount(protocol=...)``).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("GENMCP_SECRET_KEY", "genmcp-bench-not-a-secret-0123456789abcdef0123456789")
import _common as C
from fastapi import FastAPI

from genmcp import Mount, mcp_router

print(f"genmcp from {sys.modules['genmcp'].__file__}", file=sys.stderr, flush=True)

UPSTREAM = os.environ.get("UPSTREAM_URL", "http://127.0.0.1:8110/mcp")
PROTOCOL = os.environ.get("UPSTREAM_PROTOCOL") or None

app = FastAPI()
if PROTOCOL is None:
    router = mcp_router(proxy=UPSTREAM)
else:
    mount = Mount(url=UPSTREAM, resources=True, protocol=PROTOCOL)
    router = mcp_router(server_name="genmcp-proxy", server_version="1", mounts=[mount])
app.include_router(router, prefix="/mcp")

if __name__ == "__main__":
    C.serve(app)
