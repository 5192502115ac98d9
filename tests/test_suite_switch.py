"""``Suite.disable`` / ``enable`` in one process: the listing, the call, the listen stream."""

from __future__ import annotations

from genmcp import Suite, tool
from genmcp.testing import MCPTestClient, RPCError


@tool
def refund(order: str) -> str:
    """Refunds an order."""
    return f"refunded {order}"


@tool
def ping() -> str:
    """Answers pong."""
    return "pong"


async def test_a_disabled_tool_is_unknown_and_listeners_hear_each_change() -> None:
    suite = Suite(server_name="s", server_version="1", tools=[refund, ping])
    async with MCPTestClient(suite) as client, client.listen(tools=True) as changes:
        assert suite.disable("refund") is True
        note = await changes.next()
        assert note["method"] == "notifications/tools/list_changed"
        assert [t["name"] for t in await client.list_tools()] == ["ping"]
        try:
            await client.call_tool("refund", {"order": "A1"})
        except RPCError as exc:
            assert exc.code == -32602 and "refund" in exc.message
        else:
            raise AssertionError("a disabled tool answered")
        assert suite.disable("refund") is False  # off already: nothing changed
        assert suite.enable("refund") is True
        assert (await changes.next())["method"] == "notifications/tools/list_changed"
        assert (await client.call_tool("refund", {"order": "A1"})).content[0]["text"] == (
            "refunded A1")


async def test_a_name_turned_off_before_it_is_served_stays_off() -> None:
    suite = Suite(server_name="s", server_version="1")
    suite.disable("later")

    @tool(name="later")
    def later_tool() -> str:
        """Arrives later."""
        return "here"

    suite.add_tool(later_tool)
    async with MCPTestClient(suite) as client:
        assert await client.list_tools() == []
        suite.enable("later")
        assert [t["name"] for t in await client.list_tools()] == ["later"]
