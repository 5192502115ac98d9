"""Change notifications: what the Suite publishes, and the ``subscriptions/listen`` stream.

The Suite publishes every change (a tool, prompt or resource added or removed, a resource
updated) as a plain JSON-RPC notification on the broker topic :data:`CHANGES`
(``genmcp.storage.Broker``, DESIGN §7: with a shared broker the change reaches streams held by
other processes). Two kinds of stream subscribe to it:

- a :class:`ListenJob` (2026-07-28), run by a Call: its stream first carries
  ``notifications/subscriptions/acknowledged`` with the honored filter, then only the
  notifications that filter wants, each tagged with the subscription id (the listen request
  id, verbatim). The transport streams it as SSE, with keepalives; when the client leaves,
  the broker subscription and the pump task end with the Call. A server shutdown ends it
  with the empty ``complete`` result. A filter naming ``taskIds`` adds a
  ``task_watch.TaskWatch``: the caller's tasks among them are acknowledged, their topics
  subscribed with the changes, and their ``notifications/tasks`` sent on the same stream.
  A list change of tools or prompts is sent only when what the caller sees moved (its
  visible items, ``Seen``): an item added or removed that it may not see is not its news.
- a legacy session's GET stream (2025 revisions): it forwards the same untagged
  notifications (live list changes through the same :class:`SeenFilter`),
  ``notifications/resources/updated`` only for the URIs its session subscribed to. With a
  change log (``sync.change_log``) the feed also logs each change, and such a stream
  follows the log, so that it can be resumed; else it subscribes to :data:`CHANGES`.

Imports asyncio and genmcp's core, storage and protocol modules; never a web framework.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, Protocol, final

from genmcp.call.job import Handlers, Job
from genmcp.channel import Channel, Mailbox
from genmcp.outcomes import Stream
from genmcp.protocol import tasks as task_wire
from genmcp.protocol.jsonrpc import Request, RequestId, notification
from genmcp.protocol.listen import Filter, acknowledged, listen_result, tagged
from genmcp.protocol.methods import (
    PROMPTS_LIST_CHANGED,
    RESOURCES_LIST_CHANGED,
    SUBSCRIPTIONS_LISTEN,
    TOOLS_LIST_CHANGED,
)
from genmcp.storage import Broker, Subscription
from genmcp.storage.guard import StorageUnavailable
from genmcp.sync.change_log import LOGGED, ChangeLog
from genmcp.tasks.watch import TaskWatch

if TYPE_CHECKING:
    from genmcp.sync.interest import Interest
    from genmcp.tasks.service import TaskService

__all__ = [
    "CHANGES",
    "ChangeFeed",
    "ListenJob",
    "Seen",
    "SeenFilter",
    "honored_filter",
    "listen_handlers",
]

log = logging.getLogger("genmcp")

CHANGES: Final = "genmcp.changes"
"""The broker topic of change notifications (JSON-RPC notification dicts)."""
_OPEN: Final = Stream()
"""What a listen stream's Call keeps after each message: one for all (frozen), not one per
delivery held by every stream until its next one (issue 50: what is held across a stream's
wait outlives young collections, and at 10,000 streams drives full ones)."""


class Seen(Protocol):
    """A catalog whose list changes a stream filters: what a caller sees of it now."""

    def seen(self, assigns: Mapping[str, Any]) -> tuple[Hashable, bool]:
        """What the caller sees now, and whether something is hidden from it."""
        ...


@final
class SeenFilter:
    """Which list changes a caller gets: one whose catalog moved for it (what it sees), or
    any while nothing is hidden from it. Shared by the listen stream and the 2025 GET stream.

    Args:
        lists: the filtered catalogs by notification method (``Suite.seen_lists``).
        assigns: the caller's (its request's auth assigns).
    """

    __slots__ = ("_assigns", "_lists", "_now")

    def __init__(self, lists: Mapping[str, Seen], assigns: Mapping[str, Any]) -> None:
        self._lists, self._assigns = lists, assigns
        self._now = {method: catalog.seen(assigns) for method, catalog in lists.items()}

    async def moved(self, method: Any) -> bool:
        """False for a list change the caller cannot see: what it sees did not move while
        something was hidden from it (with nothing hidden, every change is sent, as ever)."""
        catalog = self._lists.get(method) if isinstance(method, str) else None
        if catalog is None:
            return True
        await asyncio.sleep(0)  # another process's change: its catalog event applies first
        now, before = catalog.seen(self._assigns), self._now.get(method)
        self._now[method] = now
        return before is None or now[0] != before[0] or not (now[1] or before[1])


_LIST_KINDS: Final = (
    (TOOLS_LIST_CHANGED, "tools"),
    (PROMPTS_LIST_CHANGED, "prompts"),
    (RESOURCES_LIST_CHANGED, "resources"),
)


def honored_filter(
    params: Mapping[str, Any],
    capabilities: Mapping[str, Any],
    routes: Callable[[str], bool],
) -> Filter:
    """The filter a listen request asks for, narrowed to what the server can send: list
    changes of the advertised kinds, updates of resources it serves (``routes``), task ids
    when it serves tasks."""
    methods = frozenset(method for method, cap in _LIST_KINDS if cap in capabilities)
    subscribable = "resources" in capabilities
    tasks = task_wire.EXTENSION in (capabilities.get("extensions") or {})
    return Filter.parse(params).narrowed(
        methods, lambda uri: subscribable and routes(uri), tasks=tasks
    )


def listen_handlers(
    *,
    broker: Broker,
    result_meta: Mapping[str, Any],
    tasks: TaskService,
    capabilities: Callable[[], Mapping[str, Any]],
    routes: Callable[[str], bool],
    lists: Mapping[str, Seen] | None = None,
    interest: Interest | None = None,
) -> Handlers:
    """The ``subscriptions/listen`` handler: the filter narrowed to what the server sends
    (its ``capabilities()`` now, the URIs it ``routes``), then the :class:`ListenJob`;
    ``lists`` are the catalogs whose list changes go only to callers who see them move
    (by notification method); the stream holds its URIs in ``interest`` while it runs."""

    def listen(request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]) -> Job:
        tasks.check_listen(request.params, meta)
        honored = honored_filter(request.params, capabilities(), routes)
        return ListenJob(
            request_id=request.id,
            honored=honored,
            broker=broker,
            result_meta=result_meta,
            watch=tasks.watch(assigns) if honored.task_ids else None,
            seen=None if not lists else (lists, assigns),
            interest=interest,
        )

    return {SUBSCRIPTIONS_LISTEN: listen}


@final
class ListenJob(Job):
    """One ``subscriptions/listen`` request, run by a Call that streams until the client leaves.

    ``start`` subscribes, acknowledges once the subscription is ready, and forwards every
    change the filter wants into the call's mailbox (a small pump task); each message is
    then sent tagged with the subscription id. When the server stops, the stream ends with the
    empty ``complete`` listen result instead of an error.

    Args:
        request_id: the listen request id, echoed as the subscription id.
        honored: the filter the server honors (acknowledged first).
        broker: where changes are published.
        result_meta: the ``_meta`` of the closing result (server info).
        watch: the tasks to follow, when ``honored`` names task ids.
        seen: the catalogs whose list changes are filtered, and the caller's assigns.
        interest: where the stream holds its URIs while it runs (a remote mount follows).
    """

    __slots__ = (
        "_broker",
        "_interest",
        "_pump",
        "_result_meta",
        "_seen",
        "_subscription",
        "_watch",
        "_watcher",
        "honored",
        "request_id",
    )
    label = SUBSCRIPTIONS_LISTEN
    drains = False  # never ends by itself: at shutdown it ends at once, with its result

    def __init__(
        self,
        *,
        request_id: RequestId,
        honored: Filter,
        broker: Broker,
        result_meta: Mapping[str, Any],
        watch: TaskWatch | None = None,
        seen: tuple[Mapping[str, Seen], Mapping[str, Any]] | None = None,
        interest: Interest | None = None,
    ) -> None:
        self.request_id, self.honored = request_id, honored
        self._interest = interest
        self._seen = None if seen is None else SeenFilter(*seen)
        self._broker, self._result_meta = broker, result_meta
        self._subscription: Subscription | None = None
        self._pump: asyncio.Task[None] | None = None
        self._watch = watch if honored.task_ids else None
        self._watcher: asyncio.Task[None] | None = None

    async def start(self, channel: Channel) -> Stream:
        watch = self._watch
        if watch is not None:  # only the caller's tasks: the others are unknown ids
            self.honored = replace(
                self.honored, task_ids=await watch.authorize(self.honored.task_ids)
            )
        # Subscribed before the acknowledgement reaches the client: no change after it is
        # lost, even one published by another process (a shared broker confirms first).
        topics = (CHANGES, *(watch.topics if watch is not None else ()))
        self._subscription = subscription = self._broker.subscribe(*topics)
        await subscription.ready()
        channel._send(acknowledged(self.request_id, self.honored))
        if self._interest is not None and self.honored.uris:
            self._interest.hold(self, self.honored.uris)
        loop, mailbox = asyncio.get_running_loop(), channel.mailbox
        self._pump = loop.create_task(
            self._forward(subscription, mailbox), name=f"genmcp:listen:{self.request_id}"
        )
        if watch is not None and self.honored.task_ids:  # their state now, then each change
            self._watcher = loop.create_task(
                watch.run(self._sender(mailbox)), name=f"genmcp:listen-tasks:{self.request_id}"
            )
        return Stream()

    def _sender(self, mailbox: Mailbox) -> Callable[[dict[str, Any]], Any]:
        return lambda message: mailbox.send(tagged(message, self.request_id))

    async def _forward(self, subscription: Subscription, mailbox: Mailbox) -> None:
        send = self._sender(mailbox)
        while True:
            topic, message = await subscription.receive()
            if topic != CHANGES:
                if self._watch is not None:
                    await self._watch.announced(message, send)
            elif isinstance(message, dict) and self.honored.wants(message):
                if self._seen is None or await self._seen.moved(message.get("method")):
                    send(message)

    async def message(self, message: Any, channel: Channel, state: Any) -> Stream:
        channel._send(message)
        return _OPEN

    def shutdown_result(self) -> dict[str, Any]:
        return listen_result(self.request_id, self._result_meta)

    def finish(self) -> None:
        if self._interest is not None:
            self._interest.release(self)
        if self._subscription is not None:
            self._subscription.close()
        for task in (self._pump, self._watcher):
            if task is not None:
                task.cancel()


@final
class ChangeFeed:
    """Publishes change notifications on :data:`CHANGES` from plain (sync) code.

    ``Suite.add_tool`` and friends are plain methods, and ``Suite.resource_updated`` may be
    called from any thread (a file watcher, a job callback), while a broker publishes on the
    server's event loop. ``publish`` schedules the broker's ``publish`` there, in call order;
    before any request reached the Suite (``bind``) no stream can be listening, so a change
    then (the Suite being built) is not published. ``flushed`` waits for what was scheduled:
    with a shared broker, a change is then logged and replicated (a durable topic), and so
    reaches every open stream, also across a failover.
    """

    __slots__ = ("_drainer", "_pending", "_queue", "broker", "log", "loop")

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.log: ChangeLog | None = None
        """Where changes are logged for legacy GET streams (set by the legacy server)."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The server's loop, once a request reached the Suite (``bind``; an attribute, not a
        property: the Suite reads it on every request)."""
        self._queue: deque[tuple[dict[str, Any], asyncio.Future[bool]]] = deque()
        self._pending: set[asyncio.Future[bool]] = set()  # published or dropped: True/False
        self._drainer: asyncio.Task[None] | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Remember the server's loop (the Suite calls this on each request; first one wins)."""
        if self.loop is None or self.loop.is_closed():
            self.loop = loop

    def publish(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Publish the notification ``method`` (with ``params``) to every stream."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        message = notification(method, params)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._enqueue(message)
        else:
            loop.call_soon_threadsafe(self._enqueue, message)

    async def announce(self, message: dict[str, Any]) -> None:
        """Publish ``message`` on :data:`CHANGES`; with a log, log it and tell GET streams."""
        await self.broker.publish(CHANGES, message)
        if self.log is not None:
            entry = await self.log.record(message)
            await self.broker.publish(LOGGED, {"e": entry, "m": message})

    async def flushed(self) -> None:
        """Return once every change scheduled so far is published; ``StorageUnavailable``
        when one of them could not be (the broker's store stayed unreachable)."""
        await asyncio.sleep(0)  # a change scheduled from another thread is queued first
        if self._pending and not all(await asyncio.gather(*self._pending)):
            raise StorageUnavailable("the broker", "a change could not be published")

    def _enqueue(self, message: dict[str, Any]) -> None:
        # One task publishes them all, one after the other: a shared broker's publishes
        # each take a round trip, and concurrent ones could overtake each other.
        loop, drainer = asyncio.get_running_loop(), self._drainer
        done = loop.create_future()
        self._pending.add(done)
        done.add_done_callback(self._pending.discard)
        self._queue.append((message, done))
        if drainer is None or drainer.done() or drainer.get_loop() is not loop:
            self._drainer = loop.create_task(self._drain(), name="genmcp:change-feed")

    async def _drain(self) -> None:
        try:
            while self._queue:
                message, done = self._queue[0]
                try:
                    await self.announce(message)
                except Exception:
                    log.exception("publishing a change failed")
                    done.set_result(False)
                else:
                    done.set_result(True)
                self._queue.popleft()
        finally:
            if self._drainer is asyncio.current_task():
                self._drainer = None
                if self._queue and not self._queue[0][1].done():  # cancelled mid-publish
                    self._queue.popleft()[1].set_result(False)
