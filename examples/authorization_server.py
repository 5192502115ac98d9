"""An MCP server with its own OAuth authorization server in front of your identity provider.

    OAUTH_UPSTREAM_ISSUER          the identity provider's issuer URL (discovered on first use;
                                   https://github.com: the GitHub preset, an OAuth app)
    OAUTH_UPSTREAM_CLIENT_ID       the front's client at that provider (confidential)
    OAUTH_UPSTREAM_CLIENT_SECRET   its secret
    MCP_RESOURCE                   canonical URI of the MCP endpoint, e.g. https://mcp.example.com/mcp

Several processes share the front's records in Redis (``pip install 'genmcp[redis]'``):

    OAUTH_FRONT_REDIS_URL          e.g. redis://127.0.0.1:6379/0 (unset: one process's memory)
    OAUTH_FRONT_SIGNING_KEY        the EC P-256 private key (PEM) of the access tokens
    OAUTH_FRONT_TOKEN_KEY          the Fernet key the upstream tokens are encrypted with

    MCP_RESOURCE=http://127.0.0.1:8000/mcp OAUTH_UPSTREAM_ISSUER=https://idp.example \\
    OAUTH_UPSTREAM_CLIENT_ID=mcp OAUTH_UPSTREAM_CLIENT_SECRET=... \\
        uvicorn --app-dir examples authorization_server:app

Register ``<origin>/oauth/callback`` as the redirect URI of that client at the provider.
MCP clients find the front from the MCP endpoint's 401 (RFC 9728 metadata), register
themselves (RFC 7591), sign the user in upstream, and call ``whoami`` and ``write_note``
(which needs ``notes:write``) with the front's tokens. Needs ``pip install 'genmcp[auth]'``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from fastapi import FastAPI

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.auth.front import AuthorizationFront, GitHub, Upstream

SCOPES = ["mcp:tools", "notes:write"]
SCOPE_MAP = {"mcp:tools": [], "notes:write": ["notes:write"]}
"""Each scope's grant rule: the upstream scopes it needs (none: anyone who signs in)."""


class WhoAmI(Tool, name="whoami", description="Who the access token says you are."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        who = {"principal": channel.assigns.get("principal"),
               "client_id": channel.assigns.get("client_id"),
               "scopes": list(channel.assigns.get("scopes", ()))}  # fmt: skip
        return Result(call_tool_result(text=f"You are {who['principal']}.", structured=who))


class WriteNote(
    Tool,
    name="write_note",
    description="Stores a note (needs the notes:write scope).",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
    scopes=["notes:write"],
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        notes: list[str] = arg
        notes.append(request.arguments["text"])
        return Result(call_tool_result(text=f"Stored note #{len(notes)}."))


def create_app(env: Mapping[str, str], **front_options: Any) -> FastAPI:
    """The app for ``env``; reaches no provider until the first sign-in.

    ``front_options`` go to ``AuthorizationFront`` (e.g. ``documents=``, ``registry=``,
    ``upstream=``).
    """
    names = ("OAUTH_UPSTREAM_ISSUER", "OAUTH_UPSTREAM_CLIENT_ID",
             "OAUTH_UPSTREAM_CLIENT_SECRET", "MCP_RESOURCE")  # fmt: skip
    missing = [name for name in names if not env.get(name)]
    if missing:
        raise RuntimeError(f"set {', '.join(missing)} (see examples/authorization_server.py)")
    resource = env["MCP_RESOURCE"]
    parts = urlsplit(resource)
    shared = _shared(env) if env.get("OAUTH_FRONT_REDIS_URL") else {}
    upstream = front_options.pop("upstream", None) or _upstream(env)
    front = AuthorizationFront(
        issuer=f"{parts.scheme}://{parts.netloc}",
        upstream=upstream,
        resource=resource,
        scopes_supported=SCOPES,
        default_scopes=["mcp:tools"],
        **{"scope_map": SCOPE_MAP, **shared, **front_options},
    )
    auth = front.resource_server(required_scopes=["mcp:tools"])
    notes: list[str] = []
    router = mcp_router(
        server_name="authorization-server-example",
        server_version="1.0.0",
        tools=[WhoAmI, (WriteNote, notes)],
        auth=auth,
        allowed_hosts=["127.0.0.1", "localhost", parts.hostname or "localhost"],
    )
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        close = getattr(front.store, "aclose", None)
        if close is not None:
            await close()

    app = FastAPI(title="genmcp authorization server example", lifespan=lifespan)
    app.include_router(front.router())
    app.include_router(router, prefix="/mcp")
    app.include_router(auth.metadata_router())
    app.state.front = front
    return app


def _upstream(env: Mapping[str, str]) -> Upstream:
    """The provider: GitHub's preset for ``https://github.com``, else by discovery."""
    issuer = env["OAUTH_UPSTREAM_ISSUER"]
    secret = (env["OAUTH_UPSTREAM_CLIENT_ID"], env["OAUTH_UPSTREAM_CLIENT_SECRET"])
    if issuer.rstrip("/") == "https://github.com":  # OAuth 2.0 without OpenID: no discovery
        return GitHub(*secret)
    return Upstream(issuer, *secret)


def _shared(env: Mapping[str, str]) -> dict[str, Any]:
    """The front's options for several processes: one Redis, one signing key, one token key."""
    from genmcp.storage.redis import RedisRecordStore  # the redis extra, only when asked for

    missing = [n for n in ("OAUTH_FRONT_SIGNING_KEY", "OAUTH_FRONT_TOKEN_KEY") if not env.get(n)]
    if missing:
        raise RuntimeError(f"OAUTH_FRONT_REDIS_URL needs {', '.join(missing)} too")
    key = load_pem_private_key(env["OAUTH_FRONT_SIGNING_KEY"].encode(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise RuntimeError("OAUTH_FRONT_SIGNING_KEY: an EC P-256 private key (PEM)")
    store = RedisRecordStore.from_url(env["OAUTH_FRONT_REDIS_URL"], prefix="genmcp:front:")
    return {"store": store, "signing_key": key, "token_key": env["OAUTH_FRONT_TOKEN_KEY"]}


app = create_app(os.environ) if os.environ.get("MCP_RESOURCE") else None
