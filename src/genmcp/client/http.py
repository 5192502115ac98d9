"""The client's Streamable HTTP wire: POST a message, read its JSON or SSE answer.

``HTTPWire`` owns one ``httpx.AsyncClient`` (a pool of keep-alive connections, on
``client.transport`` for ``http://``; pass your own to share it) and knows nothing of eras:
``send`` POSTs one JSON-RPC message with the headers it is given, hands every other message
on the response's SSE stream to ``on_message`` as it arrives (progress, logs, a 2025
server's requests) and returns the response. A 2025 stream
that ends before its response is resumed: a GET with ``Last-Event-ID`` after the stream's
``retry`` delay (SEP-1699). ``stream`` reads a GET stream (a 2025 session's server
messages) until it ends.

Cancelling the task that awaits ``send`` closes the response: in 2026-07-28 that is the
cancel signal the server acts on. Failures become ``ClientError`` with a message that names
the URL (refused, unresolvable, timed out, an HTTP page that is not MCP). A body or an SSE
event over ``max_message_bytes`` is ``MessageTooLarge``, raised as soon as the bytes read
pass it (the rest is never read); a JSON answer to a request that is not its response
(another id) is ``ResponseMismatch``.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import httpx

from genmcp.client.errors import ClientError, MessageTooLarge, ResponseMismatch
from genmcp.client.limits import DEFAULT_LIMITS
from genmcp.client.transport import PlainTransport
from genmcp.client.transport import available as transport_available
from genmcp.protocol.client import EventTooLarge, Message, SSEParser
from genmcp.protocol.jsonrpc import encode

__all__ = ["HTTPWire", "OnMessage", "Reply"]

OnMessage = Callable[[Message], Awaitable[None]]
RESUMES: Final = 3
"""How many times a 2025 stream that broke before its response is resumed."""
DEFAULT_RETRY_MS: Final = 1000


GET_STREAM: Final[Any] = object()
"""The ``request_id`` of a GET stream's reading: no request of its own, so every response on it
goes to ``on_message`` (a 2025 server may answer a request there, resuming its stream)."""


@dataclass(frozen=True)
class Reply:
    """What a POST got: the HTTP status, the response headers, the JSON-RPC message (None: 202)."""

    status: int
    headers: Mapping[str, str]
    message: Message | None


class HTTPWire:
    """POSTs JSON-RPC messages to one URL over a pooled ``httpx.AsyncClient``."""

    def __init__(
        self,
        url: str,
        *,
        http: httpx.AsyncClient | None = None,
        timeout: float = 60.0,
        auth: httpx.Auth | None = None,
        max_message_bytes: int = DEFAULT_LIMITS.max_message_bytes,
    ) -> None:
        self.url, self.timeout, self.auth = url, timeout, auth
        self.max_message_bytes = max_message_bytes
        self.received = 0
        """Body bytes read so far, every response together (what a bound is checked on)."""
        self._owned = http is None
        self._plain: PlainTransport | None = None
        if http is None:
            # its own pool: plain http:// over the client's lean transport (client.transport)
            self._plain = PlainTransport() if transport_available() else None
            http = httpx.AsyncClient(
                timeout=httpx.Timeout(timeout), trust_env=False, transport=self._plain
            )
        self.http = http
        self._target = httpx.URL(url)
        self.host = self._target.host

    async def send(
        self,
        message: Message,
        headers: Mapping[str, str],
        on_message: OnMessage | None = None,
        *,
        resume: Mapping[str, str] | None = None,
        on_resume: Callable[[], Awaitable[None]] | None = None,
        endless: bool = False,
    ) -> Reply:
        """POST ``message``; the reply. ``resume``: a 2025 session's headers (resumable);
        ``on_resume``: awaited before the stream is resumed; ``endless``: no read timeout (a
        listen stream may stay quiet for long)."""
        with self._errors():
            body = encode(message)  # orjson where installed: the stdlib's took 0.1 ms a call
            response = await self._open("POST", headers, body, self._endless() if endless else None)
            try:
                if response.status_code == 202:
                    return Reply(202, response.headers, None)
                if _is_sse(response):
                    parser = SSEParser(self.max_message_bytes)
                    found = await self._read_sse(response, parser, message.get("id"), on_message)
                    if found is None and resume is not None and parser.last_id is not None:
                        await response.aclose()
                        if on_resume is not None:
                            await on_resume()
                        found = await self._resume(parser, message.get("id"), resume, on_message)
                    if found is None:
                        raise ClientError(f"{self.url} ended its stream without a response")
                    return Reply(response.status_code, response.headers, found)
                found = await self._json(response)
                _answers(self.url, message, found, response.status_code)
                return Reply(response.status_code, response.headers, found)
            finally:
                await response.aclose()

    async def stream(
        self,
        headers: Mapping[str, str],
        on_message: OnMessage,
        last_event_id: str | None = None,
        on_open: Callable[[int], None] | None = None,
    ) -> int:
        """Read a GET stream until the server ends it; its HTTP status (405: none offered).

        ``on_open`` learns the status as soon as the response starts."""
        wanted = {**headers, "accept": "text/event-stream"}
        if last_event_id is not None:
            wanted["last-event-id"] = last_event_id
        with self._errors():
            response = await self._open("GET", wanted, None, self._endless())
            if on_open is not None:
                on_open(response.status_code)
            try:
                if response.status_code == 200 and _is_sse(response):
                    parser = SSEParser(self.max_message_bytes)
                    await self._read_sse(response, parser, GET_STREAM, on_message)
                return response.status_code
            finally:
                await response.aclose()

    async def delete(self, headers: Mapping[str, str]) -> None:
        """``DELETE`` (a 2025 session's end); failures are ignored: the session expires anyway."""
        try:
            response = await self.http.delete(self.url, headers=dict(headers), auth=self._auth())
            await response.aclose()
        except httpx.HTTPError:
            pass

    async def aclose(self) -> None:
        """Close the connection pool, unless it was handed in."""
        if self._owned:
            await self.http.aclose()

    # -- reading ----------------------------------------------------------------------------

    async def _read_sse(
        self,
        response: httpx.Response,
        parser: SSEParser,
        request_id: Any,
        on_message: OnMessage | None,
    ) -> Message | None:
        """Hand over each message until the response to ``request_id`` (returned)."""
        try:
            async for chunk in response.aiter_raw():
                self.received += len(chunk)
                for data in parser.feed(chunk):
                    found = await self._dispatch(data, request_id, on_message)
                    if found is not None:
                        return found
            for data in parser.feed(b"", final=True):
                found = await self._dispatch(data, request_id, on_message)
                if found is not None:
                    return found
        except EventTooLarge:
            raise self._too_large("an SSE event") from None
        return None

    async def _dispatch(
        self, data: str, request_id: Any, on_message: OnMessage | None
    ) -> Message | None:
        try:
            message = json.loads(data)
        except ValueError:
            raise ClientError(
                f"{self.url} sent an SSE event that is not JSON: {data[:80]!r}"
            ) from None
        if not isinstance(message, dict):
            raise ClientError(f"{self.url} sent an SSE event that is not a JSON-RPC message")
        if "method" not in message and ("result" in message or "error" in message):
            if request_id is None or _same_id(message.get("id"), request_id):
                return message
            if request_id is GET_STREAM and on_message is not None:
                await on_message(message)  # a response on a GET stream: its request claims it
            return None  # a response to another request: not ours to read
        if on_message is not None:
            await on_message(message)
        return None

    async def _resume(
        self,
        parser: SSEParser,
        request_id: Any,
        headers: Mapping[str, str],
        on_message: OnMessage | None,
    ) -> Message | None:
        """GET with ``Last-Event-ID`` after ``retry`` ms until the response comes (SEP-1699)."""
        for _ in range(RESUMES):
            await asyncio.sleep((parser.retry_ms or DEFAULT_RETRY_MS) / 1000)
            wanted = {**headers, "accept": "text/event-stream", "last-event-id": parser.last_id}
            response = await self._open("GET", wanted, None, None)  # type: ignore[arg-type]
            try:
                if response.status_code != 200 or not _is_sse(response):
                    return None
                found = await self._read_sse(response, parser, request_id, on_message)
                if found is not None:
                    return found
            finally:
                await response.aclose()
        return None

    async def _json(self, response: httpx.Response) -> Message:
        body = await self._body(response)
        try:
            decoded = json.loads(body)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and decoded.get("jsonrpc") == "2.0":
            return decoded
        snippet = body[:200].decode(errors="replace").strip()
        hint = " (it wants a bearer token)" if response.status_code == 401 else ""
        raise ClientError(
            f"{self.url} answered HTTP {response.status_code} {response.reason_phrase}, not MCP"
            + (f": {snippet}" if snippet else "")
            + hint,
            status=response.status_code,
            www_authenticate=response.headers.get("www-authenticate"),
        )

    async def _body(self, response: httpx.Response) -> bytes:
        """The whole body, read until it passes ``max_message_bytes`` (then an error)."""
        limit = self.max_message_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise self._too_large(f"a body of {int(declared)} bytes")
        body = bytearray()
        async for chunk in response.aiter_bytes():
            self.received += len(chunk)
            body += chunk
            if len(body) > limit:
                raise self._too_large("a body")
        return bytes(body)

    def _too_large(self, what: str) -> MessageTooLarge:
        return MessageTooLarge(
            f"{self.url} sent {what} longer than the client's {self.max_message_bytes} "
            "bytes (ClientLimits(max_message_bytes=...) changes it)",
            "max_message_bytes",
            self.max_message_bytes,
        )

    async def _open(
        self,
        method: str,
        headers: Mapping[str, str],
        content: bytes | None,
        timeouts: httpx.Timeout | None,
    ) -> httpx.Response:
        """Send one request; its streamed response (``timeouts``: None, the pool's).

        Straight to the own pool's transport when nothing of httpx's client layer applies
        (the wire's own pool, no ``auth``): that layer (URL merging, default headers,
        cookies, the auth flow, hooks) costs about as much CPU as the request itself."""
        if self._plain is not None and self.auth is None:
            chosen = timeouts or self.http.timeout
            request = httpx.Request(method, self._target, headers=headers, content=content,
                                    extensions={"timeout": chosen.as_dict()})  # fmt: skip
            response = await self._plain.handle_async_request(request)
            response.request = request
            return response
        request = self.http.build_request(
            method, self.url, headers=dict(headers), content=content,
            timeout=timeouts if timeouts is not None else httpx.USE_CLIENT_DEFAULT,
        )  # fmt: skip
        return await self.http.send(request, stream=True, auth=self._auth())

    def _endless(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeout, read=None)

    def _auth(self) -> Any:
        """The request's auth: ours, or the pool's default."""
        return self.auth if self.auth is not None else httpx.USE_CLIENT_DEFAULT

    def _errors(self) -> _Translate:
        return _Translate(self)


class _Translate:
    """Turns httpx's exceptions into a ``ClientError`` that names the URL."""

    def __init__(self, wire: HTTPWire) -> None:
        self.wire = wire

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, traceback: Any) -> None:
        if exc is None or not isinstance(exc, httpx.HTTPError):
            return
        url, causes = self.wire.url, list(_chain(exc))
        if any(isinstance(cause, ConnectionRefusedError) for cause in causes):
            raise ClientError(f"cannot connect to {url}: connection refused") from None
        unresolved = [cause for cause in causes if isinstance(cause, socket.gaierror)]
        if unresolved:
            reason = unresolved[0].strerror or str(unresolved[0])
            raise ClientError(f"cannot resolve {self.wire.host}: {reason}") from None
        if isinstance(exc, httpx.TimeoutException):
            raise ClientError(f"no answer from {url} within {self.wire.timeout:g} s") from None
        raise ClientError(f"cannot talk to {url}: {exc or type(exc).__name__}") from None


def _chain(exc: BaseException) -> Any:
    """``exc`` and its causes, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _same_id(found: Any, sent: Any) -> bool:
    """The same JSON-RPC id: equal and of one type (``true`` is not ``1``)."""
    return type(found) is type(sent) and found == sent


def _answers(url: str, sent: Message, found: Message, status: int) -> None:
    """``ResponseMismatch`` unless ``found`` answers the request ``sent`` (its id; an error
    may also carry a null id, or come on an HTTP error status: a transport-level refusal)."""
    if "method" not in sent or "id" not in sent:
        return  # a notification or a response of ours: no answer is expected
    is_response = "method" not in found and ("result" in found or "error" in found)
    found_id = found.get("id")
    if is_response and _same_id(found_id, sent["id"]):
        return
    if is_response and "error" in found and (found_id is None or status >= 400):
        return
    what = f"the response to {found_id!r}" if is_response else "a message that is no response"
    raise ResponseMismatch(
        f"{url} answered {sent.get('method')} (id {sent['id']!r}) with {what}: not taken"
    )


def _is_sse(response: httpx.Response) -> bool:
    kind: str = response.headers.get("content-type", "")
    return kind.partition(";")[0].strip().lower() == "text/event-stream"
