"""The one SSE writer: every ``text/event-stream`` response genmcp sends.

Two kinds of stream, one writer loop (``_Writer._run``: framing, keepalives, send timeout,
disconnect, shutdown), each kind only a source of items for it:

- :meth:`SSEStream.write`: a Call's events from the relay (a streamed ``tools/call``, or any
  Call that sends before it answers), the response last. ``transports.http.relay`` opens it
  once it has chosen a stream over JSON.
- :func:`write_feed`: ``(id, message)`` pairs from a source that is no Call (a legacy
  session's GET stream, or the replay of a resumed POST stream), until the source ends.

What both do, as sse-starlette's response class did for the GET stream, at a fraction of
its cost per response (no task group of four tasks, no cancel scope per send):

- each event is ``[id: <id>]`` ``data: <json>`` then a blank line (``\\n`` separators); a
  priming event (SSE polling, 2025-11-25) is an id, ``retry:`` and empty data;
- a keepalive comment (``: ping - <UTC time>``) once the stream has been silent for
  ``keepalive_s``, told by the loop's keepalive wheel (``transports.http.keepalive``: one
  timer for every stream of the loop); a stream writing items more often sends none;
- a send that takes longer than ``send_timeout_s`` is a reader gone: the Call (if any) is
  disconnected and :class:`SendTimeout` raised;
- the client going away (``http.disconnect``, watched by one task) disconnects the Call;
- server shutdown (one watcher per event loop, fed by the endpoint's exit signal): a Call is
  shut down, so its shutdown answer is the last event, and after ``shutdown_grace_s`` the
  stream is cut; a feed ends at once.

A resumable stream (a 2025 session's journal) gives the writer a :class:`StreamLog`
(``sessions.stream_log``): it names each event (its SSE id), primes the stream, and
may end the response early while the Call runs on (``channel.close_stream()``, or an event
it cannot log on a stream that named earlier ones: :class:`Unlogged`), logging the rest
itself. The writer knows nothing of the 2025 revisions beyond that protocol.

Framework-free (ASGI messages only); imports the relay's reader, never a web framework.
"""

from __future__ import annotations

import abc
import asyncio
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from genmcp.call.relay import Relay
from genmcp.events import Answer, Ended, Event, Interim
from genmcp.protocol.jsonrpc import encode
from genmcp.sessions.stream_log import StreamLog, Unlogged, priming
from genmcp.transports.http.asgi import Receive, Send, disconnected
from genmcp.transports.http.keepalive import keepalive_wheel

__all__ = [
    "SSE_RAW_HEADERS",
    "SSEStream",
    "SendTimeout",
    "ShutdownHub",
    "StreamOptions",
    "send_empty_stream",
    "write_feed",
]

log = logging.getLogger("genmcp")

SSE_RAW_HEADERS: Final = (
    (b"x-accel-buffering", b"no"),
    (b"cache-control", b"no-store"),
)
"""The stream's own headers; extra ones (a legacy session id) follow, then the framing."""
_TAIL: Final = (
    (b"connection", b"keep-alive"),
    (b"content-type", b"text/event-stream; charset=utf-8"),
)
_END: Final = {"type": "http.response.body", "body": b"", "more_body": False}


class SendTimeout(TimeoutError):
    """A streamed event was not accepted within ``send_timeout_s``: the reader is gone."""


class ShutdownHub:
    """Tells every open stream of one event loop, once, that the server stops (one watcher
    task). A stream that joins after the signal is told alone: a second broadcast would read,
    to a stream already draining, as its drain running out."""

    def __init__(self, exit_signal: Callable[[], Awaitable[None]]) -> None:
        self._exit_signal = exit_signal
        self._streams: set[Callable[[], None]] = set()
        self._watcher: asyncio.Task[None] | None = None

    def join(self, on_stop: Callable[[], None]) -> None:
        """Call ``on_stop`` (on the loop) when the server stops; ``leave`` when done."""
        watcher = self._watcher
        if watcher is None or watcher.done() or watcher.get_loop() is not _loop():
            # a new watch with a set of its own: those the last one told are not told again
            self._streams = set()
            self._watcher = _loop().create_task(
                self._watch(self._streams), name="genmcp:sse-shutdown"
            )
        self._streams.add(on_stop)

    def leave(self, on_stop: Callable[[], None]) -> None:
        self._streams.discard(on_stop)

    async def _watch(self, streams: set[Callable[[], None]]) -> None:
        await self._exit_signal()
        for on_stop in list(streams):
            on_stop()
        streams.clear()

