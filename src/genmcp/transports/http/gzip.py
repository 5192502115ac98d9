"""Cached list pages sent gzip-compressed to a client that accepts it, compressed once.

A list page (``protocol.jsonrpc.EncodedResult``: a 1,000-tool ``tools/list`` is 139 KB) is
the same bytes for every request but the request id. Compressing it per response would
cost far more than sending it; instead the page is deflated once, the first time a client
accepting gzip asks for it, and each response is that cached deflate stream with the id
appended as one stored block: ``{"jsonrpc":"2.0","result":<page>`` compressed once, then
``,"id":<id>}`` as it is. The gzip trailer's CRC-32 continues from the cached part's over
those few bytes, so a response costs a header, a few bytes and a copy of the compressed
page (the bench's 1,000-tool page: 6.9 KB for 139 KB). The id is the object's last member:
JSON-RPC members have no order.

Only a 200 answer whose result is an ``EncodedResult`` of at least :data:`MIN_BYTES` goes
this way; ``Content-Encoding: gzip`` and ``Vary: Accept-Encoding`` say so. An app's own
``GZipMiddleware`` (Starlette's) leaves a response that has a ``Content-Encoding`` as it is.
"""

from __future__ import annotations

import asyncio
import struct
import zlib
from collections.abc import Sequence
from typing import Any, Final

from genmcp.protocol.jsonrpc import EncodedResult, encode
from genmcp.transports.http.asgi import Send, send_json

__all__ = ["MIN_BYTES", "THREAD_BYTES", "accepts_gzip", "gzip_page_response", "send_page"]

MIN_BYTES: Final = 1400
"""The smallest page sent compressed (about one TCP segment: below it nothing is saved)."""
THREAD_BYTES: Final = 1024 * 1024
"""A page larger than this is deflated in a worker thread (tens of milliseconds and more),
so the event loop goes on serving meanwhile; a smaller one takes a few at most, inline."""

_HEADER: Final = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # gzip, deflate, no mtime, OS unknown
_HEAD: Final = b'{"jsonrpc":"2.0","result":'
_GZIP: Final = ((b"content-encoding", b"gzip"), (b"vary", b"accept-encoding"))


def accepts_gzip(value: str | None) -> bool:
    """Whether an ``Accept-Encoding`` value takes gzip (``gzip`` or ``x-gzip``, q above 0)."""
    if value is None:
        return False
    value = value.lower()
    if "gzip" not in value:  # the hot path: a client that does not ask
        return False
    for item in value.split(","):
        coding, _, params = item.partition(";")
        if coding.strip() not in ("gzip", "x-gzip"):
            continue
        name, _, q = params.strip().partition("=")
        if name.strip() != "q":
            return True
        try:
            return float(q) > 0
        except ValueError:
            return False
    return False


def _deflated(page: EncodedResult) -> tuple[bytes, int, int]:
    """``page``'s response head and bytes deflated once (no final block): the stream, its
    CRC-32 and its length."""
    if page.deflated is None:
        plain = _HEAD + page.encoded
        squeeze = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        stream = squeeze.compress(plain) + squeeze.flush(zlib.Z_SYNC_FLUSH)  # byte-aligned
        page.deflated = (stream, zlib.crc32(plain), len(plain))
    return page.deflated


def gzip_page_response(response: dict[str, Any]) -> bytes | None:
    """The gzip body of ``response`` when its result is a cached page worth compressing
    (``EncodedResult``, at least :data:`MIN_BYTES`), else None."""
    page = response.get("result")
    if type(page) is not EncodedResult or len(page.encoded) < MIN_BYTES:
        return None
    tail = b',"id":' + encode(response["id"]) + b"}"
    if len(tail) > 0xFFFF:  # an id too long for one stored block: sent plain
        return None
    stream, crc, size = _deflated(page)
    stored = b"\x01" + struct.pack("<HH", len(tail), len(tail) ^ 0xFFFF)  # final, stored
    trailer = struct.pack("<II", zlib.crc32(tail, crc), (size + len(tail)) & 0xFFFFFFFF)
    return b"".join((_HEADER, stream, stored, tail, trailer))


async def send_page(
    send: Send,
    response: dict[str, Any],
    accept_encoding: str | None,
    extra: Sequence[tuple[str, str]],
) -> None:
    """Send the 200 ``response`` whose result is a cached page (an ``EncodedResult``):
    gzip-compressed when the client accepts it and the page is worth it, else plain JSON."""
    body = None
    if accepts_gzip(accept_encoding):
        page: EncodedResult = response["result"]
        if page.deflated is None and len(page.encoded) > THREAD_BYTES:
            await asyncio.to_thread(_deflated, page)  # two at once: the same bytes, either kept
        body = gzip_page_response(response)
    await send_json(send, response, 200, extra, None if body is None else (body, _GZIP))
