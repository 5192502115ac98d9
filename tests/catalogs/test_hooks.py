"""genmcp.catalogs.hooks: how every behaviour's hook is called and what its return may be.

Driven with real Tool and Prompt classes and a real event loop; the Suite-level behaviour
(what a client sees) is in tests/test_suite_tools.py, test_dx_outputs.py and test_streaming.py.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

import pytest
from pydantic import BaseModel

from genmcp import (
    CallbackReturnError,
    Channel,
    Error,
    InputRequired,
    MCPError,
    Prompt,
    ResourceNotFound,
    Result,
    Stream,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
)
from genmcp.catalogs import hooks
from genmcp.catalogs.request_state import RequestStates
from genmcp.schema import InvalidArguments
from genmcp.sealing import Sealer
from genmcp.testing import MCPTestClient, RPCError

# -- building an entry -------------------------------------------------------------------


class Named(Tool, name="named", title="Named", description="A tool.", meta={"k": 1}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        return "ok"


class Blank(Prompt, name="  "):
    pass


def test_instantiate_makes_the_one_instance_of_a_subclass() -> None:
    assert isinstance(hooks.instantiate(Named, Tool), Named)
    with pytest.raises(
        TypeError, match=r"is not a Tool subclass \(give a class or \(class, arg\)\)"
    ):
        hooks.instantiate(Blank, Tool)
    with pytest.raises(TypeError, match="give a StaticResource"):
        hooks.instantiate(42, Tool, "a StaticResource")


def test_name_of_refuses_a_blank_name_naming_the_owner() -> None:
    assert hooks.name_of(Named(), "Named", None) == "named"
    with pytest.raises(ValueError, match="Blank: a prompt needs a non-blank name"):
        hooks.name_of(Blank(), "Blank", None)


def test_descriptor_orders_the_keys_and_copies_the_objects() -> None:
    tool = Named()
    described = hooks.descriptor(tool, None, "named", {"inputSchema": {}}, ("annotations", "_meta"))
    assert list(described) == ["name", "title", "description", "inputSchema", "_meta"]
    assert described["_meta"] == {"k": 1}
    described["_meta"]["k"] = 2
    assert tool.info("_meta", None) == {"k": 1}  # a copy: the list entry cannot change the tool


@pytest.mark.parametrize(
    ("params", "arguments"),
    [({}, {}), ({"arguments": None}, {}), ({"arguments": {"a": 1}}, {"a": 1})],
)
def test_arguments_of_reads_an_object(params: dict[str, Any], arguments: Any) -> None:
    assert hooks.arguments_of(params, "tools/call") == arguments


def test_arguments_that_are_not_an_object_are_invalid_params() -> None:
    with pytest.raises(MCPError, match="tools/call arguments must be an object") as caught:
        hooks.arguments_of({"arguments": [1]}, "tools/call")
    assert caught.value.code == -32602


# -- calling -----------------------------------------------------------------------------


class Both(Tool, name="both"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        return threading.current_thread().name

    def handle_message(self, message: Any, channel: Channel, state: Any, arg: Any) -> Any:
        return threading.current_thread().name


async def test_an_async_hook_is_awaited_and_a_plain_one_runs_in_a_thread() -> None:
    tool = Both()
    assert hooks.is_async_hook(tool, "call") and not hooks.is_async_hook(tool, "handle_message")
    here = threading.current_thread().name
    assert await hooks.call_hook(tool, "call", None, None, None) == here
    assert await hooks.call_hook(tool, "handle_message", None, None, None, None) != here


class Blocking(Tool, name="blocking"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        time.sleep(0.05)  # noqa: ASYNC251 - the blocking call the watch must name
        await asyncio.sleep(0)
        return "done"


async def test_outside_debug_mode_nothing_is_watched(caplog: pytest.LogCaptureFixture) -> None:
    assert not hooks.debugging()
    asyncio.get_running_loop().slow_callback_duration = 0.01
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        assert await hooks.call_hook(Blocking(), "call", None, None, None) == "done"
    assert "held the event loop" not in caplog.text


async def test_in_debug_mode_a_blocking_step_is_named(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.get_running_loop()
    loop.set_debug(True)
    loop.slow_callback_duration = 0.01
    try:
        with caplog.at_level(logging.WARNING, logger="genmcp"):
            assert await hooks.call_hook(Blocking(), "call", None, None, None) == "done"
    finally:
        loop.set_debug(False)
    assert "Blocking.call() held the event loop for 0.0" in caplog.text


async def test_watched_passes_a_cancellation_into_the_hook() -> None:
    seen: list[str] = []

    async def hook() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    task = asyncio.ensure_future(hooks.watched(hook(), "hook"))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == ["cancelled"]


class Checked(Tool, name="checked", input_schema={"type": "object", "required": ["a"]}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        return "ok"


class OwnCheck(Tool, name="own"):
    async def validate_request(self, request: ToolRequest, arg: Any) -> ToolRequest:
        if "a" not in request.arguments:
            raise InvalidArguments([{"type": "missing", "loc": ["a"], "msg": "a is required"}])
        return request

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        return "ok"


@pytest.mark.parametrize("cls", [Checked, OwnCheck])
async def test_checked_request_validates_with_the_tools_own_or_the_generated_check(
    cls: type[Tool],
) -> None:
    from genmcp.suite import Suite

    suite = Suite(server_name="t", server_version="1", secret_key="h" * 48, tools=[cls])
    entry = suite.tool(cls().option("name"))
    assert entry is not None
    good = ToolRequest(entry.name, {"a": 1}, {}, None, None)
    assert (await hooks.checked_request(entry.tool, good, None)).arguments == {"a": 1}
    with pytest.raises(InvalidArguments):
        await hooks.checked_request(entry.tool, ToolRequest(entry.name, {}, {}, None, None), None)


# -- the return --------------------------------------------------------------------------


class Model(BaseModel):
    x: int


def test_convenience_returns_become_results() -> None:
    text = hooks.converted("hi")
    assert isinstance(text, Result) and text.result == call_tool_result(text="hi")
    model = hooks.converted(Model(x=1))
    assert isinstance(model, Result) and model.result["structuredContent"] == {"x": 1}
    built = call_tool_result(text="t")
    assert hooks.converted(built) == Result(built)
    plain = hooks.converted({"content": "not a list", "x": 1})
    assert isinstance(plain, Result)
    assert plain.result["structuredContent"] == {"content": "not a list", "x": 1}
    stream = Stream(1)
    assert hooks.converted(stream) is stream and hooks.converted(42) == 42


def test_checked_names_the_kind_the_name_the_hook_and_what_was_allowed() -> None:
    assert hooks.checked("tool", "t", "call", Result({}), (Result, Stream)) == Result({})
    with pytest.raises(CallbackReturnError) as caught:
        hooks.checked("tool", "t", "call", 42, (Result, Stream, Error))
    message = str(caught.value)
    assert "'t'" in message and "call" in message and "Result, Stream or Error" in message


def states() -> RequestStates:
    return RequestStates(Sealer.from_config("s" * 48, max_age_s=60, audience="t"), {"m": 1})


def test_result_of_completes_a_result() -> None:
    made = hooks.result_of(
        Result({"content": []}),
        complete=lambda result: {**result, "done": True},
        states=states(),
        meta={},
        binding=lambda: "b",
    )
    assert made == {"content": [], "done": True}


def test_result_of_seals_input_required_and_raises_errors() -> None:
    asked = InputRequired({"q": elicit_request("Sure?", {"type": "object"})}, {"n": 1})
    meta = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    made = hooks.result_of(asked, complete=dict, states=states(), meta=meta, binding=lambda: "b")
    assert made["resultType"] == "input_required" and "requestState" in made
    with pytest.raises(MCPError) as caught:
        hooks.result_of(
            Error("nope", -32001, {"why": 1}),
            complete=dict,
            states=states(),
            meta={},
            binding=lambda: "b",
        )
    assert (caught.value.code, caught.value.data) == (-32001, {"why": 1})


def test_result_of_a_missing_resource_is_the_behaviours_error() -> None:
    gone = MCPError("resource_not_found", "gone")
    with pytest.raises(MCPError, match="gone"):
        hooks.result_of(
            ResourceNotFound(),
            complete=dict,
            states=states(),
            meta={},
            binding=lambda: "b",
            not_found=lambda missing: gone,
        )


def test_completed_puts_the_servers_meta_under_the_results_own() -> None:
    done = hooks.completed({"content": [], "_meta": {"mine": 1, "m": 2}}, {"m": 1, "server": 0})
    assert done == {
        "content": [],
        "resultType": "complete",
        "_meta": {"m": 2, "server": 0, "mine": 1},
    }
    assert hooks.completed({"content": []}, {"m": 1})["_meta"] == {"m": 1}


def test_error_result_reads_an_exception_but_never_a_protocol_error() -> None:
    assert hooks.error_result(ValueError("bad")) == call_tool_result(error="ValueError: bad")
    assert hooks.error_result(KeyError()) == call_tool_result(error="KeyError")
    assert hooks.error_result(MCPError("invalid_params", "x")) is None
    assert hooks.error_result(asyncio.CancelledError()) is None


# -- mistakes caught when the Suite is built (issue 28) ---------------------------------------


class OneArgument(Tool, name="one"):
    async def call(self, request):  # type: ignore[no-untyped-def, override]
        return "never"


class NoCall(Tool, name="none"):
    pass


class NarrowStream(Tool, name="narrow"):
    async def call(self, request: Any, channel: Any, arg: Any) -> Any:
        return "x"

    async def handle_message(self, message):  # type: ignore[no-untyped-def, override]
        return "never"


class NarrowPrompt(Prompt, name="p"):
    def get(self, request):  # type: ignore[no-untyped-def, override]
        return "never"


@pytest.mark.parametrize(
    ("provider", "named", "write"),
    [
        (OneArgument, "OneArgument.call(self, request) cannot take the arguments genmcp "
         "passes", "async def call(self, request, channel, arg)"),
        (NoCall, "NoCall does not define call()", "async def call(self, request, channel, arg)"),
        (NarrowStream, "NarrowStream.handle_message(self, message) cannot take",
         "async def handle_message(self, message, channel, state, arg)"),
    ],
)  # fmt: skip
def test_a_tool_hook_that_cannot_be_called_fails_the_build(
    provider: type[Tool], named: str, write: str
) -> None:
    for build in (
        lambda: Suite(server_name="s", server_version="1", tools=[provider]),
        lambda: mcp_router(server_name="s", server_version="1", tools=[provider]),
    ):
        with pytest.raises(TypeError) as caught:
            build()
        assert named in str(caught.value) and write in str(caught.value), caught.value


def test_a_prompt_hook_that_cannot_be_called_fails_the_build() -> None:
    with pytest.raises(TypeError, match=r"NarrowPrompt.get\(self, request\) cannot take"):
        Suite(server_name="s", server_version="1", prompts=[NarrowPrompt])


def test_hooks_taking_more_than_genmcp_passes_still_build() -> None:
    class Loose(Tool, name="loose"):
        async def call(self, *args: Any) -> Any:
            return "ok"

        def wants_task(self, request: Any, arg: Any, extra: Any = None) -> bool:
            return False

    Suite(server_name="s", server_version="1", tools=[Loose])


def _closures(count: int) -> list[Any]:
    """``call`` hooks made from one ``def`` (as ``@tool`` makes one per function)."""

    def made(i: int) -> Any:
        async def call(self: Tool, request: Any, channel: Any, arg: Any, *, n: int = i) -> Any:
            return f"tool {n}"

        return call

    return [made(i) for i in range(count)]


def _tool_class(name: str, hook: Any) -> type[Tool]:
    return type(name.title(), (Tool,), {"call": hook}, name=name)


async def test_closures_of_one_def_are_checked_by_their_own_defaults() -> None:
    """Closures of one ``def`` share one signature check, but only while they bind alike:
    one whose keyword-only default was taken away is refused, naming its class, though a
    closure of the same code passed before and after it."""
    fit, unfit, fit_again = _closures(3)
    unfit.__kwdefaults__ = None  # n: now keyword-only and required
    Suite(server_name="s", server_version="1", tools=[_tool_class("first", fit)])
    with pytest.raises(TypeError, match=r"Second\.call\(.*\*, n.*cannot take"):
        Suite(server_name="s", server_version="1", tools=[_tool_class("second", unfit)])
    suite = Suite(server_name="s", server_version="1", tools=[_tool_class("third", fit_again)])
    async with MCPTestClient(suite) as client:
        assert (await client.call_tool("third")).text == "tool 2"


def test_a_wrapped_hook_is_checked_by_the_signature_it_shows() -> None:
    """A hook with ``__wrapped__`` is read through it (``inspect.signature``), never taken
    for another closure of its code."""
    fit, shown = _closures(2)

    def narrow(self: Tool) -> Any:
        return None

    shown.__wrapped__ = narrow
    Suite(server_name="s", server_version="1", tools=[_tool_class("plain", fit)])
    with pytest.raises(TypeError, match=r"Shown\.call\(self[^,]*\) .*cannot take"):
        Suite(server_name="s", server_version="1", tools=[_tool_class("shown", shown)])


async def test_a_coroutine_from_a_plain_def_hook_asks_whether_await_was_forgotten(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def lookup() -> str:
        return "found"

    class Forgot(Tool, name="forgot"):
        def call(self, request: Any, channel: Any, arg: Any) -> Any:
            return lookup()  # the await is missing

    suite = Suite(server_name="s", server_version="1", tools=[Forgot])
    with caplog.at_level(logging.ERROR, "genmcp"):
        async with MCPTestClient(suite) as client:
            with pytest.raises(RPCError):
                await client.call_tool("forgot")
    assert "did you forget await?" in caplog.text
    assert "a str (text), a pydantic model or a dict (structured content), Result" in caplog.text
