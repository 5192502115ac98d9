"""Suite and Tool behaviour driven in-process: options, schemas, listing, outcomes, requestState."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel

from genmcp import (
    Channel,
    InputRequired,
    InvalidArguments,
    Result,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    create_message_request,
    elicit_request,
    list_roots_request,
)
from genmcp.protocol.jsonrpc import Request
from genmcp.sealing import Sealer
from support.answers import answer_of

KEY = "k" * 48
CAPS_ALL = {"elicitation": {}, "sampling": {}, "roots": {}}


def meta(capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities or {},
    }


async def ask(
    suite: Suite,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    caps: dict[str, Any] | None = None,
    assigns: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], int]:
    """Send one request through the real Suite; its answer and HTTP status."""
    request = Request(1, method, {**(params or {}), "_meta": meta(caps)})
    return await answer_of(suite, request, assigns)


def make(*tools: Any, **options: Any) -> Suite:
    return Suite(server_name="s", server_version="1", tools=tools, secret_key=KEY, **options)


class Add(
    Tool,
    name="add",
    description="Adds.",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
    cache_control=("public", 5000),
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=str(request.arguments["a"] + request.arguments["b"])))


# -- building the Suite ----------------------------------------------------------------


def test_a_tool_without_a_name_fails_at_build_naming_the_class() -> None:
    class Nameless(Tool):
        async def call(self, request: Any, channel: Any, arg: Any) -> Result:
            raise AssertionError

    class Blank(Tool, name="  "):
        async def call(self, request: Any, channel: Any, arg: Any) -> Result:
            raise AssertionError

    for cls in (Nameless, Blank):
        with pytest.raises(ValueError, match=cls.__qualname__):
            make(cls)


def test_two_tools_with_one_name_fail_at_build_naming_both() -> None:
    class Other(Tool, name="add"):
        async def call(self, request: Any, channel: Any, arg: Any) -> Result:
            raise AssertionError

    with pytest.raises(ValueError, match=r"Other.*'add'.*Add"):
        make(Add, Other)


def test_unknown_class_options_and_non_tools_are_refused() -> None:
    with pytest.raises(TypeError, match="unknown Tool option"):

        class Typo(Tool, nmae="x"):  # type: ignore[call-arg]
            pass

    with pytest.raises(TypeError, match="not a Tool subclass"):
        make(dict)  # type: ignore[arg-type]


def test_an_invalid_schema_fails_at_build() -> None:
    class Broken(Tool, name="broken", input_schema={"type": "object", "properties": 3}):
        async def call(self, request: Any, channel: Any, arg: Any) -> Any:
            return "never"

    with pytest.raises(ValueError, match="Broken: invalid JSON Schema"):
        make(Broken)


# -- listing ----------------------------------------------------------------------------

RICH_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"id": {"$anchor": "ident", "type": "string", "pattern": "^[a-z]+$"}},
    "properties": {"kind": {"enum": ["a", "b"]}, "id": {"$ref": "#ident"}},
    "if": {"properties": {"kind": {"const": "a"}}},
    "then": {"required": ["id"]},
    "else": {"additionalProperties": False},
    "allOf": [{"required": ["kind"]}],
}


class Rich(
    Tool, name="rich", input_schema=RICH_SCHEMA, title="Rich", annotations={"readOnlyHint": True}
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(structured=request.arguments))


async def test_dict_schemas_are_advertised_verbatim_and_enforced() -> None:
    suite = make(Rich)
    listing, _ = await ask(suite, "tools/list")
    (tool,) = listing["result"]["tools"]
    assert tool["inputSchema"] == RICH_SCHEMA
    assert tool["title"] == "Rich"
    assert tool["annotations"] == {"readOnlyHint": True}
    ok, _ = await ask(suite, "tools/call", {"name": "rich", "arguments": {"kind": "a", "id": "x"}})
    assert "isError" not in ok["result"]
    bad, _ = await ask(
        suite, "tools/call", {"name": "rich", "arguments": {"kind": "a", "id": "X1"}}
    )
    assert bad["result"]["isError"] is True
    assert "id: 'X1' does not match" in bad["result"]["content"][0]["text"]
    missing, _ = await ask(suite, "tools/call", {"name": "rich", "arguments": {"kind": "a"}})
    assert "'id' is a required property" in missing["result"]["content"][0]["text"]


async def test_format_checks_are_on() -> None:
    class Mail(
        Tool,
        name="mail",
        input_schema={
            "type": "object",
            "properties": {"to": {"type": "string", "format": "email"}},
        },
    ):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(text="sent"))

    bad, _ = await ask(make(Mail), "tools/call", {"name": "mail", "arguments": {"to": "nobody"}})
    assert bad["result"]["isError"] is True
    assert "to: 'nobody' is not a 'email'" in bad["result"]["content"][0]["text"]


class Address(BaseModel):
    city: str
    zip: str


class Person(BaseModel):
    name: str
    home: Address
    work: Address | None = None


class Register(Tool, name="register", input_schema=Person):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        person = request.arguments
        assert isinstance(person, Person)
        return Result(call_tool_result(text=f"{person.name} of {person.home.city}"))


async def test_pydantic_schemas_are_self_contained_and_cast_arguments() -> None:
    suite = make(Register)
    listing, _ = await ask(suite, "tools/list")
    schema = listing["result"]["tools"][0]["inputSchema"]
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema
    assert schema["properties"]["home"]["properties"]["city"] == {"title": "City", "type": "string"}
    args = {"name": "Ada", "home": {"city": "London", "zip": "N1"}}
    ok, _ = await ask(suite, "tools/call", {"name": "register", "arguments": args})
    assert ok["result"]["content"][0]["text"] == "Ada of London"
    bad, _ = await ask(
        suite, "tools/call", {"name": "register", "arguments": {"name": "Ada", "home": {}}}
    )
    assert bad["result"]["isError"] is True
    assert "home.city: Field required" in bad["result"]["content"][0]["text"]


async def test_a_custom_validate_request_replaces_the_generated_one() -> None:
    class Lenient(
        Tool,
        name="lenient",
        input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    ):
        def validate_request(self, request: ToolRequest, arg: Any) -> ToolRequest:
            n = request.arguments.get("n")
            if n == "bad":
                raise InvalidArguments([{"type": "custom", "loc": ["n"], "msg": "no bad"}])
            return ToolRequest(request.name, {"n": int(n)}, request.meta)

        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(text=str(request.arguments["n"] * 2)))

    suite = make(Lenient)
    ok, _ = await ask(suite, "tools/call", {"name": "lenient", "arguments": {"n": "21"}})
    assert ok["result"]["content"][0]["text"] == "42"  # "21" is no integer: schema not applied
    bad, _ = await ask(suite, "tools/call", {"name": "lenient", "arguments": {"n": "bad"}})
    assert bad["result"]["content"][0]["text"] == "Invalid arguments for tool 'lenient': n: no bad"


def tool_named(name: str, cache: Any = None) -> type[Tool]:
    options: dict[str, Any] = {"name": name}
    if cache is not None:
        options["cache_control"] = cache

    class Named(Tool, **options):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(text=name))

    return Named


async def test_tools_list_is_sorted_and_paginated_with_sealed_cursors() -> None:
    suite = make(
        *(tool_named(n) for n in ["delta", "alpha", "echo", "charlie", "bravo"]), page_size=2
    )
    names, cursor, pages = [], None, 0
    while True:
        params = {} if cursor is None else {"cursor": cursor}
        reply, _ = await ask(suite, "tools/list", params)
        names += [t["name"] for t in reply["result"]["tools"]]
        pages += 1
        cursor = reply["result"].get("nextCursor")
        if cursor is None:
            break
        assert cursor.startswith("v1.")
    assert names == ["alpha", "bravo", "charlie", "delta", "echo"] and pages == 3
    forged, status = await ask(suite, "tools/list", {"cursor": "v1.abc.def.ghi"})
    assert forged["error"]["code"] == -32602 and status == 200
    other = Sealer([b"x" * 32]).seal("cursor:tools/list", 1)
    foreign, _ = await ask(suite, "tools/list", {"cursor": other})
    assert foreign["error"]["code"] == -32602


@pytest.mark.parametrize(
    ("hints", "expected"),
    [
        ([None, None], ("private", 0)),
        ([("public", 5000), ("public", 2000)], ("public", 2000)),
        ([("public", 5000), ("private", 9000)], ("private", 5000)),
    ],
)
async def test_list_cache_hints_merge_each_tools_cache_control(
    hints: list[Any], expected: tuple[str, int]
) -> None:
    suite = make(*(tool_named(f"t{i}", hint) for i, hint in enumerate(hints)))
    reply, _ = await ask(suite, "tools/list")
    assert (reply["result"]["cacheScope"], reply["result"]["ttlMs"]) == expected


async def test_the_tool_set_can_change_at_runtime() -> None:
    suite = make(Add)
    suite.add_tool(tool_named("zeta"))
    listing, _ = await ask(suite, "tools/list")
    assert [t["name"] for t in listing["result"]["tools"]] == ["add", "zeta"]
    assert suite.remove_tool("add") and not suite.remove_tool("add")
    listing, _ = await ask(suite, "tools/list")
    assert [t["name"] for t in listing["result"]["tools"]] == ["zeta"]


async def test_provider_arguments_reach_every_hook() -> None:
    class Configurable(Tool):
        def info(self, key: str, arg: Any) -> Any:
            return {"name": f"greet_{arg}", "description": f"Greets in {arg}."}.get(key)

        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(text={"en": "hello", "fr": "bonjour"}[arg]))

    suite = make((Configurable, "en"), (Configurable, "fr"))
    listing, _ = await ask(suite, "tools/list")
    assert [t["description"] for t in listing["result"]["tools"]] == [
        "Greets in en.",
        "Greets in fr.",
    ]
    reply, _ = await ask(suite, "tools/call", {"name": "greet_fr"})
    assert reply["result"]["content"][0]["text"] == "bonjour"


# -- results ------------------------------------------------------------------------------


async def test_results_carry_result_type_and_server_info() -> None:
    reply, status = await ask(
        make(Add), "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}
    )
    assert status == 200
    result = reply["result"]
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "s", "version": "1"}
    assert result["content"] == [{"type": "text", "text": "3"}]


async def test_structured_output_must_match_the_output_schema() -> None:
    class Temp(
        Tool,
        name="temp",
        output_schema={
            "type": "object",
            "required": ["c"],
            "properties": {"c": {"type": "number"}},
        },
    ):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(structured={"c": "warm"}))

    reply, _ = await ask(make(Temp), "tools/call", {"name": "temp"})
    assert reply["error"]["code"] == -32603


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"name": "nope"}, -32602),
        ({}, -32602),
        ({"name": "add", "arguments": [1, 2]}, -32602),
        ({"name": "add", "arguments": {"a": 1, "b": 2}, "inputResponses": {"k": 3}}, -32602),
    ],
)
async def test_malformed_calls_get_invalid_params(params: dict[str, Any], code: int) -> None:
    reply, _ = await ask(make(Add), "tools/call", params)
    assert reply["error"]["code"] == code


async def test_discover_advertises_what_is_configured() -> None:
    reply, _ = await ask(make(Add, instructions="Be nice."), "server/discover")
    result = reply["result"]
    assert result["supportedVersions"][0] == "2026-07-28"
    assert result["capabilities"]["tools"] is not None
    assert result["instructions"] == "Be nice."
    assert {"ttlMs", "cacheScope", "resultType"} <= set(result)
    empty, _ = await ask(make(), "server/discover")
    assert "tools" not in empty["result"]["capabilities"]


# -- multi round-trip input -----------------------------------------------------------


class Confirm(
    Tool,
    name="confirm",
    input_schema={"type": "object", "properties": {"what": {"type": "string"}}},
):
    async def call(
        self, request: ToolRequest, channel: Channel, arg: Any
    ) -> Result | InputRequired:
        answers = request.input_responses or {}
        if "ok" not in answers:
            return InputRequired(
                {
                    "ok": elicit_request(
                        "Sure?", {"type": "object", "properties": {"yes": {"type": "boolean"}}}
                    ),
                    "llm": create_message_request("Say hi", 10),
                    "roots": list_roots_request(),
                },
                state={"round": 1, "what": request.arguments.get("what")},
            )
        return Result(
            call_tool_result(structured={"state": request.request_state, "ok": answers["ok"]})
        )


async def test_input_required_round_trip_hands_back_state_and_answers() -> None:
    suite = make(Confirm)
    first, _ = await ask(
        suite, "tools/call", {"name": "confirm", "arguments": {"what": "x"}}, caps=CAPS_ALL
    )
    result = first["result"]
    assert result["resultType"] == "input_required"
    assert set(result["inputRequests"]) == {"ok", "llm", "roots"}
    assert result["inputRequests"]["roots"] == {"method": "roots/list"}
    answers = {"ok": {"action": "accept", "content": {"yes": True}}}
    retry = {
        "name": "confirm",
        "arguments": {"what": "x"},
        "inputResponses": answers,
        "requestState": result["requestState"],
    }
    second, _ = await ask(suite, "tools/call", retry, caps=CAPS_ALL)
    assert second["result"]["structuredContent"] == {
        "state": {"round": 1, "what": "x"},
        "ok": answers["ok"],
    }


async def test_input_is_requested_only_for_declared_capabilities() -> None:
    reply, status = await ask(
        make(Confirm), "tools/call", {"name": "confirm"}, caps={"elicitation": {}}
    )
    assert status == 400
    assert reply["error"]["code"] == -32021
    assert reply["error"]["data"]["requiredCapabilities"] == {"sampling": {}, "roots": {}}


async def first_state(
    suite: Suite, arguments: dict[str, Any], assigns: dict[str, Any] | None = None
) -> str:
    first, _ = await ask(
        suite,
        "tools/call",
        {"name": "confirm", "arguments": arguments},
        caps=CAPS_ALL,
        assigns=assigns,
    )
    token: str = first["result"]["requestState"]
    return token


@pytest.mark.parametrize(
    "reason",
    ["tampered", "malformed", "rebound-arguments", "rebound-principal", "rebound-tool", "expired"],
)
async def test_bad_request_state_gets_a_precise_invalid_params(reason: str) -> None:
    max_age = 0 if reason == "expired" else 1200
    suite = make(Confirm, tool_named("other"), request_state_max_age_s=max_age)
    token = await first_state(suite, {"what": "x"}, {"principal": "alice"})
    arguments, assigns, name = {"what": "x"}, {"principal": "alice"}, "confirm"
    if reason == "tampered":
        token = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    elif reason == "malformed":
        token = "not a token"
    elif reason == "rebound-arguments":
        arguments = {"what": "y"}
    elif reason == "rebound-principal":
        assigns = {"principal": "mallory"}
    elif reason == "rebound-tool":
        name = "other"
    if reason == "expired":
        await asyncio.sleep(1.1)  # token ages are whole seconds
    params = {"name": name, "arguments": arguments, "inputResponses": {}, "requestState": token}
    reply, _ = await ask(suite, "tools/call", params, caps=CAPS_ALL, assigns=assigns)
    assert reply["error"]["code"] == -32602
    expected = "rebound" if reason.startswith("rebound") else reason
    assert reply["error"]["data"] == {"reason": expected}
    assert "requestState" in reply["error"]["message"]
