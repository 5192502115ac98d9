"""The relay's HTTP writer: one Call, written as JSON or as an SSE stream, chosen once.

:func:`respond` is the one place that chooses, from its one first-event step: the event the
Call has (``Relay.poll``), else the one it has after its first step (the step is inlined: it
runs on every request, and a coroutine per request is a cost the hot path does not pay). That
answers most calls: a final event (``Answer`` or ``Ended``) is written as JSON (or an
empty stream, for a Call cancelled before it sent anything) with no task and no wait. Else the
SSE stream (``transports.http.sse.SSEStream``) is set up, its disconnect watch started, and,
if the Call has not spoken yet, its first event awaited once there: final, it is still JSON;
anything else (a notification, a server request, ``channel.start_stream()``) opens the
stream, which the SSE writer then writes to its end. The HTTP status of a JSON answer is
chosen from its reason here (``transports.http.rules.response_status``, ``errors.retry_after``).

The relay's reader lives below the transports (``genmcp.call.relay``, so the task service
reads through it too); this module is its public face: :class:`Relay` and the codecs are
re-exported here for tests, benches and other readers outside the package.

Framework-free (ASGI messages only).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Final

from genmcp.call.call import Call
from genmcp.call.relay import Relay
from genmcp.errors import http_status, retry_after
from genmcp.events import Answer, Ended, Event
from genmcp.protocol.jsonrpc import EncodedResult
from genmcp.protocol.languages import Languages, content_language_of
from genmcp.sessions.stream_log import StreamLog
from genmcp.transports.http.asgi import Receive, Send, send_json
from genmcp.transports.http.gzip import send_page
from genmcp.transports.http.rules import response_headers, response_status
from genmcp.transports.http.sse import SSEStream, StreamOptions, send_empty_stream

__all__ = ["EXPIRY_SLACK_S", "cancel_at", "respond"]

EXPIRY_SLACK_S: Final = 0.5
"""How long after its ``expires_at`` a Call is cancelled: the loop's clock and the wall clock
drift apart a little, and the session must read as ended when the Call ends."""


async def respond(
    relay: Relay,
    receive: Receive,
    send: Send,
    streams: StreamOptions,
    *,
    legacy: bool = False,
    extra: Sequence[tuple[str, str]] = (),
    journal: Callable[[], StreamLog] | None = None,
    headers: Mapping[str, str] | None = None,
    ended: Callable[[], Awaitable[Answer | None]] | None = None,
    expires_at: float | None = None,
    languages: Languages | None = None,
) -> None:
    """Write one Call: JSON when it ends before it sends anything, else an SSE stream
    (``journal`` makes, once it streams, the log that names its events and may end it early:
    a resumable legacy stream). With the request's ``headers``, a cached list page goes
    gzip-compressed to a client that accepts it (``transports.http.gzip``). A Call that ends
    with no response before it sent anything is an empty stream, unless ``ended()`` gives
    the answer to send instead, with its reason's status (a legacy call whose session ended:
    404, which a 2025 client reads as "session gone"); on a stream already open, that answer
    is its last event. A Call still running at ``expires_at`` (wall clock: its session's
    end) is cancelled then, so it never outlives its session. With ``languages`` (SEP-2792
    on), a JSON answer naming its ``contentLanguage`` carries it in ``Content-Language``, and
    it and, when the lists are negotiated, every list page ``Vary: Accept-Language`` (an SSE
    stream's events name it in ``_meta`` only: its headers went out before the answer was
    known)."""
    if relay.call.response_headers:  # what the middleware adds (quota fields)
        extra = (*extra, *relay.call.response_headers)
    event = relay.poll()  # the one first-event step: inline, as it runs on every request
    if event is None and relay.call.task is not None:
        await asyncio.sleep(0)  # let the call take its first step: most calls end here
        event = relay.poll()
    if event is None or (type(event) is not Answer and type(event) is not Ended):
        stream = SSEStream(relay, receive, send, streams)  # the client leaving disconnects it
        event = await _streamed(stream, event, extra, journal, ended, expires_at, relay.call)
        if event is None:
            return  # streamed to its end, or the client went away first
    if type(event) is not Answer and ended is not None:
        instead = await ended()
        if instead is not None:  # its own status: a legacy 404 says "session gone"
            await send_json(send, instead.response, http_status(instead.reason), extra)
            return
    if type(event) is not Answer:
        await send_empty_stream(send)  # cancelled before anything was sent
        return
    if languages is not None:
        extra = (*extra, *_language_headers(event, bool(languages.available)))
    if event.reason is None:  # the hot path: a result, 200
        if headers is not None and type(event.response.get("result")) is EncodedResult:
            await send_page(send, event.response, headers.get("accept-encoding"), extra)
        else:
            await send_json(send, event.response, 200, extra)
    else:
        extra = (  # Retry-After: storage down (503), rate limited (429)
            *extra,
            *retry_after(event.reason),
            *response_headers(event, legacy=legacy),
        )
        await send_json(send, event.response, response_status(event, legacy=legacy), extra)


async def _streamed(
    stream: SSEStream,
    event: Event | None,
    extra: Sequence[tuple[str, str]],
    journal: Callable[[], StreamLog] | None,
    ended: Callable[[], Awaitable[Answer | None]] | None,
    expires_at: float | None,
    call: Call,
) -> Answer | Ended | None:
    """A Call that did not answer at once: its final event if it comes before anything else
    (written as JSON by the caller), else None once ``stream`` wrote it to its end (or its
    client left first)."""
    stream.ended = ended
    if expires_at is not None:
        cancel_at(call, expires_at)
    try:
        if event is None:
            event = await stream.first()
            if event is None:
                return None  # the client went away first
        if type(event) is Answer or type(event) is Ended:
            return event
        await stream.write(event, extra, None if journal is None else journal())
        return None
    finally:
        stream.release()


def _language_headers(final: Answer, lists: bool) -> tuple[tuple[str, str], ...]:
    """SEP-2792's response headers of a JSON answer: its ``contentLanguage`` mirrored, and
    ``Vary: Accept-Language`` on a localized answer or, with ``lists`` negotiated, a list
    page (another preference may get another page)."""
    spoken = content_language_of(final.response)
    if spoken is not None:
        return ("content-language", spoken), _VARY
    return (_VARY,) if lists and type(final.response.get("result")) is EncodedResult else ()


_VARY: Final = ("vary", "accept-language")


def cancel_at(call: Call, expires_at: float) -> None:
    """Cancel ``call`` at ``expires_at`` (wall clock) if it still runs then; the timer goes
    with the Call."""
    delay = max(expires_at - time.time(), 0.0) + EXPIRY_SLACK_S
    timer = asyncio.get_running_loop().call_later(delay, call.cancel)
    call.when_done(timer.cancel)
