"""The client's side of the Tasks extension (2026-07-28): declaring it on a call, and waiting
for a task: its record polled until it ends, its input requests answered by the client's
callbacks through ``tasks/update`` on the way.

Each request is answered once; a request nothing here can answer ends the wait with the
record as it is (the caller decides). The poll follows the server's ``pollIntervalMs``
unless the caller gives one, kept between 10 ms and 5 s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from genmcp.client.connection import Connection
from genmcp.client.errors import ClientError
from genmcp.client.exchange import Handlers, answer_all
from genmcp.client.inputs import Inputs
from genmcp.protocol.tasks import EXTENSION, TERMINAL

__all__ = ["declare_tasks", "wait_task"]


async def declare_tasks(
    connection: Connection, capabilities: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A call's client ``capabilities`` with the Tasks extension declared (``task=True``);
    ``ClientError`` when the server speaks 2025 (the extension needs 2026-07-28)."""
    await connection.ensure_era()
    if connection.session is not None:
        raise ClientError(f"{connection.url} speaks {connection.era}: task=True needs "
                          "2026-07-28 (the Tasks extension); call without it")  # fmt: skip
    extra = dict(capabilities or {})
    extra["extensions"] = {**extra.get("extensions", {}), EXTENSION: {}}
    return extra


async def wait_task(
    get: Callable[[str], Awaitable[dict[str, Any]]],
    update: Callable[[str, Mapping[str, Any]], Awaitable[None]],
    task_id: str,
    handlers: Handlers,
    inputs: Inputs,
    poll: float | None,
) -> dict[str, Any]:
    """Poll ``task_id`` with ``get`` until it ends, answering its input requests with
    ``handlers`` through ``update``; its final record."""
    answered: set[str] = set()
    while True:
        record = await get(task_id)
        status = record.get("status")
        if status in TERMINAL:
            return record
        asked = {
            key: ask
            for key, ask in (record.get("inputRequests") or {}).items()
            if key not in answered
        }
        if status == "input_required" and asked:
            responses = await answer_all(asked, handlers, inputs)
            if responses is None:
                return record  # nothing here can answer: the caller decides
            await update(task_id, responses)
            answered.update(responses)
            continue
        interval = poll if poll is not None else record.get("pollIntervalMs", 200) / 1000
        await asyncio.sleep(min(max(float(interval), 0.01), 5.0))
