"""functions/returns.py: a tool function's return annotation is its output schema and its result.

Served through a real FastAPI app in both eras: the advertised ``outputSchema`` validates the
``structuredContent`` (as the official SDK clients check it), the text block mirrors it, a
wrong value is the server's bug and an annotation that cannot be a JSON Schema is refused when
the module loads.
"""

from __future__ import annotations

import datetime
import json
import logging
import socket
from collections.abc import Iterator
from typing import Any, Optional

import pytest
from fastapi import FastAPI
from jsonschema import Draft202012Validator
from pydantic import BaseModel, RootModel
from typing_extensions import TypedDict  # typing.TypedDict: pydantic needs 3.12

from genmcp import InputRequired, Result, ToolRequest, call_tool_result, elicit_request, mcp_router
from genmcp import tool as make_tool
from genmcp.functions.returns import read_returns
from genmcp.testing import MCPTestClient, RPCError, accept

ERAS = ["2026-07-28", "2025-11-25", "2025-06-18"]
WHEN = datetime.datetime(2026, 7, 28, 9, 30, tzinfo=datetime.UTC)


class Ticket(BaseModel):
    id: int
    title: str
    opened: datetime.datetime = WHEN


class Node(BaseModel):
    name: str
    children: list[Node] = []


class Confirm(BaseModel):
    yes: bool


class Point(TypedDict):
    x: int
    y: int


class Ids(RootModel[list[int]]):
    pass


@make_tool
async def search(query: str) -> list[Ticket]:
    """Tickets matching the query."""
    return [Ticket(id=1, title=query), Ticket(id=2, title=query.upper())]


@make_tool
def pair() -> tuple[int, str]:
    return 7, "seven"


@make_tool
async def by_title() -> dict[str, Ticket]:
    return {"a": Ticket(id=1, title="a")}


@make_tool
async def find(ticket_id: int) -> Optional[Ticket]:  # noqa: UP045 (the typing spelling on purpose)
    return Ticket(id=ticket_id, title="found") if ticket_id > 0 else None


@make_tool
async def count() -> int:
    return 3


@make_tool
async def ratio() -> float:
    return 0.5


@make_tool
def flag() -> bool:
    return False


@make_tool
async def tags() -> set[str]:
    return {"b"}


@make_tool
async def tree() -> list[Node]:
    return [Node(name="root", children=[Node(name="leaf")])]


@make_tool
async def point() -> Point:
    return {"x": 1, "y": 2}


@make_tool
async def ids() -> Ids:
    return Ids([1, 2])


@make_tool
async def confirmed(request: ToolRequest) -> list[Ticket] | InputRequired:
    answer = request.input(Confirm)
    if answer is None:
        return InputRequired({"ok": elicit_request("List them?", Confirm)})
    return [Ticket(id=1, title="yes")] if answer.yes else []


@make_tool
async def wrong() -> list[Ticket]:
    return "not a list"  # type: ignore[return-value]


@make_tool
async def wrong_item() -> list[Ticket]:
    return [{"id": "one", "title": "x"}]  # type: ignore[list-item]


@make_tool
async def as_result() -> list[Ticket] | Result:
    return Result(call_tool_result(structured={"result": []}, text="none"))


@make_tool(output_schema={"type": "object", "properties": {"port": {"type": "integer"}}})
async def given() -> socket.socket:
    return {"port": 80}  # type: ignore[return-value]


@make_tool
async def text() -> str:
    return "plain"


@make_tool
async def untyped() -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "a whole result"}]}


@make_tool
async def model() -> Ticket:
    return Ticket(id=9, title="model")


@make_tool
async def anything() -> Any:
    return {"free": True}


@make_tool
async def maybe_text() -> str | None:
    return "plain"


@make_tool
async def text_or_any() -> str | Any:
    return "plain"


TOOLS = [
    search, pair, by_title, find, count, ratio, flag, tags, tree, point, ids, confirmed, wrong,
    wrong_item, as_result, given, text, untyped, model, anything, maybe_text, text_or_any,
]  # fmt: skip


def app() -> FastAPI:
    served = FastAPI()
    served.include_router(
        mcp_router(server_name="t", server_version="1", secret_key="s" * 48, tools=TOOLS),
        prefix="/mcp",
    )
    return served


