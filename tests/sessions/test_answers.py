"""Finding F3 (issue 12): an answer a 2025 session's server cannot use never leaves a call waiting.

While a `tools/call` waits for the client's answer to its `elicitation/create`,
`sampling/createMessage` or `roots/list`, the client POSTs something unusable. Before the fix
the body was refused (400) and the call waited `answer_timeout_s` (600 s). Now
(`genmcp.sessions.answers`):

- an answer whose id can be read but that is no valid JSON-RPC response fails the request
  with that id at once, as a JSON-RPC error answer would (an elicitation is cancelled,
  sampling ends the call with -32600), and the POST gets a 400 naming it;
- a body with no readable id (not JSON, a wrong-typed id, no id) fails the session's one
  waiting server request; with several waiting none fails, and they keep waiting;
- a body with a `method` is not an answer, and another session's answer fails nothing.

A real uvicorn server, real httpx sessions (`support.legacy_client`); each malformed body goes
out as raw bytes; every case checks that the call ends through the unusable answer (what it
ends with says so; `/mcp` would wait 600 s, so `GUARD_S` is a hang guard, not a budget:
issue 45) and that no task, worker or broker subscription is left.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Final

import pytest
from fastapi import FastAPI

from genmcp import (
    Channel,
    InputRequired,
    MCPRouter,
    Result,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    create_message_request,
    elicit_request,
    list_roots_request,
    mcp_router,
)
from genmcp.sessions import LegacyServer
from support.legacy_client import LegacyClient, LegacyExchange, LegacyReply
from support.server import LiveServer

SECRET: Final = "legacy-unusable-answers-secret-0123456789abcdef"
CAPS: Final = {"elicitation": {}, "sampling": {}, "roots": {}}
GUARD_S: Final = 10.0
"""A hang guard on a waiting call's end: far above a prompt end, far below the 600 s wait."""
SHORT_TIMEOUT_S: Final = 0.4
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
INPUT_TIMEOUT: Final = -32001
NAME: Final = {"type": "object", "properties": {"name": {"type": "string"}}}


