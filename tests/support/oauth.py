"""Helpers of the auth tests: the configured resource, raw MCP calls, parsed challenges.

`call(url, tool, args, headers=...)` POSTs one 2026-07-28 `tools/call` with exactly the
given `Authorization` header(s) (a list of pairs may repeat a header); `challenge(response)`
is the strictly parsed `WWW-Authenticate` of a refusal (and checks it is the only one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import httpx

from support.authorization_server import AuthorizationServer
from support.www_authenticate import parse_bearer

RESOURCE: Final = "https://mcp.example.test/mcp"
"""The canonical URI the example server is configured with (never derived from Host)."""
RESOURCE_METADATA: Final = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp"
OPAQUE_RESOURCE: Final = "https://opaque.example.test/mcp"
"""A resource the test AS issues opaque (introspected) tokens for."""
VERSION: Final = "2026-07-28"


@dataclass
class Protected:
    """A running protected server and the AS whose tokens it accepts."""

    url: str
    auth: AuthorizationServer

    def bearer(self, scope: str = "mcp:tools", client: str = "alice") -> dict[str, str]:
        return {"authorization": f"Bearer {self.auth.token(RESOURCE, scope, client)}"}


def call_message(tool: str, arguments: Mapping[str, Any], request_id: int) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "auth-tests", "version": "0"},
    }
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": dict(arguments), "_meta": meta},
    }


async def call(
    url: str,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    headers: Mapping[str, str] | Sequence[tuple[str, str]],
    request_id: int = 1,
    query: Mapping[str, str] | None = None,
) -> httpx.Response:
    """One modern `tools/call` POST to `url + /mcp` with `headers` added."""
    base = [
        ("accept", "application/json, text/event-stream"),
        ("content-type", "application/json"),
        ("mcp-protocol-version", VERSION),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ]
    extra = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.post(
            url + "/mcp",
            json=call_message(tool, arguments or {}, request_id),
            headers=base + extra,
            params=query,
        )


def challenge(response: httpx.Response) -> dict[str, str]:
    """The one `WWW-Authenticate` challenge of `response`, parsed strictly."""
    values = response.headers.get_list("www-authenticate")
    assert len(values) == 1, values
    return parse_bearer(values[0])
