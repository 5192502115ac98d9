"""genmcp.testing.results: what MCPTestClient hands back, the JSON-RPC error above all.

There is one exception for "the server answered with a JSON-RPC error": ``genmcp.client.RPCError``.
The test client raises it too (``genmcp.testing.RPCError`` is the same class, its
``notifications`` those seen before the error), so code written against the real client,
``except RPCError``, handles what a test drives in-process, and both say it the same way.
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import Channel, Suite, Tool, ToolRequest
from genmcp.client import ClientError
from genmcp.client import RPCError as ClientRPCError
from genmcp.testing import MCPTestClient, Reply, RPCError, accept, cancel, decline


class Halfway(Tool, name="halfway", description="reports progress, then crashes"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        channel.send_progress(1, 2, "half")
        channel.send_log("info", "on the way")
        raise RuntimeError("the second half broke")


def suite() -> Suite:
    return Suite(server_name="results", server_version="1", tools=[Halfway])


async def test_the_test_client_raises_the_clients_rpc_error_with_the_notifications() -> None:
    async with MCPTestClient(suite()) as client:
        with pytest.raises(ClientRPCError) as caught:  # what code for genmcp.client catches
            await client.call_tool("halfway", {}, progress=True, log_level="info")
    failure = caught.value
    assert type(failure) is RPCError is ClientRPCError and isinstance(failure, ClientError)
    assert failure.code == -32603
    assert str(failure) == f"{failure.message} (-32603)"  # the client's wording, one format
    assert "halfway" in failure.message
    assert failure.to_error() == {"code": -32603, "message": failure.message}
    methods = [note["method"] for note in failure.notifications]
    assert methods == ["notifications/progress", "notifications/message"]
    assert failure.notifications[0]["params"]["message"] == "half"


async def test_an_unknown_tool_is_a_client_fault_with_its_data() -> None:
    async with MCPTestClient(suite()) as client:
        with pytest.raises(RPCError) as caught:
            await client.call_tool("nope")
    assert (caught.value.code, caught.value.data) == (-32602, {"name": "nope"})
    assert caught.value.notifications == []


def test_unwrap_reads_the_error_member_as_the_client_does() -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
    error = {"code": -32602, "message": "bad", "data": {"why": "x"}}
    reply = Reply({"jsonrpc": "2.0", "id": 1, "error": error}, 400, [note])
    with pytest.raises(RPCError) as caught:
        reply.unwrap()
    failure = caught.value
    assert (failure.code, failure.message, failure.data, failure.status) == (
        -32602,
        "bad",
        {"why": "x"},
        400,
    )
    assert failure.notifications == [note] and failure.notifications is not reply.notifications
    assert failure.to_error() == error
    # a malformed error member is an internal error, as genmcp.client reads it
    broken = Reply({"jsonrpc": "2.0", "id": 1, "error": {"code": "x"}}, 200)
    with pytest.raises(RPCError) as caught:
        broken.unwrap()
    assert (caught.value.code, caught.value.message) == (-32603, "error")


def test_unwrap_gives_the_result_or_says_there_was_no_response() -> None:
    assert Reply({"jsonrpc": "2.0", "id": 1, "result": {"ok": 1}}, 200).unwrap() == {"ok": 1}
    with pytest.raises(AssertionError, match="no response"):
        Reply(None, 202).unwrap()


def test_the_answer_builders() -> None:
    assert accept({"name": "x"}) == {"action": "accept", "content": {"name": "x"}}
    assert accept() == {"action": "accept"}
    assert decline() == {"action": "decline"}
    assert cancel() == {"action": "cancel"}