@dataclass(frozen=True, slots=True)
class StreamOptions:
    """How an endpoint's streams are written (``mcp_router`` documents each option)."""

    keepalive_s: float
    send_timeout_s: float | None
    shutdown_grace_s: float
    hub: ShutdownHub
    drain_s: float = 0.0
    """At shutdown, how long a call that drains (``Call.drains``) may run on to its answer."""


def _loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


async def send_empty_stream(send: Send) -> None:
    """An empty stream: a Call cancelled before it sent anything."""
    headers = [(b"content-length", b"0"), (b"content-type", b"text/event-stream")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def _open(send: Send, extra: Sequence[tuple[str, str]]) -> None:
    headers = [*SSE_RAW_HEADERS]
    headers += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in extra]
    headers += _TAIL
    await send({"type": "http.response.start", "status": 200, "headers": headers})


def _event(event_id: str | None, message: Any) -> bytes:
    data = b"data: " + encode(message) + b"\n\n"
    return data if event_id is None else b"id: " + event_id.encode() + b"\n" + data


def _ping() -> bytes:
    return f": ping - {datetime.now(UTC)}\n\n".encode()


async def _send(send: Send, chunk: bytes, limit_s: float | None, relay: Relay | None) -> None:
    message = {"type": "http.response.body", "body": chunk, "more_body": True}
    if limit_s is None:
        await send(message)
        return
    try:
        async with asyncio.timeout(limit_s):
            await send(message)
    except TimeoutError:
        if relay is not None:
            relay.close()
        raise SendTimeout(f"an SSE event took over {limit_s} s to send") from None


