"""``genmcp.visibility``: one per-caller decision of what exists, for every method.

A Suite-wide policy (``Suite(visibility=...)``) and the items' own ``visible`` hooks hide
tools, prompts and resource repositories from some callers: their lists leave them out (the
pages and cursors are the caller's own), and a call, get, read or completion of a hidden item
is answered as one of an item that does not exist. Decisions are cached per caller key until
the catalog changes; a listen stream hears only of the changes its caller can see.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from genmcp import (
    Caller,
    Channel,
    Item,
    Prompt,
    PromptRequest,
    ResourceRepo,
    ResourceRequest,
    Result,
    Suite,
    Tool,
    ToolRequest,
    Visibility,
    call_tool_result,
)
from genmcp.testing import MCPTestClient
from genmcp.visibility import caller_of

KEY = "v" * 32


def make_tool(tool_name: str) -> type[Tool]:
    class Named(Tool, name=tool_name, description=f"The {tool_name} tool."):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(text=tool_name))

    return Named


class Secret(Tool, name="secret", description="Only for staff."):
    def visible(self, caller: Caller, arg: Any) -> bool:
        return "staff" in caller.roles

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="the secret"))


class Brief(Prompt, name="brief", arguments=[{"name": "topic"}]):
    def visible(self, caller: Caller, arg: Any) -> bool:
        return "staff" in caller.roles

    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> str:
        return "brief"

    async def complete(
        self, argument: str, value: str, context: Any, channel: Channel, arg: Any
    ) -> list[str]:
        return ["alpha"]


class Ledger(ResourceRepo, template="ledger://{id}", name="ledger"):
    def visible(self, caller: Caller, arg: Any) -> bool:
        return "staff" in caller.roles

    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> str:
        return "entry " + request.params["id"]

    async def complete(
        self, argument: str, value: str, context: Any, channel: Channel, arg: Any
    ) -> list[str]:
        return ["1"]


ADMIN_ONLY = frozenset({"delete", "export"})


def by_role(caller: Caller, item: Item) -> bool:
    return item.name not in ADMIN_ONLY or "admin" in caller.roles


def suite(**options: Any) -> Suite:
    tools = [make_tool(name) for name in ("alpha", "beta", "delete", "export", "gamma")]
    return Suite(server_name="v", server_version="1", secret_key=KEY, tools=[*tools, Secret],
                 prompts=[Brief], resources=[Ledger], **options)  # fmt: skip


USER = {"principal": "u1", "roles": ["user"]}
ADMIN = {"principal": "a1", "roles": ["admin"]}
STAFF = {"principal": "s1", "roles": ["staff"]}


async def names(client: MCPTestClient) -> list[str]:
    return [tool["name"] for tool in await client.list_tools()]


async def test_each_caller_lists_its_own_pages_and_cursors() -> None:
    served = suite(visibility=by_role, page_size=2)
    async with MCPTestClient(served, assigns=USER) as user:
        assert await names(user) == ["alpha", "beta", "gamma"]
        first = (await user.request("tools/list")).unwrap()
    async with MCPTestClient(served, assigns=ADMIN) as admin:
        assert await names(admin) == ["alpha", "beta", "delete", "export", "gamma"]
        # the user's cursor is of the user's list: it opens no page of the admin's
        refused = await admin.request("tools/list", {"cursor": first["nextCursor"]})
    assert refused.error is not None and refused.error["code"] == -32602
    async with MCPTestClient(served, assigns=STAFF) as staff:
        assert "secret" in await names(staff)


async def test_a_hidden_tool_answers_exactly_as_an_unknown_one() -> None:
    served = suite(visibility=by_role)
    async with MCPTestClient(served, assigns=USER) as user:
        hidden = await user.request("tools/call", {"name": "delete", "arguments": {}}, id=7)
        unknown = await user.request("tools/call", {"name": "nosuch", "arguments": {}}, id=7)
    assert hidden.error is not None and unknown.error is not None
    assert hidden.error["code"] == unknown.error["code"] == -32602
    assert hidden.error["message"].replace("delete", "X") == unknown.error["message"].replace(
        "nosuch", "X"
    )
    assert set(hidden.error) == set(unknown.error)
    async with MCPTestClient(served, assigns=ADMIN) as admin:
        assert (await admin.call_tool("delete", {})).text == "delete"


async def test_prompts_resources_and_completions_hide_alike() -> None:
    served = suite()
    async with MCPTestClient(served, assigns=USER) as user:
        assert await user.list_prompts() == []
        assert await user.list_resource_templates() == []
        got = await user.request("prompts/get", {"name": "brief", "arguments": {}})
        unknown = await user.request("prompts/get", {"name": "other", "arguments": {}})
        assert got.error is not None and unknown.error is not None
        assert got.error["message"] == "Unknown prompt: 'brief'"
        assert got.error["code"] == unknown.error["code"]
        read = await user.request("resources/read", {"uri": "ledger://1"})
        assert read.error is not None and read.error["message"] == "Resource not found: ledger://1"
        ref = {"type": "ref/resource", "uri": "ledger://{id}"}
        completed = await user.request(
            "completion/complete", {"ref": ref, "argument": {"name": "id", "value": ""}}
        )
        assert completed.error is not None and "no resource template" in completed.error["message"]
        prompt_ref = {"type": "ref/prompt", "name": "brief"}
        completed = await user.request(
            "completion/complete", {"ref": prompt_ref, "argument": {"name": "topic", "value": ""}}
        )
        assert completed.error is not None and "Unknown prompt" in completed.error["message"]
    async with MCPTestClient(served, assigns=STAFF) as staff:
        assert [p["name"] for p in await staff.list_prompts()] == ["brief"]
        assert (await staff.read_resource("ledger://1"))[0]["text"] == "entry 1"
        assert len(await staff.list_resource_templates()) == 1


async def test_decisions_are_cached_per_caller_until_the_catalog_changes() -> None:
    asked: list[tuple[str | None, str]] = []

    def counted(caller: Caller, item: Item) -> bool:
        asked.append((caller.principal, item.name))
        return by_role(caller, item)

    served = suite(visibility=counted)
    async with MCPTestClient(served, assigns=USER) as user:
        await names(user)
        once = len(asked)
        await names(user)
        await user.call_tool("alpha", {})
        assert len(asked) == once  # the cached decision
        served.add_tool(make_tool("delta"))
        assert "delta" in await names(user)
        assert len(asked) > once  # a new generation: decided again


async def test_a_policy_without_a_key_decides_on_every_request() -> None:
    asked: list[Any] = []

    def by_meta(caller: Caller, item: Item) -> bool:
        asked.append(caller.meta)
        return item.name != "beta" or caller.meta.get("example.com/beta") is True

    served = suite(visibility=Visibility(by_meta, key=None))
    async with MCPTestClient(served, assigns=USER) as user:
        assert "beta" not in await names(user)
        shown = await user.request("tools/list", meta={"example.com/beta": True})
        assert "beta" in [tool["name"] for tool in shown.unwrap()["tools"]]
    assert len(asked) == 10  # five tools (Secret's own hook said no first), twice


async def test_a_listener_hears_only_of_changes_it_can_see() -> None:
    served = suite(visibility=by_role)
    async with (
        MCPTestClient(served, assigns=USER) as user,
        MCPTestClient(served, assigns=ADMIN) as admin,
        user.listen(tools=True) as user_changes,
        admin.listen(tools=True) as admin_changes,
    ):
        served.add_tool(make_tool("export2"))  # visible to all
        assert (await user_changes.next())["method"] == "notifications/tools/list_changed"
        assert (await admin_changes.next())["method"] == "notifications/tools/list_changed"
        served.remove_tool("delete")  # the user never saw it
        assert (await admin_changes.next())["method"] == "notifications/tools/list_changed"
        with pytest.raises((TimeoutError, asyncio.TimeoutError)):
            await asyncio.wait_for(user_changes.next(), 0.3)


def test_visibility_options_are_checked() -> None:
    with pytest.raises(ValueError, match="ttl_s"):
        Visibility(ttl_s=0)
    with pytest.raises(TypeError, match="visibility= takes"):
        Suite(server_name="v", server_version="1", secret_key=KEY, visibility=3)  # type: ignore[arg-type]


def test_a_callers_roles_come_from_the_assigns_or_the_tokens_claim() -> None:
    assert caller_of({"roles": "admin beta"}).roles == {"admin", "beta"}
    assert caller_of({"claims": {"roles": ["ops", 3]}}).roles == {"ops"}
    assert caller_of({}).roles == frozenset()
    found = caller_of({"principal": "p", "tenant": "acme", "effective_scopes": {"a"}})
    assert (found.principal, found.tenant, found.scopes) == ("p", "acme", {"a"})


class Report(Tool, name="report", description="A report, its draft section for staff only."):
    """A user's own parted tool (no VersionedTool): the ``hidden_parts`` hook of Behaviour."""

    def hidden_parts(self, caller: Caller, arg: Any) -> list[str]:
        return [] if "staff" in caller.roles else ["draft"]

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="report"))


