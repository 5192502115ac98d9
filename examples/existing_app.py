"""An existing FastAPI app that adds MCP at /mcp, behind bearer-token auth.

The app keeps its own ordinary routes (``/health``, ``/items/{item_id}``); MCP is one
``include_router`` next to them. ``authenticate`` is an ordinary FastAPI dependency:

* it reads ``Authorization: Bearer <token>`` and looks the token up in ``TOKENS``;
* a missing or unknown token gets 401 with ``WWW-Authenticate: Bearer
  resource_metadata="..."``, the pointer to this server's OAuth protected-resource
  metadata (RFC 9728) that the MCP authorization spec asks for;
* a token without the ``mcp:tools`` scope gets 403 ``insufficient_scope``;
* otherwise it returns ``{"principal": user, "scopes": [...]}``, which genmcp hands to
  every tool as ``channel.assigns`` (and binds ``requestState`` to the principal).

genmcp checks ``Origin`` and ``Host`` before ``authenticate`` runs, so a DNS-rebinding or
cross-site request is refused (403) before any token is looked at.

A real server validates tokens issued by its authorization server (JWT signature,
audience = this server's URL, expiry) instead of a table; the shape stays the same.

Serve it::

    GENMCP_SECRET_KEY=... uvicorn --app-dir examples existing_app:app

    curl -s http://127.0.0.1:8000/items/1
    curl -si -X POST http://127.0.0.1:8000/mcp   # 401 with WWW-Authenticate
"""

from __future__ import annotations

import os
import secrets
from typing import Annotated, Any, Final

from fastapi import Depends, FastAPI, HTTPException
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router

MCP_SCOPE: Final = "mcp:tools"

TOKENS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    # token -> (principal, scopes). Demo values: never ship tokens in code.
    "alice-token": ("alice", (MCP_SCOPE, "items:read")),
    "carol-token": ("carol", (MCP_SCOPE,)),
    "bob-token": ("bob", ("items:read",)),  # may not use MCP
}


def _header_safe(value: str, name: str) -> str:
    """Refuse a value that cannot sit inside a quoted header parameter."""
    if any(char in value for char in '"\\\r\n') or not value.isprintable():
        raise ValueError(f"{name} must not contain quotes, backslashes or control characters")
    return value


PUBLIC_URL: Final = _header_safe(
    os.environ.get("EXAMPLE_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/"), "EXAMPLE_PUBLIC_URL"
)
"""Where clients reach this app; the resource metadata names ``PUBLIC_URL + "/mcp"``."""

AUTHORIZATION_SERVER: Final = os.environ.get("EXAMPLE_AUTH_SERVER", "https://auth.example.com")
RESOURCE_METADATA_PATH: Final = "/.well-known/oauth-protected-resource/mcp"
RESOURCE_METADATA_URL: Final = PUBLIC_URL + RESOURCE_METADATA_PATH

ITEMS: Final[dict[int, dict[str, Any]]] = {
    1: {"id": 1, "name": "hammer", "stock": 12},
    2: {"id": 2, "name": "saw", "stock": 0},
}

bearer = HTTPBearer(auto_error=False)


def _challenge(error: str | None = None) -> dict[str, str]:
    """The ``WWW-Authenticate`` header of a refusal (RFC 6750 + RFC 9728)."""
    params = [f'resource_metadata="{RESOURCE_METADATA_URL}"']
    if error == "invalid_token":
        params.insert(0, 'error="invalid_token"')
    elif error == "insufficient_scope":
        params[:0] = ['error="insufficient_scope"', f'scope="{MCP_SCOPE}"']
    return {"WWW-Authenticate": "Bearer " + ", ".join(params)}


def _lookup(token: str) -> tuple[str, tuple[str, ...]] | None:
    """The (principal, scopes) of a token, compared in constant time."""
    found = None
    for known, entry in TOKENS.items():
        if secrets.compare_digest(known.encode(), token.encode()):
            found = entry
    return found


def authenticate(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> dict[str, Any]:
    """The MCP endpoint's auth dependency: its return value becomes ``channel.assigns``."""
    if credentials is None:
        raise HTTPException(401, "A bearer token is required", headers=_challenge())
    entry = _lookup(credentials.credentials)
    if entry is None:
        raise HTTPException(
            401, "The bearer token is not valid", headers=_challenge("invalid_token")
        )
    principal, scopes = entry
    if MCP_SCOPE not in scopes:
        raise HTTPException(
            403, f"The token lacks the {MCP_SCOPE} scope", headers=_challenge("insufficient_scope")
        )
    return {"principal": principal, "scopes": list(scopes)}


class WhoAmITool(
    Tool,
    name="whoami",
    description="Tells who the caller is, as the bearer token says.",
    output_schema={
        "type": "object",
        "properties": {
            "principal": {"type": "string"},
            "scopes": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["principal", "scopes"],
    },
    annotations={"readOnlyHint": True},
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        who = {
            "principal": channel.assigns["principal"],
            "scopes": list(channel.assigns["scopes"]),
        }
        return Result(call_tool_result(structured=who))


class GetItemTool(
    Tool,
    name="get_item",
    description="Reads one item of the inventory the app's /items routes serve.",
    input_schema={
        "type": "object",
        "properties": {"item_id": {"type": "integer"}},
        "required": ["item_id"],
    },
    annotations={"readOnlyHint": True},
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        item = ITEMS.get(request.arguments["item_id"])
        if item is None:
            return Result(call_tool_result(error=f"No item {request.arguments['item_id']}."))
        return Result(call_tool_result(structured=item))


app = FastAPI(title="inventory")


@app.get("/health")
async def health() -> dict[str, str]:
    """An ordinary route: no auth, untouched by MCP."""
    return {"status": "ok"}


@app.get("/items/{item_id}")
async def read_item(item_id: int) -> dict[str, Any]:
    """An ordinary route sharing its data with the ``get_item`` tool."""
    item = ITEMS.get(item_id)
    if item is None:
        raise HTTPException(404, f"No item {item_id}")
    return item


@app.get(RESOURCE_METADATA_PATH)
async def resource_metadata() -> dict[str, Any]:
    """OAuth 2.0 protected-resource metadata (RFC 9728) for the MCP endpoint."""
    return {
        "resource": PUBLIC_URL + "/mcp",
        "authorization_servers": [AUTHORIZATION_SERVER],
        "scopes_supported": [MCP_SCOPE],
        "bearer_methods_supported": ["header"],
    }


app.include_router(
    mcp_router(
        server_name="inventory",
        server_version="1.0.0",
        tools=[WhoAmITool, GetItemTool],
        auth=authenticate,
    ),
    prefix="/mcp",
)
