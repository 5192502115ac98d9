"""Two genmcp apps behind one Redis act as one server (DESIGN §7).

Servers A and B are two real uvicorn servers, each with its own `RedisBroker` and
`RedisSessionRegistry` on one Redis (a key prefix of the test's own) and the same secret
key, as two processes of one app behind a load balancer would be. A client starts something
on one and continues on the other: a legacy session, the answer to a server request, a
cancellation, the end of a session, a change notification, a message for a worker.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from genmcp import (
    Channel,
    InputRequired,
    MCPRouter,
    Result,
    StaticResource,
    Stream,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
)
from genmcp.sessions import LegacyServer
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServer, LiveServers

pytestmark = pytest.mark.long  # two processes on Redis, about 11 s (make test-long)

SECRET: Final = "scale-out-test-secret-key-0123456789abcdef"
NOTES: Final = StaticResource(uri="test://notes", name="notes", text="n")
OTHER: Final = StaticResource(uri="test://other", name="other", text="o")
UPDATED: Final = "notifications/resources/updated"
LIST_CHANGED: Final = "notifications/resources/list_changed"
SCALING_OUT: Final = Path(__file__).resolve().parents[2] / "docs" / "guides" / "scaling-out.md"


class Calls:
    """What the tools saw, on either server (both run in this process, in other threads)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()
        self.signals: Any = None  # a LegacyServer's CallSignals, for Slow to look at
        self.listening: list[bool] = []  # whether it was listening as each Slow call began


class Ask(Tool, name="ask", description="Asks the user for a name."):
    async def call(self, request: ToolRequest, channel: Channel, calls: Calls) -> Any:
        answers = request.input_responses or {}
        if "name" not in answers:
            schema = {"type": "object", "properties": {"name": {"type": "string"}}}
            return InputRequired({"name": elicit_request("Your name?", schema)})
        if answers["name"]["action"] != "accept":
            return Result(call_tool_result(text=f"No name ({answers['name']['action']})"))
        return Result(call_tool_result(text=f"Hello {answers['name']['content']['name']}"))


class Chatty(Tool, name="chatty", description="Logs at debug and at error."):
    async def call(self, request: ToolRequest, channel: Channel, calls: Calls) -> Result:
        channel.send_log("debug", "details")
        channel.send_log("error", "trouble")
        return Result(call_tool_result(text="done"))


class Slow(Tool, name="slow", description="Waits until cancelled."):
    async def call(self, request: ToolRequest, channel: Channel, calls: Calls) -> Result:
        if calls.signals is not None:
            calls.listening.append(calls.signals.listening)
        calls.started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            calls.cancelled.set()
            raise
        return Result(call_tool_result(text="late"))


class WaitForMail(Tool, name="wait_for_mail", description="Streams until a message comes."):
    async def call(self, request: ToolRequest, channel: Channel, calls: Calls) -> Stream:
        assert channel.mailbox is not None
        channel.send_progress(0, message=f"worker {channel.mailbox.id}")
        return Stream(None)

    async def handle_message(
        self, message: Any, channel: Channel, state: Any, calls: Calls
    ) -> Result:
        return Result(call_tool_result(text=f"got {message['text']}"))


@dataclass
class Node:
    """One of the two servers."""

    url: str
    router: MCPRouter
    server: LiveServer

    @property
    def suite(self) -> Suite:
        return self.router.suite

    def broker_topics(self) -> int:
        topics: int = self.suite.broker.topics  # type: ignore[attr-defined]
        legacy = self.router.endpoint.legacy
        assert legacy is not None
        held = legacy.signals.topics + self.suite._catalog.sync.topics  # process-wide ones
        return topics - held


