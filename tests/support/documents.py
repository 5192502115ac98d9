"""Documents: a loopback ASGI app whose answers a test sets path by path, recording requests.

For the auth tests that need what a real authorization server never serves (a key set with
unusable keys, metadata naming another issuer, an introspection answer that is no object).
Serve it with `support.server.LiveServer(documents, lifespan="off")`. Knows nothing of genmcp.
"""

from __future__ import annotations

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


@dataclass
class Documents:
    """A loopback HTTP server answering each path with the ``(status, JSON)`` set for it.

    ``answers[path] = (status, document)`` (bytes are sent as they are); other paths get 404.
    ``seen`` lists every request, oldest first. Cleared before each test.
    """

    url: str
    answers: dict[str, tuple[int, Any]] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {name.decode(): value.decode() for name, value in scope["headers"]}
        self.seen.append(Seen(scope["method"], scope["path"], headers, body))
        status, document = self.answers.get(scope["path"], (404, {"error": "not_found"}))
        payload = document if isinstance(document, bytes) else json.dumps(document).encode()
        start = {"type": "http.response.start", "status": status}
        await send({**start, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": payload})
