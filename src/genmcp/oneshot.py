"""A request answered by one hook call in its own task: prompts, resources, completions.

``tools/call`` has the full worker lifecycle (``worker.py``: streaming, mailbox,
``handle_close``). The other methods that run user code (``prompts/get``, ``resources/read``,
``resources/list``, ``completion/complete``) call one hook and answer. :class:`OneShot` runs
that in its own asyncio task with a :class:`~genmcp.channel.Channel`, so the hook can send
progress and logs (the transport streams them as SSE), and the request is a
:class:`~genmcp.channel.Pending` like any other: the transport drains its outbox and calls
``disconnect()`` when the client leaves, which cancels the task (a plain ``def`` hook running
in a thread finishes, its answer discarded).

``answer(channel)`` is a coroutine function that returns the whole JSON-RPC reply; it turns
protocol errors into error responses. Anything it raises is logged and answered -32603, never
a hang.

Imports asyncio and genmcp's core modules; never a web framework.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, final

from genmcp.channel import FINAL, Channel, Outbox
from genmcp.errors import MCPError
from genmcp.protocol.jsonrpc import RequestId, error_response, result_response

__all__ = ["OneShot", "Reply", "call_hook", "reply_for"]

log = logging.getLogger("genmcp")

Reply = tuple[dict[str, Any], int]
"""A JSON-RPC response and the HTTP status it travels with."""


@final
class OneShot:
    """One hook call as a ``Pending`` request (see the module docstring)."""

    __slots__ = ("_on_end", "channel", "name", "outbox", "phase", "task")

    def __init__(
        self,
        *,
        name: str,
        meta: Mapping[str, Any],
        assigns: Mapping[str, Any],
        answer: Callable[[Channel], Awaitable[Reply]],
        on_end: Callable[[OneShot], None],
    ) -> None:
        loop = asyncio.get_running_loop()
        self.name = name
        self.outbox = Outbox(loop)
        self.channel = Channel(meta=meta, assigns=assigns, outbox=self.outbox)
        self.phase = "running"
        self._on_end = on_end
        self.task: asyncio.Task[None] = loop.create_task(self._run(answer), name=f"genmcp:{name}")

    def disconnect(self) -> None:
        """The client went away: cancel the call; nothing more is sent."""
        if self.phase == "done" or self.channel.closed:
            return
        self.channel._close()
        self.task.cancel()

    async def _run(self, answer: Callable[[Channel], Awaitable[Reply]]) -> None:
        try:
            reply = await answer(self.channel)
        except asyncio.CancelledError:
            self._end()
            raise
        except Exception:  # answer() handles protocol errors; this is a server bug
            log.exception("%s failed", self.name)
            reply = _internal(None, self.name)
        closed = self.channel.closed
        self._end()
        if not closed:
            self.outbox.put(FINAL, reply)

    def _end(self) -> None:
        self.phase = "done"
        self.channel._close()
        self._on_end(self)


def _internal(request_id: RequestId | None, name: str) -> Reply:
    failure = MCPError("internal_error", f"Internal error in {name}")
    return error_response(request_id, failure), failure.status


async def reply_for(request_id: RequestId, name: str, result: Awaitable[dict[str, Any]]) -> Reply:
    """Await ``result`` and wrap it as the JSON-RPC reply: errors become error responses.

    ``MCPError`` is the client's answer; any other exception is a server bug, logged with
    ``name`` and answered -32603.
    """
    try:
        return result_response(request_id, await result), 200
    except MCPError as exc:
        return error_response(request_id, exc), exc.status
    except Exception:
        log.exception("%s failed", name)
        return _internal(request_id, name)


async def call_hook(fn: Callable[..., Any], *args: Any) -> Any:
    """Call a hook: awaited when it is a coroutine function, else run in a worker thread."""
    if inspect.iscoroutinefunction(fn):
        return await fn(*args)
    return await asyncio.to_thread(fn, *args)
