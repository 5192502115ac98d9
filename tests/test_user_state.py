"""``UserStates`` over real HTTP: two uvicorn processes on one Redis, both eras, and the
isolation between principals (docs guides/user-state.md: another subject, the same subject
at another issuer, the same user in another tenant); and its bounds, in process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from genmcp import UserStates
from genmcp.client import Client
from genmcp.storage.memory import MemoryStateStore
from genmcp.storage.owner import owner_key
from genmcp.visibility import caller_of
from support.topology import Processes

SUPPORT = Path(__file__).resolve().parent / "support"


@pytest.fixture
def processes(redis_url: str, redis_prefix: str) -> Iterator[list[str]]:
    env = {
        "STATE_REDIS_URL": redis_url,
        "STATE_REDIS_PREFIX": redis_prefix,
        "GENMCP_SECRET_KEY": "state-test-secret-0123456789abcdefghijklmnopq",
    }
    group = Processes(2, env, app="user_state_app:app", app_dir=SUPPORT).start()
    try:
        yield [url + "/mcp" for url in group.urls()]
    finally:
        group.stop()


def caller(subject: str, issuer: str = "https://idp.one", tenant: str = "acme") -> dict[str, str]:
    return {"X-Subject": subject, "X-Issuer": issuer, "X-Tenant": tenant}


async def recall(url: str, headers: dict[str, str], name: str, **options: Any) -> Any:
    async with Client(url, headers=headers, **options) as client:
        result = await client.call_tool("recall", {"name": name})
    return result["structuredContent"]


async def remember(
    url: str, headers: dict[str, str], name: str, value: Any, **options: Any
) -> bool:
    async with Client(url, headers=headers, **options) as client:
        result = await client.call_tool("remember", {"name": name, "value": value})
    stored: bool = result["structuredContent"]["stored"]
    return stored


async def test_a_users_state_crosses_processes_and_eras_and_no_one_else_reads_it(
    processes: list[str],
) -> None:
    first, second = processes
    alice = caller("alice")
    assert await remember(first, alice, "cart", {"items": [1, 2]})  # 2026-07-28, process 1
    legacy = {"protocol": "2025-11-25"}
    assert (await recall(second, alice, "cart", **legacy))["value"] == {"items": [1, 2]}
    assert (await recall(second, alice, "cart"))["value"] == {"items": [1, 2]}

    others = [
        caller("bob"),  # another subject
        caller("alice", issuer="https://idp.two"),  # the same subject at another issuer
        caller("alice", tenant="globex"),  # the same user in another tenant
    ]
    for other in others:
        assert await recall(first, other, "cart") == {"value": None, "names": []}
        assert await recall(second, other, "cart", **legacy) == {"value": None, "names": []}
    assert await remember(second, caller("bob"), "cart", "bob's", **legacy)
    assert (await recall(first, alice, "cart"))["value"] == {"items": [1, 2]}  # untouched

    # bounds: at most 3 names per user (max_names=3), on either process
    assert await remember(first, alice, "b", 1) and await remember(second, alice, "c", 2)
    assert not await remember(first, alice, "d", 3)  # a fourth name is refused
    assert await remember(second, alice, "cart", "replaced")  # an existing name may change
    assert (await recall(first, alice, "d"))["names"] == ["b", "c", "cart"]


async def test_the_bounds_of_a_value_a_name_and_a_caller() -> None:
    states = UserStates(max_names=2, max_value_bytes=16)
    alice = states.of({"owner": owner_key("user", "https://idp.one", "alice")})
    with pytest.raises(ValueError, match="over max_value_bytes=16"):
        await alice.set("big", "x" * 20)
    with pytest.raises(ValueError, match="not a JSON value"):
        await alice.set("odd", {1, 2})
    with pytest.raises(ValueError, match="1 to 200 characters"):
        await alice.get("")
    with pytest.raises(ValueError, match="no principal"):
        states.of({})
    for neither in (None, "alice", ["alice"]):
        with pytest.raises(TypeError, match="takes a Channel or its assigns"):
            states.of(neither)  # type: ignore[arg-type]
    assert await alice.set("a", 1) and await alice.set("b", 2)
    assert not await alice.set("c", 3)
    assert await alice.delete("a") and not await alice.delete("a")
    assert await alice.set("c", 3) and await alice.names() == ["b", "c"]
    await alice.clear()
    assert await alice.names() == []


async def test_whatever_carries_the_assigns_names_the_same_user() -> None:
    states = UserStates()
    assigns = {"principal": "dave", "tenant": "acme"}
    await states.of(assigns).set("k", 1)
    carried = caller_of(assigns)  # a visibility hook's Caller is Assigned too
    assert (await states.of(carried).get("k"), states.of(carried).tenant) == (1, "acme")


async def test_the_memory_store_refuses_new_users_when_full_never_evicting_one() -> None:
    states = UserStates(MemoryStateStore(max_owners=2))
    users = [states.of({"principal": name}) for name in ("a", "b", "c")]
    assert await users[0].set("k", 1) and await users[1].set("k", 2)
    assert not await users[2].set("k", 3)  # refused: a flood cannot push the others out
    assert [await user.get("k") for user in users] == [1, 2, None]


async def test_channel_user_state_needs_the_store_in_the_middleware() -> None:
    from genmcp import Suite, Tool
    from genmcp.testing import MCPTestClient

    class Peek(Tool, name="peek"):
        async def call(self, request: Any, channel: Any, arg: Any) -> str:
            try:
                state = channel.user_state
            except RuntimeError as exc:
                return f"refused: {exc}"
            await state.set("n", 1)
            return f"n={await state.get('n')} for {state.principal}"

    states = UserStates()
    bound = Suite(server_name="s", server_version="1", tools=[Peek], middleware=[states])
    unbound = Suite(server_name="s", server_version="1", tools=[Peek])
    async with MCPTestClient(bound, assigns={"principal": "carol"}) as client:
        assert (await client.call_tool("peek")).text == "n=1 for carol"
    async with MCPTestClient(unbound, assigns={"principal": "carol"}) as client:
        assert (await client.call_tool("peek")).text.startswith("refused: channel.user_state")
    assert await states.of({"principal": "carol"}).get("n") == 1
