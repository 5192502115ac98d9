"""genmcp.errors: the one failure table, MCPError, and what a client receives for each.

The table's promises (a client fault is never -32603; a reason fixes the HTTP status and the
JSON-RPC code) are checked on the table itself, then over the wire: a FastAPI app served
in-process by MCPTestClient answers each failure with the status and code the table names.
"""

from __future__ import annotations

import gc
import warnings
from typing import Any

import pytest
from fastapi import FastAPI

from genmcp import CallbackReturnError, Channel, MCPError, Suite, Tool, ToolRequest, mcp_router
from genmcp.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    REASONS,
    TOOL_CRASH_HINT,
    http_status,
    internal_error,
    missing_capability,
    retry_after,
)
from genmcp.testing import MCPTestClient

SERVER_FAULTS = {"internal_error", "shutting_down", "storage_unavailable"}


def test_a_client_fault_is_never_an_internal_error() -> None:
    assert {r for r, wire in REASONS.items() if not wire.client_fault} == SERVER_FAULTS
    internal = {r for r, wire in REASONS.items() if wire.code == INTERNAL_ERROR}
    assert internal <= SERVER_FAULTS
    assert all(
        wire.status >= 500 or wire.status == 200
        for r, wire in REASONS.items()
        if not wire.client_fault
    )


def test_every_reason_is_a_json_rpc_error_with_a_status_and_a_message() -> None:
    for reason, wire in REASONS.items():
        assert isinstance(wire.code, int) and wire.code < 0, reason
        assert wire.status in {200, 400, 403, 404, 405, 408, 413, 415, 421, 429, 503}, reason
        assert wire.message and wire.message[0].isupper(), reason
        assert http_status(reason) == wire.status
    assert http_status(None) == 200  # a success


def test_only_storage_unavailable_asks_to_retry_after() -> None:
    assert retry_after("storage_unavailable") == (("retry-after", "1"),)
    assert [r for r in REASONS if retry_after(r)] == ["storage_unavailable"]
    assert retry_after(None) == ()


def test_mcp_error_takes_code_status_and_fault_from_its_reason() -> None:
    error = MCPError("unknown_tool")
    assert (error.code, error.message, error.data, error.client_fault) == (
        INVALID_PARAMS,
        "Unknown tool",
        None,
        True,
    )
    assert str(error) == "Unknown tool"
    assert error.to_error() == {"code": -32602, "message": "Unknown tool"}  # no data key
    assert repr(error) == "MCPError('unknown_tool', 'Unknown tool', code=-32602)"

    custom = MCPError("internal_error", "disk on fire", {"disk": 2}, code=-31999)
    assert custom.to_error() == {"code": -31999, "message": "disk on fire", "data": {"disk": 2}}
    assert custom.reason == "internal_error" and custom.client_fault is False
    with pytest.raises(KeyError):
        MCPError("no_such_reason")


def test_the_helpers_build_their_errors() -> None:
    tool = internal_error("tool 'boom'")
    assert tool.code == INTERNAL_ERROR and tool.message.endswith(TOOL_CRASH_HINT)
    prompt = internal_error("prompt 'p'")
    assert prompt.message == "Internal error in prompt 'p'"  # the hint is for tools only
    missing = missing_capability({"sampling": {}, "elicitation": {"form": {}}})
    assert missing.code == -32021 and missing.reason == "missing_capability"
    assert missing.message == "Missing required client capability: elicitation, sampling"
    assert missing.data == {"requiredCapabilities": {"sampling": {}, "elicitation": {"form": {}}}}


def test_callback_return_error_names_the_hook_and_closes_a_forgotten_coroutine() -> None:
    error = CallbackReturnError("tool", "add", "call", 42, "Result, Stream or Error")
    assert isinstance(error, TypeError)
    assert str(error) == "tool 'add': call() returned 42; expected Result, Stream or Error"
    assert (error.kind, error.name, error.callback, error.value) == ("tool", "add", "call", 42)

    async def helper() -> int:
        return 1

    coroutine = helper()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a "never awaited" RuntimeWarning would fail here
        error = CallbackReturnError("prompt", "p", "get", coroutine, "a str")
        del coroutine
        gc.collect()
    assert "did you forget await?" in str(error)
    assert error.value.cr_frame is None  # closed


# -- over the wire ------------------------------------------------------------------------


class Needs(Tool, name="needs", description="needs sampling"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        channel.require_capability({"sampling": {}})
        return "unreachable without sampling"


class Raises(
    Tool,
    name="raises",
    description="raises the MCPError it is given",
    input_schema={"type": "object", "properties": {"reason": {"type": "string"}}},
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        raise MCPError(request.arguments["reason"], data={"from": "tool"})


def app() -> FastAPI:
    suite = Suite(server_name="errors", server_version="1", tools=[Needs, Raises])
    served = FastAPI()
    served.include_router(mcp_router(suite=suite), prefix="/mcp")
    return served


@pytest.mark.parametrize("reason", ["unknown_task", "rate_limited", "shutting_down"])
async def test_a_raised_mcp_error_travels_with_its_status_and_code(reason: str) -> None:
    async with MCPTestClient(app()) as client:
        reply = await client.request(
            "tools/call", {"name": "raises", "arguments": {"reason": reason}}
        )
    wire = REASONS[reason]
    assert reply.status == wire.status
    assert reply.error == {"code": wire.code, "message": wire.message, "data": {"from": "tool"}}


async def test_the_transport_answers_its_failures_from_the_table() -> None:
    async with MCPTestClient(app()) as client:
        unknown = await client.request("tools/call", {"name": "nope", "arguments": {}})
        needs = await client.request(
            "tools/call", {"name": "needs", "arguments": {}}, capabilities={}
        )
    assert unknown.status == REASONS["unknown_tool"].status == 200
    assert unknown.error is not None and unknown.error["code"] == INVALID_PARAMS
    assert needs.status == REASONS["missing_capability"].status == 400
    assert needs.error == missing_capability({"sampling": {}}).to_error()
