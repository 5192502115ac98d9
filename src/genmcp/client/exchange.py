"""What arrives while one request is in flight, and who gets it: ``Handlers`` and ``Sink``.

A call may pass its own callbacks (``Handlers``): progress, logs, every notification raw,
and ``on_input`` for what the server asks (a proxy forwards all of them to its own client).
``Sink`` is the ``on_message`` of one request: it hands notifications to those callbacks
(change notifications that are not about the request go to the client's listeners), and
answers a 2025 server's requests (``elicitation/create``, ``sampling/createMessage``,
``roots/list``, ``ping``) through ``on_input`` or the client's ``Inputs``, writing the
response back with ``reply`` (the call's deadline stopped while the callbacks answer).
:func:`answer_all` does the same for a 2026-07-28 ``input_required`` result's
``inputRequests``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from genmcp.client.errors import RPCError
from genmcp.client.inputs import InputHandler, Inputs, resolve
from genmcp.protocol.client import Message, as_object
from genmcp.protocol.methods import MESSAGE, PING, PROGRESS

__all__ = [
    "Handlers",
    "LogHandler",
    "NotificationHandler",
    "ProgressHandler",
    "Sink",
    "answer_all",
]

logger = logging.getLogger("genmcp.client")

ProgressHandler: TypeAlias = Callable[[float, "float | None", "str | None"], Any]
"""``(progress, total, message)``: one ``notifications/progress`` of the call."""
LogHandler: TypeAlias = Callable[[str, Any, "str | None"], Any]
"""``(level, data, logger)``: one ``notifications/message`` of the call."""
NotificationHandler: TypeAlias = Callable[[Message], Any]
"""Every notification of the call, raw (``{"jsonrpc", "method", "params"}``); giving one
asks for progress."""


@dataclass(frozen=True)
class Handlers:
    """One call's callbacks; each may be sync or async, None falls back to the client's."""

    on_progress: ProgressHandler | None = None
    on_log: LogHandler | None = None
    on_notification: NotificationHandler | None = None
    on_input: InputHandler | None = None
    """Takes ``{"method", "params"}`` (what the server asks), returns its result."""
    on_resume: Callable[[], Any] | None = None
    """Called when a 2025 server ended the request's stream before its response and the
    client resumes it (SSE polling, SEP-1699): a proxy closes its own client's stream."""

    def over(self, defaults: Handlers) -> Handlers:
        """These callbacks, each missing one taken from ``defaults``."""
        return Handlers(
            self.on_progress or defaults.on_progress,
            self.on_log or defaults.on_log,
            self.on_notification or defaults.on_notification,
            self.on_input or defaults.on_input,
            self.on_resume or defaults.on_resume,
        )


async def answer_one(
    request: Mapping[str, Any], handlers: Handlers, inputs: Inputs
) -> dict[str, Any]:
    """The result of one server request: ``on_input`` first (except ``ping``), else ``inputs``."""
    if handlers.on_input is not None and request.get("method") != PING:
        result = await resolve(handlers.on_input(dict(request)))
        if not isinstance(result, Mapping):
            raise TypeError(f"on_input returned {result!r}, not a result dict")
        return dict(result)
    return await inputs.answer(request)


async def answer_all(
    asked: Mapping[str, Any], handlers: Handlers, inputs: Inputs
) -> dict[str, Any] | None:
    """``inputResponses`` for an ``input_required`` result; None when one cannot be answered."""
    if handlers.on_input is None and not all(
        isinstance(ask, Mapping) and inputs.answers(ask.get("method")) for ask in asked.values()
    ):
        return None
    return {key: await answer_one(ask, handlers, inputs) for key, ask in asked.items()}


class Sink:
    """The ``on_message`` of one request (see the module docstring)."""

    def __init__(
        self,
        handlers: Handlers,
        inputs: Inputs,
        reply: Callable[[Message], Awaitable[None]],
        elsewhere: Callable[[Message], Awaitable[None]] | None = None,
        pause: Callable[[], contextlib.AbstractAsyncContextManager[None]] | None = None,
    ) -> None:
        self.handlers, self.inputs, self.reply, self.elsewhere = handlers, inputs, reply, elsewhere
        self.pause = pause or contextlib.nullcontext
        """What the answering of a server request runs in: the call's deadline stops."""

    async def __call__(self, message: Message) -> None:
        if "id" in message:
            await self._answer(message)
            return
        method = message.get("method")
        params = as_object(message.get("params"))
        handlers = self.handlers
        if method not in (PROGRESS, MESSAGE):
            if self.elsewhere is not None:  # a change notification (2025): the listeners'
                await self.elsewhere(message)
            if handlers.on_notification is not None:
                await resolve(handlers.on_notification(message))
            return
        if handlers.on_notification is not None:
            await resolve(handlers.on_notification(message))
        if method == PROGRESS and handlers.on_progress is not None:
            progress = params.get("progress")
            total, text = params.get("total"), params.get("message")
            await resolve(handlers.on_progress(progress, total, text))  # type: ignore[arg-type]
        elif method == MESSAGE and handlers.on_log is not None:
            level = params.get("level")
            await resolve(handlers.on_log(level, params.get("data"), params.get("logger")))  # type: ignore[arg-type]

    async def resuming(self) -> None:
        """The stream ended before the response; the client resumes it (``on_resume``)."""
        if self.handlers.on_resume is not None:
            await resolve(self.handlers.on_resume())

    async def _answer(self, message: Message) -> None:
        request = {"method": message.get("method"), "params": message.get("params") or {}}
        response: Message = {"jsonrpc": "2.0", "id": message.get("id")}
        try:
            async with self.pause():
                response["result"] = await answer_one(request, self.handlers, self.inputs)
        except RPCError as exc:
            response["error"] = exc.to_error()
        except Exception:
            logger.exception("the client's %s callback failed", request["method"])
            response["error"] = {"code": -32603, "message": "the client's callback failed"}
        await self.reply(response)
