"""Posting to a worker by id, wherever it runs (``Suite.post``; DESIGN §7).

A worker's id (``channel.mailbox.id``) can leave the process: a tool hands it to a job
runner, a webhook carries it back. Behind a load balancer that webhook may reach another
process of the app. ``MailRelay.post`` delivers to the worker when it runs here; otherwise
it publishes ``{"worker": id, "message": message}`` on the broker topic :data:`MAIL`, and the
relay of every process that has run a ``tools/call`` hands it to the worker if it is there.

The relay only exists for a broker that may be shared (one given to the Suite): nobody else
can publish to the Suite's own default broker, so there a post for a worker that is not here
is dropped at once. Messages for a worker that has ended, anywhere, are dropped (logged at
debug level). With a shared broker they must be JSON values.

Imports asyncio and genmcp's storage interface; never a web framework.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, final

from genmcp.storage import Broker, Subscription

if TYPE_CHECKING:
    from genmcp._suite.call import Call

__all__ = ["MAIL", "MailRelay"]

log = logging.getLogger("genmcp")

MAIL: Final = "genmcp.mail"
"""The broker topic of messages posted to workers that run in another process."""


@final
class MailRelay:
    """Delivers posts to the local workers, through the broker when they are elsewhere.

    Args:
        broker: the Suite's broker.
        workers: the Suite's live workers by id (read, never changed).
        shared: whether other processes (or Suites) may publish on ``broker``.
    """

    __slots__ = ("_broker", "_shared", "_subscription", "_task", "_workers")

    def __init__(self, broker: Broker, workers: Mapping[str, Call], *, shared: bool) -> None:
        self._broker = broker
        self._workers = workers
        self._shared = shared
        self._subscription: Subscription | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Relay posts from other processes to ours (idempotent; call on the server loop)."""
        if self._shared and self._task is None:
            self._subscription = self._broker.subscribe(MAIL)
            self._task = asyncio.get_running_loop().create_task(
                self._relay(self._subscription), name="genmcp:mail-relay"
            )

    async def post(self, worker_id: str, message: Any) -> None:
        """Deliver ``message`` to the worker ``worker_id``, here or in another process."""
        worker = self._workers.get(worker_id)
        if worker is not None:
            worker.mailbox.send(message)
        elif self._shared:
            await self._broker.publish(MAIL, {"worker": worker_id, "message": message})
        else:
            log.debug("no worker %s: message dropped", worker_id)

    def close(self) -> None:
        """Stop relaying (``start`` may begin again)."""
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _relay(self, subscription: Subscription) -> None:
        while True:
            _topic, envelope = await subscription.receive()
            worker_id = envelope.get("worker") if isinstance(envelope, Mapping) else None
            worker = self._workers.get(worker_id) if isinstance(worker_id, str) else None
            if worker is not None:  # else it runs elsewhere, or ended
                worker.mailbox.send(envelope.get("message"))
