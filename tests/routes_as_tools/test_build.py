"""``route_tools``: selection, refusals at build, and the generated classes as ordinary Tools.

The calls here go through ``genmcp.testing`` (a Suite driven in-process, no MCP HTTP
request): credentials then come from ``credentials=``, and ``mcp_caller`` shows the route
who called.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from fastapi import Cookie, Depends, FastAPI, Form, Header
from fastapi.responses import FileResponse, StreamingResponse
from jsonschema import Draft202012Validator
from pydantic import BaseModel
from sse_starlette import EventSourceResponse

from genmcp import Result, Suite, call_tool_result
from genmcp.routes_as_tools import BuildError, RouteTool, mcp_caller, route_tools
from genmcp.testing import MCPTestClient
from support import shop


def names(tools: list[type[RouteTool]]) -> list[str]:
    return sorted(tool().option("name") for tool in tools)


APP, _ = shop.make_app()
ALL = ["crash", "create_product", "delete_product", "get_product", "list_products",
       "maintenance", "whoami"]


def test_everything_but_a_streaming_route_by_default_is_refused_clearly() -> None:
    with pytest.raises(BuildError, match=r"GET /export \(export\).*StreamingResponse"):
        route_tools(APP)
    assert names(route_tools(APP, exclude_operations=["export"])) == ALL


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        ({"operations": ["whoami", "get_product"]}, ["get_product", "whoami"]),
        ({"tags": ["broken"]}, ["crash", "maintenance"]),
        ({"paths": ["/products/*"]}, ["delete_product", "get_product"]),
        ({"methods": ["post", "DELETE"]}, ["create_product", "delete_product"]),
        ({"tags": ["products"], "methods": ["GET"]}, ["get_product", "list_products"]),
        ({"tags": ["products"], "exclude_methods": ["GET"]}, ["create_product", "delete_product"]),
        ({"paths": ["/products*"], "exclude_paths": ["*/{product_id}"]},
         ["create_product", "list_products"]),
        ({"exclude_tags": ["files", "broken", "meta"], "exclude_operations": ["list_products"]},
         ["create_product", "delete_product", "get_product"]),
    ],
)
def test_selection(selection: dict[str, Any], expected: list[str]) -> None:
    assert names(route_tools(APP, **selection)) == expected


def test_an_unknown_operation_id_is_an_error() -> None:
    with pytest.raises(BuildError, match="get_prodcut"):
        route_tools(APP, operations=["get_prodcut"])


def test_a_string_where_a_list_belongs_is_an_error() -> None:
    with pytest.raises(TypeError, match="list"):
        route_tools(APP, tags="products")


def test_a_misspelt_selection_keyword_is_refused_as_python_refuses_one() -> None:
    with pytest.raises(TypeError, match=r"route_tools\(\) got an unexpected keyword .*'operation'"):
        route_tools(APP, operation=["whoami"])  # type: ignore[call-arg]


def test_names_rename_and_bad_names_are_refused() -> None:
    [tool] = route_tools(APP, operations=["whoami"], names={"whoami": "who.am-i"})
    assert tool().option("name") == "who.am-i"
    with pytest.raises(BuildError, match="not a valid tool name"):
        route_tools(APP, operations=["whoami"], names={"whoami": "who am i"})


class Note(BaseModel):
    text: str


def small_app() -> FastAPI:
    return FastAPI()


def test_refusals_at_build() -> None:
    app = small_app()

    @app.get("/file", response_class=FileResponse, operation_id="file")
    async def file() -> str:
        return "/etc/hostname"

    @app.post("/form", operation_id="form")
    async def form(name: Annotated[str, Form()]) -> None: ...

    @app.get("/cookie", operation_id="cookie")
    async def cookie(sid: Annotated[str, Cookie()]) -> None: ...

    @app.get("/header", operation_id="header")
    async def header(x_key: Annotated[str, Header()]) -> None: ...

    @app.get("/stream", operation_id="stream")
    async def stream() -> StreamingResponse:
        return StreamingResponse(iter([b""]))

    @app.get("/events", response_class=EventSourceResponse, operation_id="events")
    async def events() -> EventSourceResponse:
        return EventSourceResponse(iter([]))

    cases = {
        "file": "FileResponse",
        "form": "application/x-www-form-urlencoded body",
        "cookie": "requires the cookie 'sid'",
        "header": "requires the header 'x-key': pass headers=True",
        "stream": "StreamingResponse",
        "events": "EventSourceResponse",
    }
    for operation, message in cases.items():
        with pytest.raises(BuildError, match=message):
            route_tools(app, operations=[operation])
    [made] = route_tools(app, operations=["header"], headers=True)
    assert made().option("input_schema")["required"] == ["x-key"]


def test_an_optional_body_and_a_list_body_are_the_body_argument() -> None:
    app = small_app()

    @app.post("/maybe", operation_id="maybe")
    async def maybe(note: Note | None = None) -> dict[str, Any]:
        return {"got": None if note is None else note.text}

    @app.post("/many", operation_id="many")
    async def many(notes: list[Note]) -> int:
        return len(notes)

    tools = {t().option("name"): t for t in route_tools(app)}
    assert "required" not in tools["maybe"]().option("input_schema")
    assert tools["many"]().option("input_schema")["required"] == ["body"]
    assert tools["many"]().option("output_schema")["properties"]["result"]["type"] == "integer"


async def test_generated_tools_are_ordinary_tools_and_subclassable() -> None:
    app = small_app()

    @app.get("/caller", operation_id="caller")
    async def caller(assigns: Annotated[Any, Depends(mcp_caller)]) -> dict[str, Any]:
        return {"assigns": assigns}

    @app.get("/echo", operation_id="echo")
    async def echo(word: str, authorization: Annotated[str | None, Header()] = None) -> str:
        return f"{word}:{authorization}"

    tools = {t().option("name"): t for t in route_tools(
        app, credentials=lambda assigns: {"authorization": f"Bearer {assigns['principal']}"},
    )}

    class Shouting(tools["echo"]):  # type: ignore[misc,valid-type]
        def to_result(self, reply: Any, arg: Any) -> dict[str, Any]:
            shout = json.loads(reply.body).upper()  # the route declares an output schema
            return call_tool_result(text=shout, structured={"result": shout})

    assert issubclass(Shouting, RouteTool)
    suite = Suite(server_name="t", server_version="1", tools=[tools["caller"], Shouting])
    async with MCPTestClient(suite, assigns={"principal": "ann"}) as client:
        seen = await client.call_tool("caller", {})
        echoed = await client.call_tool("echo", {"word": "hi"})
    assert seen.result["structuredContent"] == {"assigns": {"principal": "ann"}}
    assert echoed.content == [{"type": "text", "text": "HI:BEARER ANN"}]
    assert isinstance(Result(echoed.result), Result)


async def test_a_plain_http_request_has_no_mcp_caller() -> None:
    import httpx

    app = small_app()

    @app.get("/caller", operation_id="caller")
    async def caller(assigns: Annotated[Any, Depends(mcp_caller)]) -> dict[str, Any]:
        return {"assigns": assigns}

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        answer = await http.get("/caller", headers={"x": "y"})
    assert answer.json() == {"assigns": None}


async def test_an_oversized_response_is_a_502_result() -> None:
    app = small_app()

    @app.get("/big", operation_id="big")
    async def big() -> str:
        return "x" * 5000

    suite = Suite(server_name="t", server_version="1",
                  tools=route_tools(app, max_response_bytes=1000))
    async with MCPTestClient(suite) as client:
        call = await client.call_tool("big", {})
    assert call.is_error
    assert json.loads(call.content[0]["text"]) == {
        "status": 502, "detail": "the route's response exceeds 1000 bytes"}


class Node(BaseModel):
    name: str
    children: list[Node] = []


async def test_a_list_of_a_recursive_model_keeps_its_definitions_at_the_root() -> None:
    app = FastAPI()

    @app.get("/tree", operation_id="tree")
    async def tree() -> list[Node]:
        return [Node(name="a", children=[Node(name="b")])]

    [made] = route_tools(app)
    schema = made().option("output_schema")
    assert set(schema["$defs"]) == {"Node"} and "$defs" not in schema["properties"]["result"]
    async with MCPTestClient(Suite(server_name="t", server_version="1", tools=[made])) as client:
        result = await client.call_tool("tree", {})
    Draft202012Validator(schema).validate(result.structured)  # every reference resolves
    assert result.structured["result"][0]["children"][0]["name"] == "b"
