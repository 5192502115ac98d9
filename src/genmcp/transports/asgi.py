"""Raw ASGI plumbing for the HTTP transport: headers, bodies, responses, disconnects.

Framework-free (ASGI messages only), so the FastAPI adapter stays about routing and
streaming. Imports genmcp's channel, errors and protocol; never Starlette or FastAPI.
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

from genmcp.channel import Event, Pending
from genmcp.errors import MCPError
from genmcp.protocol.jsonrpc import encode

__all__ = [
    "HeaderView",
    "Receive",
    "Scope",
    "Send",
    "content_type_problem",
    "first_event",
    "read_body",
    "send_empty",
    "send_json",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

JSON_HEADERS: Final = [(b"content-type", b"application/json")]


class HeaderView(Mapping[str, str]):
    """Request headers by lower-case name, decoded only when looked up.

    ASGI gives header names lower-cased as bytes; a request is checked for a handful of
    them, so decoding every header up front is wasted work. Repeated names: the last wins.
    """

    __slots__ = ("_raw",)

    def __init__(self, raw: Iterable[tuple[bytes, bytes]]) -> None:
        self._raw: dict[bytes, bytes] = dict(raw)

    def __getitem__(self, name: str) -> str:
        return self._raw[name.encode("latin-1")].decode("latin-1")

    def get(self, name: str, default: Any = None) -> Any:  # the hot path: no KeyError
        value = self._raw.get(name.encode("latin-1"))
        return default if value is None else value.decode("latin-1")

    def __iter__(self) -> Iterator[str]:
        return (name.decode("latin-1") for name in self._raw)

    def __len__(self) -> int:
        return len(self._raw)


async def first_event(worker: Pending, receive: Receive) -> Event | None:
    """Wait for the worker's first event, or the client going away (then None)."""
    get = asyncio.ensure_future(worker.outbox.get())
    gone = asyncio.ensure_future(disconnected(receive))
    try:
        await asyncio.wait((get, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        answered = get.done()
        if not answered:
            get.cancel()  # cancelled() stays False until the task runs: never read it then
            worker.disconnect()
    return get.result() if answered else None


async def disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def content_type_problem(headers: Mapping[str, str]) -> MCPError | None:
    content_type = headers.get("content-type")
    if content_type is None or "json" in content_type.lower():
        return None
    return MCPError("unsupported_media_type", f"Unsupported Media Type: {content_type}")


async def read_body(receive: Receive, headers: Mapping[str, str], limit: int) -> bytes | None:
    """The whole request body, or None when it is over ``limit`` bytes."""
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message: Message = await receive()
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
    send: Send, message: Any, status: int, extra: Sequence[tuple[str, str]] = ()
) -> None:
    body = encode(message)
    headers = [*JSON_HEADERS, (b"content-length", str(len(body)).encode())]
    headers += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def send_empty(send: Send, status: int, content_type: bytes | None = None) -> None:
    headers = [(b"content-length", b"0")]
    if content_type is not None:
        headers.append((b"content-type", content_type))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
