"""A bound on request heads under uvicorn's httptools parser: ``BoundedHeads``.

uvicorn bounds a request head (request line and headers) under h11 (h11's 16 KiB incomplete
event), but not under httptools, genmcp's default parser: there a 32 MiB header is read and
answered. :class:`BoundedHeads` is uvicorn's httptools protocol with the same bound: a head
of more than :data:`MAX_HEAD_BYTES` is answered ``431 Request Header Fields Too Large`` and
the connection closed, with at most that many bytes (plus one read) held for it. Bytes are
counted as they arrive while a head is incomplete (so a head that never ends is cut too);
once it is parsed, it is measured exactly (request target, names, values) only when the
reads it came in hold more than the bound: a usual request pays no callback per header (the
per-header count cost about 15k instructions a request, bench/heads_instructions.py).
Without httptools it is uvicorn's h11 protocol, bounded by h11 itself.

Give it to uvicorn as its HTTP protocol: ``genmcp run`` does, and
``uvicorn --http genmcp.transports.http.heads:BoundedHeads app:app`` on the command line.
Subclass it to change the bound (``max_head_bytes``).

Reaches into uvicorn's protocol class (checked on uvicorn 0.30 to 0.55, httptools 0.6 and
0.9): its ``data_received``, parser callbacks, ``url`` and ``headers`` and ``send_400_response``.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Final

__all__ = ["MAX_HEAD_BYTES", "BoundedHeads", "protocol_for"]

MAX_HEAD_BYTES: Final = 16 * 1024
"""The largest request head served (h11's own bound under uvicorn)."""

_TOO_LARGE: Final = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: 32\r\n"
    b"connection: close\r\n\r\n"
    b"Request header fields too large\n"
)

if importlib.util.find_spec("httptools") is not None:
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class _HeadTooLarge(httptools.HttpParserError):
        """Stops the parser: the head is past the bound (431 already sent)."""

    # uvicorn's own methods, called directly (no super object per call: the hot path)
    _data_received = HttpToolsProtocol.data_received
    _headers_complete = HttpToolsProtocol.on_headers_complete
    _message_complete = HttpToolsProtocol.on_message_complete

    class BoundedHeads(HttpToolsProtocol):
        """uvicorn's httptools protocol with a bound on each request's head (see module)."""

        max_head_bytes: int = MAX_HEAD_BYTES

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._heading = True  # a head is being read (not a body)
            self._arrived = 0  # bytes received while the head is incomplete
            self._last = 0  # the size of the read being parsed (a head may start inside it)
            self._refused = False

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return
            self._last = size = len(data)
            if self._heading:
                self._arrived += size
            _data_received(self, data)
            if self._heading and self._arrived > self.max_head_bytes and not self._refused:
                self._refuse()  # a head that does not end within the bound

        def on_headers_complete(self) -> None:
            # The head came in the reads counted since it began: only when those are over
            # the bound can the head be, and only then is it measured (its target, names
            # and values as parsed), so a usual request pays no per-header callback.
            if self._arrived + self._last > self.max_head_bytes and (
                self._head_size() > self.max_head_bytes
            ):
                self._refuse()
                raise _HeadTooLarge("request head too large")
            self._heading, self._arrived = False, 0
            _headers_complete(self)

        def on_message_complete(self) -> None:
            _message_complete(self)
            self._heading, self._arrived = True, 0  # the next request's head (keep-alive)

        def send_400_response(self, msg: str) -> None:
            if not self._refused:  # the 431 was sent: the parser's stop is no 400
                super().send_400_response(msg)

        def _head_size(self) -> int:
            """The parsed head's bytes: target, then each header's name, value, ": " and CRLF."""
            headers = self.headers
            return len(self.url) + sum(len(n) + len(v) for n, v in headers) + 4 * len(headers)

        def _refuse(self) -> None:
            self._refused = True
            if not self.transport.is_closing():
                self.transport.write(_TOO_LARGE)
                self.transport.close()

else:  # pragma: no cover - httptools is installed wherever it has wheels
    from uvicorn.protocols.http.h11_impl import H11Protocol

    BoundedHeads = H11Protocol  # type: ignore[misc,assignment]


def protocol_for(http: str) -> Any:
    """What uvicorn's ``http=`` gets for the parser named ``http``: under httptools,
    :class:`BoundedHeads`; else the name (h11 bounds heads itself)."""
    return BoundedHeads if http == "httptools" else http