def test_an_overridden_hidden_parts_makes_its_kind_parted_the_default_never() -> None:
    plain, report = make_tool("alpha")(), Report()
    untouched = Visibility()
    untouched.hooked("tool", plain)  # Behaviour's own hidden_parts: nothing to decide
    assert not untouched.active("tool")
    assert untouched.hidden("tool", 1, lambda: [("alpha", None, plain, None)], USER) == set()
    parted = Visibility()
    parted.hooked("tool", plain)
    parted.hooked("tool", report)
    assert parted.active("tool")
    entries = [("alpha", None, plain, None), ("report", None, report, None)]
    assert parted.hidden("tool", 1, lambda: entries, USER) == {"report/draft"}
    assert parted.hidden("tool", 1, lambda: entries, STAFF) == frozenset()


async def test_callers_who_see_other_parts_get_other_pages_of_the_same_items() -> None:
    served = Suite(server_name="v", server_version="1", secret_key=KEY,
                   tools=[make_tool("alpha"), Report])  # fmt: skip
    async with (
        MCPTestClient(served, assigns=USER) as user,
        MCPTestClient(served, assigns=STAFF) as staff,
    ):
        assert await names(user) == await names(staff) == ["alpha", "report"]
        assert (await user.call_tool("report")).text == "report"
    assert served.visibility.active("tool")
