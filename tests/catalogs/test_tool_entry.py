"""catalogs.tool_entry through a real Suite: what building a tool's entry once shares (one
validator per schema object and options, one hook check per function), what it costs per
tool, a descriptor built at first listing, and schemas compiled at first use
(``lazy_schemas``)."""

from __future__ import annotations

import logging
import types
from typing import Any

import pytest

from genmcp import (
    Channel,
    Result,
    Tool,
    ToolRequest,
    call_tool_result,
)
from tests.catalogs.test_tools import ask, make

# -- generated catalogs: one schema object, one hook function, many tools ----------------

MAIL_SCHEMA = {"type": "object", "properties": {"to": {"type": "string", "format": "email"}}}


async def _send(self: Tool, request: ToolRequest, channel: Channel, arg: Any) -> Result:
    return Result(call_tool_result(text="sent"))


def _generated(name: str, **options: Any) -> type[Tool]:
    return types.new_class(
        name.title(), (Tool,), {"name": name, "input_schema": MAIL_SCHEMA, **options},
        lambda ns: ns.update(call=_send),
    )


async def test_tools_sharing_one_schema_object_validate_by_their_own_options() -> None:
    """Tools given the very same schema object share its compiled validator only when their
    schema options are equal: a tool that turns format checks off is not checked by the
    validator compiled for one that has them on, whichever comes first."""
    lax = {"schema_options": {"check_formats": False}}
    suite = make(_generated("a"), _generated("b"), _generated("c", **lax), _generated("d"))
    sent = {"to": "nobody"}
    for name, refused in (("a", True), ("b", True), ("c", False), ("d", True)):
        answer, _ = await ask(suite, "tools/call", {"name": name, "arguments": sent})
        assert answer["result"].get("isError", False) is refused, name
    listing, _ = await ask(suite, "tools/list")
    assert [t["inputSchema"] for t in listing["result"]["tools"]] == [MAIL_SCHEMA] * 4


def test_a_hook_shared_by_generated_classes_is_refused_for_each() -> None:
    """The hook check is kept per function: the second class with the same bad ``call``
    is refused too, naming itself."""

    async def bad(self: Tool) -> Result:
        return Result(call_tool_result(text="never"))

    for name in ("first", "second"):
        cls = types.new_class(name.title(), (Tool,), {"name": name}, lambda ns: ns.update(call=bad))
        with pytest.raises(TypeError, match=f"{name.title()}.call"):
            make(cls)


def test_a_generated_catalog_costs_little_memory_per_tool() -> None:
    """2,000 tools from class options alone, one schema object: what the Suite allocates for
    them, per tool (tracemalloc: bytes, not time). Before the compact entries (issue 50)
    about 1,130 bytes a tool; now about 670 (no descriptor until listed, no empty dicts)."""
    import gc
    import tracemalloc

    classes = [_generated(f"tool_{i}", description=f"Tool {i}.") for i in range(2000)]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        suite = make(*classes)
        gc.collect()
        per_tool = (tracemalloc.get_traced_memory()[0] - before) / len(classes)
    finally:
        tracemalloc.stop()
    assert len(suite._tools.entries) == 2000
    assert per_tool < 850, per_tool


class _Table(Tool, input_schema=MAIL_SCHEMA):
    """A generated catalog's other form: one class, ``(_Table, i)`` providers, its own
    ``info`` giving each name and description (and, for ``"bad"``, an icon that is not)."""

    def info(self, key: str, arg: Any) -> Any:
        if key == "name":
            return f"table_{arg}"
        if key == "description":
            return f"Table {arg}."
        if key == "icons" and arg == "bad":
            return [{"src": "javascript:alert(1)"}]
        return None

    call = _send


