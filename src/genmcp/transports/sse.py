"""The SSE writer of a streamed Call: events, keepalives, a send timeout, shutdown, disconnect.

A streamed ``tools/call`` (or any Call that sends before it answers) is written here as
``text/event-stream``, with what ``sse_starlette.EventSourceResponse`` gives the legacy GET
stream, at a fraction of its cost per response (no task group of four tasks, no cancel scope
per send):

- each event is ``data: <json>`` then a blank line (``\\n`` separators), the response last;
  with a ``journal`` (a resumable legacy POST stream) each gets the ``id:`` it was logged as;
- SSE polling (a 2025-11-25 session's journal): the stream opens with a priming event (an
  id, ``retry:``, empty data); a ``StreamClose`` (``channel.close_stream()``) ends the
  response there while the Call runs on: one task logs the rest of its events, to the
  response, for the client's ``GET`` with ``Last-Event-ID`` (``legacy.resume``);
- a keepalive comment (``: ping - <UTC time>``) every ``keepalive_s``, from one timer;
- a send that takes longer than ``send_timeout_s`` is a reader gone: the Call is
  disconnected and :class:`SendTimeout` raised, as sse-starlette does;
- the client going away (``http.disconnect``, watched by one task) disconnects the Call;
- server shutdown (one watcher per event loop, fed by the endpoint's exit signal) shuts the
  Call down, so its shutdown answer is the last event; after ``shutdown_grace_s`` the
  stream is cut.

Framework-free (ASGI messages only); the endpoint passes the exit signal in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final

from genmcp.events import Answer, Ended, Event, Interim, StreamClose
from genmcp.protocol.jsonrpc import encode
from genmcp.transports.asgi import Receive, Send, disconnected
from genmcp.transports.relay import Relay

if TYPE_CHECKING:
    from genmcp.transports.legacy.resume import Journal

__all__ = ["SSE_RAW_HEADERS", "SendTimeout", "ShutdownHub", "polled_logged", "write_stream"]

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
    """Tells every open stream of one event loop that the server stops (one watcher task)."""

    def __init__(self, exit_signal: Callable[[], Awaitable[None]]) -> None:
        self._exit_signal = exit_signal
        self._streams: set[Callable[[], None]] = set()
        self._watcher: asyncio.Task[None] | None = None

    def join(self, on_stop: Callable[[], None]) -> None:
        """Call ``on_stop`` (on the loop) when the server stops; ``leave`` when done."""
        self._streams.add(on_stop)
        watcher = self._watcher
        if watcher is None or watcher.done() or watcher.get_loop() is not _loop():
            self._watcher = _loop().create_task(self._watch(), name="genmcp:sse-shutdown")

    def leave(self, on_stop: Callable[[], None]) -> None:
        self._streams.discard(on_stop)

    async def _watch(self) -> None:
        await self._exit_signal()
        for on_stop in list(self._streams):
            on_stop()


def _loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


async def _chunk(event: Event, journal: Journal | None) -> bytes | None:
    if type(event) is Interim:
        message, final = event.message, False
    elif type(event) is Answer:
        message, final = event.response, True
    else:
        return None
    data = b"data: " + encode(message) + b"\n\n"
    if journal is None:
        return data
    event_id = await journal.record(message, final=final)
    return data if event_id is None else b"id: " + event_id.encode() + b"\n" + data


async def write_stream(
    relay: Relay,
    first: Event | None,
    receive: Receive,
    send: Send,
    *,
    extra: Sequence[tuple[str, str]],
    keepalive_s: float,
    send_timeout_s: float | None,
    shutdown_grace_s: float,
    hub: ShutdownHub,
    journal: Journal | None = None,
) -> Event | None:
    """Stream the Call from ``first`` on; a stream's end, or the first event when the Call
    answered (``Answer``) or ended (``Ended``) before anything was sent (None: client gone).

    With ``first`` None the Call has not spoken yet: its first event (or the client
    leaving) is awaited here, with the same disconnect watch the stream then uses.
    """
    loop = asyncio.get_running_loop()
    state = _State(relay, relay.call.outbox.wake)
    gone = loop.create_task(disconnected(receive), name="genmcp:sse-disconnect")
    gone.add_done_callback(state.on_gone)
    try:
        event = first
        while event is None:
            if state.gone:
                return None
            event = await relay.wake_or_next()
        if type(event) is Answer or isinstance(event, Ended):
            return event  # answered before streaming: the caller writes it as JSON
        headers = [*SSE_RAW_HEADERS]
        headers += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in extra]
        headers += _TAIL
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        hub.join(state.on_stop)  # from here on, shutdown gives the Call's last answer
        try:
            priming = None if journal is None else await journal.prime()
            if priming is not None:
                await _send(send, priming, send_timeout_s, relay)
            state.polled = priming is not None
            await _events(
                relay, event, send, state, keepalive_s, send_timeout_s, shutdown_grace_s, journal
            )
        finally:
            hub.leave(state.on_stop)
            state.stop_timers()
            if journal is not None and not journal.done and not state.detached:
                journal.closed(cancelled=state.cancelled)  # resumers learn it ended
        if state.detached and journal is not None:
            _follow(relay, journal, hub)
        return None
    finally:
        gone.remove_done_callback(state.on_gone)
        gone.cancel()
        if not state.detached:
            relay.close()


async def _events(
    relay: Relay,
    event: Event | None,
    send: Send,
    state: _State,
    keepalive_s: float,
    send_timeout_s: float | None,
    shutdown_grace_s: float,
    journal: Journal | None,
) -> None:
    """The stream's body: each event, keepalives, the shutdown answer; the end if it ends."""
    loop = asyncio.get_running_loop()
    if keepalive_s > 0:
        state.ping = loop.call_later(keepalive_s, state.on_ping)
    while True:
        if type(event) is StreamClose and state.polled and not state.gone:
            state.detached = True  # before the end is sent: the client leaving is no disconnect
            await send(_END)
            return
        if event is not None:
            chunk = await _chunk(event, journal)
            if chunk is not None:
                await _send(send, chunk, send_timeout_s, relay)
            state.cancelled = isinstance(event, Ended)
            if relay.done:
                await send(_END)
                return
        if state.gone or state.cut:
            return
        if state.ping_due:
            state.ping_due = False
            await _send(send, _ping(), send_timeout_s, relay)
            state.ping = loop.call_later(keepalive_s, state.on_ping)
        if state.stop_now:
            state.stop_now = False
            relay.call.shutdown()  # its shutdown answer comes next
            state.grace = loop.call_later(shutdown_grace_s, state.on_cut)
        event = await relay.wake_or_next()


