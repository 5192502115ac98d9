"""functions/tools.py: ``@tool`` makes an ordinary Tool class, served through a real FastAPI app.

Arguments come from the signature, the description from the docstring, the output schema
from a model return; ``Channel``, ``ToolRequest`` and FastAPI dependencies are injected per
call (overrides apply, ``yield`` cleanup runs); a plain ``def`` runs in a worker thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from fastapi import Depends, FastAPI, Header
from pydantic import BaseModel, Field

from genmcp import (
    Channel,
    InputDeclined,
    InputRequired,
    Suite,
    Tool,
    ToolRequest,
    elicit_request,
    mcp_router,
    tool,
)
from genmcp.testing import MCPTestClient, accept, decline

CLEANED: list[str] = []


def user(x_user: Annotated[str, Header()] = "nobody") -> str:
    return x_user


def cart() -> Iterator[list[str]]:
    items: list[str] = []
    yield items
    CLEANED.append(",".join(items))


class Order(BaseModel):
    item: str = Field(min_length=1)
    quantity: int = 1


class Placed(BaseModel):
    item: str
    by: str


class Confirm(BaseModel):
    yes: bool


@tool(annotations={"readOnlyHint": True})
async def add(a: int, b: Annotated[int, Field(ge=0, description="Added to a")] = 1) -> str:
    """Adds two numbers."""
    return str(a + b)


@tool
async def place(
    order: Order, who: Annotated[str, Depends(user)], items: list[str] = Depends(cart)
) -> Placed:
    """Places an order."""
    items.append(order.item)
    return Placed(item=order.item, by=who)


@tool(name="where")
def blocking(channel: Channel, who: Annotated[str, Depends(user)]) -> dict[str, Any]:
    """Runs in a thread."""
    return {"thread": threading.current_thread().name, "who": who, "meta": bool(channel.meta)}


@tool
def plain_thread() -> str:
    return threading.current_thread().name


@tool
async def remove(name: str, request: ToolRequest) -> str | InputRequired:
    """Removes after a confirmation."""
    confirm = request.input(Confirm)
    if confirm is None:
        return InputRequired({"ok": elicit_request(f"Remove {name}?", Confirm)})
    return f"removed {name}" if confirm.yes else "kept"


def app() -> FastAPI:
    served = FastAPI()
    served.include_router(
        mcp_router(
            server_name="t",
            server_version="1",
            secret_key="s" * 48,
            tools=[add, place, blocking, plain_thread, remove],
        ),
        prefix="/mcp",
    )
    return served


def test_the_decorator_makes_an_ordinary_tool_class() -> None:
    assert isinstance(add, type) and issubclass(add, Tool)
    assert add.__name__ == "add" and add.__doc__ == "Adds two numbers."
    assert add.__wrapped__.__name__ == "add"  # type: ignore[attr-defined]
    assert issubclass(tool(lambda: "x", name="anon"), Tool)


async def test_the_listing_comes_from_the_signature_docstring_and_return() -> None:
    async with MCPTestClient(app()) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
    assert sorted(tools) == ["add", "place", "plain_thread", "remove", "where"]
    assert tools["add"]["description"] == "Adds two numbers."
    assert tools["add"]["annotations"] == {"readOnlyHint": True}
    schema = tools["add"]["inputSchema"]
    assert schema["required"] == ["a"]
    assert schema["properties"]["b"] == {
        "default": 1, "description": "Added to a", "minimum": 0, "title": "B", "type": "integer"
    }  # fmt: skip
    assert tools["place"]["inputSchema"]["properties"].keys() == {"item", "quantity"}
    assert tools["place"]["outputSchema"]["required"] == ["item", "by"]
    assert "outputSchema" not in tools["add"]
    no_arguments = {"type": "object", "additionalProperties": False}
    assert tools["plain_thread"]["inputSchema"] == no_arguments
    assert "description" not in tools["plain_thread"]  # no docstring


async def test_arguments_are_validated_and_passed() -> None:
    async with MCPTestClient(app()) as client:
        assert (await client.call_tool("add", {"a": 2, "b": 3})).text == "5"
        assert (await client.call_tool("add", {"a": 2})).text == "3"
        refused = await client.call_tool("add", {"a": 2, "b": -1})
        assert refused.is_error and "b: Input should be greater than or equal to 0" in refused.text
        unknown = await client.call_tool("add", {"a": 2, "c": 1})
        assert unknown.is_error and "c" in unknown.text


async def test_dependencies_are_resolved_per_call_and_cleaned_up() -> None:
    CLEANED.clear()
    async with MCPTestClient(app(), headers={"X-User": "ada"}) as client:
        placed = await client.call_tool("place", {"item": "saw"})
        assert placed.structured == {"item": "saw", "by": "ada"}
        await client.wait_idle()
    assert CLEANED == ["saw"]


async def test_dependency_overrides_apply() -> None:
    served = app()
    served.dependency_overrides[user] = lambda: "override"
    async with MCPTestClient(served) as client:
        placed = await client.call_tool("place", {"item": "saw", "quantity": 2})
    assert placed.structured == {"item": "saw", "by": "override"}


async def test_a_plain_def_runs_in_a_worker_thread_with_or_without_dependencies() -> None:
    async with MCPTestClient(app(), headers={"X-User": "ada"}) as client:
        where = (await client.call_tool("where", {})).structured
        alone = (await client.call_tool("plain_thread", {})).text
    main = threading.main_thread().name
    assert where["thread"] != main and where["who"] == "ada" and where["meta"] is True
    assert alone != main


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])
async def test_a_typed_elicitation_in_both_eras(version: str) -> None:
    legacy = version.startswith("2025")
    yes = {"elicitation/create" if legacy else "ok": accept({"yes": True})}
    no = {"elicitation/create" if legacy else "ok": decline()}
    async with MCPTestClient(app(), protocol_version=version) as client:
        removed = await client.call_tool("remove", {"name": "saw"}, answers=yes)
        assert removed.text == "removed saw"
        asked = removed.server_requests if legacy else removed.rounds
        assert len(asked) == 1
        declined = await client.call_tool("remove", {"name": "saw"}, answers=no)
    assert declined.is_error
    assert declined.text == "The user answered 'decline' to 'ok': nothing was done"


async def test_an_answer_that_does_not_fit_the_model_is_the_clients_fault() -> None:
    async with MCPTestClient(app()) as client:
        first = await client.call_tool("remove", {"name": "saw"})
        schema = first.input_requests["ok"]["params"]["requestedSchema"]
        assert schema == {
            "type": "object", "properties": {"yes": {"title": "Yes", "type": "boolean"}},
            "required": ["yes"],
        }  # fmt: skip
        with pytest.raises(Exception, match="-32602") as caught:
            await client.retry(first, {"ok": accept({"yes": "perhaps"})})
    assert "does not fit Confirm" in str(caught.value)


def test_input_declined_carries_the_key_and_action() -> None:
    declined = InputDeclined("ok", "cancel")
    assert (declined.key, declined.action, declined.reason) == ("ok", "cancel", "input_refused")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: tool(lambda a: a, input_schema={}), "reads input_schema from the signature"),
        (lambda: tool(lambda: "x", colour="red"), "unknown Tool option"),
    ],
)
def test_refusals_name_the_fix(make: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        make()


async def test_a_suite_serves_function_tools_without_an_app() -> None:
    suite = Suite(server_name="t", server_version="1", tools=[add])
    async with MCPTestClient(suite) as client:
        assert (await client.call_tool("add", {"a": 1})).text == "2"


def _generated(i: int) -> type[Tool]:
    """A tool function generated from data, as a catalog of many makes them: a closure of
    one ``def``, named and described by options."""

    async def lookup(key: str) -> str:
        return f"{i}:{key}"

    return tool(lookup, name=f"lookup_{i}", description=f"Looks up in table {i}.")


async def test_generated_tool_functions_each_answer_as_their_own_tool() -> None:
    """Closures of one ``def`` made into tools (one arguments model, one signature check,
    one ``is async`` answer for their shared code) each list their own name and description,
    validate their arguments and call their own function."""
    generated = [_generated(i) for i in range(30)]
    models = {cls._genmcp_options["input_schema"] for cls in generated}
    assert len(models) == 1  # one arguments model for the 30 (the same annotations)
    suite = Suite(server_name="t", server_version="1", tools=generated)
    async with MCPTestClient(suite) as client:
        listed = {t["name"]: t["description"] for t in await client.list_tools()}
        assert listed == {f"lookup_{i}": f"Looks up in table {i}." for i in range(30)}
        for i in (0, 17, 29):
            assert (await client.call_tool(f"lookup_{i}", {"key": "k"})).text == f"{i}:k"
        refused = await client.call_tool("lookup_3", {"key": 1})
        assert refused.is_error and "lookup_3" in refused.text


def _pinged(i: int) -> type[Tool]:
    """A generated tool function without arguments (a closure of one ``def``)."""

    async def ping() -> str:
        return "pong"

    return tool(ping, name=f"ping_{i}", description=f"Pings {i}.")


def _traced_per_item(make: Any, count: int) -> float:
    """The bytes ``make()`` leaves allocated, per item (tracemalloc: bytes, not time)."""
    import gc
    import tracemalloc

    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = make()
        gc.collect()
        per_item = (tracemalloc.get_traced_memory()[0] - before) / count
    finally:
        tracemalloc.stop()
    del made
    return per_item


def test_a_generated_function_catalog_costs_little_memory_per_tool() -> None:
    """2,000 generated ``@tool`` functions without arguments: what the Suite allocates for
    them, per tool (tracemalloc): about 1,180 bytes a tool before issue 50's function form,
    about 795 with it (most of it the ``__dict__`` of each tool's instance), about 390 now
    that a ``@tool`` class's instance has none (its class declares ``__slots__``)."""
    functions = [_pinged(i) for i in range(2000)]
    per_tool = _traced_per_item(
        lambda: Suite(server_name="t", server_version="1", tools=functions), len(functions)
    )
    assert per_tool < 480, per_tool


@pytest.mark.parametrize("make", [_pinged, _generated], ids=["no_arguments", "one_argument"])
def test_a_generated_tool_function_costs_about_its_class(make: Any) -> None:
    """What ``@tool`` itself leaves per generated function (its class, options, call hook):
    about 3,450-3,610 bytes before (a class with an instance ``__dict__`` layout, the type
    hints, signature and return read per function, a ``call`` closure each), about 2,380-2,420
    now (the class, slotted: 1,460 of them are CPython's for any empty class)."""
    make(-1)  # the shape read once, outside the measure
    per_tool = _traced_per_item(lambda: [make(i) for i in range(2000)], 2000)
    assert per_tool < 2600, per_tool


def test_closures_of_one_def_share_their_reading_and_call_hook() -> None:
    """Closures of one ``def`` are read once (their signature, return and a ``call`` hook
    shared: the function is the class's ``__wrapped__``), and each class still wraps, names
    and calls its own function; a ``@tool`` class's instances have no ``__dict__``."""
    first, second = _pinged(1), _pinged(2)
    assert first.call is second.call  # type: ignore[comparison-overlap]
    assert first.__wrapped__ is not second.__wrapped__  # type: ignore[attr-defined]
    assert (first.__name__, first._genmcp_options["name"]) == ("ping", "ping_1")
    assert not hasattr(first(), "__dict__")
    one, other = _generated(1), _generated(2)
    assert one.call is other.call  # type: ignore[comparison-overlap]
    assert one._genmcp_options["input_schema"] is other._genmcp_options["input_schema"]


def test_a_bad_annotation_fails_each_decoration_of_its_def() -> None:
    """A function whose annotation does not resolve fails at its decoration, every time
    (a failed reading is not kept); one of the same code resolving in other globals is read
    in those (a reading is shared only within the same globals)."""
    import types

    async def probe(key: Missing) -> str:  # type: ignore[name-defined]  # noqa: F821
        return str(key)

    def made_in(scope: dict[str, Any]) -> Any:
        fn = types.FunctionType(probe.__code__, scope, "probe")
        fn.__annotations__ = dict(probe.__annotations__)  # "Missing", "str": strings
        fn.__qualname__ = probe.__qualname__
        return fn

    for _ in range(2):
        with pytest.raises(TypeError, match="an annotation does not resolve"):
            tool(made_in(globals()), name="probe")
    schemas = {}
    for kind in (int, str):
        made = tool(made_in({"__name__": __name__, "Missing": kind}), name="probe")
        schemas[kind] = made._genmcp_options["input_schema"].model_json_schema()
    assert schemas[int]["properties"]["key"]["type"] == "integer"
    assert schemas[str]["properties"]["key"]["type"] == "string"


def test_a_tool_class_instance_validates_directly_without_a_dict() -> None:
    """A ``@tool`` class's instance (no ``__dict__``) validates its arguments with the
    generated ``validate_request`` outside a Suite: compiled once, kept on its class."""
    made = _generated(5)()
    request = ToolRequest("lookup_5", {"key": "k"})
    checked = made.validate_request(request, None)
    assert checked.arguments.key == "k"
    kept = vars(type(made))["_genmcp_validator"]
    assert made.validate_request(request, None).arguments.key == "k"
    assert vars(type(made))["_genmcp_validator"] is kept
