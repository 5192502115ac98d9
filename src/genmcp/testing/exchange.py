"""In-process exchanges for ``genmcp.testing``: one request answered without sockets.

* ``SuiteExchange``: the request goes to ``Suite.handle``; its Call is read through the relay,
  as the HTTP transport reads it.
* ``ASGIExchange``: the request is POSTed to an ASGI app run as a task; the response body
  is read chunk by chunk (JSON, or SSE through ``SSEParser``), and a disconnect is the
  ``http.disconnect`` a server reports when the client goes away. An SSE stream that ends
  before its response, after an event id (a 2025 session's tool closed it: SSE polling), is
  resumed as a client does: ``GET`` with ``Last-Event-ID``, read on to the response.

Used by ``MCPTestClient``. Imports genmcp's core, never a web framework.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Mapping
from typing import Any, Protocol

from genmcp.call.relay import Relay
from genmcp.errors import MCPError, http_status
from genmcp.events import Answer, Interim
from genmcp.middleware.chain import TransportContext
from genmcp.protocol.client import Message, SSEParser
from genmcp.protocol.jsonrpc import (
    EnvelopeError,
    Notification,
    Request,
    encode,
    error_response,
    parse,
)
from genmcp.suite import Suite

__all__ = ["ASGIExchange", "Exchange", "SuiteExchange"]

_INPROC = TransportContext("inproc")


class Exchange(Protocol):
    """One request sent in-process; its messages are read one at a time."""

    status: int
    body: bytes
    headers: Mapping[str, str]
    """The response's headers (none in-process)."""

    async def start(self, body: bytes, *, wait: bool = True) -> None:
        """Send the request; with ``wait``, return once the reply began."""

    async def receive(self) -> Message | None:
        """The next message (a notification or the response); None once the reply ended."""

    async def disconnect(self) -> None:
        """Go away before the reply ended; returns once the server let go of the request."""

    async def aclose(self) -> None:
        """Release the exchange after its reply ended."""


def _roundtrip(message: Any) -> Message:
    """The message as a client decodes it (checks that it is JSON at all)."""
    decoded: Message = json.loads(encode(message))
    return decoded


class SuiteExchange:
    """A request handed to ``Suite.handle``; its Call is read through the relay."""

    def __init__(self, suite: Suite, assigns: Mapping[str, Any]) -> None:
        self.status = 200
        self.body = b""
        self.headers: Mapping[str, str] = {}
        self._suite, self._assigns = suite, assigns
        self._ready: deque[Message] = deque()
        self._relay: Relay | None = None

    def _answer(self, response: Message, status: int) -> None:
        self._ready.append(_roundtrip(response))
        self.status = status

    async def start(self, body: bytes, *, wait: bool = True) -> None:
        try:
            message = parse(body)
        except EnvelopeError as exc:
            self._answer(error_response(exc.request_id, exc), http_status(exc.reason))
            return
        if isinstance(message, Notification):
            self.status = 202
            return
        if not isinstance(message, Request):
            failure = MCPError("invalid_request", "Invalid Request: responses are not accepted")
            self._answer(error_response(message.id, failure), http_status(failure.reason))
            return
        self._relay = Relay(await self._suite.handle(message, self._assigns, context=_INPROC))

    async def receive(self) -> Message | None:
        if self._ready:
            return self._ready.popleft()
        relay = self._relay
        if relay is None:
            return None
        async for event in relay:
            if isinstance(event, Interim):
                return _roundtrip(event.message)
            if isinstance(event, Answer):
                self._relay = None
                self.status = http_status(event.reason)
                return _roundtrip(event.response)
        self._relay = None
        return None

    async def disconnect(self) -> None:
        relay, self._relay = self._relay, None
        if relay is None:
            return
        relay.close()
        await relay.call.wait()  # until it ended: handle_close ran

    async def aclose(self) -> None:
        return None


