"""An opt-in route serving a Server Card (the SEP-2127 draft) for a Suite.

:func:`server_card_app` builds the card once from the Suite (``protocol.registry``) and
returns :class:`ServerCardApp`, a raw ASGI app answering ``GET``/``HEAD`` with it, as the
draft asks: ``Content-Type: application/mcp-server-card+json``, the CORS headers a browser
client needs (the card is public and read-only), ``Cache-Control: public, max-age=3600`` and
an ``ETag`` (a matching ``If-None-Match`` gets 304). ``OPTIONS`` is the CORS preflight (204);
any other method is 405. Mount it at the draft's reserved location, the MCP endpoint URL
plus ``/server-card``::

    app.add_route("/mcp/server-card", server_card_app(suite, url=..., name=..., draft=True))

The card is a draft that may change before it is accepted: nothing serves one unless
``draft=True`` is given.

Framework-free (ASGI messages only). Imports genmcp's protocol and the Suite.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, Unpack

from genmcp.protocol.registry import SERVER_CARD_MEDIA_TYPE, Identity, server_card
from genmcp.protocol.versions import LEGACY_VERSIONS
from genmcp.transports.http.asgi import Receive, Scope, Send

if TYPE_CHECKING:
    from genmcp.suite import Suite

__all__ = ["ServerCardApp", "server_card_app"]

_CORS: Final = (
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET"),
    (b"access-control-allow-headers", b"Content-Type, If-None-Match"),
    (b"access-control-expose-headers", b"ETag"),
)


class ServerCardApp:
    """An ASGI app that serves one Server Card document (built once)."""

    __slots__ = ("_body", "_etag", "card")
    media_type: ClassVar[bytes] = SERVER_CARD_MEDIA_TYPE.encode()

    def __init__(self, card: Mapping[str, Any]) -> None:
        self.card = dict(card)
        self._body = json.dumps(self.card, separators=(",", ":")).encode()
        self._etag = b'"' + hashlib.sha256(self._body).hexdigest()[:32].encode() + b'"'

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            return
        method = scope.get("method", "GET")
        if method == "OPTIONS":
            await _answer(send, 204, _CORS)
            return
        if method not in ("GET", "HEAD"):
            await _answer(send, 405, ((b"allow", b"GET, HEAD, OPTIONS"), *_CORS))
            return
        headers = (
            (b"content-type", self.media_type),
            (b"cache-control", b"public, max-age=3600"),
            (b"etag", self._etag),
            *_CORS,
        )
        wanted = dict(scope.get("headers") or ()).get(b"if-none-match")
        if wanted is not None and self._etag in (tag.strip() for tag in wanted.split(b",")):
            await _answer(send, 304, headers)
            return
        body = b"" if method == "HEAD" else self._body
        length = (b"content-length", str(len(self._body)).encode())
        await _answer(send, 200, (*headers, length), body)


async def _answer(
    send: Send, status: int, headers: Sequence[tuple[bytes, bytes]], body: bytes = b""
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body})


def server_card_app(
    suite: Suite,
    *,
    url: str,
    name: str,
    draft: bool,
    legacy: bool = True,
    **identity: Unpack[Identity],
) -> ServerCardApp:
    """The Server Card route of ``suite`` served at ``url`` (its Streamable HTTP endpoint).

    Args:
        suite: the Suite the card describes (its ``serverInfo`` and protocol versions).
        url: the public URL of the MCP endpoint, ``https://host/mcp``.
        name: the registry name, ``io.github.you/weather``.
        draft: must be True: the card follows a draft that may still change.
        legacy: also list the 2025 revisions (the router serves legacy sessions).
        identity: ``description`` (what the server does, at most 100 characters),
            ``repository``, ``website_url``: as in ``server.json`` (``registry.Identity``).
    """
    versions = [*suite.supported_versions, *(LEGACY_VERSIONS if legacy else ())]
    card = server_card(
        suite.server_info, name=name, url=url, draft=draft, protocol_versions=versions, **identity
    )
    return ServerCardApp(card)
