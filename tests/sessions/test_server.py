"""``LegacyServer``: legacy session mode (2025-11-25, 2025-06-18, 2025-03-26) on the one `/mcp`
endpoint: initialize, versions, ping and logging, results per revision, progress and
cancellation, batches and stray messages, prompts and resources.

How every rule here is driven and checked: session_kit.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from genmcp import (
    MCPRouter,
)
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers
from tests.sessions.session_kit import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    VERSIONS,
    VISIBLE_ASCII,
    Calls,
    assert_error,
    build,
    eventually,
    opened,
)

# -- initialize -----------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_initialize_negotiates_the_offered_revision_and_seals_a_session(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = connect(version)
    reply = await client.initialize()
    assert reply.status == 200
    assert reply.content_type == "application/json"
    result = reply.result
    assert result["protocolVersion"] == version
    assert set(result["capabilities"]) == {"tools", "logging"}  # only what is configured
    assert "resultType" not in result and "_meta" not in result
    expected_info = {"name": "legacy-test", "version": "1.0"}
    if version != "2025-03-26":
        expected_info["title"] = "Legacy test server"
    assert result["serverInfo"] == expected_info
    session_id = reply.headers["mcp-session-id"]
    assert VISIBLE_ASCII.fullmatch(session_id)
    other = await connect(version).initialize()
    assert other.headers["mcp-session-id"] != session_id


@pytest.mark.parametrize("offered", ["2024-11-05", "2026-07-28", "draft"])
async def test_an_unserved_version_gets_the_newest_legacy_one(
    connect: Callable[..., LegacyClient], offered: str
) -> None:
    client = connect("2025-11-25")
    reply = await client.initialize(version=offered)
    assert reply.status == 200
    assert reply.result["protocolVersion"] == "2025-11-25"


async def test_initialize_with_malformed_params_is_invalid_params(
    connect: Callable[..., LegacyClient],
) -> None:
    client = connect()
    reply = await client.request(
        "initialize", {"protocolVersion": "2025-11-25", "capabilities": []}, validate=False
    )
    assert_error(reply, 200, INVALID_PARAMS)
    assert "mcp-session-id" not in reply.headers


async def test_a_modern_initialize_is_method_not_found(
    server: tuple[str, MCPRouter, Calls],
) -> None:
    async with ModernClient(server[0]) as client:
        reply = await client.request("initialize", {"protocolVersion": "2025-11-25"})
    assert reply.status == 404
    assert reply.error["code"] == METHOD_NOT_FOUND
    assert "mcp-session-id" not in reply.headers


async def test_initialized_is_accepted_with_202_and_no_body(
    connect: Callable[..., LegacyClient],
) -> None:
    client = connect()
    await client.initialize()
    reply = await client.notify("notifications/initialized")
    assert reply.status == 202
    assert reply.body == b""


# -- results per revision -------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_tools_list_carries_only_the_fields_of_the_revision(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    reply = await client.request("tools/list")
    assert set(reply.result) == {"tools"}
    tools = {tool["name"]: tool for tool in reply.result["tools"]}
    assert set(tools) == {"rich", "chatty", "slow", "waiting", "ask", "ask_all", "confirm"}
    rich = tools["rich"]
    assert rich["annotations"] == {"readOnlyHint": True}
    if version == "2025-03-26":
        assert set(rich) == {"name", "description", "inputSchema", "annotations"}
    else:
        assert rich["title"] == "Rich result"
        assert rich["outputSchema"]["properties"] == {"n": {"type": "integer"}}
        assert rich["_meta"] == {"team": "legacy"}


@pytest.mark.parametrize("version", VERSIONS)
async def test_tools_call_results_are_translated_per_revision(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    reply = await client.request("tools/call", {"name": "rich"})
    assert reply.status == 200
    result = reply.result
    assert "resultType" not in result and "_meta" not in result
    serialized, first, picture, link = result["content"]
    assert first["text"] == "hello"
    assert serialized == {"type": "text", "text": '{"n":1}'}
    if version == "2025-03-26":
        assert "structuredContent" not in result
        assert first["annotations"] == {"priority": 0.5}
        assert picture == {"type": "image", "data": "iVBORw==", "mimeType": "image/png"}
        assert link == {"type": "text", "text": "Resource link: The A file <file:///a.txt>"}
    else:
        assert result["structuredContent"] == {"n": 1}
        assert first["annotations"]["lastModified"] == "2026-01-01T00:00:00Z"
        assert picture["_meta"] == {"k": 1}
        assert link["type"] == "resource_link" and link["uri"] == "file:///a.txt"


@pytest.mark.parametrize("version", VERSIONS)
async def test_errors_of_requests_travel_with_http_200(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    assert_error(await client.request("tools/call", {"name": "nope"}), 200, INVALID_PARAMS)
    for method in ("server/discover", "subscriptions/listen", "tasks/get", "no/such"):
        assert_error(await client.request(method, {}), 200, METHOD_NOT_FOUND)
    subscribe = await client.request("resources/subscribe", {"uri": "file:///a"})
    assert_error(subscribe, 200, METHOD_NOT_FOUND)  # no resources configured here


@pytest.mark.parametrize("token", [True, 1.5, {"t": 1}])
async def test_a_sent_meta_is_still_checked(
    connect: Callable[..., LegacyClient], token: object
) -> None:
    """The synthesized ``_meta`` skips its check; one the client sent is checked as before."""
    client = await opened(connect, "2025-11-25")
    params = {"name": "rich", "_meta": {"progressToken": token}}
    assert_error(await client.request("tools/call", params), 200, INVALID_PARAMS)
    assert (await client.request("tools/call", {"name": "rich"})).status == 200


# -- progress and cancellation --------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_progress_goes_out_on_the_call_stream(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    params = {"name": "chatty", "_meta": {"progressToken": "tok-1"}}
    reply = await client.request("tools/call", params)
    assert reply.is_sse
    progress = [n["params"] for n in reply.notifications]
    assert progress == [
        {"progressToken": "tok-1", "progress": i, "total": 3, "message": f"step {i}"}
        for i in (1, 2, 3)
    ]
    assert reply.messages[-1] is reply.response


@pytest.mark.parametrize("version", VERSIONS)
async def test_cancelled_cancels_the_call_and_ends_its_stream_unanswered(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient], version: str
) -> None:
    _, router, calls = server
    client = await opened(connect, version)
    other = await opened(connect, version)
    call = asyncio.create_task(client.request("tools/call", {"name": "slow"}, id="call-1"))
    await eventually(calls.started.is_set)
    stray = await other.notify("notifications/cancelled", {"requestId": "call-1"})
    assert stray.status == 202
    await asyncio.sleep(0.05)
    assert not calls.cancelled.is_set()  # another session cannot cancel it
    cancel = await client.notify(
        "notifications/cancelled", {"requestId": "call-1", "reason": "user"}
    )
    assert cancel.status == 202
    reply = await asyncio.wait_for(call, 5)
    assert reply.status == 200
    assert reply.response is None
    await eventually(calls.cancelled.is_set)  # the stream may end before the tool sees it
    await eventually(lambda: router.suite.live_workers == 0)


async def test_cancelled_while_streaming_runs_handle_close(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient]
) -> None:
    _, router, calls = server
    client = await opened(connect, "2025-06-18")
    call = asyncio.create_task(client.request("tools/call", {"name": "waiting"}, id=5))
    await eventually(calls.started.is_set)
    await client.notify("notifications/cancelled", {"requestId": 5})
    reply = await asyncio.wait_for(call, 5)
    assert reply.response is None
    await eventually(calls.closed.is_set)
    await eventually(lambda: router.suite.live_workers == 0)


async def test_batches_are_rejected_with_a_clear_error(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-03-26")
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]
    reply = await client.post_raw(batch)
    assert reply.status == 400
    assert reply.error["code"] == INVALID_REQUEST
    assert "batch" in reply.error["message"]


async def test_notifications_and_stray_responses_are_accepted(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25")
    for method in ("notifications/roots/list_changed", "notifications/cancelled"):
        assert (await client.notify(method, {"requestId": 99})).status == 202
    assert (await client.respond("never-asked", {"roots": []})).status == 202


async def test_a_modern_request_with_a_session_id_stays_modern(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient]
) -> None:
    legacy = await opened(connect, "2025-11-25")
    assert legacy.session_id is not None
    async with ModernClient(server[0]) as client:
        reply = await client.request(
            "tools/call", {"name": "rich"}, headers={"Mcp-Session-Id": legacy.session_id}
        )
    assert reply.status == 200
    assert reply.result["resultType"] == "complete"
    assert reply.result["structuredContent"] == {"n": 1}
    assert "mcp-session-id" not in reply.headers


async def test_legacy_can_be_turned_off(live_server: LiveServers) -> None:
    base = live_server(build(Calls(), legacy=False)[0])
    client = LegacyClient(base, version="2025-11-25", validate=False)
    try:
        reply = await client.initialize()
        assert reply.status != 200
        assert client.session_id is None
        async with client.get_stream(headers={"Mcp-Session-Id": "x"}) as stream:
            assert stream.reply.status == 405
            assert stream.reply.headers["allow"] == "POST"
    finally:
        await client.aclose()


# -- prompts and resources ------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_resources_and_prompts_are_translated_per_revision(
    catalog_server: tuple[str, MCPRouter], version: str
) -> None:
    async with LegacyClient(catalog_server[0], version=version) as client:
        init = await client.open()
        assert {"prompts", "resources", "logging"} <= set(init.result["capabilities"])
        listed = (await client.request("resources/list")).result
        assert set(listed) == {"resources"}
        notes = next(r for r in listed["resources"] if r["uri"] == "test://notes")
        assert ("title" in notes) is (version != "2025-03-26")
        assert ("icons" in notes) is (version == "2025-11-25")
        read = (await client.request("resources/read", {"uri": "test://notes"})).result
        assert read == {
            "contents": [{"uri": "test://notes", "mimeType": "text/plain", "text": "some notes"}]
        }
        prompts = (await client.request("prompts/list")).result["prompts"]
        argument = prompts[0]["arguments"][0]
        assert ("title" in prompts[0]) is ("title" in argument) is (version != "2025-03-26")


@pytest.mark.parametrize("version", VERSIONS)
async def test_an_unknown_resource_is_the_2025_not_found_code(
    catalog_server: tuple[str, MCPRouter], version: str
) -> None:
    async with LegacyClient(catalog_server[0], version=version) as client:
        await client.open()
        reply = await client.request("resources/read", {"uri": "test://missing"})
    assert reply.status == 200
    assert reply.error["code"] == -32002
    assert reply.error["data"] == {"uri": "test://missing"}
