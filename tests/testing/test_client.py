"""genmcp.testing.client: MCPTestClient drives a Suite, a router or an app in-process.

Most tests run over the three targets (`kind`): the Suite driven directly, an MCPRouter and
a FastAPI app (both through the HTTP transport, in-process). Each gets a fresh Suite whose
`Stats` record what the tools saw.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI, Header, HTTPException

from demo_tools import Stats, make_suite
from genmcp import (
    Channel,
    Prompt,
    PromptRequest,
    ResourceRepo,
    ResourceRequest,
    Result,
    StaticResource,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    get_prompt_result,
    mcp_router,
    read_resource_result,
    resource_item,
    text_contents,
)
from genmcp.client.session import LegacySession
from genmcp.testing import MCPTestClient, RPCError, accept, decline


def target_of(kind: str, stats: Stats, **options: Any) -> Any:
    suite = make_suite(stats, **options)
    if kind == "suite":
        return suite
    if kind == "router":
        return mcp_router(suite=suite)
    app = FastAPI()
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    return app


@pytest.fixture(params=["suite", "router", "app"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def stats() -> Stats:
    return Stats()


@pytest.fixture
def client(kind: str, stats: Stats) -> MCPTestClient:
    return MCPTestClient(target_of(kind, stats))


async def test_discover_and_list_follow_every_page(kind: str, stats: Stats) -> None:
    async with MCPTestClient(target_of(kind, stats, page_size=3)) as client:
        discovered = await client.discover()
        tools = await client.list_tools()

    assert "2026-07-28" in discovered["supportedVersions"]
    assert discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "demo"
    assert [tool["name"] for tool in tools] == sorted(tool["name"] for tool in tools)
    assert {"add", "count", "follow", "nap", "confirm"} <= {tool["name"] for tool in tools}
    assert len(tools) > 3  # more than one page


async def test_call_tool_returns_the_result_and_the_notifications(client: MCPTestClient) -> None:
    seen: list[dict[str, Any]] = []

    call = await client.call_tool("count", {"n": 3}, progress=seen.append, log_level="info")

    assert call.text == "counted to 3"
    assert call.result["resultType"] == "complete" and not call.is_error
    assert [p["progress"] for p in call.progress] == [1, 2, 3] == [p["progress"] for p in seen]
    assert [log["data"] for log in call.logs] == [{"step": 1}, {"step": 2}, {"step": 3}]
    methods = [m["method"] for m in call.notifications]
    assert methods == ["notifications/progress", "notifications/message"] * 3


async def test_a_misspelt_call_option_is_refused_as_python_refuses_one(
    client: MCPTestClient,
) -> None:
    with pytest.raises(TypeError, match=r"call_tool\(\) got an unexpected .*'loglevel'"):
        await client.call_tool("add", {"a": 1, "b": 2}, loglevel="info")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"open_call\(\) got an unexpected .*'answer'"):
        async with client.open_call("add", {"a": 1, "b": 2}, answer={}):  # type: ignore[call-arg]
            pass


class Gated(Tool, name="gated", description="Reports progress, then waits to be released."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.send_progress(1, 2, "waiting")
        await RELEASED[-1].wait()  # set by the test's progress callback: only if it ran
        return Result(call_tool_result(text="released"))


RELEASED: list[asyncio.Event] = []


async def test_progress_reaches_an_async_callback_while_the_call_runs(kind: str) -> None:
    # the call cannot end before the callback ran: it waits for what the callback sets
    RELEASED.append(asyncio.Event())
    suite = Suite(server_name="gated", server_version="1", tools=[Gated])
    target: Any = suite if kind == "suite" else mcp_router(suite=suite)
    if kind == "app":
        target = FastAPI()
        target.include_router(mcp_router(suite=suite), prefix="/mcp")
    seen: list[float] = []

    async def on_progress(params: dict[str, Any]) -> None:
        seen.append(params["progress"])
        RELEASED[-1].set()

    async with MCPTestClient(target) as client, asyncio.timeout(60):  # a hang guard only
        call = await client.call_tool("gated", {}, progress=on_progress)
    assert call.text == "released" and seen == [1]


async def test_without_progress_or_log_level_no_notification_is_sent(
    client: MCPTestClient,
) -> None:
    call = await client.call_tool("count", {"n": 2})

    assert call.notifications == [] and call.text == "counted to 2"


async def test_answers_drive_the_input_required_rounds(client: MCPTestClient) -> None:
    asked: list[dict[str, Any]] = []

    def confirm(request: dict[str, Any]) -> dict[str, Any]:
        asked.append(request)
        return accept({"ok": True})

    call = await client.call_tool("confirm", {"question": "Ship it?"}, answers={"ok": confirm})

    assert call.structured == {"confirmed": True, "rounds": 2}
    assert asked[0]["method"] == "elicitation/create"
    assert asked[0]["params"]["message"] == "Ship it?"
    assert [r["resultType"] for r in call.rounds] == ["input_required"]


async def test_one_callable_may_answer_every_key(client: MCPTestClient) -> None:
    call = await client.call_tool(
        "confirm", {"question": "?"}, answers=lambda key, request: decline()
    )

    assert call.text == "not confirmed (decline)"


async def test_an_unanswered_input_request_fails_the_test(client: MCPTestClient) -> None:
    with pytest.raises(AssertionError, match="no answer given for input request 'ok'"):
        await client.call_tool("confirm", {"question": "?"}, answers={})


async def test_retry_by_hand_echoes_the_request_state(client: MCPTestClient) -> None:
    first = await client.call_tool("confirm", {"question": "?"})
    assert first.result_type == "input_required"
    assert first.request_state and list(first.input_requests) == ["ok"]

    second = await client.retry(first, {"ok": accept({"ok": False})})

    assert second.structured == {"confirmed": False, "rounds": 2}
    with pytest.raises(RPCError) as failure:  # a state that is not the echoed one is refused
        await client.call_tool(
            "confirm",
            {"question": "?"},
            input_responses={"ok": accept({"ok": True})},
            request_state=first.request_state[:-2] + "xx",
        )
    assert failure.value.code == -32602 and "requestState" in failure.value.message


async def test_a_bare_client_gets_the_missing_capability_error(client: MCPTestClient) -> None:
    with pytest.raises(RPCError) as failure:
        await client.call_tool("confirm", {"question": "?"}, capabilities={})

    assert failure.value.code == -32021
    assert failure.value.data == {"requiredCapabilities": {"elicitation": {}}}


async def test_disconnect_mid_stream_runs_handle_close(client: MCPTestClient, stats: Stats) -> None:
    async with client.open_call("follow") as call:
        first = await call.next_notification()
        worker = first["params"]["message"].removeprefix("worker ")
        assert client.suite is not None and client.suite.send(worker, "tick")
        assert (await call.next_notification())["params"]["message"] == "tick"
        await call.disconnect()
        assert call.done
    await client.wait_idle()

    assert (stats.closed, client.live_workers) == (1, 0)


async def test_leaving_an_open_call_early_cancels_an_async_call(
    client: MCPTestClient, stats: Stats
) -> None:
    async with client.open_call("nap", {"seconds": 30}) as call:
        await call.next_notification()
    await client.wait_idle()

    assert (stats.started, stats.cancelled) == (1, 1)


async def test_disconnecting_a_silent_open_call_cancels_it_at_once(
    client: MCPTestClient, stats: Stats
) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    async with client.open_call("nap", {"seconds": 5}, progress=False) as call:
        while not stats.started:  # noqa: ASYNC110 (the tool's own counter)
            await asyncio.sleep(0.005)
        await call.disconnect()
    await client.wait_idle()

    assert loop.time() - started < 1.0  # not the 5 s of the nap
    assert (stats.started, stats.cancelled) == (1, 1)


async def test_an_open_call_can_be_read_to_its_result(client: MCPTestClient) -> None:
    async with client.open_call("follow") as call:
        first = await call.next_notification()
        assert client.suite is not None
        client.suite.send(first["params"]["message"].removeprefix("worker "), "stop")
        outcome = await call.result()
        with pytest.raises(AssertionError, match="ended without another notification"):
            await call.next_notification()

    assert outcome.structured == {"seen": 0}
    assert outcome.progress[0]["message"].startswith("worker ")


async def test_errors_raise_from_call_tool_and_return_from_request(client: MCPTestClient) -> None:
    with pytest.raises(RPCError) as failure:
        await client.call_tool("nope")
    reply = await client.request(
        "tools/list", meta={"io.modelcontextprotocol/protocolVersion": "2024-01-01"}
    )

    assert (failure.value.code, failure.value.data) == (-32602, {"name": "nope"})
    assert reply.error is not None and reply.error["code"] == -32022 and reply.status == 400
    assert reply.error["data"]["supported"] == ["2026-07-28"]


async def test_a_crashing_tool_is_an_internal_error(
    client: MCPTestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(RPCError, match=r"^Internal error in tool 'boom' .* \(-32603\)$"):
        await client.call_tool("boom")

    assert "boom" in caplog.text


async def test_header_params_travel_as_headers_to_an_app(kind: str, stats: Stats) -> None:
    async with MCPTestClient(target_of(kind, stats)) as client:
        call = await client.call_tool("echo", {"region": "Zürich ", "value": [1, True]})

    assert call.structured == {"region": "Zürich ", "value": [1, True]}


async def test_app_headers_reach_the_auth_dependency() -> None:
    class WhoAmI(Tool, name="whoami"):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(text=str(channel.assigns.get("principal"))))

    def auth(authorization: str = Header("")) -> str:
        if authorization != "Bearer let-me-in":
            raise HTTPException(401, "no")
        return "ann"

    router = mcp_router(server_name="a", server_version="1", tools=[WhoAmI], auth=auth)

    async with MCPTestClient(router, headers={"Authorization": "Bearer let-me-in"}) as client:
        call = await client.call_tool("whoami")
    async with MCPTestClient(router) as anonymous:
        refused = await anonymous.request("tools/list")

    assert call.text == "ann"
    assert (refused.status, refused.response) == (401, None)
    with pytest.raises(AssertionError, match="status 401"):
        refused.unwrap()


async def test_assigns_reach_the_channel_of_a_suite() -> None:
    class WhoAmI(Tool, name="whoami"):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(text=str(channel.assigns.get("principal"))))

    suite = make_suite()
    suite.add_tool(WhoAmI)

    async with MCPTestClient(suite, assigns={"principal": "bob"}) as client:
        call = await client.call_tool("whoami")

    assert call.text == "bob"


async def test_raw_bytes_get_the_transport_errors(client: MCPTestClient) -> None:
    exchange = await client.send(b"{not json")
    message = await exchange.receive()

    assert message is not None and message["error"]["code"] == -32700
    assert exchange.status == 400


async def test_a_silent_server_times_out_instead_of_hanging(kind: str, stats: Stats) -> None:
    client = MCPTestClient(target_of(kind, stats), timeout=0.1)
    async with client.open_call("nap", {"seconds": 30}) as call:
        await call.next_notification()
        with pytest.raises(TimeoutError, match=r"waited 0.1s for the server"):
            await call.next_notification()
    await client.wait_idle()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MCPTestClient(42), "expected a Suite, an MCPRouter or an ASGI app"),
        (lambda: MCPTestClient(make_suite(), headers={"a": "b"}), "headers= apply to an app"),
        (lambda: MCPTestClient(FastAPI(), assigns={"a": 1}), "assigns= apply to a Suite"),
    ],
)
def test_misuse_is_refused_at_once(make: Callable[[], Any], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        make()


async def test_an_app_without_a_findable_suite_says_how_to_give_one() -> None:
    client = MCPTestClient(FastAPI())

    with pytest.raises(RuntimeError, match="give MCPTestClient"):
        await client.wait_idle()


# -- resources, prompts, completion, listen: one class serves them all -----------------


class Notes(ResourceRepo, template="notes://{id}", name="note"):
    """Two notes, listed one per page; ``id`` completes from the ids."""

    async def list(self, cursor: Any, channel: Channel, arg: Any) -> Any:
        index = cursor or 0
        after = index + 1 if index + 1 < 2 else None
        return [resource_item(f"notes://{index}", f"note {index}")], after

    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        return Result(
            read_resource_result(text_contents(request.uri, f"note {request.params['id']}"))
        )

    async def complete(
        self, argument: str, value: str, context: Mapping[str, str], arg: Any
    ) -> Any:
        return [ident for ident in ("0", "1", "10") if ident.startswith(value)]


class Greet(Prompt, name="greet", arguments=[{"name": "who", "required": True}]):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result(f"Hello, {request.arguments['who']}!"))

    async def complete(
        self, argument: str, value: str, context: Mapping[str, str], arg: Any
    ) -> Any:
        return [name for name in ("ada", "alan") if name.startswith(value)]


def features_target(kind: str) -> tuple[Any, Suite]:
    suite = Suite(
        server_name="features",
        server_version="1",
        secret_key="f" * 48,
        page_size=1,
        prompts=[Greet],
        resources=[Notes, StaticResource(uri="x://readme", name="readme", text="read me")],
    )
    if kind == "suite":
        return suite, suite
    app = FastAPI()
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    return (mcp_router(suite=suite) if kind == "router" else app), suite


async def test_resource_helpers_follow_every_page_and_read(kind: str) -> None:
    target, _ = features_target(kind)
    async with MCPTestClient(target) as client:
        resources = await client.list_resources()
        templates = await client.list_resource_templates()
        contents = await client.read_resource("notes://7")
    assert [r["uri"] for r in resources] == ["x://readme", "notes://0", "notes://1"]
    assert [t["uriTemplate"] for t in templates] == ["notes://{id}"]
    assert contents == [{"uri": "notes://7", "text": "note 7"}]


async def test_prompt_and_completion_helpers(kind: str) -> None:
    target, _ = features_target(kind)
    async with MCPTestClient(target) as client:
        prompts = await client.list_prompts()
        got = await client.get_prompt("greet", {"who": "Ada"})
        by_name = await client.complete("greet", "who", "a")
        by_uri = await client.complete("notes://{id}", "id", "1")
        spelled = await client.complete({"type": "ref/prompt", "name": "greet"}, "who", "al")
        with pytest.raises(RPCError) as missing:
            await client.get_prompt("nope")
    assert [p["name"] for p in prompts] == ["greet"]
    assert got["messages"][0]["content"]["text"] == "Hello, Ada!"
    assert (by_name, by_uri, spelled) == (["ada", "alan"], ["1", "10"], ["alan"])
    assert missing.value.code == -32602


async def test_listen_reads_the_acknowledgement_then_each_change(kind: str) -> None:
    target, suite = features_target(kind)
    async with (
        MCPTestClient(target) as client,
        client.listen(prompts=True, uris=["x://readme"]) as changes,
    ):
        assert changes.acknowledged["notifications"] == {
            "promptsListChanged": True,
            "resourceSubscriptions": ["x://readme"],
        }
        suite.resource_updated("x://readme")
        updated = await changes.next()
        suite.remove_prompt("greet")
        removed = await changes.next()
    assert updated["method"] == "notifications/resources/updated"
    assert updated["params"]["uri"] == "x://readme"
    assert removed["method"] == "notifications/prompts/list_changed"
    assert [m["method"] for m in changes.notifications] == [
        "notifications/subscriptions/acknowledged",
        "notifications/resources/updated",
        "notifications/prompts/list_changed",
    ]


async def test_a_2025_session_client_builds_its_requests_as_the_client_does() -> None:
    target, _ = features_target("app")
    async with MCPTestClient(target, protocol_version="2025-11-25") as client:
        params = {"name": "t", "_meta": {"own": 1}}
        message = client.build("tools/call", params, id=3, progress_token="p", meta={"k": 2})
    assert message == LegacySession.request("tools/call", params, 3, "p", {"k": 2})
    assert message["params"]["_meta"] == {"own": 1, "progressToken": "p", "k": 2}


async def test_listen_is_refused_to_a_2025_session_client() -> None:
    target, _ = features_target("app")
    async with MCPTestClient(target, protocol_version="2025-11-25") as client:
        with pytest.raises(TypeError, match="2026-07-28 request"):
            async with client.listen(tools=True):
                pass  # pragma: no cover


class Slow(Tool, name="slow", description="A task that sleeps.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        await asyncio.sleep(0.05)
        return Result(call_tool_result(text="slept"))


@pytest.mark.parametrize("kind", ["suite", "router", "app"])
async def test_task_methods_carry_the_task_id_as_mcp_name(kind: str) -> None:
    suite = Suite(server_name="t", server_version="1", tools=[Slow])
    target: Any = suite
    if kind != "suite":
        target = mcp_router(suite=suite)
        if kind == "app":
            target = FastAPI()
            target.include_router(mcp_router(suite=suite), prefix="/mcp")
    tasks = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    async with MCPTestClient(target, capabilities=tasks) as client:
        created = await client.request("tools/call", {"name": "slow", "arguments": {}})
        task_id = created.unwrap()["taskId"]
        for _ in range(200):
            got = (await client.request("tasks/get", {"taskId": task_id})).unwrap()
            if got["status"] == "completed":
                break
            await asyncio.sleep(0.01)
        assert got["result"]["content"][0]["text"] == "slept"
        for method, params in (("tasks/update", {"inputResponses": {}}), ("tasks/cancel", {})):
            reply = await client.request(method, {"taskId": task_id, **params})
            assert reply.status == 200 and reply.unwrap()["resultType"] == "complete", method


@pytest.mark.parametrize("nested", [False, True], ids=["included", "nested"])
async def test_the_suite_behind_an_auth_dependency_route_is_found(nested: bool) -> None:
    """With an auth dependency the MCP route is an API route whose handler is a function of
    genmcp's; FastAPI 0.115 and 0.135 copy it into the app on include (0.16x keeps the include
    lazy): the Suite is found either way, so ``wait_idle`` needs no ``suite=``."""
    stats = Stats()
    suite = make_suite(stats)

    def user(authorization: str = Header("")) -> dict[str, str]:
        return {"principal": authorization.removeprefix("Bearer ")}

    router = mcp_router(suite=suite, auth=user)
    app = FastAPI()
    if nested:
        outer = APIRouter()
        outer.include_router(router, prefix="/mcp")
        app.include_router(outer)
    else:
        app.include_router(router, prefix="/mcp")
    async with MCPTestClient(app, headers={"authorization": "Bearer ann"}) as client:
        assert client.suite is suite
        answer = await client.call_tool("echo", {"value": "hi"})
        assert answer.structured == {"value": "hi"}
        await client.wait_idle()
        assert client.live_workers == 0
