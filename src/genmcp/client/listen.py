"""``Subscription``: the server's change notifications, as an async iterator, in either era.

``client.listen(...)`` returns one; entering it subscribes:

* 2026-07-28: a ``subscriptions/listen`` request whose SSE stream (or stdio replies) carries
  the notifications; ``acknowledged`` is what the server's first message said it honours.
  Leaving closes the stream (HTTP) or cancels the request (stdio).
* 2025: what the session's GET stream (HTTP, opened by the client with the session) or the
  process (stdio) sends unasked, plus ``resources/subscribe`` for each URI;
  ``acknowledged`` is what was asked. Leaving unsubscribes.

Iterating yields each notification message (``{"method", "params"}``) until the server ends
the subscription; a failure of the stream is raised at the end of the iteration.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from genmcp.client.connection import Connection, Listener
from genmcp.client.errors import ClientError
from genmcp.client.exchange import Handlers
from genmcp.client.http import HTTPWire
from genmcp.protocol.client import Message, as_object
from genmcp.protocol.methods import (
    PROMPTS_LIST_CHANGED,
    RESOURCES_LIST_CHANGED,
    RESOURCES_SUBSCRIBE,
    RESOURCES_UNSUBSCRIBE,
    RESOURCES_UPDATED,
    SUBSCRIPTIONS_ACKNOWLEDGED,
    SUBSCRIPTIONS_LISTEN,
    TASKS,
    TASKS_STATUS,
    TOOLS_LIST_CHANGED,
)

__all__ = ["Requester", "Subscription", "listen_filters"]

STREAM_WAIT: Final = 10.0
"""Seconds a 2025 subscription waits for the session's GET stream to open."""
FLAGS: Final = {
    TOOLS_LIST_CHANGED: "toolsListChanged",
    PROMPTS_LIST_CHANGED: "promptsListChanged",
    RESOURCES_LIST_CHANGED: "resourcesListChanged",
}


class Requester(Protocol):
    """What a subscription needs of its ``Client``."""

    url: str
    connection: Connection

    async def connect(self) -> dict[str, Any]:
        """Learn the era."""
        ...

    async def request(
        self, method: str, params: Mapping[str, Any] | None = None, *, handlers: Handlers | None
    ) -> Any:
        """Send one request; its result."""
        ...

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Get what no request claims."""
        ...


def listen_filters(
    tools: bool, prompts: bool, resources: bool, uris: Sequence[str], task_ids: Sequence[str]
) -> dict[str, Any]:
    """The filters of a subscription: the list changes wanted, the resources and tasks
    followed (``client.listen(...)``'s arguments)."""
    wanted = {"toolsListChanged": tools, "promptsListChanged": prompts,
              "resourcesListChanged": resources}  # fmt: skip
    filters: dict[str, Any] = {key: True for key, on in wanted.items() if on}
    if uris:
        filters["resourceSubscriptions"] = list(uris)
    if task_ids:
        filters["taskIds"] = list(task_ids)
    return filters


class Subscription:
    """One subscription to a server's changes (see the module docstring)."""

    def __init__(self, client: Requester, filters: dict[str, Any]) -> None:
        self.client, self.filters = client, filters
        self.acknowledged: dict[str, Any] = {}
        """The notifications the server said it will send."""
        self.result: Any = None
        """The listen request's result, when the server ended the subscription (2026-07-28)."""
        self._queue: asyncio.Queue[Message | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._error: BaseException | None = None
        self._remove: Any = None

    async def __aenter__(self) -> Subscription:
        await self.client.connect()
        try:
            if self.client.connection.session is None:
                await self._listen()
            else:
                await self._legacy()
        except BaseException:  # cancelled or refused while subscribing: nothing is left held
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Message:
        message = await self._queue.get()
        if message is None:
            self._queue.put_nowait(None)  # stays ended
            if self._error is not None:
                raise self._error
            raise StopAsyncIteration
        return message

    async def close(self) -> None:
        """End the subscription (also done on leaving the ``async with``)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._remove is not None:
            self._remove()
            self._remove = None
            for uri in self.filters.get("resourceSubscriptions") or ():
                with contextlib.suppress(ClientError):
                    await self.client.request(RESOURCES_UNSUBSCRIBE, {"uri": uri}, handlers=None)
        self._queue.put_nowait(None)

    async def _listen(self) -> None:
        acknowledged: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

        async def on_notification(message: Message) -> None:
            if message.get("method") == SUBSCRIPTIONS_ACKNOWLEDGED:
                if not acknowledged.done():
                    params = message.get("params") or {}
                    acknowledged.set_result(dict(params.get("notifications") or {}))
                return
            await self._queue.put(message)

        async def listening() -> None:
            handlers = Handlers(on_notification=on_notification)
            params = {"notifications": self.filters}
            self.result = await self.client.request(SUBSCRIPTIONS_LISTEN, params, handlers=handlers)

        self._task = self._start(listening())
        waiting: set[asyncio.Future[Any]] = {acknowledged, self._task}
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if acknowledged in done:
            self.acknowledged = acknowledged.result()
            return
        acknowledged.cancel()
        if self._error is not None:
            raise self._error
        raise ClientError(f"{self.client.url} ended subscriptions/listen before acknowledging it")

    async def _legacy(self) -> None:
        self._remove = self.client.add_listener(self._on_legacy)
        for uri in self.filters.get("resourceSubscriptions") or ():
            await self.client.request(RESOURCES_SUBSCRIBE, {"uri": uri}, handlers=None)
        self.acknowledged = dict(self.filters)
        connection = self.client.connection
        if isinstance(connection.wire, HTTPWire):  # changes come on the session's GET stream
            with contextlib.suppress(TimeoutError):  # not wait_for: on 3.11 it can swallow
                async with asyncio.timeout(STREAM_WAIT):  # a cancel that lands as it ends
                    await connection.stream_open.wait()

    async def _on_legacy(self, message: Message) -> None:
        method = message.get("method")
        params = as_object(message.get("params"))
        if method in FLAGS:
            wanted = bool(self.filters.get(FLAGS[method]))
        elif method == RESOURCES_UPDATED:
            wanted = params.get("uri") in (self.filters.get("resourceSubscriptions") or ())
        elif method in (TASKS, TASKS_STATUS):
            wanted = params.get("taskId") in (self.filters.get("taskIds") or ())
        else:
            wanted = False
        if wanted:
            await self._queue.put(message)

    def _start(self, work: Awaitable[Any]) -> asyncio.Task[None]:
        async def run() -> None:
            try:
                await work
            except ClientError as exc:
                self._error = exc
            finally:
                self._queue.put_nowait(None)

        return asyncio.create_task(run(), name=f"listen {self.client.url}")
