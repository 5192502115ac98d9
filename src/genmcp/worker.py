"""One asyncio task and one mailbox per ``tools/call``: the call's whole lifecycle.

Lifecycle of a worker (one table, checked by tests)::

    calling    -> streaming   call returned Stream(state)
    calling    -> done        call returned Result / Error / InputRequired, or raised
    streaming  -> streaming   handle_message returned Stream(new_state)
    streaming  -> done        handle_message returned a final outcome, or raised
    calling    -> done        client went away: an async call is cancelled; a
                              thread call runs to its end, its outcome discarded
    streaming  -> closing     client went away: handle_close(channel, state, arg)
    closing    -> done        handle_close returned (or raised: logged)

The mailbox (``channel.mailbox``) accepts messages from any thread or task;
``send`` returns False once the worker ended (the message is dropped and
logged at debug level). The worker reports its outcome through a callback
that turns it into the JSON-RPC response, and puts that on the Outbox.

Imports asyncio and genmcp's core modules; never a web framework.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, final

from genmcp.channel import FINAL, Channel, Outbox
from genmcp.errors import CallbackReturnError
from genmcp.tool import Error, InputRequired, Outcome, Result, Stream, Tool, is_async_hook
from genmcp.validation import checked_request

if TYPE_CHECKING:
    from genmcp.tool import ToolRequest

__all__ = ["Mailbox", "Worker"]

log = logging.getLogger("genmcp")

MAILBOX_CAPACITY: Final = 10_000
_OUTCOMES: Final = (Result, Stream, Error, InputRequired)
_EXPECTED: Final = "Result, Stream, Error or InputRequired"
_WAKE: Final = object()
_ID_PREFIX: Final = secrets.token_hex(4)
_ids = itertools.count(1)


def _next_id() -> str:
    """A worker id unique across processes (random prefix) and cheap (a counter)."""
    return f"{_ID_PREFIX}-{next(_ids):x}"


@final
class Mailbox:
    """A worker's inbox: ``send`` from anywhere, the worker receives one at a time."""

    __slots__ = ("_closed", "_loop", "_queue", "_thread", "id")

    def __init__(self, loop: asyncio.AbstractEventLoop, worker_id: str) -> None:
        self.id = worker_id
        self._loop = loop
        self._thread = threading.get_ident()
        self._queue: asyncio.Queue[Any] | None = None  # made on first use: most calls never stream
        self._closed = False

    @property
    def closed(self) -> bool:
        """True once the worker ended; sends are dropped from then on."""
        return self._closed

    def _inbox(self) -> asyncio.Queue[Any]:
        if self._queue is None:
            self._queue = asyncio.Queue(MAILBOX_CAPACITY)
        return self._queue

    def send(self, message: Any) -> bool:
        """Post ``message`` to the worker; False when it ended or the mailbox is full."""
        if self._closed:
            log.debug("mailbox %s closed: message dropped", self.id)
            return False
        if threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self._put, message)
            return True
        return self._put(message)

    def _put(self, message: Any) -> bool:
        if self._closed:
            log.debug("mailbox %s closed: message dropped", self.id)
            return False
        try:
            self._inbox().put_nowait(message)
        except asyncio.QueueFull:
            log.warning("mailbox %s full (%d): message dropped", self.id, MAILBOX_CAPACITY)
            return False
        return True

    async def receive(self) -> Any:
        """Wait for the next message (``_WAKE`` when the worker is being closed)."""
        return await self._inbox().get()

    def close(self) -> None:
        """Refuse further messages and wake a waiting receiver."""
        if not self._closed:
            self._closed = True
            if self._queue is None:  # nobody ever sent or waited: nothing to wake
                return
            inbox = self._queue
            if inbox.full():
                inbox.get_nowait()
            inbox.put_nowait(_WAKE)


@final
class Worker:
    """Runs one call: ``call``, then ``handle_message`` per mailbox message while streaming."""

    __slots__ = (
        "_finish",
        "_on_end",
        "_state",
        "arg",
        "channel",
        "mailbox",
        "name",
        "outbox",
        "phase",
        "request",
        "task",
        "tool",
    )

    def __init__(
        self,
        *,
        tool: Tool,
        arg: Any,
        name: str,
        request: ToolRequest,
        meta: dict[str, Any],
        assigns: Mapping[str, Any],
        finish: Callable[[Outcome | BaseException], tuple[dict[str, Any], int]],
        on_end: Callable[[Worker], None],
    ) -> None:
        loop = asyncio.get_running_loop()
        self.tool, self.arg, self.name, self.request = tool, arg, name, request
        self.outbox = Outbox(loop)
        self.mailbox = Mailbox(loop, _next_id())
        self.channel = Channel(meta=meta, assigns=assigns, outbox=self.outbox, mailbox=self.mailbox)
        self.phase = "calling"
        self._state: Any = None
        self._finish = finish
        self._on_end = on_end
        self.task: asyncio.Task[None] = loop.create_task(self._run(), name=f"genmcp:{name}")

    @property
    def id(self) -> str:
        """The worker id, also ``channel.mailbox.id``."""
        return self.mailbox.id

    def disconnect(self) -> None:
        """The client went away: cancel an async call, or close a stream."""
        if self.phase == "done" or self.channel.closed:
            return
        self.channel._close()
        if self.phase == "calling" and is_async_hook(self.tool, "call"):
            self.task.cancel()
        else:
            self.mailbox.close()

    async def _run(self) -> None:
        outcome: Outcome | BaseException
        try:
            outcome = await self._drive()
        except asyncio.CancelledError:
            self._end()
            raise
        except Exception as exc:  # every hook failure is answered, never a hang
            outcome = exc
        if self.channel.closed:
            self._end()
            return
        response = self._finish(outcome)
        self._end()
        self.outbox.put(FINAL, response)

    async def _drive(self) -> Outcome:
        # schema: validate off the event loop when costly (genmcp.validation; port this line)
        request = await checked_request(self.tool, self.request, self.arg)
        outcome = await self._invoke("call", request, self.channel, self.arg)
        while isinstance(outcome, Stream):
            self.phase, self._state = "streaming", outcome.state
            if self.channel.closed:
                break
            message = await self.mailbox.receive()
            if self.channel.closed:
                break
            outcome = await self._invoke(
                "handle_message", message, self.channel, self._state, self.arg
            )
        if isinstance(outcome, Stream):  # closed while streaming
            await self._close_stream()
        return outcome

    async def _close_stream(self) -> None:
        self.phase = "closing"
        try:
            await _call_hook(self.tool, "handle_close", self.channel, self._state, self.arg)
        except Exception:
            log.exception("tool %r: handle_close() raised", self.name)

    async def _invoke(self, hook: str, *args: Any) -> Outcome:
        outcome = await _call_hook(self.tool, hook, *args)
        if not isinstance(outcome, _OUTCOMES):
            raise CallbackReturnError(self.name, hook, outcome, _EXPECTED)
        return outcome

    def _end(self) -> None:
        self.phase = "done"
        self.channel._close()
        self.mailbox.close()
        self._on_end(self)


def _call_hook(tool: Tool, hook: str, *args: Any) -> Awaitable[Any]:
    fn = getattr(tool, hook)
    if is_async_hook(tool, hook):
        awaitable: Awaitable[Any] = fn(*args)
        return awaitable
    return asyncio.to_thread(fn, *args)
