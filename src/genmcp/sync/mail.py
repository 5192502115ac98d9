"""Posting to a worker by id, wherever it runs (``Suite.post``; DESIGN §7).

A worker's id (``channel.mailbox.id``) can leave the process: a tool hands it to a job
runner, a webhook carries it back. Behind a load balancer that webhook may reach another
process of the app. A worker id names its Suite's mail *address* (``<address>-<n>``; the
address is random per Suite, so per process), and ``MailRelay.post`` delivers:

- to the worker itself when it runs here (``True``; ``False`` when it ended or its mailbox
  is full);
- else, with a shared broker that offers ``storage.Inboxes`` (both of genmcp's do), to the
  inbox of the one Suite its id names, never to every process: ``True`` once queued there,
  ``False`` when that address has no live owner (its process died or stopped: no heartbeat),
  ``storage.InboxFull`` when its inbox is full, ``StorageUnavailable`` when the store is
  unreachable. The owner's relay hands the message to the worker; one that ended meanwhile
  drops it (logged at debug level; :attr:`MailRelay.dropped` counts them);
- else, with a shared broker without inboxes, published on the topic :data:`MAIL` for every
  process (``True``: sent, unconfirmed);
- else (the Suite's own default broker: nobody else can reach it) ``False``.

With a shared broker messages must be JSON values. Imports asyncio and genmcp's storage
interface; never a web framework.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, final

from genmcp.storage import Broker, Inbox, Inboxes, Subscription

if TYPE_CHECKING:
    from genmcp.call.call import Call

__all__ = ["MAIL", "MailRelay", "address_of"]

log = logging.getLogger("genmcp")

MAIL: Final = "genmcp.mail"
"""The broker topic of mail for brokers that offer no inboxes (every process gets it)."""


def address_of(worker_id: str) -> str:
    """The mail address a worker id names (its Suite's)."""
    return worker_id.rpartition("-")[0]


@final
class MailRelay:
    """Delivers posts to the local workers, and to other processes' inboxes.

    Args:
        broker: the Suite's broker.
        workers: the Suite's live workers by id (read, never changed).
        shared: whether other processes (or Suites) may reach us through ``broker``.
    """

    __slots__ = (
        "_broker",
        "_inbox",
        "_shared",
        "_subscription",
        "_task",
        "_workers",
        "address",
        "dropped",
    )

    def __init__(self, broker: Broker, workers: Mapping[str, Call], *, shared: bool) -> None:
        self._broker = broker
        self._workers = workers
        self._shared = shared
        self.address = secrets.token_hex(6)
        self.dropped = 0  # messages that reached this process after their worker ended
        self._subscription: Subscription | None = None
        self._inbox: Inbox | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Receive posts from other processes (idempotent; call on the server loop)."""
        if not self._shared or self._task is not None:
            return
        loop = asyncio.get_running_loop()
        if isinstance(self._broker, Inboxes):
            self._inbox = self._broker.open_inbox(self.address)
            self._task = loop.create_task(self._relay_inbox(self._inbox), name="genmcp:mail")
        else:
            self._subscription = self._broker.subscribe(MAIL)
            self._task = loop.create_task(self._relay_topic(self._subscription), name="genmcp:mail")

    async def post(self, worker_id: str, message: Any) -> bool:
        """Deliver ``message`` to the worker ``worker_id``, here or in another process."""
        worker = self._workers.get(worker_id)
        if worker is not None:
            return worker.mailbox.send(message)
        address = address_of(worker_id)
        if address == self.address or not self._shared:
            log.debug("no worker %s: message dropped", worker_id)
            return False
        envelope = {"worker": worker_id, "message": message}
        if isinstance(self._broker, Inboxes):
            return await self._broker.deliver(address, envelope)
        await self._broker.publish(MAIL, envelope)
        return True

    def close(self) -> None:
        """Stop receiving (``start`` may begin again); our address dies with the inbox."""
        for closeable in (self._subscription, self._inbox):
            if closeable is not None:
                closeable.close()
        if self._task is not None:
            self._task.cancel()
        self._subscription = self._inbox = self._task = None

    def _hand_over(self, envelope: Any, *, ours: bool) -> None:
        worker_id = envelope.get("worker") if isinstance(envelope, Mapping) else None
        worker = self._workers.get(worker_id) if isinstance(worker_id, str) else None
        if worker is not None:
            if not worker.mailbox.send(envelope.get("message")):
                self.dropped += 1
        elif ours:  # addressed to us: the worker ended since it was posted
            self.dropped += 1
            log.debug("worker %s ended: its mail is dropped", worker_id)

    async def _relay_inbox(self, inbox: Inbox) -> None:
        while True:
            self._hand_over(await inbox.receive(), ours=True)

    async def _relay_topic(self, subscription: Subscription) -> None:
        while True:
            _topic, envelope = await subscription.receive()
            self._hand_over(envelope, ours=False)  # else it runs elsewhere, or ended
