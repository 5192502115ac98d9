"""One in-process HTTP exchange with an ASGI app: no socket, the app's whole stack runs.

Owns building the ``http`` scope of one route call (a fresh scope, so ``request.state``
and everything request-scoped is the call's own; the lifespan ``state`` copied shallowly,
as uvicorn does per request), feeding the body, collecting the response up to a size cap,
and turning a crash into a 500 (logged here with its traceback, never returned).

The app runs its middleware, exception handlers and dependencies (``yield`` ones
included) exactly as for a request from the network; the call returns when the app
returns, background tasks included.

Imports asyncio and the standard library only: an ASGI app is three callables.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["MAX_RESPONSE_BYTES", "Origin", "Reply", "exchange"]

log = logging.getLogger("genmcp.routes")

MAX_RESPONSE_BYTES: Final = 4 * 1024 * 1024
ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]


class _TooLarge(Exception):
    """Raised into the app when its response outgrows the cap."""


@dataclass(frozen=True, slots=True)
class Origin:
    """Where the MCP request came from: copied into each route call's scope."""

    scheme: str = "http"
    server: tuple[str, int] | None = None
    client: tuple[str, int] | None = None
    root_path: str = ""
    host: str = "localhost"
    state: Mapping[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Reply:
    """The response the app gave (or the 500 that stands for its crash)."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    crashed: bool = False
    too_large: bool = False

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (lower case), or None."""
        return next((value for key, value in self.headers if key == name), None)

    @property
    def media_type(self) -> str:
        """The media type without parameters, lower case ("" when absent)."""
        return (self.header("content-type") or "").split(";")[0].strip().lower()


async def exchange(
    app: ASGIApp,
    *,
    method: str,
    path: str,
    query_string: bytes,
    headers: list[tuple[str, str]],
    body: Any,
    has_body: bool,
    origin: Origin,
    extensions: Mapping[str, Any],
    max_response_bytes: int = MAX_RESPONSE_BYTES,
    raw_path: bytes | None = None,
) -> Reply:
    """Run one request through ``app`` and collect its response.

    ``path`` is decoded and ``raw_path`` percent-encoded, as the ASGI spec has them (without
    ``raw_path``: ``path`` encoded as UTF-8, for a path with nothing to escape)."""
    payload = json.dumps(body).encode() if has_body else b""
    raw = [(b"host", origin.host.encode("latin-1"))]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    raw.append((b"accept", b"application/json"))
    if has_body:
        raw += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(payload))]
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": origin.scheme,
        "path": path,
        "raw_path": path.encode("utf-8") if raw_path is None else raw_path,
        "root_path": origin.root_path,
        "query_string": query_string,
        "headers": raw,
        "server": origin.server,
        "client": origin.client,
        "state": dict(origin.state),
        "extensions": dict(extensions),
    }
    collector = _Collector(payload, max_response_bytes)
    try:
        await app(scope, collector.receive, collector.send)
    except Exception:  # the app re-raises what it answered 500 for (maybe in a group)
        if collector.too_large:
            return Reply(502, too_large=True)
        log.exception("route %s %s crashed in an MCP tool call", method, path)
        return Reply(500, crashed=True)
    finally:
        collector.done.set()
    if collector.too_large:
        return Reply(502, too_large=True)
    return collector.reply or Reply(500, crashed=True)


class _Collector:
    """The ``receive`` and ``send`` of one exchange."""

    def __init__(self, payload: bytes, cap: int) -> None:
        self.payload: bytes | None = payload
        self.cap = cap
        self.reply: Reply | None = None
        self.done = asyncio.Event()
        self._chunks: list[bytes] = []
        self._size = 0
        self.too_large = False

    async def receive(self) -> dict[str, Any]:
        if self.payload is not None:
            payload, self.payload = self.payload, None
            return {"type": "http.request", "body": payload, "more_body": False}
        await self.done.wait()  # a disconnect only once the response is complete
        return {"type": "http.disconnect"}

    async def send(self, message: Mapping[str, Any]) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            headers = [
                (k.decode("latin-1").lower(), v.decode("latin-1"))
                for k, v in message.get("headers", ())
            ]
            self.reply = Reply(int(message["status"]), headers)
        elif kind == "http.response.body" and self.reply is not None:
            chunk = bytes(message.get("body", b""))
            self._size += len(chunk)
            if self._size > self.cap:
                self.too_large = True
                raise _TooLarge
            self._chunks.append(chunk)
            if not message.get("more_body", False):
                self.reply.body = b"".join(self._chunks)
                self.done.set()
