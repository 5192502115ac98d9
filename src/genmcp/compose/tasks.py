"""An upstream task behind a remote mount, followed by a task of the outer Suite.

When an upstream answers a proxied ``tools/call`` with a task (``resultType: "task"``: the
upstream decides, as it would for a direct client), the outer Suite opens a task of its own
(``TaskService.follow``) and answers the outer client with *that* task's
``CreateTaskResult``. The rule for ids: the outer client only ever sees the outer task's id;
the upstream id stays in the proxy, which follows the upstream task:

* it polls ``tasks/get`` upstream at the upstream's ``pollIntervalMs`` (bounded to
  50 ms .. 1 s) and copies each change into the outer record, so the outer's ``tasks/get``,
  its ``notifications/tasks`` on listen streams and its authorization (only the caller who
  created the task sees it) are those of any outer task;
* an upstream ``input_required`` becomes the outer task's ``input_required`` (the requests
  under the outer's unique keys); once the outer client answered them all with
  ``tasks/update``, the answers go upstream with ``tasks/update``;
* the upstream's ``statusMessage`` while it works is copied into the outer record as it
  changes (``TaskAsker.note``), so the outer ``tasks/get`` and ``notifications/tasks`` show
  what it does now;
* ``completed`` and ``failed`` end the outer task with the upstream's result or JSON-RPC
  error; an upstream ``cancelled`` cancels it;
* cancelling the outer task (``tasks/cancel``, its TTL) sends ``tasks/cancel`` upstream.

An upstream that stops answering while followed ends the outer task ``failed`` after a few
tries, with the error a call would get.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from genmcp.client import ClientError, RPCError
from genmcp.protocol.versions import META_SERVER_INFO
from genmcp.storage import TaskEnd

if TYPE_CHECKING:
    from genmcp.tasks.service import TaskAsker

__all__ = ["follow_upstream"]

log = logging.getLogger("genmcp")

POLL_MIN_S: Final = 0.05
POLL_MAX_S: Final = 1.0
TRIES: Final = 5
"""Upstream failures in a row (unreachable, not an answer) before the outer task fails."""


def _interval(record: Mapping[str, Any]) -> float:
    raw = record.get("pollIntervalMs")
    interval = raw / 1000 if isinstance(raw, int | float) and raw > 0 else POLL_MAX_S
    return min(max(interval, POLL_MIN_S), POLL_MAX_S)


def _result(result: Any) -> dict[str, Any]:
    """The upstream's tool result, without its ``serverInfo`` (not the outer's)."""
    found = dict(result) if isinstance(result, Mapping) else {"content": []}
    meta = found.get("_meta")
    if isinstance(meta, Mapping) and META_SERVER_INFO in meta:
        kept = {k: v for k, v in meta.items() if k != META_SERVER_INFO}
        if kept:
            found["_meta"] = kept
        else:
            del found["_meta"]
    return found


def _end(record: Mapping[str, Any]) -> TaskEnd | None:
    """How the outer task ends, when the upstream one has."""
    status = record.get("status")
    message = record.get("statusMessage")
    message = message if isinstance(message, str) else None
    if status == "completed":
        return TaskEnd("completed", result=_result(record.get("result")), message=message)
    if status == "failed":
        error = record.get("error")
        if not isinstance(error, Mapping) or not isinstance(error.get("code"), int):
            error = {"code": -32603, "message": "Internal error: the upstream task failed"}
        return TaskEnd("failed", error=dict(error), message=message or str(error.get("message")))
    if status == "cancelled":
        return TaskEnd("cancelled", message=message)
    return None


async def follow_upstream(
    upstream: Any, task_id: str, created: Mapping[str, Any], asker: TaskAsker
) -> TaskEnd:
    """Follow the upstream task ``task_id`` (see the module docstring) until it ends;
    ``upstream`` is the mount's ``upstream.Upstream`` (its client, ``down``, ``background``)."""
    record: Mapping[str, Any] = created
    asked: set[str] = set()
    noted: str | None = None
    failures = 0
    try:
        while True:
            end = _end(record)
            if end is not None:
                return end
            message = record.get("statusMessage")
            if isinstance(message, str) and message != noted:
                await asker.note(message)
                noted = message
            fresh = {
                key: request
                for key, request in (record.get("inputRequests") or {}).items()
                if key not in asked and isinstance(request, Mapping)
            }
            try:
                if record.get("status") == "input_required" and fresh:
                    answers = await asker.ask(fresh, _no_send)
                    asked.update(fresh)
                    await upstream.client.update_task(task_id, answers)
                else:
                    await asyncio.sleep(_interval(record))
                record = await upstream.client.get_task(task_id)
                failures = 0
            except RPCError as exc:  # it answered: the task is gone there (expired...)
                error = exc.to_error()
                return TaskEnd("failed", error=error, message=str(error.get("message")))
            except (ClientError, OSError) as exc:
                failures += 1
                if failures >= TRIES:
                    error = upstream.down(exc)
                    wire = {"code": error.code, "message": error.message, "data": error.data}
                    return TaskEnd("failed", error=wire, message=error.message)
                log.info("mount %s: task %s not read (%s); retrying", upstream.url, task_id, exc)
    except asyncio.CancelledError:
        upstream.background(upstream.client.cancel_task(task_id), f"cancel task {task_id[:8]}")
        raise


def _no_send(message: dict[str, Any]) -> bool:
    """A followed task's asker stores its requests; nothing is sent on a stream."""
    return False
