"""The Tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663) on the wire: pure shapes.

A task is a ``tools/call`` the server answers with a task handle (``resultType: "task"``)
instead of its result; the client then polls ``tasks/get``, answers the input the task asks
for with ``tasks/update`` and may ``tasks/cancel`` it (spec digest §14). This module owns the
extension's identifier (its method names are in ``protocol.methods``), the record a store
keeps for one task (a plain JSON dict, see :func:`new_record`), and how a record is shown:
:func:`created` (``CreateTaskResult``), :func:`detailed` (the ``DetailedTask`` of
``tasks/get``) and :func:`status_notification` (``notifications/tasks``, the same
``DetailedTask``, sent on a listen stream).

Record keys: ``taskId``, ``principal`` (who created it, or None), ``status``,
``statusMessage``, ``createdAt``/``lastUpdatedAt`` (ISO 8601), ``ttlMs``, ``pollIntervalMs``,
``inputRequests`` (the outstanding requests by key), ``result`` or ``error`` once terminal,
``version`` (1 at creation, one more per transition; never shown).

Pure: no asyncio, imports only errors and other protocol modules.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from genmcp.errors import MCPError, missing_capability
from genmcp.protocol.jsonrpc import notification
from genmcp.protocol.methods import TASKS, TASKS_CANCEL, TASKS_GET, TASKS_UPDATE
from genmcp.protocol.versions import META_CLIENT_CAPABILITIES

__all__ = [
    "EXTENSION",
    "METHODS",
    "STATUSES",
    "TERMINAL",
    "created",
    "declares_tasks",
    "detailed",
    "iso_now",
    "lease_lost_error",
    "new_record",
    "new_task_id",
    "status_notification",
    "storage_failure_error",
    "task_id_of",
    "tasks_required",
    "unknown_task",
    "update_responses",
]

EXTENSION: Final = "io.modelcontextprotocol/tasks"
METHODS: Final = (TASKS_GET, TASKS_UPDATE, TASKS_CANCEL)
"""The extension's requests (their names are in ``protocol.methods``)."""

WORKING: Final = "working"
INPUT_REQUIRED: Final = "input_required"
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
STATUSES: Final = frozenset({WORKING, INPUT_REQUIRED, *TERMINAL})

TASK_SUPPORT: Final = frozenset({"none", "optional", "required"})
"""What a tool may declare (``task_support=`` class option)."""

_FIELDS: Final = (
    "taskId",
    "status",
    "statusMessage",
    "createdAt",
    "lastUpdatedAt",
    "ttlMs",
    "pollIntervalMs",
)
_MAX_ID_CHARS: Final = 256


def new_task_id() -> str:
    """An unguessable task id (128 random bits, URL-safe: it travels in ``Mcp-Name``)."""
    return secrets.token_urlsafe(16)


def iso_now() -> str:
    """Now as an ISO 8601 UTC timestamp with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def declares_tasks(meta: Mapping[str, Any]) -> bool:
    """True when this request's ``clientCapabilities`` declare the extension."""
    capabilities = meta.get(META_CLIENT_CAPABILITIES)
    extensions = capabilities.get("extensions") if isinstance(capabilities, Mapping) else None
    return isinstance(extensions, Mapping) and EXTENSION in extensions


def tasks_required() -> MCPError:
    """-32021 naming the extension (a task method, or a task-only tool, without it)."""
    return missing_capability({"extensions": {EXTENSION: {}}})


def unknown_task(task_id: Any) -> MCPError:
    """-32602 for an id that names no task this caller may see (unknown, expired, not his)."""
    return MCPError("unknown_task", f"Invalid params: no task {task_id!r} (unknown or expired)")


def task_id_of(params: Mapping[str, Any], method: str) -> str:
    """``params.taskId`` of a task method; -32602 when absent or not a short string."""
    task_id = params.get("taskId")
    if not isinstance(task_id, str) or not task_id or len(task_id) > _MAX_ID_CHARS:
        raise MCPError("invalid_params", f"Invalid params: {method} needs a string taskId")
    return task_id


def update_responses(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params.inputResponses`` of ``tasks/update``: an object of objects, else -32602."""
    responses = params.get("inputResponses")
    if not isinstance(responses, dict) or not all(isinstance(v, dict) for v in responses.values()):
        raise MCPError(
            "bad_input_responses",
            "Invalid params: tasks/update needs inputResponses, an object of result objects",
        )
    return responses


def new_record(
    task_id: str, principal: str | None, ttl_ms: int | None, poll_interval_ms: int | None
) -> dict[str, Any]:
    """The record of a task just created: ``working``."""
    now = iso_now()
    record: dict[str, Any] = {
        "taskId": task_id,
        "principal": principal,
        "status": WORKING,
        "createdAt": now,
        "lastUpdatedAt": now,
        "ttlMs": ttl_ms,
        "version": 1,
    }
    if poll_interval_ms is not None:
        record["pollIntervalMs"] = poll_interval_ms
    return record


def _task(record: Mapping[str, Any]) -> dict[str, Any]:
    return {key: record[key] for key in _FIELDS if record.get(key) is not None or key == "ttlMs"}


def created(record: Mapping[str, Any], result_meta: Mapping[str, Any]) -> dict[str, Any]:
    """The ``CreateTaskResult``: flat task fields, ``resultType: "task"``."""
    return {"resultType": "task", **_task(record), "_meta": result_meta}


def detailed(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ``DetailedTask`` of a record: the task fields plus what its status carries."""
    shown = _task(record)
    status = record["status"]
    if status == INPUT_REQUIRED:
        shown["inputRequests"] = dict(record.get("inputRequests") or {})
    elif status == "completed":
        shown["result"] = record.get("result") or {"content": []}
    elif status == "failed":
        shown["error"] = record.get("error") or {"code": -32603, "message": "Internal error"}
    return shown


def status_notification(record: Mapping[str, Any]) -> dict[str, Any]:
    """``notifications/tasks``: the record's ``DetailedTask``, as ``tasks/get`` shows it."""
    return notification(TASKS, detailed(record))


def lease_lost_error() -> dict[str, Any]:
    """The JSON-RPC error of a task whose process stopped renewing its lease."""
    return {
        "code": -32603,
        "message": "Internal error: the server process running this task stopped",
    }


def storage_failure_error(cause: str) -> dict[str, Any]:
    """The JSON-RPC error of a task whose outcome the task store would not keep (``cause``).

    Not "the process stopped": the process ran the task to its end, the store refused (or
    stayed unreachable for the task's whole lifetime); the outcome itself is lost.
    """
    return {
        "code": -32603,
        "message": f"Internal error: the task's outcome could not be stored ({cause})",
        "data": {"reason": "storage_failure"},
    }