_following: set[asyncio.Task[None]] = set()  # polled Calls being logged (kept from the GC)


def _follow(relay: Relay, journal: Journal, hub: ShutdownHub) -> None:
    """Log the rest of a Call whose stream was closed for polling, in a task of its own."""
    task = asyncio.get_running_loop().create_task(_log_rest(relay, journal, hub))
    _following.add(task)
    task.add_done_callback(_following.discard)


async def polled_logged(within_s: float) -> None:
    """Wait (at most ``within_s``) until every polled Call of this loop has logged its end:
    at shutdown, once the Suite answered its calls, so their answers reach the log."""
    loop = asyncio.get_running_loop()
    tasks = [task for task in _following if task.get_loop() is loop]
    if tasks:
        await asyncio.wait(tasks, timeout=within_s)


async def _log_rest(relay: Relay, journal: Journal, hub: ShutdownHub) -> None:
    stop = relay.call.shutdown  # at shutdown the Call answers, and that answer is logged
    hub.join(stop)
    try:
        async for event in relay:
            if type(event) is Interim:
                await journal.record(event.message, final=False)
            elif type(event) is Answer:
                await journal.record(event.response, final=True)
        if not journal.done:
            await journal.ended()  # cancelled (no response): resumers' streams end
    finally:
        hub.leave(stop)
        relay.close()


def _ping() -> bytes:
    return f": ping - {datetime.now(UTC)}\n\n".encode()


async def _send(send: Send, chunk: bytes, limit_s: float | None, relay: Relay) -> None:
    message = {"type": "http.response.body", "body": chunk, "more_body": True}
    if limit_s is None:
        await send(message)
        return
    try:
        async with asyncio.timeout(limit_s):
            await send(message)
    except TimeoutError:
        relay.close()
        raise SendTimeout(f"an SSE event took over {limit_s} s to send") from None


class _State:
    """What the timers, the disconnect watch and the shutdown hub tell the writer."""

    __slots__ = (
        "cancelled",
        "cut",
        "detached",
        "gone",
        "grace",
        "ping",
        "ping_due",
        "polled",
        "relay",
        "stop_now",
        "wake",
    )

    def __init__(self, relay: Relay, wake: Callable[[], None]) -> None:
        self.relay, self.wake = relay, wake
        self.gone = self.cut = self.ping_due = self.stop_now = False
        self.polled = self.detached = False  # primed for polling; closed by the tool
        self.cancelled = False  # the Call ended with no response
        self.ping: asyncio.TimerHandle | None = None
        self.grace: asyncio.TimerHandle | None = None

    def stop_timers(self) -> None:
        for timer in (self.ping, self.grace):
            if timer is not None:
                timer.cancel()

    def on_gone(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and not self.detached:
            self.gone = True
            self.relay.close()  # the Call is disconnected at once, as the reader left
            self.wake()

    def on_ping(self) -> None:
        self.ping_due = True
        self.wake()

    def on_stop(self) -> None:
        self.stop_now = True
        self.wake()

    def on_cut(self) -> None:
        self.cut = True
        self.wake()