def wrapped(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"result": schema}, "required": ["result"]}


async def test_the_listing_advertises_object_output_schemas() -> None:
    async with MCPTestClient(app()) as client:
        listed: dict[str, Any] = {
            t["name"]: t.get("outputSchema") for t in await client.list_tools()
        }
    assert listed["count"] == wrapped({"type": "integer"})
    assert listed["ratio"] == wrapped({"type": "number"})
    assert listed["flag"] == wrapped({"type": "boolean"})
    assert listed["pair"] == wrapped(
        {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
         "minItems": 2, "maxItems": 2}
    )  # fmt: skip
    assert listed["tags"] == wrapped(
        {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    )
    ticket = listed["search"]["properties"]["result"]["items"]  # the model inlined
    assert ticket["required"] == ["id", "title"] and "$defs" not in listed["search"]
    assert ticket["properties"]["opened"] == {
        "default": "2026-07-28T09:30:00Z", "format": "date-time", "title": "Opened",
        "type": "string",
    }  # fmt: skip
    assert listed["find"]["properties"]["result"]["anyOf"][1] == {"type": "null"}
    # an object already: the annotation's own schema, not wrapped
    assert listed["by_title"]["type"] == "object"
    assert listed["by_title"]["additionalProperties"]["required"] == ["id", "title"]
    assert listed["point"]["properties"] == {
        "x": {"title": "X", "type": "integer"}, "y": {"title": "Y", "type": "integer"}
    }  # fmt: skip
    # a recursive model keeps its reference, its definition hoisted to the root
    node = listed["tree"]["properties"]["result"]["items"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert set(listed["tree"]["$defs"]) == {"Node"}
    assert listed["ids"] == wrapped({"type": "array", "items": {"type": "integer"}, "title": "Ids"})
    assert listed["given"] == {"type": "object", "properties": {"port": {"type": "integer"}}}
    assert listed["model"]["required"] == ["id", "title"]  # a model: as ever
    for unchanged in ("text", "untyped", "anything", "maybe_text", "text_or_any"):
        assert listed[unchanged] is None
    for schema in listed.values():
        if schema is not None:
            Draft202012Validator.check_schema(schema)
            assert schema["type"] == "object"


@pytest.mark.parametrize("version", ERAS)
async def test_each_return_is_structured_content_the_schema_validates(version: str) -> None:
    calls = {
        "search": ({"query": "disk"}, {"result": [
            {"id": 1, "title": "disk", "opened": "2026-07-28T09:30:00Z"},
            {"id": 2, "title": "DISK", "opened": "2026-07-28T09:30:00Z"},
        ]}),
        "pair": ({}, {"result": [7, "seven"]}),
        "by_title": ({}, {"a": {"id": 1, "title": "a", "opened": "2026-07-28T09:30:00Z"}}),
        "find": ({"ticket_id": 4}, {"result": {
            "id": 4, "title": "found", "opened": "2026-07-28T09:30:00Z"
        }}),
        "count": ({}, {"result": 3}),
        "ratio": ({}, {"result": 0.5}),
        "flag": ({}, {"result": False}),
        "tags": ({}, {"result": ["b"]}),
        "tree": ({}, {"result": [
            {"name": "root", "children": [{"name": "leaf", "children": []}]}
        ]}),
        "point": ({}, {"x": 1, "y": 2}),
        "ids": ({}, {"result": [1, 2]}),
        "given": ({}, {"port": 80}),
    }  # fmt: skip
    async with MCPTestClient(app(), protocol_version=version) as client:
        schemas: dict[str, Any] = {
            t["name"]: t.get("outputSchema") for t in await client.list_tools()
        }
        for name, (arguments, expected) in calls.items():
            called = await client.call_tool(name, arguments)
            assert not called.is_error, name
            assert called.structured == expected, name
            Draft202012Validator(schemas[name]).validate(called.structured)
            assert [block["type"] for block in called.content] == ["text"], name
            assert json.loads(called.text) == expected, name  # the JSON mirror


@pytest.mark.parametrize("version", ERAS)
async def test_optional_model_returns_none_as_null(version: str) -> None:
    async with MCPTestClient(app(), protocol_version=version) as client:
        schema = {t["name"]: t for t in await client.list_tools()}["find"]["outputSchema"]
        missing = await client.call_tool("find", {"ticket_id": 0})
    assert missing.structured == {"result": None} and missing.text == '{"result":null}'
    Draft202012Validator(schema).validate(missing.structured)


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])
async def test_a_union_with_an_outcome_asks_then_returns_the_list(version: str) -> None:
    key = "elicitation/create" if version.startswith("2025") else "ok"
    async with MCPTestClient(app(), protocol_version=version) as client:
        listed = {t["name"]: t for t in await client.list_tools()}
        assert listed["confirmed"]["outputSchema"] == listed["search"]["outputSchema"]
        called = await client.call_tool("confirmed", {}, answers={key: accept({"yes": True})})
        none = await client.call_tool("confirmed", {}, answers={key: accept({"yes": False})})
    assert called.structured["result"][0]["title"] == "yes"
    assert none.structured == {"result": []}


