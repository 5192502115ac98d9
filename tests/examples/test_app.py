"""examples/app.py (what `make run` serves), every tool of it, over a real server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

import httpx
import jsonschema
import pytest

from support import examples
from support.client import ModernClient, Reply
from support.server import LiveServers

app = examples.load("app")

EXERCISED: Final = ["add", "delete_files", "divide", "greet", "weather"]
ELICITATION: Final = {"elicitation": {}}
CONFIRM_SCHEMA: Final = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(app.app)
    finally:
        live.stop_all()


@pytest.fixture
def client(base: str, modern_client: Any) -> ModernClient:
    # Plain HTTP on loopback: skip loading CA certificates for every client.
    made: ModernClient = modern_client(base, transport=httpx.AsyncHTTPTransport(verify=False))
    return made


async def call(client: ModernClient, name: str, arguments: Any, **options: Any) -> Reply:
    return await client.request("tools/call", {"name": name, "arguments": arguments}, **options)


def text(reply: Reply, *, is_error: bool = False) -> str:
    """The single text block of a complete result, checking its isError flag."""
    assert reply.status == 200, reply.body
    result = reply.result
    assert result["resultType"] == "complete", result
    assert result.get("isError", False) is is_error, result
    [block] = result["content"]
    assert block["type"] == "text"
    value: str = block["text"]
    return value


@pytest.fixture
async def tools(client: ModernClient) -> dict[str, dict[str, Any]]:
    reply = await client.request("tools/list")
    return {tool["name"]: tool for tool in reply.result["tools"]}


# -- the listing ---------------------------------------------------------------------


async def test_every_tool_of_the_example_is_exercised_here(client: ModernClient) -> None:
    reply = await client.request("tools/list")
    assert [tool["name"] for tool in reply.result["tools"]] == EXERCISED
    assert "nextCursor" not in reply.result
    # add is public for a minute, the others private/0: the listing takes the strictest.
    assert (reply.result["cacheScope"], reply.result["ttlMs"]) == ("private", 0)


async def test_the_index_route_points_at_mcp(base: str) -> None:
    async with httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(verify=False)) as http:
        response = await http.get(base + "/")
    assert (response.status_code, response.json()) == (200, {"mcp": "/mcp"})


async def test_dict_schemas_and_annotations_are_advertised_verbatim(
    tools: dict[str, dict[str, Any]],
) -> None:
    assert tools["add"] == {
        "name": "add",
        "description": "Adds two numbers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
        "annotations": {"readOnlyHint": True},
    }
    assert tools["delete_files"]["annotations"] == {"destructiveHint": True}
    assert "outputSchema" not in tools["divide"]


async def test_the_pydantic_schema_is_advertised_self_contained(
    tools: dict[str, dict[str, Any]],
) -> None:
    schema = tools["greet"]["inputSchema"]
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema
    assert schema["type"] == "object"
    assert schema["required"] == ["name"]
    assert schema["properties"]["name"]["type"] == "string"
    assert schema["properties"]["name"]["description"] == "Who to greet."
    assert schema["properties"]["excited"]["type"] == "boolean"
    assert schema["properties"]["excited"]["default"] is False


async def test_structured_output_advertises_its_output_schema(
    tools: dict[str, dict[str, Any]],
) -> None:
    weather = tools["weather"]
    assert weather["title"] == "Weather"
    assert weather["outputSchema"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
        "required": ["city", "celsius"],
    }


# -- add (dict schema) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "sum_"), [(2, 3.5, "5.5"), (-1, 1, "0"), (10**15, 1, "1000000000000001")]
)
async def test_add_adds(client: ModernClient, a: Any, b: Any, sum_: str) -> None:
    assert text(await call(client, "add", {"a": a, "b": b})) == sum_


@pytest.mark.parametrize(
    ("arguments", "named", "why"),
    [
        ({"a": "two", "b": 1}, "a", "not of type 'number'"),
        ({"a": 1}, "'b'", "required"),
        ({"a": 1, "b": None}, "b", "not of type 'number'"),
        ({"a": True, "b": 1}, "a", "not of type 'number'"),
    ],
)
async def test_add_with_invalid_arguments_is_an_error_result_naming_the_argument(
    client: ModernClient, arguments: dict[str, Any], named: str, why: str
) -> None:
    message = text(await call(client, "add", arguments), is_error=True)
    assert message.startswith("Invalid arguments for tool 'add': "), message
    assert named in message and why in message, message


# -- greet (pydantic schema) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "greeting"),
    [
        ({"name": "Ada"}, "Hello, Ada."),
        ({"name": "Ada", "excited": True}, "Hello, Ada!"),
        ({"name": "Zoë", "excited": False}, "Hello, Zoë."),
    ],
)
async def test_greet_receives_a_model_instance(
    client: ModernClient, arguments: dict[str, Any], greeting: str
) -> None:
    assert text(await call(client, "greet", arguments)) == greeting


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ({"name": 5}, "name: Input should be a valid string"),
        ({}, "name: Field required"),
        ({"name": "Ada", "excited": "very"}, "excited:"),
    ],
)
async def test_greet_with_invalid_arguments_is_an_error_result_naming_the_argument(
    client: ModernClient, arguments: dict[str, Any], why: str
) -> None:
    message = text(await call(client, "greet", arguments), is_error=True)
    assert message.startswith("Invalid arguments for tool 'greet': "), message
    assert why in message, message


# -- weather (structured output) -----------------------------------------------------------


async def test_weather_returns_structured_content_matching_its_output_schema(
    client: ModernClient, tools: dict[str, dict[str, Any]]
) -> None:
    reply = await call(client, "weather", {"city": "Oslo"})
    structured = reply.result["structuredContent"]
    assert structured == {"city": "Oslo", "celsius": 21.5}
    jsonschema.Draft202012Validator(tools["weather"]["outputSchema"]).validate(structured)
    assert json.loads(text(reply)) == structured  # mirrored as a JSON text block


async def test_weather_with_an_empty_city_is_an_error_result(client: ModernClient) -> None:
    message = text(await call(client, "weather", {"city": ""}), is_error=True)
    assert message == "Invalid arguments for tool 'weather': city: '' should be non-empty"


# -- divide (error result) -----------------------------------------------------------------


async def test_divide_divides(client: ModernClient) -> None:
    assert text(await call(client, "divide", {"a": 1, "b": 4})) == "0.25"


async def test_dividing_by_zero_is_an_error_result_not_a_protocol_error(
    client: ModernClient,
) -> None:
    reply = await call(client, "divide", {"a": 1, "b": 0})
    assert reply.error is None
    assert text(reply, is_error=True) == "Cannot divide by zero."


# -- delete_files (multi round-trip input) ---------------------------------------------------


async def ask_to_delete(client: ModernClient, paths: list[str]) -> dict[str, Any]:
    reply = await call(client, "delete_files", {"paths": paths}, capabilities=ELICITATION)
    assert reply.status == 200, reply.body
    result: dict[str, Any] = reply.result
    return result


async def test_delete_files_asks_for_confirmation_first(client: ModernClient) -> None:
    result = await ask_to_delete(client, ["a.txt", "b.txt"])
    assert result["resultType"] == "input_required"
    assert result["inputRequests"] == {
        "confirm": {
            "method": "elicitation/create",
            "params": {"message": "Delete 2 file(s)?", "requestedSchema": CONFIRM_SCHEMA},
        }
    }
    assert isinstance(result["requestState"], str) and result["requestState"].startswith("v2.")
    assert "content" not in result and "ttlMs" not in result


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ({"action": "accept", "content": {"ok": True}}, "Deleted 3 file(s)."),
        ({"action": "accept", "content": {"ok": False}}, "Nothing deleted."),
        ({"action": "decline"}, "Nothing deleted."),
        ({"action": "cancel"}, "Nothing deleted."),
    ],
)
async def test_the_retry_with_input_responses_and_the_echoed_state_finishes(
    client: ModernClient, answer: dict[str, Any], outcome: str
) -> None:
    paths = ["a", "b", "c"]
    first = await ask_to_delete(client, paths)
    retry = await client.request(
        "tools/call",
        {
            "name": "delete_files",
            "arguments": {"paths": paths},
            "inputResponses": {"confirm": answer},
            "requestState": first["requestState"],
        },
        capabilities=ELICITATION,
    )
    assert text(retry) == outcome


async def test_answers_to_keys_never_asked_are_ignored_and_the_tool_asks_again(
    client: ModernClient,
) -> None:
    reply = await client.request(
        "tools/call",
        {
            "name": "delete_files",
            "arguments": {"paths": ["a"]},
            "inputResponses": {"other": {"action": "accept", "content": {"ok": True}}},
        },
        capabilities=ELICITATION,
    )
    assert reply.result["resultType"] == "input_required"
    assert list(reply.result["inputRequests"]) == ["confirm"]


def tamper(token: str) -> str:
    """Change one character of the ciphertext, past the key id and nonce (all six of its
    bits count)."""
    at = len(token) // 2
    return f"{token[:at]}{'B' if token[at] == 'A' else 'A'}{token[at + 1 :]}"


@pytest.mark.parametrize(
    ("mangle", "arguments", "reason"),
    [
        (tamper, {"paths": ["a", "b"]}, "tampered"),
        (lambda token: token.replace("v2.", "v1.", 1), {"paths": ["a", "b"]}, "malformed"),
        (lambda token: "v2.not a token!", {"paths": ["a", "b"]}, "malformed"),
        (lambda token: token, {"paths": ["a", "b", "c"]}, "rebound"),
        (lambda token: token, {"paths": ["b", "a"]}, "rebound"),
    ],
    ids=["tampered", "other-version", "garbage", "more-paths", "reordered-paths"],
)
async def test_a_bad_request_state_is_a_precise_invalid_params(
    client: ModernClient, mangle: Any, arguments: dict[str, Any], reason: str
) -> None:
    first = await ask_to_delete(client, ["a", "b"])
    reply = await client.request(
        "tools/call",
        {
            "name": "delete_files",
            "arguments": arguments,
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}},
            "requestState": mangle(first["requestState"]),
        },
        id="r",
        capabilities=ELICITATION,
    )
    assert reply.status == 200
    assert reply.response["id"] == "r"
    assert reply.error["code"] == -32602
    assert reply.error["data"] == {"reason": reason}
    assert f"({reason})" in reply.error["message"]


@pytest.mark.parametrize(
    "capabilities",
    [{}, {"sampling": {}, "roots": {}}, {"elicitation": True}],
    ids=["none", "others", "not-an-object"],
)
async def test_delete_files_without_the_elicitation_capability_is_400_missing_capability(
    client: ModernClient, capabilities: dict[str, Any]
) -> None:
    reply = await call(client, "delete_files", {"paths": ["a"]}, id="c", capabilities=capabilities)
    assert reply.status == 400
    assert reply.response["id"] == "c"
    assert reply.error["code"] == -32021
    assert reply.error["data"] == {"requiredCapabilities": {"elicitation": {}}}
    assert "elicitation" in reply.error["message"]
