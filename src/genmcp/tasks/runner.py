"""A task this process runs (``Running``), and what its runner does around the work: keep the
task's lease, and store its end.

The lease is renewed every third of it (at once again, with backoff, after a failed renewal);
a task found cancelled, failed or gone there is cancelled here too. The end is stored even
across a short outage of the store: retried with backoff (50 ms doubling to 1 s) while the
store is unavailable, until the record expires; an outcome the store refuses (or one it never
took until then) ends the task ``failed`` with the storage failure error, and is logged.
Every end stored is announced on the broker (``tasks.watch``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any, Final

from genmcp.call.call import Call
from genmcp.protocol import tasks as task_wire
from genmcp.storage import Broker, TaskEnd, TaskStore
from genmcp.storage.guard import StorageUnavailable
from genmcp.tasks.watch import announce

__all__ = ["Running", "end_of", "keep_lease", "store_end"]

log = logging.getLogger("genmcp")

_RETRY_FIRST_S: Final = 0.05
_RETRY_MAX_S: Final = 1.0
_RENEW_RETRY_MAX_S: Final = 0.5  # a store back from an outage sees the lease within 0.5 s


class Running:
    """A task this process runs: its Call (None for a followed task), its runner, the event
    its input waiter sleeps on, and when its record expires (loop time: the bound of the
    retries storing its end)."""

    __slots__ = ("call", "expires", "poke", "runner", "started", "stop", "stopping")

    def __init__(self, expires: float) -> None:
        self.call: Call | None = None
        self.expires = expires
        self.poke = asyncio.Event()
        self.runner: asyncio.Task[None] | None = None
        self.started = False  # a followed task's runner is past its first step
        self.stop = False  # ... and was stopped before it: it ends without running the work
        self.stopping = False  # a followed task: the server stops (not a cancel)

    def cancel(self) -> None:
        """Stop the work: the Call is cancelled, a followed task's work too."""
        if self.call is not None:
            self.call.cancel()
        else:
            self._stop_runner()

    def shutdown(self) -> None:
        """The server stops: the Call answers its shutdown end, a followed task fails."""
        if self.call is not None:
            self.call.shutdown()
        else:
            self.stopping = True
            self._stop_runner()

    def _stop_runner(self) -> None:
        # a task cancelled before its first step never runs its body (no end stored, no
        # cleanup): a runner not started yet is told instead, and looks at it first
        if not self.started:
            self.stop = True
        elif self.runner is not None:
            self.runner.cancel()


def end_of(response: Mapping[str, Any]) -> TaskEnd:
    """How a task ends once its call answered ``response``."""
    if "result" in response:
        return TaskEnd("completed", result=response["result"])
    error = response.get("error") or {}
    return TaskEnd("failed", error=error, message=str(error.get("message", "failed")))


async def store_end(
    store: TaskStore, broker: Broker, task_id: str, end: TaskEnd, expires: float
) -> None:
    """Store the task's end: retried while the store is unavailable, until the record
    expires (``expires``, loop time); an outcome the store refuses becomes the storage
    failure."""
    moved, cause = await _finish(store, task_id, end, expires)
    if cause is not None:
        moved = await _store_failure(store, task_id, cause)
    await announce(broker, moved)


async def _finish(
    store: TaskStore, task_id: str, end: TaskEnd, expires: float
) -> tuple[dict[str, Any] | None, str | None]:
    """``store.finish``, retried with backoff while unavailable: (record, None) once
    stored; (None, why) when it cannot be."""
    loop = asyncio.get_running_loop()
    delay = _RETRY_FIRST_S
    while True:
        try:
            return await store.finish(task_id, end, task_wire.iso_now()), None
        except StorageUnavailable as exc:
            if loop.time() + delay >= expires:
                return None, f"the task store stayed unavailable: {exc.message}"
            log.warning("task %s: storing its end failed; retrying in %g s", task_id, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, _RETRY_MAX_S)
        except Exception as exc:
            return None, f"the task store refused it: {type(exc).__name__}: {exc}"


async def _store_failure(store: TaskStore, task_id: str, cause: str) -> dict[str, Any] | None:
    """End the task failed with the storage failure (once; logged either way)."""
    log.error("task %s: its outcome could not be stored (%s)", task_id, cause)
    error = task_wire.storage_failure_error(cause)
    end = TaskEnd("failed", error=error, message=error["message"])
    try:
        return await store.finish(task_id, end, task_wire.iso_now())
    except Exception:
        log.exception("task %s: not even its storage failure could be stored", task_id)
        return None


async def keep_lease(
    store: TaskStore, task_id: str, lease_ms: int, renew_s: float, cancel: Callable[[], None]
) -> None:
    """Renew the lease; cancel the call once the task is cancelled, failed or gone.

    A failed renewal is retried soon (backoff from 50 ms to 0.5 s, at most a third of the
    lease), so a store back from a short outage sees the lease renewed before it lapses."""
    failures = 0
    while True:
        retry = min(_RETRY_FIRST_S * 2 ** (failures - 1), renew_s, _RENEW_RETRY_MAX_S)
        await asyncio.sleep(retry if failures else renew_s)
        try:
            status = await store.renew(task_id, lease_ms)
        except Exception:
            log.warning("task %s: lease renewal failed", task_id, exc_info=failures == 0)
            failures = min(failures + 1, 16)
            continue
        failures = 0
        if status is None or status in task_wire.TERMINAL:
            cancel()
            return
