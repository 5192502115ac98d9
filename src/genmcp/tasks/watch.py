"""``notifications/tasks``: task status changes, from the store's transitions to listen streams.

Publishing: each status change a :class:`~genmcp.tasks.service.TaskService` makes (``working``
-> ``input_required`` -> ``working`` -> a terminal status, whichever process makes it) is
:func:`announce`\\ d on the broker topic of that task (:func:`topic`): the record as the
store's transition left it, without ``result`` and ``error`` (a listener re-reads a terminal
record, which never changes again; results can be large). With a shared broker
(``RedisBroker``) a change made in one process reaches the streams of every other, over the
one pub/sub connection each process holds.

Listening: a ``subscriptions/listen`` naming ``taskIds`` gets a :class:`TaskWatch`. Before
the acknowledgement it reads each task from the store and keeps those the caller's principal
owns (another principal's task is treated like an unknown id: left out of the acknowledged
``taskIds``, per the extension). The stream then subscribes to their topics, and once that is
ready the watch sends each task's current state, then one ``notifications/tasks`` per change.
Records carry a ``version`` (one more per transition): a watch sends a version only once and
never an older one after a newer, so the same change seen twice (an announcement and a
re-read) or out of order (two processes announcing) reaches the client once, in order.
Every ``period_s`` the watch re-reads the tasks not yet terminal: a task whose process died
reads as ``failed`` there (the store fails a task whose lease ran out), and a change whose
announcement a broker lost (at most once delivery) still arrives. After a terminal status
nothing more is sent for that task.

Imports asyncio, genmcp's protocol and storage; never a web framework.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, final

from genmcp.errors import MCPError
from genmcp.protocol import tasks as task_wire
from genmcp.storage import Broker, TaskStore

__all__ = ["TaskWatch", "announce", "topic"]

log = logging.getLogger("genmcp")

_TOPIC: Final = "genmcp.task/"
_HEAVY: Final = ("result", "error")
Send = Callable[[dict[str, Any]], Any]


def topic(task_id: str) -> str:
    """The broker topic of one task's status changes."""
    return _TOPIC + task_id


async def announce(broker: Broker, record: Mapping[str, Any] | None) -> None:
    """Publish a status change (``record``, as the transition left it); never raises."""
    if record is None:
        return
    lean = {key: value for key, value in record.items() if key not in _HEAVY}
    try:
        await broker.publish(topic(record["taskId"]), lean)
    except Exception:  # the listeners' re-reads catch up
        log.warning("task %s: its status change was not published", record["taskId"])


@final
class TaskWatch:
    """The tasks one listen stream follows (see the module docstring).

    Args:
        store: where the records are.
        principal: who listens (``principal_of(assigns)``); only its tasks are followed.
        period_s: how often the tasks not yet terminal are re-read.
    """

    __slots__ = ("_lost", "_period_s", "_store", "_watching", "principal")

    def __init__(self, store: TaskStore, principal: str | None, period_s: float) -> None:
        self._store, self.principal, self._period_s = store, principal, period_s
        self._lost = task_wire.lease_lost_error()
        self._watching: dict[str, int] = {}  # task id -> the version last sent (0: none)

    @property
    def topics(self) -> tuple[str, ...]:
        """The broker topics of the tasks followed."""
        return tuple(topic(task_id) for task_id in self._watching)

    async def authorize(self, wanted: Iterable[str]) -> frozenset[str]:
        """Follow the tasks among ``wanted`` that exist and belong to the principal; their ids
        (-32603 when the store cannot answer)."""
        ids = sorted(wanted)
        try:
            records = await asyncio.gather(*(self._read(task_id) for task_id in ids))
        except Exception:
            log.exception("subscriptions/listen: the task store did not answer")
            raise MCPError(
                "internal_error", "Internal error: the task store is unavailable"
            ) from None
        self._watching = {
            task_id: 0 for task_id, rec in zip(ids, records, strict=True) if rec is not None
        }
        return frozenset(self._watching)

    async def _read(self, task_id: str) -> dict[str, Any] | None:
        record = await self._store.get(task_id, lost=self._lost)
        if record is None or record.get("principal") != self.principal:
            return None
        return record

    def offer(self, record: Mapping[str, Any], send: Send) -> bool:
        """Send ``record`` as ``notifications/tasks`` if it is newer than what was sent."""
        task_id, version = record.get("taskId"), record.get("version")
        if not isinstance(task_id, str) or not isinstance(version, int):
            return False
        last = self._watching.get(task_id)
        if last is None or version <= last or record.get("principal") != self.principal:
            return False
        if record.get("status") in task_wire.TERMINAL:
            del self._watching[task_id]
        else:
            self._watching[task_id] = version
        send(task_wire.status_notification(record))
        return True

    async def announced(self, message: Any, send: Send) -> None:
        """Handle one announcement from a task topic."""
        if not isinstance(message, Mapping) or message.get("taskId") not in self._watching:
            return
        record: Mapping[str, Any] | None = message
        if message.get("status") in task_wire.TERMINAL:
            try:
                record = await self._read(message["taskId"])  # with its result or error
            except Exception:
                log.warning("task %s: could not be re-read", message["taskId"], exc_info=True)
                return  # the next round of run() reads it
        if record is not None:
            self.offer(record, send)

    async def run(self, send: Send) -> None:
        """Send each task's state now, then re-read those not yet terminal every period."""
        while self._watching:
            ids, failed = list(self._watching), False
            try:
                records = await asyncio.gather(*(self._read(task_id) for task_id in ids))
            except Exception:
                log.warning("subscriptions/listen: tasks could not be re-read", exc_info=True)
                failed = True
                records = [None] * len(ids)  # nothing known: try again next period
            for task_id, record in zip(ids, records, strict=True):
                if record is not None:
                    self.offer(record, send)
                elif not failed:  # expired, or gone: nothing more will come
                    self._watching.pop(task_id, None)
            await asyncio.sleep(self._period_s)
