"""Issue 17, items 4 and 5: outputs, build-time checks, convenience returns, error results
and the blocking warning, driven through a real Suite (what a client receives)."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

import pytest
from pydantic import BaseModel

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result
from genmcp.errors import TOOL_CRASH_HINT
from genmcp.protocol.jsonrpc import Request
from support.answers import answer_of

KEY = "k" * 48


class Out(BaseModel):
    n: int
    label: str = "x"


def make(*tools: Any) -> Suite:
    return Suite(server_name="s", server_version="1", tools=tools, secret_key=KEY)


async def call(suite: Suite, name: str, arguments: dict[str, Any] | None = None) -> Any:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": name, "arguments": arguments or {}, "_meta": meta}
    response, _ = await answer_of(suite, Request(1, "tools/call", params))
    return response


def returning(value: Any, **options: Any) -> type[Tool]:
    class Returns(Tool, **{"name": "r", **options}):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
            if isinstance(value, Exception):
                raise value
            return value

    return Returns


# -- item 4: outputs ---------------------------------------------------------------------


async def test_structured_accepts_a_pydantic_model() -> None:
    response = await call(make(returning(Result(call_tool_result(structured=Out(n=1))))), "r")
    result = response["result"]
    assert result["structuredContent"] == {"n": 1, "label": "x"}
    assert result["content"] == [{"type": "text", "text": '{"n":1,"label":"x"}'}]


async def test_a_declared_output_schema_without_structured_content_is_a_server_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tool = returning(Result(call_tool_result(text="no structure")), output_schema=Out)
    with caplog.at_level(logging.ERROR, "genmcp"):
        response = await call(make(tool), "r")
    assert response["error"]["code"] == -32603  # never a result an official client rejects
    assert "declares output_schema" in caplog.text


async def test_a_returned_model_fills_the_declared_output_schema() -> None:
    response = await call(make(returning(Out(n=2), output_schema=Out)), "r")
    assert response["result"]["structuredContent"] == {"n": 2, "label": "x"}


def test_the_input_schema_must_be_an_object_schema() -> None:
    class Stringly(Tool, name="s", input_schema={"type": "string"}):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
            return "x"

    with pytest.raises(ValueError, match=r"Stringly: input_schema must be an object schema"):
        make(Stringly)


def test_a_misspelled_keyword_is_flagged_with_the_likely_fix() -> None:
    schema = {"type": "object", "propertys": {"a": {"type": "string"}}}

    class Typo(Tool, name="t", input_schema=schema):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
            return "x"

    with pytest.raises(ValueError, match=r"Typo: .*'propertys' at /: did you mean 'properties'"):
        make(Typo)


def test_nested_unknown_keywords_are_found_and_extensions_pass() -> None:
    nested = {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "string", "maxLenght": 3}}},
    }

    class Deep(Tool, name="d", input_schema=nested):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
            return "x"

    with pytest.raises(ValueError, match=r"'maxLenght' at /properties/a/items"):
        make(Deep)
    fine = {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}}}

    class Ext(Tool, name="e", input_schema=fine):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
            return "x"

    make(Ext)


@pytest.mark.parametrize("name", ["get weather", "a/b", "x" * 129, "tab\tname"])
def test_tool_names_clients_refuse_fail_at_build(name: str) -> None:
    with pytest.raises(ValueError, match=r"Returns: the tool name .* MCP tool names are"):
        make(returning("x", name=name))


def test_other_names_outside_the_pattern_are_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "genmcp"):
        make(returning("x", name="café"))  # legal on the wire: Mcp-Name carries it base64
    assert "the tool name 'café' has 'é'" in caplog.text


# -- item 5: runtime returns and exceptions ----------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain text", {"content": [{"type": "text", "text": "plain text"}]}),
        (Out(n=3), {"content": [{"type": "text", "text": '{"n":3,"label":"x"}'}],
                    "structuredContent": {"n": 3, "label": "x"}}),
        ({"n": 4}, {"content": [{"type": "text", "text": '{"n":4}'}],
                    "structuredContent": {"n": 4}}),
        (call_tool_result(text="built"), {"content": [{"type": "text", "text": "built"}]}),
    ],
)  # fmt: skip
async def test_convenience_returns_become_results(value: Any, expected: dict[str, Any]) -> None:
    result = (await call(make(returning(value)), "r"))["result"]
    assert {k: v for k, v in result.items() if k not in ("resultType", "_meta")} == expected


async def test_an_unsupported_return_still_names_the_contract(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, "genmcp"):
        response = await call(make(returning(42)), "r")
    assert response["error"]["code"] == -32603
    expected = "a dict (structured content), Result, Stream, Error or InputRequired"
    assert expected in caplog.text


async def test_error_results_turn_an_exception_into_an_is_error_result() -> None:
    response = await call(make(returning(LookupError("no such order"), error_results=True)), "r")
    assert response["result"]["isError"] is True
    assert response["result"]["content"][0]["text"] == "LookupError: no such order"
    plain = await call(make(returning(LookupError("no such order"))), "r")
    message = f"Internal error in tool 'r' {TOOL_CRASH_HINT}"
    assert plain["error"] == {"code": -32603, "message": message}
    assert "error_results=True" in plain["error"]["message"]


class Sleeper(Tool, name="sleeper"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        await asyncio.sleep(0)
        time.sleep(0.3)  # noqa: ASYNC251  # the mistake this test is about
        return "slept"


async def test_a_blocking_async_call_is_named_in_debug_mode(
    caplog: pytest.LogCaptureFixture,
) -> None:
    loop = asyncio.get_running_loop()
    suite = make(Sleeper)
    with caplog.at_level(logging.WARNING, "genmcp"):
        assert (await call(suite, "sleeper"))["result"]["content"][0]["text"] == "slept"
        assert "held the event loop" not in caplog.text  # off outside debug mode
        loop.set_debug(True)
        try:
            assert (await call(suite, "sleeper"))["result"]["content"][0]["text"] == "slept"
        finally:
            loop.set_debug(False)
    named = r"Sleeper\.call\(\) \(tool 'sleeper'\) held the event loop for ([\d.]+) s"
    held = re.search(named, caplog.text)
    assert held is not None, caplog.text
    assert float(held.group(1)) >= 0.29  # it slept 0.3 s; a loaded machine only adds to that
    assert "make the hook a plain def" in caplog.text