class ASGIExchange:
    """A POST to an ASGI app, run as a task; the response body is read as it is sent."""

    def __init__(
        self,
        app: Any,
        path: str,
        headers: Mapping[str, str],
        state: Mapping[str, Any] | None = None,
        method: str = "POST",
    ) -> None:
        self._state = state  # the lifespan state: each request gets a shallow copy
        self._method = method
        self._answered = False  # a JSON-RPC response was read
        self._resumed: ASGIExchange | None = None  # the GET that resumes a closed stream
        self.status = 0
        self.body = b""
        self.headers: Mapping[str, str] = {}
        self._app, self._path = app, path
        self._headers = {"host": "localhost", **{k.lower(): v for k, v in headers.items()}}
        self._out: asyncio.Queue[Message | None] = asyncio.Queue()
        self._gone = asyncio.Event()
        self._ready: deque[Message] = deque()
        self._sse: SSEParser | None = None
        self._request: bytes | None = None
        self._ended = False
        self._begun = False
        self._task: asyncio.Task[None] | None = None

    async def start(self, body: bytes, *, wait: bool = True) -> None:
        self._request = body
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in self._headers.items()]
        headers.append((b"content-length", str(len(body)).encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": self._method,
            "scheme": "http",
            "path": self._path,
            "raw_path": self._path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("localhost", 80),
        }
        if self._state is not None:
            scope["state"] = dict(self._state)
        self._task = asyncio.create_task(self._run(scope))
        if wait:
            await self._begin()

    async def _begin(self) -> None:
        """Wait for the response to start (its status and headers)."""
        self._begun = True
        first = await self._out.get()
        while first is not None and first["type"] != "http.response.start":
            first = await self._out.get()
        if first is None:
            self._raise_failure()
            raise AssertionError("the app ended without sending a response")
        self.status = first["status"]
        self.headers = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in first.get("headers", [])
        }
        content_type = self.headers.get("content-type", "").partition(";")[0].strip()
        if content_type == "text/event-stream":
            self._sse = SSEParser()

    async def _run(self, scope: Message) -> None:
        try:
            await self._app(scope, self._receive, self._send)
        finally:
            self._out.put_nowait(None)

    async def _receive(self) -> Message:
        if self._request is not None:
            body, self._request = self._request, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self._gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: Message) -> None:
        if self._gone.is_set():
            return  # the client went away: what the app still sends is lost
        self._out.put_nowait(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self._gone.set()  # the response is complete; a server reports disconnect from now

    async def receive(self) -> Message | None:
        if self._resumed is not None:
            return await self._resumed.receive()
        if not self._begun:
            await self._begin()
        while not self._ready:
            if self._ended:
                return await self._resume() if self._resumable() else None
            item = await self._out.get()
            if item is None:
                self._ended = True
                self._raise_failure()
            elif item["type"] == "http.response.body":
                self._take(item.get("body", b""), final=not item.get("more_body", False))
        message = self._ready.popleft()
        if "method" not in message:
            self._answered = True
        return message

    def _resumable(self) -> bool:
        """An SSE stream that ended before its response, after an event id."""
        sse = self._sse
        return sse is not None and sse.last_id is not None and not self._answered

    async def _resume(self) -> Message | None:
        assert self._sse is not None and self._sse.last_id is not None
        headers = {**self._headers, "last-event-id": self._sse.last_id}
        headers.pop("content-type", None)
        self._resumed = ASGIExchange(self._app, self._path, headers, self._state, "GET")
        await self._resumed.start(b"")
        return await self._resumed.receive()

    def _take(self, chunk: bytes, *, final: bool) -> None:
        self._ended = final
        if self._sse is not None:
            for data in self._sse.feed(chunk, final):
                self._ready.extend(_messages(data))
            return
        self.body += chunk
        if final and self.body.strip():
            try:
                self._ready.extend(_messages(self.body.decode()))
            except ValueError:
                pass  # not JSON (a framework's error page): no message, ``body`` keeps it

    def _raise_failure(self) -> None:
        task = self._task
        if task is not None and task.done() and not task.cancelled():
            failure = task.exception()
            if failure is not None:
                raise failure

    async def disconnect(self) -> None:
        self._gone.set()
        self._ended = True
        if self._task is not None:
            await asyncio.wait([self._task])
        if self._resumed is not None:
            await self._resumed.disconnect()

    async def aclose(self) -> None:
        if self._task is not None:
            await asyncio.wait([self._task])
            self._raise_failure()
        if self._resumed is not None:
            await self._resumed.aclose()


def _messages(data: str) -> list[Message]:
    """JSON-RPC messages in one JSON text; other JSON (``{"detail": ...}``) is none."""
    decoded = json.loads(data)
    if isinstance(decoded, dict) and decoded.get("jsonrpc") == "2.0":
        return [decoded]
    return []