class Confirm(Tool, name="confirm", description="Asks the user; says what came back."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        if request.input_responses is None:
            return InputRequired({"ok": elicit_request("Sure?", NAME)})
        return Result(call_tool_result(text=f"action: {request.input_responses['ok']['action']}"))


class Sample(Tool, name="sample", description="Asks the client's LLM."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        if request.input_responses is None:
            return InputRequired({"llm": create_message_request("Say hi", 20)})
        return Result(call_tool_result(text=request.input_responses["llm"]["content"]["text"]))


class Three(Tool, name="three", description="Elicitation, sampling and roots in one round."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answers = request.input_responses
        if answers is None:
            asks = {
                "who": elicit_request("Who?", NAME),
                "llm": create_message_request("Say hi", 20),
                "roots": list_roots_request(),
            }
            return InputRequired(asks)
        return Result(call_tool_result(text=f"{answers['who']['action']}|{len(answers)}"))


def router_of(**legacy: Any) -> MCPRouter:
    suite = Suite(
        server_name="unusable",
        server_version="1.0",
        tools=[Confirm, Sample, Three],
        secret_key=SECRET,
    )
    return mcp_router(suite=suite, legacy=LegacyServer(suite, **legacy))


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[LiveServer, MCPRouter, MCPRouter]]:
    """One server: `/mcp` waits the default 600 s for answers, `/short` 0.4 s."""
    default, short = router_of(), router_of(answer_timeout_s=SHORT_TIMEOUT_S)
    app = FastAPI()
    app.include_router(default, prefix="/mcp")
    app.include_router(short, prefix="/short")
    server = LiveServer(app)
    server.start()
    yield server, default, short
    server.stop()


async def genmcp_tasks(server: LiveServer) -> set[str]:
    """The server loop's tasks running genmcp code (a leaked waiter would be one)."""

    async def names() -> set[str]:
        here = asyncio.current_task()
        return {
            repr(task.get_coro())
            for task in asyncio.all_tasks()
            if task is not here and "genmcp" in repr(task.get_coro())
        }

    return await server.run_in_loop(names())


@pytest.fixture
async def client(
    served: tuple[LiveServer, MCPRouter, MCPRouter],
) -> AsyncIterator[Callable[..., Any]]:
    """`await client(path=..., version=...)`: an open session; at teardown, nothing left."""
    server, *routers = served
    before = await genmcp_tasks(server)
    opened: list[LegacyClient] = []

    async def make(path: str = "/mcp", version: str = "2025-11-25") -> LegacyClient:
        made = LegacyClient(server.url, path, version=version, capabilities=CAPS)
        opened.append(made)
        await made.open()
        return made

    yield make
    for made in opened:
        await made.aclose()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        left = await genmcp_tasks(server) - before
        idle = all(r.suite.live_workers == 0 and subscriptions(r) == 0 for r in routers)
        if idle and not left:
            break
        await asyncio.sleep(0.02)
    assert [r.suite.live_workers for r in routers] == [0, 0]
    assert [subscriptions(r) for r in routers] == [0, 0]
    assert left == set()


def subscriptions(router: MCPRouter) -> int:
    """Broker topics held for calls (less the legacy server's process-wide signal ones)."""
    legacy = router.endpoint.legacy
    assert legacy is not None
    topics: int = legacy.broker.topics  # type: ignore[attr-defined]
    return topics - legacy.signals.topics


async def post(client: LegacyClient, body: bytes) -> LegacyReply:
    """POST raw bytes with the session's headers."""
    response = await client.http.post(client.url, content=body, headers=client.headers())
    reply = LegacyReply(
        response.status_code, response.headers, response.headers.get("content-type", "")
    )
    reply.body = response.content
    if reply.body:
        reply.messages.append(response.json())
    return reply


def assert_refused(reply: LegacyReply, code: int, *fragments: str) -> str:
    """A 400 JSON-RPC error without an id (it answers an answer); its message."""
    assert reply.status == 400, reply.body
    assert reply.content_type == "application/json"
    message = reply.messages[0]
    assert "id" not in message, message
    assert message["error"]["code"] == code, message
    for fragment in fragments:
        assert fragment in message["error"]["message"], message
    return str(message["error"]["message"])


async def asked(exchange: LegacyExchange, count: int = 1) -> dict[str, str]:
    """The first `count` server requests on a call's stream: method -> request id."""
    seen = {}
    while len(seen) < count:
        message = await asyncio.wait_for(anext(aiter(exchange)), 5)
        seen[message["method"]] = message["id"]
    return seen


def reading(exchange: LegacyExchange) -> asyncio.Task[LegacyReply]:
    """Read the rest of a call's stream in a task (cancelling a read would break it)."""
    return asyncio.ensure_future(exchange.drain())


async def ended(rest: asyncio.Task[LegacyReply]) -> LegacyReply:
    """The call's final reply (`GUARD_S`: the 600 s answer wait would fail it)."""
    return await asyncio.wait_for(rest, GUARD_S)


async def still_waiting(rest: asyncio.Task[LegacyReply], for_s: float = 0.3) -> None:
    done, _ = await asyncio.wait([rest], timeout=for_s)
    assert not done, f"the call ended while its requests still waited: {rest.result()}"


def raw(value: Any) -> bytes:
    return json.dumps(value).encode()


# -- an answer whose id can be read -----------------------------------------------------------

READABLE: Final[dict[str, dict[str, Any]]] = {
    "both": {"result": {}, "error": {"code": 1, "message": "x"}},
    "neither": {},
    "error_without_code": {"error": {"message": "no"}},
    "error_without_message": {"error": {"code": -1}},
    "error_code_a_string": {"error": {"code": "-1", "message": "no"}},
    "error_code_a_boolean": {"error": {"code": True, "message": "no"}},
    "error_code_a_float": {"error": {"code": 1.5, "message": "no"}},
    "error_a_string": {"error": "no"},
    "error_null": {"error": None},
    "result_a_number": {"result": 5},
    "result_an_array": {"result": [{"action": "accept"}]},
    "result_null": {"result": None},
    "jsonrpc_missing": {"jsonrpc": None, "result": {"action": "accept"}},
    "jsonrpc_1_0": {"jsonrpc": "1.0", "result": {"action": "accept"}},
    "in_a_batch": {"batch": True, "result": {"action": "accept"}},
}
"""Shape -> the members that differ from `{"jsonrpc": "2.0", "id": <the request's id>}`."""


def readable(shape: str, rid: str) -> bytes:
    """The answer of ``shape`` to the server request ``rid`` (None drops a member)."""
    members = dict(READABLE[shape])
    batch = members.pop("batch", False)
    answer = {
        k: v for k, v in {"jsonrpc": "2.0", "id": rid, **members}.items() if k != "jsonrpc" or v
    }
    return raw([answer] if batch else answer)


@pytest.mark.parametrize("shape", sorted(READABLE))
async def test_a_malformed_elicitation_answer_cancels_it_at_once(
    client: Callable[..., Any], shape: str
) -> None:
    session = await client()
    async with session.stream("tools/call", {"name": "confirm"}, id="c1") as exchange:
        rid = (await asked(exchange))["elicitation/create"]
        refused = await post(session, readable(shape, rid))
        reply = await ended(reading(exchange))
    assert_refused(refused, INVALID_REQUEST, f'"{rid}" failed with this error')
    assert reply.response is not None and reply.response["id"] == "c1"
    assert reply.result["content"][0]["text"] == "action: cancel"


@pytest.mark.parametrize("shape", ["both", "error_without_code", "result_a_number", "in_a_batch"])
@pytest.mark.parametrize("version", ["2025-11-25", "2025-03-26"])
async def test_a_malformed_sampling_answer_is_a_client_fault_at_once(
    client: Callable[..., Any], shape: str, version: str
) -> None:
    session = await client(version=version)
    async with session.stream("tools/call", {"name": "sample"}, id="s1") as exchange:
        rid = (await asked(exchange))["sampling/createMessage"]
        refused = await post(session, readable(shape, rid))
        reply = await ended(reading(exchange))
    why = assert_refused(refused, INVALID_REQUEST, rid)
    assert reply.status == 200 and reply.response["id"] == "s1"
    assert reply.error["code"] == INVALID_REQUEST  # the client's fault, never -32603
    assert "sent an unusable answer to sampling/createMessage" in reply.error["message"]
    assert reply.error["data"]["inputRequest"] == "llm"
    assert reply.error["data"]["error"]["message"] in why


# -- a body whose id cannot be read -----------------------------------------------------------


def prefixed(rid: str, tail: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":"' + rid.encode() + b'",' + tail


UNREADABLE: Final[dict[str, tuple[Callable[[str], bytes], int]]] = {
    "not_json": (lambda rid: prefixed(rid, b""), PARSE_ERROR),
    "not_utf8": (lambda rid: b"\xff\xfe\xfd{", PARSE_ERROR),
    "nan": (lambda rid: prefixed(rid, b'"result":{"n":NaN}}'), PARSE_ERROR),
    "huge_integer": (
        lambda rid: prefixed(rid, b'"result":{"n":' + b"9" * 5000 + b"}}"),
        PARSE_ERROR,
    ),
    "too_deep": (
        lambda rid: prefixed(rid, b'"result":' + b"[" * 99 + b"]" * 99 + b"}"),
        PARSE_ERROR,
    ),
    "id_null": (lambda rid: raw({"jsonrpc": "2.0", "id": None, "result": {}}), INVALID_REQUEST),
    "id_a_float": (lambda rid: raw({"jsonrpc": "2.0", "id": 1.5, "result": {}}), INVALID_REQUEST),
    "id_a_boolean": (
        lambda rid: raw({"jsonrpc": "2.0", "id": True, "result": {}}),
        INVALID_REQUEST,
    ),
    "id_an_array": (
        lambda rid: raw({"jsonrpc": "2.0", "id": [rid], "result": {}}),
        INVALID_REQUEST,
    ),
    "id_an_object": (
        lambda rid: raw({"jsonrpc": "2.0", "id": {"i": rid}, "error": {}}),
        INVALID_REQUEST,
    ),
    "no_id": (lambda rid: raw({"jsonrpc": "2.0", "result": {"action": "accept"}}), INVALID_REQUEST),
    "empty_object": (lambda rid: b"{}", INVALID_REQUEST),
    "a_number": (lambda rid: b"5", INVALID_REQUEST),
    "a_string": (lambda rid: raw(rid), INVALID_REQUEST),
}
"""Shape -> (the body, given the waiting request's id, which it does not let us read; the code)."""


@pytest.mark.parametrize("shape", sorted(UNREADABLE))
async def test_an_unreadable_body_fails_the_one_waiting_request(
    client: Callable[..., Any], shape: str
) -> None:
    body, code = UNREADABLE[shape]
    session = await client()
    async with session.stream("tools/call", {"name": "sample"}, id="u1") as exchange:
        rid = (await asked(exchange))["sampling/createMessage"]
        refused = await post(session, body(rid))
        reply = await ended(reading(exchange))
    assert_refused(refused, code, f'the waiting server request "{rid}" failed with this error')
    assert reply.error["code"] == INVALID_REQUEST
    assert reply.error["data"]["error"]["code"] == code


async def test_with_several_waiting_an_unreadable_body_fails_none_until_one_is_left(
    client: Callable[..., Any],
) -> None:
    session = await client()
    async with session.stream("tools/call", {"name": "three"}, id="t1") as exchange:
        ids = await asked(exchange, 3)
        refused = await post(session, b"{not json")
        assert_refused(refused, PARSE_ERROR, "3 server requests of this session are waiting")
        rest = reading(exchange)
        await still_waiting(rest)
        accepted = await session.respond(ids["elicitation/create"], {"action": "decline"})
        assert accepted.status == 202
        assert (await session.respond(ids["roots/list"], {"roots": []})).status == 202
        await asyncio.sleep(0.05)  # the answers reach the call; sampling alone waits now
        refused = await post(session, b"{not json")
        reply = await ended(rest)
    assert_refused(refused, PARSE_ERROR, f'"{ids["sampling/createMessage"]}" failed')
    assert reply.error["code"] == INVALID_REQUEST
    assert "sampling/createMessage" in reply.error["message"]


async def test_after_the_call_nothing_waits_and_a_bad_body_is_a_plain_parse_error(
    client: Callable[..., Any],
) -> None:
    session = await client()
    async with session.stream("tools/call", {"name": "confirm"}) as exchange:
        rid = (await asked(exchange))["elicitation/create"]
        await session.respond(rid, {"action": "accept", "content": {"name": "Al"}})
        reply = await exchange.drain()
    assert reply.result["content"][0]["text"] == "action: accept"
    message = assert_refused(await post(session, b"{not json"), PARSE_ERROR)
    assert "failed" not in message and "waiting" not in message
    late = assert_refused(await post(session, readable("both", rid)), INVALID_REQUEST)
    assert "failed" not in late


# -- what fails nothing -------------------------------------------------------------------------


async def test_a_bad_request_and_another_sessions_bad_answer_fail_nothing(
    client: Callable[..., Any],
) -> None:
    session, intruder = await client(), await client()
    async with session.stream("tools/call", {"name": "confirm"}, id="k1") as exchange:
        rid = (await asked(exchange))["elicitation/create"]
        request_like = raw({"jsonrpc": "2.0", "id": rid, "method": 5, "result": {}})
        refused = await post(session, request_like)  # a request, answered with its id
        assert refused.status == 400 and refused.messages[0]["id"] == rid
        assert "failed" not in refused.messages[0]["error"]["message"]
        for body in (readable("neither", rid), b"{not json"):
            assert "failed" not in assert_refused(await post(intruder, body), code_of(body))
        no_session = await session.http.post(session.url, content=b"{not json")
        assert no_session.status_code == 400 and "failed" not in no_session.text
        rest = reading(exchange)
        await still_waiting(rest)
        await session.respond(rid, {"action": "accept", "content": {"name": "Bo"}})
        reply = await asyncio.wait_for(rest, 5)
    assert reply.result["content"][0]["text"] == "action: accept"


def code_of(body: bytes) -> int:
    try:
        json.loads(body)
    except ValueError:
        return PARSE_ERROR
    return INVALID_REQUEST


# -- the answer timeout ---------------------------------------------------------------------------


async def test_the_answer_timeout_is_configurable_and_ends_the_call_with_32001(
    client: Callable[..., Any],
) -> None:
    session = await client("/short")
    started = time.perf_counter()
    async with session.stream("tools/call", {"name": "confirm"}, id="z1") as exchange:
        await asked(exchange)
        reply = await asyncio.wait_for(exchange.drain(), GUARD_S)  # /mcp would wait 600 s
    took = time.perf_counter() - started
    assert took >= SHORT_TIMEOUT_S  # not before the timeout; the message names which ended it
    assert reply.error["code"] == INPUT_TIMEOUT
    assert f"within {SHORT_TIMEOUT_S:g} s" in reply.error["message"]
