"""Raw ASGI plumbing for the HTTP transport: headers, bodies, responses, disconnects.

``send_refusal`` answers a request refused before its body was read (403, 405, 413, 415,
421) so that the client can read the answer: ``Connection: close``, the response written in
full but held open while the unread body is drained (at most :data:`DRAIN_MAX_BYTES` and
:data:`DRAIN_MAX_S`), then the connection ends. Closing a socket with unread bytes in it
sends a TCP reset, which makes the peer drop the answer it has not read yet.

``disconnected`` returns when the client goes away; the SSE writer (``transports.http.sse``)
watches it with one task per stream.

Framework-free (ASGI messages only), so the FastAPI adapter stays about routing and
streaming. Imports genmcp's errors and protocol; never Starlette or FastAPI.
"""

from __future__ import annotations

import asyncio
from collections.abc import (
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    Sequence,
)
from typing import Any, Final

from genmcp.errors import MCPError
from genmcp.protocol.jsonrpc import encode

__all__ = [
    "DRAIN_MAX_BYTES",
    "DRAIN_MAX_S",
    "BodyDeadlines",
    "HeaderView",
    "Receive",
    "Scope",
    "Send",
    "content_type_problem",
    "read_body",
    "send_empty",
    "send_json",
    "send_refusal",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

JSON_HEADERS: Final = [(b"content-type", b"application/json")]
DRAIN_MAX_BYTES: Final = 32 * 1024 * 1024
"""Most unread request body bytes a refusal reads (and discards) before closing."""
DRAIN_MAX_S: Final = 5.0
"""Longest a refusal waits for the unread request body before closing."""


class _Keys(dict[str, bytes]):
    """Header names looked up so far, encoded once (a server asks for a handful): a miss
    encodes the name, and keeps it while there are fewer than 256."""

    def __missing__(self, name: str) -> bytes:
        key = name.encode("latin-1")
        if len(self) < 256:
            self[name] = key
        return key


_KEYS: Final = _Keys()


class HeaderView(Mapping[str, str]):
    """Request headers by lower-case name, decoded only when looked up.

    ASGI gives header names lower-cased as bytes; a request is checked for a handful of
    them, so decoding every header up front is wasted work. Repeated names: the last wins.
    """

    __slots__ = ("_raw",)

    def __init__(self, raw: Iterable[tuple[bytes, bytes]]) -> None:
        self._raw: dict[bytes, bytes] = dict(raw)

    def __getitem__(self, name: str) -> str:
        return self._raw[_KEYS[name]].decode("latin-1")

    def get(self, name: str, default: Any = None) -> Any:  # the hot path: no KeyError
        value = self._raw.get(_KEYS[name])
        return default if value is None else value.decode("latin-1")

    def __contains__(self, name: object) -> bool:  # Mapping's would raise and catch KeyError
        return isinstance(name, str) and _KEYS[name] in self._raw

    def __iter__(self) -> Iterator[str]:
        return (name.decode("latin-1") for name in self._raw)

    def __len__(self) -> int:
        return len(self._raw)


async def disconnected(receive: Receive) -> None:
    """Return once the client went away (``http.disconnect``)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def content_type_problem(headers: Mapping[str, str]) -> MCPError | None:
    content_type = headers.get("content-type")
    if content_type is None or "json" in content_type.lower():
        return None
    return MCPError("unsupported_media_type", f"Unsupported Media Type: {content_type}")


class BodyDeadlines:
    """Times out the body reads of one endpoint with one ticking task, not a timer per request.

    ``task = deadlines.enter()`` before a read, ``deadlines.leave(task)`` after it: past
    ``seconds`` (checked every quarter of it, at most each second) the reading task is
    cancelled, and ``timed_out(task)`` tells that ``CancelledError`` from another. A read that
    ends in time costs two dict operations: no timer handle per request (the hot path).
    """

    __slots__ = ("_due", "_entered", "_expired", "_step", "_ticker", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._step = min(seconds / 4, 1.0)
        self._due: dict[asyncio.Task[Any], float] = {}
        self._expired: set[asyncio.Task[Any]] = set()
        self._ticker: asyncio.Task[None] | None = None
        self._entered = 0  # reads started: the ticker stops after a quiet step

    def enter(self) -> asyncio.Task[Any]:
        """Start the deadline of the current task's read; give the task to ``leave``."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task(loop)
        assert task is not None
        self._due[task] = loop.time() + self.seconds
        self._entered += 1
        if self._ticker is None:
            self._ticker = loop.create_task(self._tick(), name="genmcp:body-deadlines")
        return task

    def timed_out(self, task: asyncio.Task[Any]) -> bool:
        """After a ``CancelledError`` in the read: True when the deadline cancelled it (the
        cancellation is then taken back), False when someone else did."""
        if task not in self._expired:
            return False
        task.uncancel()
        return True

    def leave(self, task: asyncio.Task[Any]) -> None:
        """The read ended (in time or not)."""
        self._due.pop(task, None)
        self._expired.discard(task)

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                entered = self._entered
                await asyncio.sleep(self._step)
                now = loop.time()
                for task, due in list(self._due.items()):
                    if now >= due:
                        del self._due[task]
                        self._expired.add(task)
                        task.cancel()
                if not self._due and self._entered == entered:
                    return  # a quiet step: the next read starts it again
        finally:
            self._ticker = None


async def read_body(receive: Receive, headers: Mapping[str, str], limit: int) -> bytes | None:
    """The whole request body, or None when it is over ``limit`` bytes."""
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    message: Message = await receive()
    if message["type"] != "http.request":
        return b""
    chunk: bytes = message.get("body", b"")
    size = len(chunk)
    if size > limit:
        return None
    if not message.get("more_body", False):  # the whole body in one message (the hot path)
        return chunk
    chunks = [chunk]
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def send_json(
    send: Send,
    message: Any,
    status: int,
    extra: Sequence[tuple[str, str]] = (),
    encoded: tuple[bytes, Sequence[tuple[bytes, bytes]]] | None = None,
) -> None:
    """Send ``message`` as JSON, or ``encoded``: its bytes already made, with their
    ``Content-Encoding`` headers (``transports.http.gzip``)."""
    if encoded is None:
        body = encode(message)
        headers = [*JSON_HEADERS, (b"content-length", str(len(body)).encode())]
    else:
        body = encoded[0]
        headers = [*JSON_HEADERS, *encoded[1], (b"content-length", str(len(body)).encode())]
    if extra:
        headers += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def send_empty(send: Send, status: int) -> None:
    headers = [(b"content-length", b"0")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def send_refusal(
    send: Send,
    receive: Receive,
    headers: Mapping[str, str],
    message: Any,
    status: int,
    extra: Sequence[tuple[str, str]] = (),
) -> None:
    """Send an error answer for a request whose body was not (wholly) read, then close.

    The answer goes out at once with ``Connection: close``; the response stays open while
    the rest of the body is read and discarded (bounded), so the connection ends with a
    clean close the client can read up to, not a reset. A client that waits for
    ``100 Continue`` or declares more than :data:`DRAIN_MAX_BYTES` is not drained.
    """
    body = encode(message)
    start = [*JSON_HEADERS, (b"content-length", str(len(body)).encode())]
    start += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in extra]
    start.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": start})
    if not _has_unread_body(headers):
        await send({"type": "http.response.body", "body": body})
        return
    await send({"type": "http.response.body", "body": body, "more_body": True})
    await drain(receive, DRAIN_MAX_BYTES, DRAIN_MAX_S)
    await send({"type": "http.response.body", "body": b""})


def _has_unread_body(headers: Mapping[str, str]) -> bool:
    """Whether a body worth draining may follow (HTTP/1.1 framing headers)."""
    if "100-continue" in (headers.get("expect") or "").lower():
        return False  # the client sends no body until told to, and we will not tell it
    declared = headers.get("content-length")
    if declared is not None:
        return declared.isdigit() and 0 < int(declared) <= DRAIN_MAX_BYTES
    return headers.get("transfer-encoding") is not None


async def drain(receive: Receive, max_bytes: int, max_s: float) -> bool:
    """Read and discard the request body; True when it ended (or the client left) in bounds."""
    size = 0
    try:
        async with asyncio.timeout(max_s):
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return True
                size += len(message.get("body", b""))
                if not message.get("more_body", False):
                    return True
                if size > max_bytes:
                    return False
    except TimeoutError:
        return False
