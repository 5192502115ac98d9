"""Gateway: an outer genmcp server that serves another server's catalog through a mount.

It mounts the everything server's Suite (``examples/everything_server.py``) in-process under
no namespace, so it serves the same tools, prompts, resources and skills under the same
names, and the official conformance suite can be run against it as against the everything
server itself (docs/guides/composition.md):

    uvicorn --app-dir examples gateway:app --port 3002
    URL=http://127.0.0.1:3002/mcp bash scripts/conformance.sh

The mounted behaviours run in the gateway's Suite: its middleware, scopes and Tasks apply.
The trigger tools of the everything server change the mounted Suite; the gateway follows,
and its own listeners hear ``list_changed``. With ``namespace="everything"`` the tools would
be ``everything_test_simple_text`` and so on.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fastapi import FastAPI

from genmcp import Mount, Suite, mcp_router

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:  # run as `uvicorn --app-dir examples`, or loaded by path (tests)
    sys.path.insert(0, HERE)

import everything_server  # noqa: E402  (the examples folder is on sys.path only now)

EVERYTHING = everything_server.build_suite()
"""The mounted Suite: the everything server's catalog (its own router is not used)."""

SUITE = Suite(server_name="gateway", server_version="1.0.0", mounts=[Mount(EVERYTHING)])
app = FastAPI(title="genmcp gateway")
app.include_router(mcp_router(suite=SUITE, legacy=True), prefix="/mcp")
