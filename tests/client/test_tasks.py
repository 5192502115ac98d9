"""client.tasks: the Tasks extension from the client, against the everything server on uvicorn.

A task is created, waited for (polled) and cancelled; its input requests are answered
through ``tasks/update``; ``task=True`` to a 2025 session is refused before it is sent.
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.client import Client, ClientError, RPCError


async def test_tasks_are_created_polled_and_cancelled(everything: str) -> None:
    async with Client(everything) as client:
        created = await client.call_tool("slow_compute", {"seconds": 0.2}, task=True)
        assert created["resultType"] == "task"
        done = await client.wait_task(created["taskId"], poll=0.05)
        slow = await client.call_tool("slow_compute", {"seconds": 30}, task=True)
        await client.cancel_task(slow["taskId"])
        cancelled = await client.wait_task(slow["taskId"], poll=0.05)
        with pytest.raises(RPCError) as unknown:
            await client.get_task("no-such-task")

    assert done["status"] == "completed" and done["result"]["content"]
    assert cancelled["status"] == "cancelled"
    assert unknown.value.code == -32602


async def test_a_task_needs_2026(everything: str) -> None:
    async with Client(everything, protocol="2025-11-25") as client:
        with pytest.raises(ClientError, match="needs 2026-07-28"):
            await client.call_tool("slow_compute", {"seconds": 0}, task=True)


async def test_task_input_is_answered_through_tasks_update(everything: str) -> None:
    def yes(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"confirm": True}}

    async with Client(everything, elicitation=yes) as client:
        created = await client.call_tool("confirm_delete", {"filename": "x.txt"}, task=True)
        done = await client.wait_task(created["taskId"], poll=0.05)

    assert done["status"] == "completed", done
    assert done["result"]["content"][0]["text"] == "Deleted x.txt"
