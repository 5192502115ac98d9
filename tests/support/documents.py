"""Documents: a loopback ASGI app whose answers a test sets path by path, recording requests.

For the auth tests that need what a real authorization server never serves (a key set with
unusable keys, metadata naming another issuer, an introspection answer that is no object).
Serve it with `support.server.LiveServer(documents, lifespan="off")`. Knows nothing of genmcp.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Seen:
    """One request the documents server got."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    client: tuple[str, int] | None = None
    """The peer's (host, port): one per TCP connection."""


@dataclass
class Documents:
    """A loopback HTTP server answering each path with the ``(status, JSON)`` set for it.

    ``answers[path] = (status, document)`` (bytes are sent as they are); other paths get 404.
    ``seen`` lists every request, oldest first. Cleared before each test.
    """

    url: str
    answers: dict[str, tuple[int, Any]] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    delay_s: float = 0.0
    """How long each answer waits (for requests that must overlap)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {name.decode(): value.decode() for name, value in scope["headers"]}
        client = tuple(scope["client"]) if scope.get("client") else None
        self.seen.append(Seen(scope["method"], scope["path"], headers, body, client))  # type: ignore[arg-type]
        status, document = self.answers.get(scope["path"], (404, {"error": "not_found"}))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        payload = document if isinstance(document, bytes) else json.dumps(document).encode()
        start = {"type": "http.response.start", "status": status}
        await send({**start, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": payload})