class _Writer(abc.ABC):
    """The one writer loop, and what the timers, the client and shutdown tell it.

    A subclass gives the source: ``_source()`` (the awaitable maker of its next item, None
    when woken, and what each item is passed through first, if anything), ``wake()`` (makes
    a pending one return None), ``_deliver(item)`` (write it; True when the stream ended)
    and ``_stopping()`` (the server stops; True when the stream ended). Its caller joins
    the shutdown hub (``_on_stop``) before it opens the response. No attribute refers back
    to the writer, so a feed's source is freed (and closed) with it.
    """

    wake: Callable[[], None]
    """Wakes the loop waiting for the next item (a subclass's: a method or its source's)."""

    __slots__ = (
        "_gone_task",
        "cut",
        "detached",
        "gone",
        "grace",
        "options",
        "ping_due",
        "receive",
        "relay",
        "send",
        "stop_now",
        "wrote_at",
    )

    def __init__(
        self, relay: Relay | None, receive: Receive, send: Send, options: StreamOptions
    ) -> None:
        self.relay, self.receive, self.send = relay, receive, send
        self.options = options
        self.gone = self.cut = self.ping_due = self.stop_now = False
        self.wrote_at = -math.inf  # loop time of the last item written (keepalives: silence)
        self.detached = False  # the response ended early, the Call runs on (SSE polling)
        self.grace: asyncio.TimerHandle | None = None
        gone = _loop().create_task(disconnected(receive), name="genmcp:sse-disconnect")
        gone.add_done_callback(self._on_gone)
        self._gone_task = gone

    @abc.abstractmethod
    def _source(self) -> tuple[Callable[[], Awaitable[Any]], Callable[[Any], Any] | None]:
        """A subclass's: see the class."""

    @abc.abstractmethod
    async def _deliver(self, item: Any) -> bool:
        """A subclass's: see the class."""

    @abc.abstractmethod
    async def _stopping(self) -> bool:
        """A subclass's: see the class."""

    def _left(self) -> None:  # noqa: B027 (a hook: most writers have nothing to do)
        """The client went away (a Call is disconnected at once)."""

    async def _run(self, item: Any) -> None:
        """The stream's body: each item, keepalives, shutdown; the end if it ends."""
        send, options, relay = self.send, self.options, self.relay
        limit_s, keepalive_s = options.send_timeout_s, options.keepalive_s
        wheel = keepalive_wheel() if keepalive_s > 0 else None
        next_item, through = self._source()
        loop = _loop()
        try:
            if wheel is not None:
                wheel.schedule(self, keepalive_s)
            while True:
                if item is not None:
                    if await self._deliver(item):
                        return
                    self.wrote_at = loop.time()
                    item = None  # not held while the stream waits: it would outlive a
                    # young collection and count towards the next full one (issue 50)
                if self.gone or self.cut:
                    return
                if self.ping_due:
                    self.ping_due = False
                    await _send(send, _ping(), limit_s, relay)
                    if wheel is not None:  # the next one counts from this one, as before
                        wheel.schedule(self, keepalive_s)
                if self.stop_now:
                    self.stop_now = False
                    if await self._stopping():
                        return
                item = await next_item()
                if item is not None and through is not None:
                    item = through(item)
        finally:
            if wheel is not None:
                wheel.forget(self)
            self._stop_timers()

    def _stop_timers(self) -> None:
        if self.grace is not None:
            self.grace.cancel()

    def _unwatch(self) -> None:
        self._gone_task.remove_done_callback(self._on_gone)
        self._gone_task.cancel()

    def _on_gone(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and not self.detached:
            self.gone = True
            self._left()
            self.wake()

    def keepalive_due(self) -> None:
        """The wheel's: a keepalive is due, unless the stream wrote since it was scheduled.

        A keepalive is for a silent stream: one that wrote an item is due again
        ``keepalive_s`` after that write, without waking its loop (a stream busy with
        notifications sends no pings, and its keepalive allocates nothing that lives on).
        """
        keepalive_s, wrote_at = self.options.keepalive_s, self.wrote_at
        if _loop().time() - wrote_at < keepalive_s:  # on the same grid as every stream's
            keepalive_wheel().schedule(self, keepalive_s, since=wrote_at)
            return
        self.ping_due = True
        self.wake()

    def _on_stop(self) -> None:
        self.stop_now = True
        self.wake()

    def _on_cut(self) -> None:
        self.cut = True
        self.wake()


class SSEStream(_Writer):
    """One Call's SSE response: ``first()`` (if needed), then ``write()``; ``release()`` last.

    Built before the first event is known (``transports.http.relay``), so the same disconnect
    watch covers the wait for it and the stream.
    """

    __slots__ = ("_journal", "cancelled", "draining", "ended", "wake")

    def __init__(self, relay: Relay, receive: Receive, send: Send, options: StreamOptions) -> None:
        super().__init__(relay, receive, send, options)
        self.wake = relay.call.outbox.wake
        self.cancelled = False  # the Call ended with no response
        self.ended: Callable[[], Awaitable[Answer | None]] | None = None
        """When the Call ends with no response: the answer to end the stream with instead
        (a 2025 call whose session ended), or None for none (its client cancelled it)."""
        self.draining: asyncio.TimerHandle | None = None  # shutdown came: the call runs on
        self._journal: StreamLog | None = None

    async def first(self) -> Event | None:
        """The Call's first event, awaited; None when the client left first."""
        next_event = self._relay().wake_or_next
        while not self.gone:
            event = await next_event()
            if event is not None:
                return event
        return None

    async def write(
        self, event: Event, extra: Sequence[tuple[str, str]], journal: StreamLog | None
    ) -> None:
        """Stream the Call from ``event`` (its first, not a final one) to its end."""
        relay, options = self._relay(), self.options
        await _open(self.send, extra)
        self._journal = journal
        options.hub.join(self._on_stop)  # from here on, shutdown gives the Call's last answer
        try:
            if journal is not None:
                prime = await journal.prime()
                if prime is not None:
                    await _send(self.send, prime, options.send_timeout_s, relay)
            await self._run(event)
        finally:
            options.hub.leave(self._on_stop)
            if journal is not None and not self.detached:
                journal.unfinished(cancelled=self.cancelled)  # resumers learn it ended
        if self.detached and journal is not None:
            journal.follow(relay, options.hub)

    def release(self) -> None:
        """Stop watching the client; disconnect the Call unless it runs on (detached)."""
        self._unwatch()
        if not self.detached:
            self._relay().close()

    def _relay(self) -> Relay:
        relay = self.relay
        assert relay is not None
        return relay

    def _source(self) -> tuple[Callable[[], Awaitable[Event | None]], Callable[[Event], Event]]:
        relay = self._relay()  # the outbox itself: one coroutine less held per waiting stream
        return relay.call.outbox.get_or_wake, relay.through

    async def _deliver(self, event: Event) -> bool:
        journal, send = self._journal, self.send
        if type(event) is Ended and self.ended is not None and not self.gone:
            instead = await self.ended()  # its session ended: say so, as the last event
            if instead is not None:
                event = instead
        if journal is not None and journal.closes(event) and not self.gone:
            self.detached = True  # before the end is sent: leaving is no disconnect
            await send(_END)
            return True
        try:
            chunk = await _chunk(event, journal)
        except Unlogged:
            self.detached = True  # resumable: the client reconnects with its last id
            await send(_END)
            return True
        if chunk is not None:
            await _send(send, chunk, self.options.send_timeout_s, self.relay)
        self.cancelled = type(event) is Ended
        if self._relay().done:
            await send(_END)
            return True
        return False

    async def _stopping(self) -> bool:
        relay, options, loop = self._relay(), self.options, _loop()
        if self.draining is None and options.drain_s > 0 and relay.call.drains:
            # the server stops: the call may still answer by itself, for drain_s
            self.draining = loop.call_later(options.drain_s, self._on_stop)
        else:
            relay.call.shutdown()  # its shutdown answer comes next
            self.grace = loop.call_later(options.shutdown_grace_s, self._on_cut)
        return False

    def _left(self) -> None:
        self._relay().close()  # the Call is disconnected at once, as the reader left

    def _stop_timers(self) -> None:
        super()._stop_timers()
        if self.draining is not None:
            self.draining.cancel()


async def _chunk(event: Event, journal: StreamLog | None) -> bytes | None:
    if type(event) is Interim:
        message, final = event.message, False
    elif type(event) is Answer:
        message, final = event.response, True
    else:
        return None  # a stream start: the stream is open already
    if journal is None:
        return _event(None, message)
    return _event(await journal.name(message, final=final), message)


_DONE: Final = object()


async def write_feed(
    pairs: AsyncIterator[tuple[str | None, Any]],
    receive: Receive,
    send: Send,
    options: StreamOptions,
    *,
    retry_ms: int,
) -> None:
    """Stream ``(id, message)`` pairs (message None: a priming event) until they end, the
    client leaves or the server stops. Raises :class:`SendTimeout` for a reader gone."""
    feed = _Feed(pairs, retry_ms, receive, send, options)
    options.hub.join(feed._on_stop)
    try:
        await _open(send, ())
        await feed._run(None)
    finally:
        options.hub.leave(feed._on_stop)
        feed.close()


class _Feed(_Writer):
    """A feed's stream: the next pair is awaited in a future of its own, so a wake (a timer,
    the client leaving, shutdown) can interrupt the wait without cancelling the source."""

    __slots__ = ("_pairs", "_pending", "_retry_ms", "_woken")

    def __init__(
        self,
        pairs: AsyncIterator[tuple[str | None, Any]],
        retry_ms: int,
        receive: Receive,
        send: Send,
        options: StreamOptions,
    ) -> None:
        super().__init__(None, receive, send, options)
        self._pairs, self._retry_ms = pairs, retry_ms
        self._pending: asyncio.Future[Any] | None = None
        self._woken: asyncio.Future[None] | None = None

    def _source(self) -> tuple[Callable[[], Awaitable[Any]], None]:
        return self._next_pair, None

    async def _next_pair(self) -> Any:
        """The next pair, or None when woken first (the pair stays pending: a client gone or
        a server stopping is heeded before a pair that is ready)."""
        pending = self._pending
        if pending is None:
            pending = self._pending = asyncio.ensure_future(anext(self._pairs, _DONE))
        if not (self.gone or self.stop_now or self.ping_due):
            woken = self._woken = _loop().create_future()
            try:
                await asyncio.wait((pending, woken), return_when=asyncio.FIRST_COMPLETED)
            finally:
                self._woken = None
                woken.cancel()
        if self.gone or self.stop_now or not pending.done():
            return None
        self._pending = None
        return pending.result()

    async def _deliver(self, pair: Any) -> bool:
        if pair is _DONE:
            await self.send(_END)
            return True
        event_id, message = pair
        retry_ms = self._retry_ms
        chunk = priming(event_id, retry_ms) if message is None else _event(event_id, message)
        await _send(self.send, chunk, self.options.send_timeout_s, None)
        return False

    async def _stopping(self) -> bool:
        await self.send(_END)  # a feed ends at once
        return True

    def wake(self) -> None:
        if self._woken is not None and not self._woken.done():
            self._woken.set_result(None)

    def close(self) -> None:
        """Stop waiting for the source and watching the client."""
        if self._pending is not None:
            self._pending.cancel()
        self._unwatch()