async def test_an_outcome_returned_passes_as_it_is() -> None:
    async with MCPTestClient(app()) as client:
        called = await client.call_tool("as_result", {})
    assert called.structured == {"result": []} and called.text == "none"


async def test_the_unchanged_returns_stay_as_they_were() -> None:
    async with MCPTestClient(app()) as client:
        assert (await client.call_tool("text", {})).structured is None
        assert (await client.call_tool("text", {})).text == "plain"
        whole = await client.call_tool("untyped", {})  # a dict[str, Any] may be a whole result
        assert whole.text == "a whole result" and whole.structured is None
        assert (await client.call_tool("anything", {})).structured == {"free": True}
        assert (await client.call_tool("model", {})).structured["title"] == "model"


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("wrong", "tool 'wrong': call() returned 'not a list'; expected list["),
        ("wrong_item", "first at 0.id: Input should be a valid integer"),
    ],
)
async def test_a_value_that_does_not_fit_is_the_servers_bug(
    name: str, found: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        async with MCPTestClient(app()) as client:
            with pytest.raises(RPCError) as caught:
                await client.call_tool(name, {})
            assert (await client.call_tool("count", {})).structured == {"result": 3}  # served on
    assert caught.value.code == -32603 and f"tool {name!r}" in caught.value.message
    logged = caplog.text
    assert "CallbackReturnError" in logged and found in logged
    assert "as its return annotation says" in logged


class Opaque:
    pass


def opaque() -> Opaque:
    return Opaque()


def connection() -> socket.socket:
    raise NotImplementedError


def numbers() -> Iterator[int]:
    return iter([1])


def generated():  # type: ignore[no-untyped-def]
    yield 1


@pytest.mark.parametrize(
    ("fn", "shown"),
    [
        (connection, "-> socket.socket cannot be a JSON Schema"),
        (opaque, "-> tests.functions.test_returns.Opaque cannot be a JSON Schema"),
        (numbers, "-> collections.abc.Iterator[int] cannot be a JSON Schema"),
        (generated, "a generator function cannot be a tool"),
    ],
)
def test_an_annotation_that_cannot_be_a_schema_is_refused_at_load(fn: Any, shown: str) -> None:
    with pytest.raises(TypeError) as caught:
        make_tool(fn)
    message = str(caught.value)
    assert message.startswith(f"@tool {fn.__qualname__}: ") and shown in message
    if fn is not generated:
        assert "return a pydantic model or a JSON type" in message
        assert "@tool(output_schema=...)" in message and "-> Any" in message


def test_what_asks_for_nothing_new() -> None:
    def returning(annotation: Any) -> Any:
        def fn() -> None: ...

        fn.__annotations__["return"] = annotation
        return read_returns(fn)

    for annotation in (Any, object, None, str, dict, dict[str, Any], Ticket, InputRequired):
        assert returning(annotation) is None, annotation
    assert returning(str | InputRequired) is None
    assert returning(Ticket | InputRequired) is None
    assert returning(list[Ticket] | InputRequired).annotation == list[Ticket]
    assert returning(dict[str, int]).wrapped is False
    assert returning(list[int] | None).wrapped is True
