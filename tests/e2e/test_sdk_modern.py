"""The official Python SDK client (`mcp==2.3.0`) against examples/app.py, in 2026-07-28 mode.

A real uvicorn serves the example; the SDK connects over Streamable HTTP. A small ASGI
recorder in front of the app keeps every HTTP exchange, so the tests check both what the
SDK surfaces and what actually crossed the wire (no `initialize`, modern headers and
`_meta` on every POST, the MRTR retry echoing `requestState` with a new id).

How the SDK is driven, from reading `mcp/client/` (client.py, session.py, _probe.py,
_input_required.py):

* `Client(url)` defaults to `mode="auto"`: it sends `server/discover` at the newest modern
  version and adopts the result (falling back to `initialize` only on a non-modern
  answer). `mode="2026-07-28"` adopts the version with no probe at all.
* `Client.call_tool` drives multi round-trip input itself: an `input_required` result's
  `inputRequests` go to the client's callbacks (here `elicitation_callback`), and the call
  is retried with `inputResponses` and the echoed `requestState`.
* The elicitation capability is declared (`{"form": {}, "url": {}}`) exactly when an
  `elicitation_callback` is given.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ErrorData

from support import examples
from support.recorder import Recorder
from support.server import LiveServers

VERSION: Final = "2026-07-28"
META_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"

example = examples.load("app")


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder(example.app)
    live = LiveServers()
    try:
        yield live(recorder) + "/mcp", recorder
    finally:
        live.stop_all()


@pytest.fixture
def url(server: tuple[str, Recorder]) -> str:
    return server[0]


@pytest.fixture
def wire(server: tuple[str, Recorder]) -> Recorder:
    recorder = server[1]
    recorder.exchanges.clear()
    return recorder


class Elicitor:
    """An elicitation callback that answers with `answer` and remembers what it was asked."""

    def __init__(self, answer: ElicitResult) -> None:
        self.answer = answer
        self.asked: list[ElicitRequestParams] = []

    async def __call__(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        self.asked.append(params)
        return self.answer


def assert_modern_wire(wire: Recorder) -> None:
    """Every exchange was a modern POST: version header = `_meta`, Mcp-Method = method."""
    assert wire.exchanges, "the SDK sent nothing"
    for exchange in wire.exchanges:
        assert exchange.method == "POST", exchange
        body = exchange.body
        assert body["method"] != "initialize"
        assert exchange.headers["mcp-protocol-version"] == VERSION
        assert exchange.headers["mcp-method"] == body["method"]
        assert body["params"]["_meta"][META_VERSION] == VERSION
        assert isinstance(body["params"]["_meta"][META_CAPABILITIES], dict)
        assert "mcp-session-id" not in exchange.response_headers
        assert exchange.status == 200, exchange


# -- discover, list, call -----------------------------------------------------------------


async def test_the_sdk_discovers_the_server_and_adopts_2026_07_28(url: str, wire: Recorder) -> None:
    async with Client(url) as client:
        assert client.protocol_version == VERSION
        discovered = client.session.discover_result
        assert discovered is not None
        assert VERSION in discovered.supported_versions
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("genmcp-example", "0.1.0")
        assert client.server_capabilities.tools is not None
        assert client.session.initialize_result is None
        assert await client.session.discover() is discovered  # adopted once, cached
    assert [e.body["method"] for e in wire.exchanges] == ["server/discover"]
    assert_modern_wire(wire)


async def test_the_sdk_lists_the_tools(url: str, wire: Recorder) -> None:
    async with Client(url) as client:
        listing = await client.list_tools()
    tools = {tool.name: tool for tool in listing.tools}
    assert sorted(tools) == ["add", "delete_files", "divide", "greet", "weather"]
    assert tools["add"].input_schema["required"] == ["a", "b"]
    assert tools["add"].annotations is not None and tools["add"].annotations.read_only_hint
    assert tools["greet"].input_schema["properties"]["name"]["type"] == "string"
    assert tools["weather"].output_schema is not None
    assert tools["weather"].title == "Weather"
    assert_modern_wire(wire)


async def test_the_sdk_calls_add(url: str, wire: Recorder) -> None:
    async with Client(url) as client:
        result = await client.call_tool("add", {"a": 2, "b": 40})
    assert result.is_error is False
    assert [block.model_dump(exclude_none=True) for block in result.content] == [
        {"type": "text", "text": "42"}
    ]
    [call] = wire.posts("tools/call")
    assert call.headers["mcp-name"] == "add"
    assert call.body["params"]["arguments"] == {"a": 2, "b": 40}
    assert_modern_wire(wire)


async def test_the_sdk_reads_structured_output_and_error_results(url: str) -> None:
    async with Client(url) as client:
        await client.list_tools()  # lets the SDK check structured output against outputSchema
        weather = await client.call_tool("weather", {"city": "Oslo"})
        divided = await client.call_tool("divide", {"a": 1, "b": 0})
        invalid = await client.call_tool("add", {"a": "two", "b": 1})
    assert weather.structured_content == {"city": "Oslo", "celsius": 21.5}
    assert divided.is_error is True
    assert divided.content[0].model_dump()["text"] == "Cannot divide by zero."
    assert invalid.is_error is True
    assert "'two' is not of type 'number'" in invalid.content[0].model_dump()["text"]


async def test_the_sdk_surfaces_an_unknown_tool_as_invalid_params(url: str) -> None:
    async with Client(url) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("nope", {})
    assert raised.value.code == -32602
    assert "nope" in raised.value.message


async def test_a_pinned_version_skips_discovery(url: str, wire: Recorder) -> None:
    async with Client(url, mode=VERSION) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
    assert result.content[0].model_dump()["text"] == "3"
    # No probe; the SDK lists the tools after the call, to check it against an outputSchema.
    assert [e.body["method"] for e in wire.exchanges] == ["tools/call", "tools/list"]
    assert_modern_wire(wire)


# -- multi round-trip input ------------------------------------------------------------------


async def test_the_sdk_completes_an_input_required_round_trip(url: str, wire: Recorder) -> None:
    elicitor = Elicitor(ElicitResult(action="accept", content={"ok": True}))
    async with Client(url, elicitation_callback=elicitor) as client:
        result = await client.call_tool("delete_files", {"paths": ["a.txt", "b.txt"]})

    assert result.is_error is False
    assert result.content[0].model_dump()["text"] == "Deleted 2 file(s)."
    [asked] = elicitor.asked
    assert isinstance(asked, ElicitRequestFormParams)
    assert asked.message == "Delete 2 file(s)?"
    assert asked.requested_schema["required"] == ["ok"]

    first, retry = wire.posts("tools/call")
    declared = first.body["params"]["_meta"][META_CAPABILITIES]
    assert "elicitation" in declared
    answer = first.response["result"]
    assert answer["resultType"] == "input_required"
    assert list(answer["inputRequests"]) == ["confirm"]
    assert "requestState" not in first.body["params"]
    assert retry.body["id"] != first.body["id"]
    assert retry.body["params"]["arguments"] == first.body["params"]["arguments"]
    assert retry.body["params"]["requestState"] == answer["requestState"]
    assert retry.body["params"]["inputResponses"] == {
        "confirm": {"action": "accept", "content": {"ok": True}}
    }
    assert retry.response["result"]["resultType"] == "complete"
    assert_modern_wire(wire)


async def test_a_declined_elicitation_deletes_nothing(url: str, wire: Recorder) -> None:
    elicitor = Elicitor(ElicitResult(action="decline"))
    async with Client(url, elicitation_callback=elicitor) as client:
        result = await client.call_tool("delete_files", {"paths": ["a.txt"]})
    assert result.content[0].model_dump()["text"] == "Nothing deleted."
    assert len(elicitor.asked) == 1
    assert len(wire.posts("tools/call")) == 2


async def test_without_an_elicitation_callback_the_sdk_gets_missing_capability(
    url: str, wire: Recorder
) -> None:
    async with Client(url) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("delete_files", {"paths": ["a.txt"]})
    assert raised.value.code == -32021
    assert raised.value.data == {"requiredCapabilities": {"elicitation": {}}}
    [call] = wire.posts("tools/call")
    assert "elicitation" not in call.body["params"]["_meta"][META_CAPABILITIES]
    assert call.status == 400
