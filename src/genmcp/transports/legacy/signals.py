"""Cancellations and session ends for legacy calls, on one subscription per process.

A legacy call in flight can be stopped from any process: ``notifications/cancelled`` for its
request id, or ``DELETE`` of its session, may land on another process than the one running
it. Subscribing once per call would cost a ``SUBSCRIBE`` and an ``UNSUBSCRIBE`` on every
``tools/call`` (the hot path). Instead :class:`CallSignals` keeps this process's calls in
flight by ``(session, request id)`` and holds **one** broker subscription, opened once, to
two fixed topics that every process shares: :data:`CANCELS` (``{"s": session, "id": id}``)
and :data:`ENDS` (a session key). A signal for a call that runs here stops it; one for a call
elsewhere is ignored here (the process running it got it too). A signal for a local call
stops it at once, without the broker.

Delivery is the broker's (at most once: a cancel published while this process's
subscription is reconnecting is lost, and the call runs to its end, as the spec allows).

Imports asyncio and genmcp's core and storage; never a web framework.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import Any, Final, final

from genmcp._suite.call import Call
from genmcp.protocol.jsonrpc import RequestId
from genmcp.storage import Broker, Subscription

__all__ = ["CANCELS", "ENDS", "CallSignals"]

log = logging.getLogger("genmcp")

CANCELS: Final = "legacy.cancel"
"""Broker topic of ``notifications/cancelled`` for legacy calls: ``{"s": key, "id": id}``."""
ENDS: Final = "legacy.end"
"""Broker topic of ended legacy sessions: the session key."""


def _key(session: str, request_id: Any) -> tuple[str, Any]:
    kind = type(request_id)
    if kind is str or kind is int:  # every valid id: 1 and "1" stay two keys
        return session, request_id
    return session, json.dumps(request_id)  # anything else a peer sent (never one of ours)


@final
class CallSignals:
    """This process's legacy calls in flight, and the one subscription that stops them."""

    __slots__ = ("_broker", "_calls", "_ready", "_subscription", "_task")

    def __init__(self, broker: Broker) -> None:
        self._broker = broker
        self._calls: dict[tuple[str, Any], Call] = {}
        self._subscription: Subscription | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None

    @property
    def topics(self) -> int:
        """Broker topics held for the whole process (2 once listening, else 0)."""
        return 0 if self._subscription is None else 2

    @property
    def in_flight(self) -> int:
        """How many of this process's legacy calls are tracked (not done yet)."""
        return len(self._calls)

    def running(self, session: str, request_id: RequestId) -> bool:
        """Whether this process runs the request ``request_id`` of ``session``, unanswered.

        An answered call's id is free at once (``track`` forgets a call in the step that
        ends it), though its task may end a loop turn later: a client may reuse an id it
        has its answer for.
        """
        return _key(session, request_id) in self._calls

    @property
    def listening(self) -> bool:
        """True once the subscription is ready: a cancel posted anywhere reaches our calls."""
        ready = self._ready
        return ready is not None and ready.done()

    def track(self, session: str, request_id: RequestId, call: Call) -> None:
        """Keep ``call`` stoppable until it is done (forgotten in the step that ends it,
        not by a task done callback: that would cost a loop handle on every call)."""
        key = _key(session, request_id)
        self._calls[key] = call
        call.when_done(lambda: self._forget(key, call))

    async def cancel(self, session: str, request_id: Any) -> None:
        """``notifications/cancelled``: stop the call here, or tell the other processes."""
        call = self._calls.get(_key(session, request_id))
        if call is not None:
            call.cancel()
        else:
            await self._broker.publish(CANCELS, {"s": session, "id": request_id})

    async def end(self, session: str) -> None:
        """The session ended: stop its calls here and in every other process."""
        self._end_here(session)
        await self._broker.publish(ENDS, session)

    def close(self) -> None:
        """Drop the subscription (the next call opens it again)."""
        if self._subscription is not None:
            self._subscription.close()
        if self._task is not None:
            self._task.cancel()
        self._subscription = self._task = self._ready = None

    # -- the subscription ---------------------------------------------------------------

    async def listen(self) -> None:
        """Open the subscription (bounded by the broker). The server awaits it before the
        process's first call starts, so a cancel sent the moment that call runs is not lost."""
        if self._ready is None:
            loop = asyncio.get_running_loop()
            self._ready = ready = loop.create_future()
            self._subscription = subscription = self._broker.subscribe(CANCELS, ENDS)
            self._task = loop.create_task(self._follow(subscription), name="genmcp:legacy-signals")
            try:
                await subscription.ready()  # StorageUnavailable when the broker's store is
            except BaseException:  # down or hung: this call fails, the next one tries again
                self.close()
                raise
            finally:
                if not ready.done():
                    ready.set_result(None)
        elif not self._ready.done():
            await asyncio.shield(self._ready)

    async def _follow(self, subscription: Subscription) -> None:
        while True:
            topic, message = await subscription.receive()
            if topic == ENDS and isinstance(message, str):
                self._end_here(message)
            elif topic == CANCELS and isinstance(message, Mapping):
                session = message.get("s")
                call = self._calls.get(_key(str(session), message.get("id")))
                if call is not None:
                    call.cancel()

    def _end_here(self, session: str) -> None:
        for (owner, _), call in list(self._calls.items()):
            if owner == session:
                call.cancel()

    def _forget(self, key: tuple[str, Any], call: Call) -> None:
        if self._calls.get(key) is call:
            del self._calls[key]