def build(redis_url: str, prefix: str, calls: Calls) -> tuple[FastAPI, MCPRouter]:
    """One process of the app: its own Redis clients, the shared prefix and secret."""
    from genmcp.storage.redis import RedisBroker, RedisSessionRegistry

    broker = RedisBroker.from_url(redis_url, prefix=prefix)
    registry = RedisSessionRegistry.from_url(redis_url, prefix=prefix)
    tools = [(tool, calls) for tool in (Ask, Chatty, Slow, WaitForMail)]
    suite = Suite(
        server_name="scale-out",
        server_version="1.0",
        tools=tools,
        resources=[NOTES, OTHER],
        secret_key=SECRET,
        broker=broker,
    )
    router = mcp_router(suite=suite, legacy=LegacyServer(suite, registry=registry))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield  # the router's lifespan closes the Suite first
        await broker.aclose()
        await registry.aclose()

    app = FastAPI(lifespan=lifespan)
    app.include_router(router, prefix="/mcp")

    @app.post("/admin/runtime/{greeting}")
    async def add_runtime(greeting: str) -> dict[str, Any]:
        suite.add_tool((Runtime, {"greeting": greeting}))
        await suite.catalog_synced()  # read after write: every process can serve it now
        return {}

    @app.delete("/admin/runtime")
    async def remove_runtime() -> dict[str, Any]:
        removed = suite.remove_tool("runtime")
        await suite.catalog_synced()
        return {"removed": removed}

    @app.post("/webhook/{worker}")
    async def webhook(worker: str, message: dict[str, Any]) -> dict[str, Any]:
        await suite.post(worker, message)  # the worker may run on the other server
        return {}

    return app, router


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def nodes(
    redis_url: str, redis_prefix: str, live_server: LiveServers, calls: Calls
) -> Iterator[tuple[Node, Node]]:
    # redis_prefix before live_server: the servers stop (closing their brokers) before
    # the prefix's keys are deleted.
    made = []
    for _ in range(2):
        app, router = build(redis_url, redis_prefix, calls)
        server = live_server.start(app)
        made.append(Node(server.url, router, server))
    yield made[0], made[1]


@pytest.fixture
async def clients() -> AsyncIterator[Callable[..., LegacyClient]]:
    opened: list[LegacyClient] = []

    def make(node: Node, joining: LegacyClient | None = None, **options: Any) -> LegacyClient:
        """A legacy client of `node`; with `joining`, it continues that client's session."""
        client = LegacyClient(node.url, **options)
        if joining is not None:
            client.session_id, client.version = joining.session_id, joining.version
        opened.append(client)
        return client

    yield make
    for client in opened:
        await client.aclose()


async def eventually(check: Callable[[], bool], within: float = 60.0) -> None:  # a hang guard
    deadline = asyncio.get_running_loop().time() + within
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


async def next_message(exchange: Any, within: float = 60.0) -> dict[str, Any]:  # hang guard
    message: dict[str, Any] = await asyncio.wait_for(anext(aiter(exchange)), within)
    return message


# -- legacy sessions ------------------------------------------------------------------------


async def test_a_session_opened_on_a_is_served_ended_and_refused_on_b(
    nodes: tuple[Node, Node], clients: Callable[..., LegacyClient]
) -> None:
    a, b = nodes
    on_a = clients(a)
    await on_a.open()
    on_b = clients(b, joining=on_a)
    listed = await on_b.request("tools/list")
    assert listed.status == 200
    assert {tool["name"] for tool in listed.result["tools"]} >= {"ask", "chatty"}

    assert (await on_b.request("logging/setLevel", {"level": "error"})).status == 200
    chatty = await on_a.request("tools/call", {"name": "chatty"})
    assert [n["params"]["data"] for n in chatty.notifications] == ["trouble"]

    assert (await on_b.delete()).status == 200
    assert (await on_a.request("tools/list")).status == 404


async def test_an_answer_posted_to_b_reaches_the_call_waiting_on_a(
    nodes: tuple[Node, Node], clients: Callable[..., LegacyClient]
) -> None:
    a, b = nodes
    on_a = clients(a, capabilities={"elicitation": {}})
    await on_a.open()
    on_b = clients(b, joining=on_a)
    async with on_a.stream("tools/call", {"name": "ask"}) as exchange:
        request = await next_message(exchange)
        assert request["method"] == "elicitation/create"
        answer = {"action": "accept", "content": {"name": "Bo"}}
        assert (await on_b.respond(request["id"], answer)).status == 202
        reply = await asyncio.wait_for(exchange.drain(), 5)
    assert reply.result["content"][0]["text"] == "Hello Bo"
    await eventually(lambda: a.broker_topics() <= 1)  # only the worker mail relay stays


