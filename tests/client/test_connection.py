"""client.connection: the era probe against scripted servers (raw ASGI on uvicorn).

A -32022 naming only 2025 revisions opens a session at the newest named one; a -32022
naming 2026-07-28 is a negotiation round (asked again); a 401 page stops the probe (no
session would help); a `server/discover` result without `supportedVersions` is not a
modern server's. A `protocol=` the client does not speak is refused when it is built.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from genmcp.client import Client, ClientError
from support.server import LiveServers
from tests.client.test_http import event, scripted


def answer(body: bytes, **reply: Any) -> tuple[int, str, list[bytes]]:
    message = json.loads(body)
    payload = {"jsonrpc": "2.0", "id": message.get("id"), **reply}
    return 200, "application/json", [json.dumps(payload).encode()]


class Peer:
    """A server that refuses 2026-07-28 the way it is told to, and speaks 2025 sessions."""

    def __init__(self, refusal: dict[str, Any] | None, status: int = 400) -> None:
        self.refusal, self.status = refusal, status
        self.methods: list[str] = []

    async def __call__(self, method: str, headers: dict[str, str], body: bytes) -> Any:
        if method != "POST":
            return 405, "text/plain", []
        message = json.loads(body)
        self.methods.append(message.get("method", "response"))
        if message.get("method") == "server/discover":
            if self.refusal is None:
                return answer(body, result={})
            error = {"jsonrpc": "2.0", "id": message["id"], "error": self.refusal}
            return self.status, "application/json", [json.dumps(error).encode()]
        if message.get("method") == "initialize":
            version = message["params"]["protocolVersion"]
            return answer(body, result={"protocolVersion": version, "capabilities": {},
                                        "serverInfo": {"name": "old", "version": "1"}})  # fmt: skip
        if "id" not in message:
            return 202, "text/plain", []
        return answer(body, result={"tools": []})


@pytest.mark.parametrize(
    ("refusal", "version"),
    [
        ({"code": -32022, "message": "no", "data": {"supported": ["2025-06-18"]}}, "2025-06-18"),
        ({"code": -32600, "message": "Bad Request: Missing session ID"}, "2025-11-25"),
        (None, "2025-11-25"),  # a result without supportedVersions
    ],
)
async def test_a_server_without_2026_gets_a_session(
    live_server: LiveServers, refusal: dict[str, Any] | None, version: str
) -> None:
    peer = Peer(refusal)
    url = live_server(scripted(peer)) + "/mcp"
    async with Client(url) as client:
        assert await client.list_tools() == []
        assert client.era == version and client.server_info == {"name": "old", "version": "1"}

    assert peer.methods[:4] == ["server/discover", "initialize", "notifications/initialized",
                                "tools/list"]  # fmt: skip


async def test_a_version_negotiation_round_is_asked_again(live_server: LiveServers) -> None:
    rounds: list[str] = []

    async def script(method: str, headers: dict[str, str], body: bytes) -> Any:
        rounds.append(headers.get("mcp-protocol-version", ""))
        if len(rounds) == 1:
            error = {"code": -32022, "message": "Unsupported protocol version",
                     "data": {"supported": ["2026-07-28"], "requested": "x"}}  # fmt: skip
            payload = {"jsonrpc": "2.0", "id": json.loads(body)["id"], "error": error}
            return 400, "application/json", [json.dumps(payload).encode()]
        return answer(body, result={"resultType": "complete", "supportedVersions": ["2026-07-28"],
                                    "capabilities": {"tools": {}}})  # fmt: skip

    url = live_server(scripted(script)) + "/mcp"
    async with Client(url) as client:
        server = await client.connect()

    assert client.era == "2026-07-28" and server["capabilities"] == {"tools": {}}
    assert rounds == ["2026-07-28", "2026-07-28"]


async def test_a_401_stops_the_probe(live_server: LiveServers) -> None:
    seen: list[str] = []

    async def script(method: str, headers: dict[str, str], body: bytes) -> Any:
        seen.append(json.loads(body)["method"])
        return 401, "text/plain", [b"missing token"]

    url = live_server(scripted(script)) + "/mcp"
    async with Client(url) as client:
        with pytest.raises(ClientError) as refused:
            await client.list_tools()

    assert refused.value.status == 401 and "bearer token" in str(refused.value)
    assert seen == ["server/discover"]


class GetStreamAnswers:
    """A 2025 server that answers a call on the session's GET stream, not on the call's own
    (the conformance suite's `sse-retry` mock does so when the GET comes at the wrong time):
    the call's POST stream only primes (`id`, `retry`) and ends once the GET has answered."""

    def __init__(self) -> None:
        self.calling, self.answered = asyncio.Event(), asyncio.Event()  # bound in uvicorn's loop
        self.call_id: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            got = await receive()
            body += got.get("body", b"")
            if not got.get("more_body"):
                break
        message = json.loads(body) if body else {}
        sse = [(b"content-type", b"text/event-stream"), (b"mcp-session-id", b"s1")]
        if scope["method"] == "GET":
            await send({"type": "http.response.start", "status": 200, "headers": sse})
            await self.calling.wait()
            if not self.answered.is_set():  # once: the resumed GET finds nothing more
                ours = {"jsonrpc": "2.0", "id": self.call_id, "result": {"content": [], "ok": 1}}
                chunk = event(ours, "e2")
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                self.answered.set()
            await asyncio.sleep(0.5)
            await send({"type": "http.response.body", "body": b""})
        elif message.get("method") == "tools/call":
            await send({"type": "http.response.start", "status": 200, "headers": sse})
            await send({"type": "http.response.body", "body": b"id: e1\nretry: 100\ndata: \n\n",
                        "more_body": True})  # fmt: skip
            self.call_id = message["id"]
            self.calling.set()
            await self.answered.wait()
            await send({"type": "http.response.body", "body": b""})
        else:
            status, kind, chunks = await Peer(None)("POST", {}, body) if body else (200, "", [])
            headers = [(b"content-type", kind.encode()), (b"mcp-session-id", b"s1")]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": b"".join(chunks)})


async def test_a_response_on_the_sessions_get_stream_reaches_its_call(
    live_server: LiveServers,
) -> None:
    url = live_server(GetStreamAnswers()) + "/mcp"
    async with Client(url) as client:
        result = await asyncio.wait_for(client.call_tool("slow", {}), 10)
    assert client.era == "2025-11-25" and result["ok"] == 1


def test_a_protocol_the_client_does_not_speak_is_refused_naming_those_it_does() -> None:
    with pytest.raises(ValueError, match="'2024-01-01' is not one this client speaks") as bad:
        Client("http://127.0.0.1:9/mcp", protocol="2024-01-01")
    assert "2026-07-28" in str(bad.value) and "2025-11-25" in str(bad.value)
