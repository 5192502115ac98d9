"""genmcp.dispatch: a request routed through the method table (``wiring`` builds it) to its Call.

Every method outside the table is -32601; each catalog's methods answer through it; ``_meta``
is checked here when the transport did not; a running call is counted in flight until it
ends. Requests go through the real ``Suite.handle`` and the real relay (``support.answers``),
or straight to a ``Dispatch`` made of a Suite's real parts (``Wiring``), no Suite around it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result
from genmcp.call.relay import Relay
from genmcp.dispatch import Dispatch
from genmcp.events import Answer
from genmcp.protocol import methods
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.versions import MODERN_VERSIONS
from genmcp.readiness import Readiness
from genmcp.sync.interest import Interest
from tests.test_suite import Hello, ask, everything, meta, tools_only
from tests.test_wiring import KEY, SERVED, parts

# -- the method table --------------------------------------------------------------------


@pytest.mark.parametrize(
    "method",
    sorted(
        (methods.REQUESTS - set(SERVED)) | {"tools/unknown", "nope", ""},
    ),
)
async def test_any_other_method_is_method_not_found(method: str) -> None:
    response = await ask(everything(), method)
    assert response["error"]["code"] == -32601
    assert response["error"]["message"] == f"Method not found: {method}"


@pytest.mark.parametrize(
    ("method", "params"),
    [
        (methods.PROMPTS_LIST, {}),
        (methods.PROMPTS_GET, {"name": "hello"}),
        (methods.RESOURCES_LIST, {}),
        (methods.RESOURCES_TEMPLATES_LIST, {}),
        (methods.RESOURCES_READ, {"uri": "x://a"}),
        (
            methods.COMPLETION_COMPLETE,
            {
                "ref": {"type": "ref/prompt", "name": "hello"},
                "argument": {"name": "a", "value": ""},
            },
        ),
        (methods.TASKS_GET, {"taskId": "t"}),
        (methods.SKILLS_LIST, {}),
        (methods.SKILLS_GET, {"uri": "skill://a/SKILL.md"}),
        (methods.RESOURCES_DIRECTORY_READ, {"uri": "skill://a"}),
    ],
)
async def test_a_method_of_a_capability_not_served_is_method_not_found(
    method: str, params: dict[str, Any]
) -> None:
    response = await ask(tools_only(), method, params, tasks=True)
    assert response["error"]["code"] == -32601


async def test_tools_list_is_served_even_without_tools() -> None:
    suite = Suite(server_name="s", server_version="1", secret_key=KEY)
    response = await ask(suite, methods.TOOLS_LIST)
    assert response["result"]["tools"] == []


async def test_each_catalogs_methods_answer_through_the_table() -> None:
    suite = everything()
    called = await ask(suite, methods.TOOLS_CALL, {"name": "echo", "arguments": {"text": "hi"}})
    got = await ask(suite, methods.PROMPTS_GET, {"name": "hello"})
    read = await ask(suite, methods.RESOURCES_READ, {"uri": "file://x"})
    listed = await ask(suite, methods.RESOURCES_LIST)
    assert called["result"]["content"][0]["text"] == "hi"
    assert got["result"]["messages"][0]["content"]["text"] == "hello"
    assert read["result"]["contents"][0]["text"] == "content"
    assert [r["uri"] for r in listed["result"]["resources"]] == ["x://a"]
    assert suite.live_workers == 0


# -- a Dispatch of its own: the wired parts, no Suite ------------------------------------


class Gate(Tool, name="gate", input_schema={"type": "object", "properties": {}}):
    """Answers once the test opens its gate (``arg``): the call runs until then."""

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await arg.wait()
        return Result(call_tool_result(text="through"))


def dispatch_of(gate: asyncio.Event | None = None) -> tuple[Dispatch, Any]:
    """A Dispatch over real parts (the Suite's defaults); ``gate`` serves the ``gate`` tool."""
    wired = parts()
    if gate is not None:
        wired.catalog.add("tool", (Gate, gate), local=True)
    wired.catalog.add("prompt", Hello, local=True)
    table = wired.methods(
        lambda request, meta, assigns: {"resultType": "complete"},
        capabilities=dict,
        routes=lambda uri: False,
        lists={},
        interest=Interest(),
    )
    dispatch = Dispatch(table, readiness=Readiness(wired.catalog, ()), catalog=wired.catalog,
                        changes=wired.changes, tasks=wired.tasks, in_flight=wired.in_flight,
                        mail=wired.mail, versions=MODERN_VERSIONS, strict=False,
                        languages=False)  # fmt: skip
    return dispatch, wired


async def response_of(dispatch: Dispatch, request: Request, meta: Any = None) -> dict[str, Any]:
    async for event in Relay(await dispatch.route(request, {}, meta, None)):
        if isinstance(event, Answer):
            return event.response
    raise AssertionError("no answer")


async def test_a_dispatch_of_wired_parts_answers_without_a_suite() -> None:
    dispatch, _ = dispatch_of()
    request = Request(1, methods.PROMPTS_GET, {"name": "hello", "_meta": meta()})
    response = await response_of(dispatch, request)
    assert response["result"]["messages"][0]["content"]["text"] == "hello"


@pytest.mark.parametrize(
    ("sent", "code", "reason"),
    [
        ({}, -32602, "is required"),  # no protocol version
        ({"io.modelcontextprotocol/protocolVersion": "2025-11-25"}, -32022, "Unsupported"),
        ({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}, -32602, "is required"),
    ],
)
async def test_meta_is_checked_when_the_transport_did_not(
    sent: dict[str, Any], code: int, reason: str
) -> None:
    dispatch, _ = dispatch_of()
    response = await response_of(dispatch, Request(7, methods.TOOLS_LIST, {"_meta": sent}))
    assert response["id"] == 7 and response["error"]["code"] == code
    assert reason in response["error"]["message"]
    assert dispatch.check(Request(8, methods.TOOLS_LIST, {"_meta": meta()})) == meta()


async def test_meta_checked_already_is_taken_as_it_is() -> None:
    """The transport's checked ``_meta`` is not checked again (the hot path): a request
    whose own ``_meta`` is empty answers with the one it was handed."""
    dispatch, _ = dispatch_of()
    response = await response_of(dispatch, Request(2, methods.TOOLS_LIST, {}), meta())
    assert response["result"]["tools"] == []


async def test_a_running_call_is_counted_in_flight_until_it_ends() -> None:
    gate = asyncio.Event()
    dispatch, wired = dispatch_of(gate)
    request = Request(3, methods.TOOLS_CALL, {"name": "gate", "arguments": {}, "_meta": meta()})
    call = await dispatch.route(request, {}, None, None)
    assert list(wired.in_flight.workers) == [call.id] and wired.in_flight.calls == {}
    assert call.id.startswith(wired.mail.address)  # a worker id names its process's mail
    gate.set()
    events = [event async for event in Relay(call)]
    answer = events[-1]
    assert isinstance(answer, Answer)
    assert answer.response["result"]["content"][0]["text"] == "through"
    assert wired.in_flight.workers == {} and wired.in_flight.live_workers == 0