async def test_an_unusable_answer_posted_to_b_ends_the_call_waiting_on_a_at_once(
    nodes: tuple[Node, Node], clients: Callable[..., LegacyClient]
) -> None:
    """Finding F3 across processes: B finds A's waiting request in the Redis registry."""
    a, b = nodes
    on_a = clients(a, capabilities={"elicitation": {}})
    await on_a.open()
    on_b = clients(b, joining=on_a)
    async with on_a.stream("tools/call", {"name": "ask"}) as exchange:
        request = await next_message(exchange)
        refused = await on_b.http.post(on_b.url, content=b"{not json", headers=on_b.headers())
        reply = await asyncio.wait_for(exchange.drain(), 5)
    assert refused.status_code == 400, refused.text
    assert f'"{request["id"]}" failed with this error' in refused.json()["error"]["message"]
    assert reply.result["content"][0]["text"] == "No name (cancel)"  # failed, not timed out
    await eventually(lambda: a.broker_topics() <= 1)


async def test_a_cancellation_posted_to_b_stops_the_call_on_a(
    nodes: tuple[Node, Node], clients: Callable[..., LegacyClient], calls: Calls
) -> None:
    # It is A's first call: A's cancel subscription, opened with its first call, is ready
    # before that call runs, so a cancel sent the moment the call starts is not lost.
    a, b = nodes
    legacy = a.router.endpoint.legacy
    assert legacy is not None and not legacy.signals.listening
    calls.signals = legacy.signals
    on_a = clients(a)
    await on_a.open()
    on_b = clients(b, joining=on_a)
    call = asyncio.create_task(on_a.request("tools/call", {"name": "slow"}, id="slow-1"))
    assert await asyncio.to_thread(calls.started.wait, 5)
    assert calls.listening == [True]
    cancel = await on_b.notify("notifications/cancelled", {"requestId": "slow-1"})
    assert cancel.status == 202
    reply = await asyncio.wait_for(call, 5)
    assert (reply.status, reply.response) == (200, None)  # a cancelled call goes unanswered
    assert await asyncio.to_thread(calls.cancelled.wait, 5)
    await eventually(lambda: a.suite.live_workers == 0)


async def test_one_cancel_on_b_stops_exactly_the_call_it_names_on_a(
    nodes: tuple[Node, Node], clients: Callable[..., LegacyClient], calls: Calls
) -> None:
    # A duplicate id in flight is refused by the process that runs the first (tests in
    # test_legacy_http); across processes it is not (one Redis round trip per request).
    a, b = nodes
    on_a = clients(a)
    await on_a.open()
    on_b = clients(b, joining=on_a)
    call = asyncio.create_task(on_a.request("tools/call", {"name": "slow"}, id=5))
    assert await asyncio.to_thread(calls.started.wait, 5)
    other = await on_b.request("tools/call", {"name": "chatty"}, id="5")  # "5" is not 5
    assert "result" in (other.response or {})
    assert (await on_b.notify("notifications/cancelled", {"requestId": 5})).status == 202
    reply = await asyncio.wait_for(call, 5)
    assert (reply.status, reply.response) == (200, None)
    await eventually(lambda: a.suite.live_workers == 0)
    again = await on_b.request("tools/call", {"name": "chatty"}, id=5)  # released: usable again
    assert "result" in (again.response or {})


async def test_a_cancel_that_comes_before_its_call_stops_it_on_either_process(
    nodes: tuple[Node, Node], clients: Callable[..., LegacyClient], calls: Calls
) -> None:
    # The client's cancel overtakes its request (sent 0-2 ms later, it reaches a process
    # first): remembered for a moment, on the process it hit and on every other one.
    a, b = nodes
    on_a = clients(a)
    await on_a.open()
    on_b = clients(b, joining=on_a)
    await on_a.request("tools/call", {"name": "chatty"})  # A and B listen for cancels
    await on_b.request("tools/call", {"name": "chatty"})
    for request_id, cancel_on, call_on in (("early-1", on_b, on_a), ("early-2", on_a, on_a)):
        notified = await cancel_on.notify("notifications/cancelled", {"requestId": request_id})
        assert notified.status == 202
        await asyncio.sleep(0.05)  # the cancel has crossed Redis before the call starts
        reply = await asyncio.wait_for(  # the slow tool sleeps 30 s unless cancelled
            call_on.request("tools/call", {"name": "slow"}, id=request_id), 5
        )
        assert (reply.status, reply.response) == (200, None)  # cancelled: unanswered
    await eventually(lambda: a.suite.live_workers == 0)
    later = await on_a.request("tools/call", {"name": "chatty"}, id="early-3")  # no cancel
    assert "result" in (later.response or {})


