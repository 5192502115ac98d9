"""``PlainTransport``: the client's own HTTP/1.1 keep-alive pool for ``http://`` URLs.

httpx's default transport (httpcore on anyio, h11) costs about 1 ms of CPU per request on
the bench machine, against about 0.1 ms for the bytes themselves: anyio cancel scopes and
locks per read and write, a pure-Python parser. A proxy pays that on every call, so the
client's own pool (the one ``HTTPWire`` builds when it is handed none) sends ``http://``
requests over asyncio streams and parses the answers with httptools (C, uvicorn's parser,
a genmcp dependency on CPython); ``https://`` and the rest go to httpx's transport.

A response's body streams (SSE arrives as it is sent); the connection goes back to the pool
when the body was read to its end and both sides keep it alive, and is closed otherwise:
closing a response early closes its connection, which is how a 2026-07-28 client cancels.
A pooled connection the server closed while idle is not reused. Failures are httpx's
exceptions (``ConnectError``, ``ReadTimeout``...), the OS error as their cause, so callers
handle them as they would httpx's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, Final

import httpx

__all__ = ["PlainTransport", "available"]

httptools: Any
try:
    import httptools
except ImportError:  # pragma: no cover - CPython wheels only (pyproject.toml)
    httptools = None

READ: Final = 65536
IDLE_LIMIT: Final = 64
"""Idle connections kept per host and port."""
MAX_CONNECTIONS: Final = 100
"""Requests in flight at once (httpx's default pool limit); more wait for a free one."""


def available() -> bool:
    """Whether this transport can run here (httptools is installed)."""
    return httptools is not None


class _Stale(Exception):
    """A pooled connection ended before any byte of the response: send again on a new one."""


class _Parsed:
    """httptools' callbacks for one response: status line, headers, body chunks, the end."""

    __slots__ = ("body", "complete", "headers", "headers_done", "keep_alive", "parser", "reason")

    def __init__(self) -> None:
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.headers_done = self.complete = self.keep_alive = False
        self.reason = b""
        self.parser: Any = None

    def on_status(self, status: bytes) -> None:
        self.reason += status

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.headers_done = True
        # asked now: once the message is complete the parser has forgotten its headers
        self.keep_alive = self.parser.should_keep_alive()

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.complete = True


class _Connection:
    """One keep-alive TCP connection."""

    __slots__ = ("key", "reader", "writer")

    def __init__(self, key: tuple[str, int], reader: Any, writer: Any) -> None:
        self.key, self.reader, self.writer = key, reader, writer

    def usable(self) -> bool:
        """Not closed by either side while it was idle."""
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class _Body(httpx.AsyncByteStream):
    """A response's body, read from its connection as the caller iterates."""

    def __init__(
        self, pool: PlainTransport, conn: _Connection, parser: Any, parsed: _Parsed, read: Any
    ) -> None:
        self.pool, self.conn, self.parser, self.parsed, self.read_s = (
            pool,
            conn,
            parser,
            parsed,
            read,
        )
        self.done = False
        names = {name.lower() for name, _ in parsed.headers}
        self.until_close = b"content-length" not in names and b"transfer-encoding" not in names

    async def __aiter__(self) -> AsyncIterator[bytes]:
        parsed = self.parsed
        while True:
            if parsed.body:
                chunks, parsed.body = parsed.body, []
                for chunk in chunks:
                    yield chunk
            if parsed.complete:
                self.done = True
                return
            data = await _read(self.conn, self.read_s)
            if not data:
                if self.until_close:  # no length, not chunked: the body ends with the connection
                    self.done = True
                    return
                raise httpx.RemoteProtocolError("the server closed the connection mid-response")
            _feed(self.parser, data)

    async def aclose(self) -> None:
        conn, self.conn = self.conn, None  # type: ignore[assignment]
        if conn is None:
            return
        if self.done and not self.until_close and self.parsed.keep_alive:
            self.pool.release(conn)
        else:
            conn.close()  # read to no end (cancelled, or the server ends it): not reusable
        self.pool.slots.release()


async def _read(conn: _Connection, within: float | None) -> bytes:
    try:
        async with asyncio.timeout(within):
            data: bytes = await conn.reader.read(READ)
            return data
    except TimeoutError:
        conn.close()
        raise httpx.ReadTimeout(f"no data within {within:g} s") from None
    except OSError as exc:
        conn.close()
        raise httpx.ReadError(str(exc) or type(exc).__name__) from exc


def _feed(parser: Any, data: bytes) -> None:
    try:
        parser.feed_data(data)
    except httptools.HttpParserError as exc:
        raise httpx.RemoteProtocolError(f"not an HTTP response: {exc}") from None


class PlainTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 over pooled asyncio streams for ``http://``; anything else to ``fallback``."""

    def __init__(
        self,
        fallback: httpx.AsyncBaseTransport | None = None,
        *,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.fallback = fallback or httpx.AsyncHTTPTransport(trust_env=False)
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._closed = False
        self.slots = asyncio.Semaphore(max_connections)
        """One per request in flight; its response's body gives it back when closed."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme != "http" or not isinstance(request.stream, httpx.ByteStream):
            return await self.fallback.handle_async_request(request)  # https, a streamed body
        timeouts = request.extensions.get("timeout") or {}
        key = (url.host, url.port or 80)
        head = self._head(request)
        body = request.content
        try:
            async with asyncio.timeout(timeouts.get("pool")):
                await self.slots.acquire()
        except TimeoutError:
            raise httpx.PoolTimeout("every connection of the pool stayed busy") from None
        try:
            while True:
                conn, reused = self._take(key), True
                if conn is None:
                    conn, reused = await self._connect(key, timeouts.get("connect")), False
                try:
                    return await self._exchange(conn, head, body, timeouts, reused)
                except _Stale:  # a pooled connection the server dropped before answering
                    conn.close()
        except BaseException:
            self.slots.release()
            raise

    def _head(self, request: httpx.Request) -> bytes:
        url = request.url
        target = url.raw_path or b"/"
        lines = [request.method.encode() + b" " + target + b" HTTP/1.1"]
        lines += [name + b": " + value for name, value in request.headers.raw]
        return b"\r\n".join(lines) + b"\r\n\r\n"

    async def _exchange(
        self, conn: _Connection, head: bytes, body: bytes, timeouts: Any, reused: bool
    ) -> httpx.Response:
        read_s = timeouts.get("read")
        parsed = _Parsed()
        parser = parsed.parser = httptools.HttpResponseParser(parsed)
        received = False
        try:
            if len(body) < READ:
                conn.writer.write(head + body)
            else:
                conn.writer.write(head)
                conn.writer.write(body)
                async with asyncio.timeout(timeouts.get("write")):
                    await conn.writer.drain()
            while not parsed.headers_done:
                try:
                    data = await _read(conn, read_s)
                except httpx.ReadError:
                    if reused and not received:
                        raise _Stale from None
                    raise
                if not data:
                    if reused and not received:
                        raise _Stale
                    raise httpx.RemoteProtocolError("the server closed the connection")
                received = True
                _feed(parser, data)
        except TimeoutError:
            conn.close()
            raise httpx.WriteTimeout("the request could not be sent in time") from None
        except OSError as exc:
            conn.close()
            raise httpx.WriteError(str(exc) or type(exc).__name__) from exc
        except BaseException:
            conn.close()
            raise
        return httpx.Response(
            parser.get_status_code(),
            headers=parsed.headers,
            stream=_Body(self, conn, parser, parsed, read_s),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": parsed.reason},
        )

    def _take(self, key: tuple[str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.usable():
                return conn
            conn.close()
        return None

    async def _connect(self, key: tuple[str, int], within: float | None) -> _Connection:
        host, port = key
        try:
            async with asyncio.timeout(within):
                reader, writer = await asyncio.open_connection(host, port, limit=READ)
        except TimeoutError:
            raise httpx.ConnectTimeout(
                f"no connection to {host}:{port} within {within:g} s"
            ) from None
        except OSError as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from exc
        return _Connection(key, reader, writer)

    def release(self, conn: _Connection) -> None:
        """Put a connection whose response was read to its end back in the pool."""
        idle = self._idle.setdefault(conn.key, [])
        if self._closed or len(idle) >= IDLE_LIMIT or not conn.usable():
            conn.close()
            return
        idle.append(conn)

    async def aclose(self) -> None:
        self._closed = True
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()
        await self.fallback.aclose()
