"""Recorder: ASGI middleware that keeps every HTTP exchange a client made with the app behind it.

For end-to-end tests that drive a real server with an official client and then check what
crossed the wire (methods, headers, JSON bodies, statuses). Knows nothing of genmcp.

    recorder = Recorder(app)
    base = live_server(recorder)
    ...  # run a client against base + "/mcp"
    [cancel] = recorder.posts("notifications/cancelled")
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


@dataclass
class Exchange:
    """One HTTP request (its JSON body parsed, None when empty), the response status and headers."""

    method: str
    headers: dict[str, str]
    body: Any
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: bytes = b""
    path: str = ""

    @property
    def response(self) -> Any:
        """The response body as JSON (a JSON body; SSE bodies are not parsed), None if empty."""
        return json.loads(self.response_body) if self.response_body.strip() else None

    @property
    def rpc_method(self) -> str | None:
        """The JSON-RPC method of a request or notification body, else None."""
        return self.body.get("method") if isinstance(self.body, dict) else None

    @property
    def is_rpc_response(self) -> bool:
        """True for a POSTed JSON-RPC response (a client's answer to a server request)."""
        body = self.body
        return (
            isinstance(body, dict)
            and "method" not in body
            and ("result" in body or "error" in body)
        )


@dataclass
class Recorder:
    app: ASGIApp
    exchanges: list[Exchange] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        exchange = Exchange(scope["method"], headers, _json_or_none(body))
        exchange.path = scope["path"]
        self.exchanges.append(exchange)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def record(message: Message) -> None:
            if message["type"] == "http.response.start":
                exchange.status = message["status"]
                exchange.response_headers = {
                    k.decode("latin-1"): v.decode("latin-1") for k, v in message.get("headers", ())
                }
            elif message["type"] == "http.response.body":
                exchange.response_body += message.get("body", b"")
            await send(message)

        await self.app(scope, replay, record)

    def posts(self, rpc_method: str | None = None) -> list[Exchange]:
        """The POSTs, or only those carrying the JSON-RPC method ``rpc_method``."""
        return [
            e
            for e in self.exchanges
            if e.method == "POST" and (rpc_method is None or e.rpc_method == rpc_method)
        ]

    def calls(self, tool: str) -> list[Exchange]:
        """The ``tools/call`` POSTs for ``tool``."""
        return [e for e in self.posts("tools/call") if e.body["params"].get("name") == tool]


def _json_or_none(body: bytes) -> Any:
    """The JSON body, or None (empty, or not JSON: a form-encoded OAuth request)."""
    try:
        return json.loads(body) if body else None
    except ValueError:
        return None