async def test_deleting_on_b_ends_the_get_stream_on_a(
    nodes: tuple[Node, Node], clients: Callable[..., LegacyClient]
) -> None:
    a, b = nodes
    on_a = clients(a)
    await on_a.open()
    async with on_a.get_stream() as stream:
        assert stream.reply.status == 200
        assert (await clients(b, joining=on_a).delete()).status == 200
        rest = await asyncio.wait_for(stream.drain(), 5)
    assert rest.messages == []
    await eventually(lambda: a.broker_topics() == 0)


# -- change notifications -------------------------------------------------------------------


async def test_changes_on_a_reach_a_legacy_get_stream_on_b(
    nodes: tuple[Node, Node], clients: Callable[..., LegacyClient]
) -> None:
    a, b = nodes
    on_a = clients(a)
    await on_a.open()
    assert (await on_a.request("tools/list")).status == 200  # A's Suite now publishes
    subscribed = await on_a.request("resources/subscribe", {"uri": "test://notes"})
    assert subscribed.status == 200
    async with clients(b, joining=on_a).get_stream() as stream:
        assert stream.reply.status == 200
        a.suite.resource_updated("test://other")  # not subscribed: filtered out on B
        a.suite.resource_list_changed()
        a.suite.resource_updated("test://notes")
        first, second = await next_message(stream), await next_message(stream)
    assert first == {"jsonrpc": "2.0", "method": LIST_CHANGED}
    assert second == {"jsonrpc": "2.0", "method": UPDATED, "params": {"uri": "test://notes"}}


async def test_changes_on_a_reach_a_listen_stream_on_b(
    nodes: tuple[Node, Node], modern_client: Callable[..., ModernClient]
) -> None:
    a, b = nodes
    assert (await modern_client(a.url).request("tools/list")).status == 200
    params = {
        "notifications": {"resourcesListChanged": True, "resourceSubscriptions": ["test://notes"]}
    }
    async with modern_client(b.url).stream("subscriptions/listen", params, id="l1") as exchange:
        ack = await next_message(exchange)
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        a.suite.resource_updated("test://other")
        a.suite.resource_updated("test://notes")
        a.suite.resource_list_changed()
        updated, changed = await next_message(exchange), await next_message(exchange)
    assert (updated["method"], updated["params"]["uri"]) == (UPDATED, "test://notes")
    assert changed["method"] == LIST_CHANGED
    for message in (updated, changed):
        assert message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "l1"
    await eventually(lambda: b.suite.live_listeners == 0 and b.broker_topics() == 0)


# -- messages for workers -------------------------------------------------------------------


async def test_a_message_posted_on_b_reaches_the_worker_on_a(
    nodes: tuple[Node, Node], modern_client: Callable[..., ModernClient]
) -> None:
    a, b = nodes
    on_a = modern_client(a.url)
    call = {"name": "wait_for_mail", "arguments": {}}
    async with on_a.stream("tools/call", call, progress_token="p") as exchange:
        progress = await next_message(exchange)
        worker = re.fullmatch(r"worker ([\w-]+)", progress["params"]["message"])
        assert worker is not None
        async with httpx.AsyncClient() as http:
            posted = await http.post(f"{b.url}/webhook/{worker[1]}", json={"text": "hi"})
        assert posted.status_code == 200
        final = await next_message(exchange)
    assert final["result"]["content"][0]["text"] == "got hi"
    await eventually(lambda: a.suite.live_workers == 0)


async def test_a_post_to_an_unknown_worker_or_a_dead_address_is_false(
    nodes: tuple[Node, Node],
) -> None:
    a, b = nodes
    here = f"{a.suite._mail.address}-ffff"  # this Suite's address, no such worker
    assert await a.server.run_in_loop(a.suite.post(here, {"text": "lost"})) is False
    assert await b.server.run_in_loop(b.suite.post("no-such-worker", {"text": "lost"})) is False
    assert await b.server.run_in_loop(b.suite.post("0badc0ffee00-1", {"text": "x"})) is False


