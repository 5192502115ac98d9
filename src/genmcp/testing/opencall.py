"""Requests ``MCPTestClient`` holds open, read a message at a time: ``OpenCall``, ``Listener``.

An ``OpenCall`` is a ``tools/call`` in flight: its notifications are recorded (and shown to
the progress callback as they come); in a 2025 session a server request on the stream is
answered through ``on_request`` and reading goes on. A ``Listener`` is a
``subscriptions/listen`` stream (2026-07-28). Also the small helpers the client shares:
waits with a timeout, callbacks.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from genmcp.protocol.methods import PROGRESS
from genmcp.testing.exchange import Exchange
from genmcp.testing.results import CallResult, Reply

__all__ = ["Listener", "OpenCall", "ProgressCallback", "ServerRequests", "callback", "within"]

Message = dict[str, Any]
T = TypeVar("T")
ProgressCallback = Callable[[dict[str, Any]], object]
ServerRequests = Callable[[Message], Awaitable[None]]


class OpenCall:
    """A ``tools/call`` in flight (see ``MCPTestClient.open_call``)."""

    def __init__(
        self,
        exchange: Exchange,
        name: str,
        arguments: Any,
        timeout: float,
        on: ProgressCallback,
        on_request: ServerRequests | None = None,
    ):
        self.name, self.arguments = name, arguments
        self.notifications: list[Message] = []
        self.server_requests: list[Message] = []  # 2025 sessions: elicitation/create, ...
        self._on_request = on_request
        self._exchange, self._timeout, self._on = exchange, timeout, on
        self._response: Message | None = None
        self._ended = False

    @property
    def done(self) -> bool:
        """True once the response arrived or the client disconnected."""
        return self._ended

    async def _next(self) -> Message | None:
        if self._ended:
            return None
        message = await within(self._exchange.receive(), self._timeout, "the server")
        while message is not None and "method" in message and "id" in message:
            self.server_requests.append(message)  # a 2025 server request: answer, read on
            if self._on_request is None:
                raise AssertionError(f"the server asked {message['method']}: give answers=")
            await within(self._on_request(message), self._timeout, "the answer")
            message = await within(self._exchange.receive(), self._timeout, "the server")
        if message is None or "method" not in message:
            self._response, self._ended = message, True
            await self._exchange.aclose()
            return None
        self.notifications.append(message)
        await _invoke(self._on, message)
        return message

    async def next_notification(self) -> Message:
        """Wait for the next notification; AssertionError if the call answers first."""
        message = await self._next()
        if message is None:
            raise AssertionError(f"the call ended without another notification: {self._response}")
        return message

    async def reply(self) -> Reply:
        """Read to the response; the whole reply (an error response is returned, not raised)."""
        while await self._next() is not None:
            pass
        return Reply(self._response, self._exchange.status, self.notifications)

    async def result(self) -> CallResult:
        """Wait for the response; raises ``RPCError`` for an error response."""
        while await self._next() is not None:
            pass
        reply = Reply(self._response, self._exchange.status, self.notifications)
        return CallResult(self.name, self.arguments, reply.unwrap(), self.notifications)

    async def disconnect(self) -> None:
        """Go away before the response, as a client closing the stream does.

        Returns once the transport let go of the request, and for a Suite once its worker
        ended (``handle_close`` ran); with an app, ``client.wait_idle()`` waits for that.
        """
        if not self._ended:
            self._ended = True
            await within(self._exchange.disconnect(), self._timeout, "the disconnect")


class Listener:
    """A ``subscriptions/listen`` stream held open (see ``MCPTestClient.listen``).

    ``acknowledged`` holds the params of ``notifications/subscriptions/acknowledged`` (what
    the server honors); ``next()`` waits for the next notification after it.
    """

    def __init__(self, exchange: Exchange, timeout: float) -> None:
        self.acknowledged: dict[str, Any] = {}
        self.notifications: list[Message] = []
        self.response: Message | None = None
        self._exchange, self._timeout = exchange, timeout

    async def next(self) -> Message:
        """The next notification; AssertionError if the stream ends first."""
        try:
            message = await asyncio.wait_for(self._exchange.receive(), self._timeout)
        except TimeoutError:
            raise TimeoutError(f"no notification within {self._timeout}s") from None
        if message is None or "method" not in message:
            self.response = message
            raise AssertionError(f"the listen stream ended: {message}")
        self.notifications.append(message)
        return message


def callback(progress: bool | ProgressCallback) -> ProgressCallback:
    if callable(progress):
        chosen = progress

        def on_progress(message: Message) -> object:
            if message.get("method") == PROGRESS:
                return chosen(message.get("params", {}))
            return None

        return on_progress
    return lambda message: None


async def _invoke(callback: ProgressCallback, message: Message) -> None:
    value = callback(message)
    if inspect.isawaitable(value):
        await value


async def within(awaitable: Awaitable[T], seconds: float, what: str) -> T:
    try:
        return await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        raise TimeoutError(f"waited {seconds}s for {what}") from None
