"""SEP-2643 (Draft) structured denials: ``OAuthResource(sep2643=True)`` on a real server.

A call refused for want of a scope is still 403 with its ``WWW-Authenticate``
``insufficient_scope`` challenge, and its JSON-RPC error carries ``data.authorization``
(``reason``, a fresh ``authorizationContextId``), in both eras; the retry with a better
token and the id echoed in ``_meta`` runs, and the tool sees the echo; a retry without the
echo runs too (the id is never authorization); without the switch there is no envelope.
"""

from __future__ import annotations

from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.auth import OAuthResource
from genmcp.auth.denials import CONTEXT_META
from support.dpop_app import ISSUER, Tokens
from support.legacy_http import ACCEPT
from support.oauth import call_message
from support.ports import listening
from support.server import LiveServers

LEGACY: Final = "2025-11-25"


class Write(Tool, name="write", description="Needs notes:write.", scopes=["notes:write"]):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=str(request.meta.get(CONTEXT_META))))


def serve(live_server: LiveServers, sep2643: bool) -> tuple[str, Tokens]:
    held, tokens = listening(0), Tokens()  # held until the server serves it
    port = held.getsockname()[1]
    mcp = f"http://127.0.0.1:{port}/mcp"
    auth = OAuthResource(resource=mcp, authorization_servers=[ISSUER], verifier=tokens.verifier(),
                         required_scopes=["mcp:tools"], sep2643=sep2643)  # fmt: skip
    app = FastAPI()
    app.include_router(mcp_router(server_name="d", server_version="1", tools=[Write], auth=auth),
                       prefix="/mcp")  # fmt: skip
    live_server(app, sock=held)
    return mcp, tokens


def modern(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}", "accept": ACCEPT, "mcp-method": "tools/call",
            "mcp-name": "write", "mcp-protocol-version": "2026-07-28"}  # fmt: skip


def with_echo(message: dict[str, Any], context: str) -> dict[str, Any]:
    message["params"]["_meta"][CONTEXT_META] = context
    return message


async def test_a_denial_carries_the_envelope_and_the_retry_echoes_it(
    live_server: LiveServers,
) -> None:
    mcp, tokens = serve(live_server, sep2643=True)
    narrow = tokens.issue(mcp, scope="mcp:tools")
    wide = tokens.issue(mcp, scope="mcp:tools notes:write")
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        denied = await http.post(mcp, json=call_message("write", {}, 1), headers=modern(narrow))
        again = await http.post(mcp, json=call_message("write", {}, 2), headers=modern(narrow))
        context = denied.json()["error"]["data"]["authorization"]["authorizationContextId"]
        retry = await http.post(mcp, json=with_echo(call_message("write", {}, 3), context),
                                headers=modern(wide))  # fmt: skip
        bare = await http.post(mcp, json=call_message("write", {}, 4), headers=modern(wide))

    assert denied.status_code == 403
    assert 'error="insufficient_scope"' in denied.headers["www-authenticate"]
    envelope = denied.json()["error"]["data"]["authorization"]
    assert envelope["reason"] == "insufficient_authorization"
    assert context.startswith("authzctx_")
    assert again.json()["error"]["data"]["authorization"]["authorizationContextId"] != context
    assert retry.status_code == 200 and retry.json()["result"]["content"][0]["text"] == context
    assert bare.status_code == 200 and bare.json()["result"]["content"][0]["text"] == "None"


@pytest.mark.parametrize("sep2643", [True, False], ids=["on", "off"])
async def test_a_legacy_sessions_denial_and_the_default(
    live_server: LiveServers, sep2643: bool
) -> None:
    mcp, tokens = serve(live_server, sep2643=sep2643)
    narrow = {"authorization": f"Bearer {tokens.issue(mcp)}", "accept": ACCEPT}
    init = {"protocolVersion": LEGACY, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}  # fmt: skip
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        opened = await http.post(mcp, headers=narrow, json={
            "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})  # fmt: skip
        session = {**narrow, "mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": LEGACY}  # fmt: skip
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(mcp, json=note, headers=session)).status_code == 202
        denied = await http.post(mcp, headers=session, json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "write", "arguments": {}}})  # fmt: skip
        modern_denied = await http.post(mcp, json=call_message("write", {}, 1),
                                        headers=modern(tokens.issue(mcp)))  # fmt: skip

    assert denied.status_code == 403
    assert 'error="insufficient_scope"' in denied.headers["www-authenticate"]
    for reply in (denied, modern_denied):
        data = reply.json()["error"]["data"]
        assert ("authorization" in data) is sep2643
        if sep2643:
            assert data["authorization"]["reason"] == "insufficient_authorization"