class CountMail(Tool, name="count_mail", description="Streams until it has 1,000 messages."):
    async def call(self, request: ToolRequest, channel: Channel, calls: Calls) -> Stream:
        assert channel.mailbox is not None
        channel.send_progress(0, message=f"worker {channel.mailbox.id}")
        return Stream(set())

    async def handle_message(
        self, message: Any, channel: Channel, state: set[int], calls: Calls
    ) -> Result | Stream:
        state.add(message["n"])
        if len(state) < 1000:
            return Stream(state)
        return Result(call_tool_result(text=str(len(state))))


async def test_a_thousand_concurrent_posts_from_b_all_reach_the_worker_on_a(
    nodes: tuple[Node, Node], modern_client: Callable[..., ModernClient]
) -> None:
    a, b = nodes
    a.suite.add_tool((CountMail, Calls()), local=True)  # its arg is no JSON: A only
    call = {"name": "count_mail", "arguments": {}}
    async with modern_client(a.url).stream("tools/call", call, progress_token="p") as exchange:
        progress = await next_message(exchange)
        worker = progress["params"]["message"].removeprefix("worker ")

        async def burst() -> list[bool]:
            posts = (b.suite.post(worker, {"n": n}) for n in range(1000))
            return list(await asyncio.gather(*posts))

        assert await b.server.run_in_loop(burst()) == [True] * 1000
        final = await next_message(exchange)
    assert final["result"]["content"][0]["text"] == "1000"  # 0 lost, 0 duplicated


async def test_mail_goes_to_the_one_inbox_its_worker_names_and_dies_with_it(
    nodes: tuple[Node, Node], modern_client: Callable[..., ModernClient], redis_url: str
) -> None:
    from support.redis_topology import sync_client

    a, b = nodes
    call = {"name": "wait_for_mail", "arguments": {}}
    async with modern_client(a.url).stream("tools/call", call, progress_token="p") as exchange:
        worker = (await next_message(exchange))["params"]["message"].removeprefix("worker ")
    assert worker.startswith(a.suite._mail.address + "-")
    await eventually(lambda: a.suite.live_workers == 0)
    # the worker ended: its own process still accepts the mail (one inbox), and drops it
    assert await b.server.run_in_loop(b.suite.post(worker, {"text": "late"})) is True
    await eventually(lambda: a.suite._mail.dropped == 1)
    assert b.suite._mail.dropped == 0
    a.server.stop()  # a graceful stop ends A's heartbeat at once
    assert await b.server.run_in_loop(b.suite.post(worker, {"text": "gone"})) is False
    client = sync_client(redis_url)  # a cluster's too
    try:
        assert client.exists(f"{b.suite.broker._prefix}alive:{{{a.suite._mail.address}}}") == 0
    finally:
        client.close()


async def test_an_inbox_is_bounded_with_a_clear_error(redis_url: str, redis_prefix: str) -> None:
    from genmcp.storage import InboxFull
    from genmcp.storage.redis import RedisBroker

    broker = RedisBroker.from_url(redis_url, prefix=redis_prefix)
    broker.inboxes.max_messages = 3
    try:
        await broker.inboxes.client.set(broker.inboxes.alive_key("x"), b"1", px=5000)  # no reader
        assert [await broker.deliver("x", {"n": n}) for n in range(3)] == [True] * 3
        with pytest.raises(InboxFull, match="inbox x is full"):
            await broker.deliver("x", {"n": 3})
        assert await broker.deliver("nobody", {"n": 0}) is False
    finally:
        await broker.aclose()


# -- one catalog ---------------------------------------------------------------------------


class Runtime(Tool, name="runtime", description="Added at run time, on one process."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=f"{arg['greeting']} from a runtime tool"))


async def tool_names(client: ModernClient) -> set[str]:
    reply = await client.request("tools/list")
    assert reply.status == 200
    return {tool["name"] for tool in reply.result["tools"]}


async def until_within(check: Callable[[], Any], within: float) -> float:
    """Seconds until the async `check()` is true (fails past `within`)."""
    started = asyncio.get_running_loop().time()
    while not await check():
        elapsed = asyncio.get_running_loop().time() - started
        assert elapsed < within, f"not seen within {within} s"
        await asyncio.sleep(0.005)
    return asyncio.get_running_loop().time() - started


