"""The requests of one Suite in flight: every running ``Call``, by its id.

``tools/call`` workers are kept apart from the other calls: their mailboxes take posts
(``send``, and ``sync.mail`` for posts from other processes), and they are the ones a worker
id names. A call forgets itself when it ends (its ``on_end``). At shutdown every call still
here answers its shutdown end; ``subscriptions/listen`` streams are counted apart (they are
open until the client leaves, not work that runs).
"""

from __future__ import annotations

import asyncio
from typing import Any

from genmcp.call.call import Call
from genmcp.protocol.methods import SUBSCRIPTIONS_LISTEN

__all__ = ["InFlight"]


class InFlight:
    """The calls of one Suite that have not ended: ``workers`` (``tools/call``) and
    ``calls`` (every other request), each by call id."""

    __slots__ = ("calls", "workers")

    def __init__(self) -> None:
        self.workers: dict[str, Call] = {}  # tools/call in flight, by call id
        self.calls: dict[str, Call] = {}  # every other request in flight

    def forget_worker(self, call: Call) -> None:
        """The ``on_end`` of a ``tools/call``."""
        self.workers.pop(call.mailbox.id, None)  # call.id's own read: no property frame

    def forget_call(self, call: Call) -> None:
        """The ``on_end`` of any other call."""
        self.calls.pop(call.mailbox.id, None)

    def running(self) -> list[Call]:
        """The calls that run work (listen streams aside)."""
        calls = (*self.workers.values(), *self.calls.values())
        return [call for call in calls if call.request.method != SUBSCRIPTIONS_LISTEN]

    @property
    def live_workers(self) -> int:
        """How many calls are running right now."""
        return len(self.running())

    @property
    def live_listeners(self) -> int:
        """How many ``subscriptions/listen`` streams are open."""
        return len(self.workers) + len(self.calls) - self.live_workers

    def send(self, worker_id: str, message: Any) -> bool:
        """Post ``message`` to the mailbox of the tool call ``worker_id``; False if it ended."""
        call = self.workers.get(worker_id)
        return call is not None and call.mailbox.send(message)

    async def shutdown(self, within_s: float = 5) -> None:
        """Answer every live call (a shutdown error; listen streams their ``complete``
        result), and wait for them, bounded."""
        calls = [*self.workers.values(), *self.calls.values()]
        for call in calls:
            call.shutdown()
        if calls:
            waits = [asyncio.ensure_future(call.wait()) for call in calls]
            await asyncio.wait(waits, timeout=within_s)

    async def wait_idle(self, within_s: float) -> bool:
        """Wait until no call runs (listen streams aside); False if some still run after
        ``within_s`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within_s
        while (running := self.running()) and (remaining := deadline - loop.time()) > 0:
            waits = [asyncio.ensure_future(call.wait()) for call in running]
            _, pending = await asyncio.wait(waits, timeout=remaining)
            for wait in pending:
                wait.cancel()
        return not running
