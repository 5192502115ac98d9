"""What a request in flight does: its :class:`Job`, and the seams a Call offers around it.

A ``Job`` is one request's own work (``tools.ToolJob``, ``listen.ListenJob``, a
:class:`HookJob` for one hook call, ``tasks``); the Call (``call.py``) drives it through the
phases of ``lifecycle.py``. A :data:`Handler` answers one MCP method: it checks the request
and returns the Job (or, for a request answered at once, the result); each catalog exposes
its own, and the Suite's method table is built from them. :class:`Asker` runs input rounds
for a request whose client cannot retry by itself (a legacy session, a task);
:class:`CallObserver` watches a Call (middleware, telemetry).

Imports genmcp's channel, errors, events and JSON-RPC shapes; no asyncio.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from genmcp.channel import Channel
from genmcp.errors import MCPError
from genmcp.events import Event
from genmcp.protocol.jsonrpc import Request

__all__ = [
    "Asker",
    "CallObserver",
    "Handler",
    "Handlers",
    "HookJob",
    "Job",
    "Response",
    "plain_result",
    "require",
]

Response = dict[str, Any]
"""A result object, answered at once."""


class Job:
    """One request's own work, driven by a Call; the defaults suit a one-hook request.

    ``start`` returns the first outcome (``Stream`` keeps the call open); ``result`` turns a
    final outcome, or the exception a hook raised, into the result object (raising
    ``MCPError`` for an error response). ``cancellable`` says whether the first hook may be
    cancelled when the client leaves (an ``async def``); a thread hook runs to its end.
    """

    __slots__ = ()
    label: str = "request"
    cancellable: bool = True
    task_capable: bool = False
    drains: bool = True
    """At server shutdown a streamed request may run on to its own answer (``drain_s``);
    False: it ends at once (a listen stream, which never ends by itself)."""
    """Whether this request may run as a task (a ``tools/call`` of a task-supporting tool)."""

    async def start(self, channel: Channel) -> Any:
        """Run the first hook; its outcome. Every job defines it."""
        raise TypeError(f"{type(self).__name__} must define start()")

    async def message(self, message: Any, channel: Channel, state: Any) -> Any:
        """Handle one mailbox message while streaming; the next outcome."""
        raise TypeError(f"{self.label} does not stream")

    async def close(self, channel: Channel, state: Any) -> None:
        """The client left while streaming (``handle_close``)."""

    def result(self, outcome: Any) -> dict[str, Any]:
        """The result object of a final outcome; raises for an error response."""
        return plain_result(outcome)

    def shutdown_result(self) -> dict[str, Any] | None:
        """The result to end with when the server stops (None: a shutdown error)."""
        return None

    def finish(self) -> None:
        """Release what the job holds; called once, when the Call is done."""


def plain_result(outcome: Any) -> dict[str, Any]:
    """A result object returned as it is; an exception raised again."""
    if isinstance(outcome, BaseException):
        raise outcome
    result: dict[str, Any] = outcome
    return result


class HookJob(Job):
    """A request answered by one hook call (prompts, resources, completions)."""

    __slots__ = ("_answer", "label")

    def __init__(self, label: str, answer: Callable[[Channel], Awaitable[dict[str, Any]]]) -> None:
        self.label, self._answer = label, answer

    async def start(self, channel: Channel) -> dict[str, Any]:
        return await self._answer(channel)


Handler = Callable[[Request, dict[str, Any], Mapping[str, Any]], "Job | Response"]
"""One MCP method: ``(request, its checked _meta, assigns)`` -> the Job that answers it, or
the result when there is nothing to run; raises ``MCPError`` for an error response."""
Handlers = dict[str, Handler]
"""Method name -> handler: what each catalog exposes, and the Suite's method table."""


def require(served: bool, request: Request) -> None:
    """A method of a capability not advertised is "method not found" (spec digest §2)."""
    if not served:
        raise MCPError("method_not_found", f"Method not found: {request.method}")


class Asker(Protocol):
    """Legacy input rounds: ask the client the nested requests of an ``input_required``."""

    max_rounds: int

    async def ask(
        self, requests: Mapping[str, Mapping[str, Any]], send: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        """Send each request (``send``) and return the answers by key; ``MCPError`` if none."""
        ...


class CallObserver(Protocol):
    """Watches one Call (middleware, telemetry): its events, then its end, on the loop."""

    def event(self, event: Event) -> None:
        """One event the Call emitted (before the relay's codec)."""
        ...

    def done(self) -> None:
        """The Call is done; every event it will emit was shown."""
        ...