async def test_a_tool_added_on_a_is_served_by_b_and_by_a_process_started_later(
    nodes: tuple[Node, Node],
    modern_client: Callable[..., ModernClient],
    redis_url: str,
    redis_prefix: str,
    live_server: LiveServers,
) -> None:
    # B lists the tool once it tells its listeners the list changed (it applies the change
    # first): an order, not a time; the delay is printed, not judged.
    a, b = nodes
    on_a, on_b = modern_client(a.url), modern_client(b.url)
    assert "runtime" not in await tool_names(on_b)  # B serves: subscribed to changes

    async def add() -> None:
        a.suite.add_tool((Runtime, {"greeting": "hi"}))

    params = {"notifications": {"toolsListChanged": True}}
    async with modern_client(b.url).stream("subscriptions/listen", params, id="l") as exchange:
        ack = await next_message(exchange)
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        started = asyncio.get_running_loop().time()
        await a.server.run_in_loop(add())
        changed = await next_message(exchange)
        took = asyncio.get_running_loop().time() - started
        assert changed["method"] == "notifications/tools/list_changed"
        assert "runtime" in await tool_names(on_b)  # at the first look
    print(f"B announced it after {took * 1000:.0f} ms")
    called = await on_b.request("tools/call", {"name": "runtime", "arguments": {}})
    assert called.result["content"][0]["text"] == "hi from a runtime tool"

    app, _ = build(redis_url, redis_prefix, Calls())  # C starts after the change
    on_c = modern_client(live_server(app))
    assert "runtime" in await tool_names(on_c)

    async def remove() -> bool:
        return b.suite.remove_tool("runtime")

    assert await b.server.run_in_loop(remove()) is True
    await until_within(lambda: _lacks(on_a, "runtime"), within=60.0)  # a hang guard
    await until_within(lambda: _lacks(on_c, "runtime"), within=60.0)  # a hang guard


async def test_a_tool_added_on_a_can_be_called_on_b_as_soon_as_a_answers(
    nodes: tuple[Node, Node], modern_client: Callable[..., ModernClient]
) -> None:
    # No wait between A's answer and the call on B: B, missing the name, re-reads the
    # catalog log before it refuses (its own copy of the event may still be on the way).
    a, b = nodes
    on_b = modern_client(b.url)
    assert "runtime" not in await tool_names(on_b)
    async with httpx.AsyncClient() as admin:
        for round_ in range(20):
            added = await admin.post(f"{a.url}/admin/runtime/hi{round_}")
            assert added.status_code == 200
            called = await on_b.request("tools/call", {"name": "runtime", "arguments": {}})
            assert called.error is None, (round_, called.body)
            assert called.result["content"][0]["text"] == f"hi{round_} from a runtime tool"
            removed = await admin.delete(f"{a.url}/admin/runtime")
            assert removed.json() == {"removed": True}
            await until_within(lambda: _lacks(on_b, "runtime"), within=60.0)  # a hang guard


async def _has(client: ModernClient, name: str) -> bool:
    return name in await tool_names(client)


async def _lacks(client: ModernClient, name: str) -> bool:
    return name not in await tool_names(client)


# -- the example of docs/guides/scaling-out.md ----------------------------------------------


async def test_the_docs_example_serves_and_shuts_down_cleanly(
    redis_url: str,
    live_server: LiveServers,
    modern_client: Callable[..., ModernClient],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", SCALING_OUT.read_text(encoding="utf-8"), re.S)
    code = next((b for b in blocks if "RedisBroker(" in b), None)
    assert code, "no long-form python block in docs/guides/scaling-out.md"
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("GENMCP_SECRET_KEY", SECRET)
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/guides/scaling-out.md", "exec"), namespace)
    base = live_server(namespace["app"])
    reply = await modern_client(base).request("tools/list")
    assert reply.status == 200
    assert [tool["name"] for tool in reply.result["tools"]] == ["greet"]
    server = live_server.last
    server.stop()  # its lifespan closes the broker, then the Redis client
    assert not server.running
    assert namespace["broker"].topics == 0