async def test_providers_with_their_own_info_are_checked_at_build_and_listed_alike() -> None:
    """A ``(class, arg)`` provider whose only own metadata hook is ``info`` is described at
    build (a bad icon fails it, naming the class) and not held until listed: each lists
    what its ``info`` gives, for 2,000 providers at about 470 bytes a tool (tracemalloc;
    about 720 when every descriptor was held from the build)."""
    import gc
    import tracemalloc

    with pytest.raises(ValueError, match="_Table"):
        make((_Table, 1), (_Table, "bad"))
    providers = [(_Table, i) for i in range(2000)]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        suite = make(*providers)
        gc.collect()
        per_tool = (tracemalloc.get_traced_memory()[0] - before) / len(providers)
    finally:
        tracemalloc.stop()
    assert per_tool < 560, per_tool
    listing, _ = await ask(suite, "tools/list", {})
    first = listing["result"]["tools"][0]
    assert first == {"name": first["name"], "description": "Table " + first["name"][6:] + ".",
                     "inputSchema": MAIL_SCHEMA}
    answer, _ = await ask(suite, "tools/call", {"name": "table_7", "arguments": {"to": "a@b.c"}})
    assert answer["result"]["content"][0]["text"] == "sent"


async def test_a_tool_described_on_first_listing_lists_as_one_described_at_build() -> None:
    """A tool from options is described when first listed; one with icons (checked) at
    build: both list every key they set, and a bad icon still fails the build."""
    icons = [{"src": "https://example.com/i.png"}]
    plain = _generated("plain", title="Plain", description="From options.")
    decked = _generated("decked", title="Decked", description="With icons.", icons=icons)
    suite = make(plain, decked)
    listing, _ = await ask(suite, "tools/list")
    assert listing["result"]["tools"] == [
        {"name": "decked", "title": "Decked", "description": "With icons.",
         "inputSchema": MAIL_SCHEMA, "icons": icons},
        {"name": "plain", "title": "Plain", "description": "From options.",
         "inputSchema": MAIL_SCHEMA},
    ]
    with pytest.raises(ValueError, match="Broken"):
        make(_generated("broken", icons=[{"src": "javascript:alert(1)"}]))


# -- lazy_schemas: input schemas compiled at first use -----------------------------------

BROKEN_SCHEMA = {"type": "object", "properties": {"to": {"type": "nonsense"}}}


async def test_a_lazy_suite_answers_a_broken_schema_at_its_calls_and_check_schemas_finds_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Eagerly the broken schema fails the build; lazily the Suite builds, lists the tool as
    given, answers each call -32603 naming the tool and the fault (logged once), keeps the
    other tools working, and ``check_schemas`` raises what the build would have."""
    broken = _generated("broken", input_schema=BROKEN_SCHEMA)
    with pytest.raises((TypeError, ValueError), match="Broken") as eager:
        make(broken)
    suite = make(broken, _generated("fine"), lazy_schemas=True)
    listing, _ = await ask(suite, "tools/list")
    assert [t["inputSchema"] for t in listing["result"]["tools"]] == [BROKEN_SCHEMA, MAIL_SCHEMA]
    with caplog.at_level(logging.ERROR, logger="genmcp"):
        for _ in range(2):
            answer, status = await ask(suite, "tools/call", {"name": "broken", "arguments": {}})
            assert status == 200
            assert answer["error"]["code"] == -32603
            assert "tool 'broken'" in answer["error"]["message"]
            assert str(eager.value) in answer["error"]["message"]
    assert [r.getMessage() for r in caplog.records if "does not compile" in r.getMessage()] == [
        f"tool 'broken': its input schema does not compile: {eager.value}"
    ]
    fine, _ = await ask(suite, "tools/call", {"name": "fine", "arguments": {"to": "a@b.co"}})
    assert fine["result"]["content"] == [{"type": "text", "text": "sent"}]
    with pytest.raises(type(eager.value), match="Broken"):
        suite.check_schemas()


async def test_a_lazy_suite_validates_as_an_eager_one_and_compiles_each_schema_once() -> None:
    """Lazily compiled, the arguments are checked the same (a bad email is an ``isError``
    result); ``check_schemas`` compiles what no call did yet, once."""
    lazy = make(_generated("a"), _generated("b"), lazy_schemas=True)
    eager = make(_generated("a"), _generated("b"))
    for suite in (lazy, eager):
        bad, _ = await ask(suite, "tools/call", {"name": "a", "arguments": {"to": "nobody"}})
        assert bad["result"]["isError"] is True
        good, _ = await ask(suite, "tools/call", {"name": "a", "arguments": {"to": "a@b.co"}})
        assert "isError" not in good["result"]
    assert lazy.check_schemas() == 1  # "b": "a" was compiled by its calls
    assert lazy.check_schemas() == 0
    assert eager.check_schemas() == 0
