"""The wrong-path help (``fastapi/wrong_paths.py``): the paths other frameworks' clients try
under the mount answer a JSON 404 naming the endpoint, with and without auth; the app's own
routes there still answer, and the help is matched last.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Suite, mcp_router
from genmcp.fastapi.wrong_paths import WRONG_PATH_NAME
from support.server import LiveServers


@pytest.mark.parametrize("auth", [None, lambda: {"principal": "p"}], ids=["raw", "auth"])
async def test_a_wrong_path_under_the_mount_is_a_json_404_naming_the_endpoint(
    live_server: LiveServers, auth: Any
) -> None:
    app = FastAPI()
    suite = Suite(server_name="s", server_version="1")
    app.include_router(mcp_router(suite=suite, auth=auth), prefix="/api/mcp")

    @app.get("/api/mcp/admin")
    def admin() -> dict[str, int]:
        return {"ok": 1}

    base = live_server(app)
    async with httpx.AsyncClient(base_url=base) as http:
        for wrong in ("/api/mcp/mcp", "/api/mcp/mcp/", "/api/mcp/sse", "/api/mcp/messages/"):
            for send in (http.post, http.get):
                reply = await send(wrong)
                assert reply.status_code == 404, (wrong, reply.text)
                error = reply.json()["error"]
                assert f"no MCP endpoint at {wrong}" in error["message"]
                assert "this server's MCP endpoint is /api/mcp " in error["message"]
        assert (await http.get("/api/mcp/admin")).json() == {"ok": 1}  # the app's own routes
        assert (await http.get("/api/mcp/mcpx")).status_code == 404  # only the known ones
        assert (await http.get("/api/mcp/mcpx")).json() == {"detail": "Not Found"}
    served = [r for r in app.routes if getattr(r, "name", "") == WRONG_PATH_NAME]
    assert [r.path for r in served] == ["/api/mcp/{wrong:genmcp_wrong_path}"]  # type: ignore[attr-defined]
    assert app.routes[-1] is served[0]  # matched last: the app's own routes come first
