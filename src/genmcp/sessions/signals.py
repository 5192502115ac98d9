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

A cancel may also overtake its call: the client sends it a moment after the request, and it
reaches a process before the request reached its worker. Every process that sees a cancel
for no call of its own remembers it for :data:`EARLY_S` (at most :data:`MAX_EARLY` of them,
the oldest forgotten first); a call of that session and request id that starts within the
window is cancelled as it starts. The process that finds the call publishes that it did
(``"done"``), and the others forget it, so the id is free again at once. (Clients number
their requests: an id is not reused within seconds of a cancel that found no call.) The hot
path pays one truthiness test of an empty dict.

Imports asyncio and genmcp's core and storage; never a web framework.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping
from functools import partial
from typing import Any, Final, final

from genmcp.call.call import Call
from genmcp.call.lifecycle import Phase
from genmcp.protocol.jsonrpc import RequestId
from genmcp.storage import Broker, Subscription

__all__ = ["CANCELS", "EARLY_S", "ENDS", "MAX_EARLY", "CallSignals"]

log = logging.getLogger("genmcp")

CANCELS: Final = "legacy.cancel"
"""Broker topic of ``notifications/cancelled`` for legacy calls: ``{"s": key, "id": id}``."""
ENDS: Final = "legacy.end"
"""Broker topic of ended legacy sessions: the session key."""
EARLY_S: Final = 2.0
"""How long a cancel that came before its call is remembered (seconds)."""
MAX_EARLY: Final = 1024
"""How many such cancels a process remembers at most."""

# Members read on every call, bound once: on Python 3.11 a read such as ``Phase.DONE`` goes
# through EnumType's ``__getattr__`` hook (about 1k instructions); a module name does not.
_DONE: Final = Phase.DONE


def _key(session: str, request_id: Any) -> tuple[str, Any]:
    kind = type(request_id)
    if kind is str or kind is int:  # every valid id: 1 and "1" stay two keys
        return session, request_id
    return session, json.dumps(request_id)  # anything else a peer sent (never one of ours)


@final
class CallSignals:
    """This process's legacy calls in flight, and the one subscription that stops them."""

    __slots__ = ("_broker", "_calls", "_early", "_ready", "_subscription", "_task")

    def __init__(self, broker: Broker) -> None:
        self._broker = broker
        self._calls: dict[tuple[str, Any], Call] = {}
        self._early: dict[tuple[str, Any], float] = {}  # cancels before their call: deadline
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
        kind = type(request_id)  # _key's usual case inline: no frame (the hot path)
        key = (session, request_id) if kind is str or kind is int else _key(session, request_id)
        return key in self._calls

    @property
    def listening(self) -> bool:
        """True once the subscription is ready: a cancel posted anywhere reaches our calls."""
        ready = self._ready
        return ready is not None and ready.done()

    def track(self, session: str, request_id: RequestId, call: Call) -> None:
        """Keep ``call`` stoppable until it is done (forgotten in the step that ends it,
        not by a task done callback: that would cost a loop handle on every call)."""
        kind = type(request_id)  # _key's usual case inline: no frame (the hot path)
        key = (session, request_id) if kind is str or kind is int else _key(session, request_id)
        if call.phase is not _DONE:  # else answered in its first step (the hot path)
            self._calls[key] = call
            call.when_done(partial(self._forget, key, call))  # a C call: no lambda frame
        if self._early and self._early.pop(key, 0.0) > time.monotonic():
            call.cancel()  # its cancel came first

    async def cancel(self, session: str, request_id: Any) -> None:
        """``notifications/cancelled``: stop the call here, or tell the other processes
        (and remember it a moment here: its call may not have started yet)."""
        key = _key(session, request_id)
        call = self._calls.get(key)
        if call is not None:
            call.cancel()
        else:
            self._remember(key)
            await self._broker.publish(CANCELS, {"s": session, "id": request_id})

    def _remember(self, key: tuple[str, Any]) -> None:
        """Keep a cancel for a call not (yet) here for ``EARLY_S``; bounded, oldest first."""
        early, now = self._early, time.monotonic()
        for old, deadline in list(early.items()):  # in deadline order: stop at a live one
            if deadline > now and len(early) < MAX_EARLY:
                break
            del early[old]
        early.pop(key, None)
        early[key] = now + EARLY_S

    @property
    def early(self) -> int:
        """How many cancels are remembered for calls that have not started (bounded)."""
        return len(self._early)

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
                key = _key(str(session), message.get("id"))
                call = self._calls.get(key)
                if message.get("done"):  # its call was found and stopped: forget it
                    self._early.pop(key, None)
                elif call is not None:
                    call.cancel()
                    await self._consumed(message)
                elif key not in self._early:  # not the one this process published
                    self._remember(key)

    async def _consumed(self, message: Mapping[str, Any]) -> None:
        """Tell the other processes a cancel found its call (they forget it: the id may be
        reused at once)."""
        try:
            await self._broker.publish(CANCELS, {**message, "done": True})
        except Exception:  # they forget it within EARLY_S anyway
            log.warning("could not tell the other processes a cancel was honoured")

    def _end_here(self, session: str) -> None:
        for (owner, _), call in list(self._calls.items()):
            if owner == session:
                call.cancel()

    def _forget(self, key: tuple[str, Any], call: Call) -> None:
        if self._calls.get(key) is call:
            del self._calls[key]
