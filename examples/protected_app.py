"""An MCP server protected by OAuth 2.1, configured only by environment variables.

    MCP_RESOURCE         canonical URI of the MCP endpoint, e.g. https://mcp.example.com/mcp
    MCP_ISSUER           the authorization server's issuer URL
    MCP_JWKS_URI         optional; else discovered from the issuer's metadata
    MCP_REQUIRED_SCOPES  space-separated scopes every request needs (default: mcp:tools)

    MCP_RESOURCE=http://127.0.0.1:8000/mcp MCP_ISSUER=https://issuer.example \\
        uvicorn --app-dir examples protected_app:app

MCP is at /mcp; the RFC 9728 metadata at /.well-known/oauth-protected-resource/mcp.
Tools: ``whoami`` (the caller's principal and scopes) and ``write_note`` (needs the
``notes:write`` scope, or ``admin``, which implies it). Needs ``pip install 'genmcp[auth]'``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.auth import JWTVerifier, OAuthResource

WHOAMI_OUTPUT = {
    "type": "object",
    "properties": {
        "principal": {"type": ["string", "null"]},
        "client_id": {"type": ["string", "null"]},
        "scopes": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["principal", "scopes"],
}


class WhoAmI(
    Tool,
    name="whoami",
    description="Who the access token says you are.",
    output_schema=WHOAMI_OUTPUT,
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        assigns = channel.assigns
        who = {
            "principal": assigns.get("principal"),
            "client_id": assigns.get("client_id"),
            "scopes": list(assigns.get("scopes", ())),
        }
        return Result(call_tool_result(text=f"You are {who['principal']}.", structured=who))


class WriteNote(
    Tool,
    name="write_note",
    description="Stores a note (needs the notes:write scope).",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string", "maxLength": 1000}},
        "required": ["text"],
    },
    scopes=["notes:write"],
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        notes: list[str] = arg
        notes.append(request.arguments["text"])
        return Result(call_tool_result(text=f"Stored note #{len(notes)}."))


def create_app(env: Mapping[str, str], **resource_options: Any) -> FastAPI:
    """The app for the configuration in ``env``; ``resource_options`` go to OAuthResource."""
    resource_uri, issuer = env.get("MCP_RESOURCE"), env.get("MCP_ISSUER")
    if not resource_uri or not issuer:
        raise RuntimeError("set MCP_RESOURCE and MCP_ISSUER (see examples/protected_app.py)")
    resource = OAuthResource(
        resource=resource_uri,
        authorization_servers=[issuer],
        verifier=JWTVerifier(issuer, jwks_uri=env.get("MCP_JWKS_URI") or None),
        required_scopes=env.get("MCP_REQUIRED_SCOPES", "mcp:tools").split(),
        scopes_supported=[*env.get("MCP_REQUIRED_SCOPES", "mcp:tools").split(), "notes:write"],
        scope_hierarchy={"admin": ["notes:write"]},
        resource_name="genmcp protected example",
        **resource_options,
    )
    notes: list[str] = []
    router = mcp_router(
        server_name="protected-example",
        server_version="1.0.0",
        tools=[WhoAmI, (WriteNote, notes)],
        auth=resource,
        allowed_hosts=["*"] if env.get("MCP_ALLOW_ANY_HOST") else ["127.0.0.1", "localhost"],
    )
    app = FastAPI(title="genmcp protected example")
    app.include_router(router, prefix="/mcp")
    app.include_router(resource.metadata_router())  # the well-known paths live at the root
    return app


app = create_app(os.environ) if os.environ.get("MCP_RESOURCE") else None
