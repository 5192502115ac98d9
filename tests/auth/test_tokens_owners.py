"""auth.tokens owners (``storage.owner``): who owns what, namespaced by issuer and kind, live.

Tokens are JWTs signed here, whose key the `documents` server publishes (real HTTP on
loopback), checked by a real `OAuthResource` in front of a real uvicorn server. Each case is
a pair of callers that main today let reach each other: `sub` "alice" and `client_id`
"alice", the same `sub` at two issuers, two tokens that name no one. Tasks, requestState,
legacy sessions and rate-limit buckets are each tried.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from typing import Any, Final

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import FastAPI

from genmcp import (
    Channel,
    InputRequired,
    ResourceRepo,
    ResourceRequest,
    Result,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
    read_resource_result,
    resource_item,
    text_contents,
)
from genmcp.auth import AccessToken, JWTVerifier, OAuthResource
from genmcp.middleware.ratelimit import Limit, RateLimit
from support.client import ModernClient
from support.documents import Documents
from support.server import LiveServers

RESOURCE: Final = "https://mcp.owner.test/mcp"
ISSUER: Final = "https://issuer.one"
OTHER_ISSUER: Final = "https://issuer.two"
KEY = ec.generate_private_key(ec.SECP256R1())
TASKS: Final = {"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}}
FORM: Final = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


# -- over a real server ---------------------------------------------------------------------


class Sleep(Tool, name="sleep", description="Sleeps.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        await asyncio.sleep(30)
        return Result(call_tool_result(text="slept"))


class Ask(Tool, name="ask", description="Asks once, then answers."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        if request.request_state is None:
            return InputRequired({"q": elicit_request("ok?", FORM)}, state={"n": 1})
        return Result(call_tool_result(text="done"))


class Hello(Tool, name="hello", description="Says hello."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        return Result(call_tool_result(text="hello"))


class Pages(ResourceRepo, prefix="n://"):
    """Six items, two per page, with its own integer cursor."""

    def list(self, cursor: Any, channel: Channel, arg: Any) -> Any:
        start = cursor or 0
        items = [resource_item(f"n://{n}", f"n{n}") for n in range(start, start + 2)]
        return items, (start + 2 if start + 2 < 6 else None)

    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        return Result(read_resource_result(text_contents(request.uri, "n")))


def sign(issuer: str = ISSUER, **claims: Any) -> str:
    body = {"iss": issuer, "aud": RESOURCE, "scope": "mcp", "exp": int(time.time()) + 300}
    body["jti"] = secrets.token_hex(8)  # two tokens naming no one still differ
    body.update(claims)
    return jwt.encode(body, KEY, algorithm="ES256", headers={"kid": "k"})


class Verifiers:
    """One JWTVerifier per issuer, keys from the documents server."""

    def __init__(self, documents: Documents) -> None:
        public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(KEY.public_key()))
        documents.answers["/jwks"] = (200, {"keys": [{**public, "kid": "k", "alg": "ES256"}]})
        self.by_issuer = {
            iss: JWTVerifier(iss, jwks_uri=documents.url + "/jwks", algorithms=["ES256"])
            for iss in (ISSUER, OTHER_ISSUER)
        }

    async def aclose(self) -> None:
        for verifier in self.by_issuer.values():
            await verifier.aclose()

    async def verify(self, token: str) -> AccessToken:
        issuer = jwt.decode(token, options={"verify_signature": False})["iss"]
        return await self.by_issuer[issuer].verify(token)


@pytest.fixture
def server(documents: Documents, live_server: LiveServers) -> str:
    resource = OAuthResource(
        resource=RESOURCE, authorization_servers=[ISSUER], verifier=Verifiers(documents)
    )
    suite = Suite(
        server_name="owners",
        server_version="1",
        tools=[Sleep, Ask, Hello],
        resources=[Pages],
        middleware=[RateLimit(None, tools={"hello": Limit(rate=0.001, burst=1)})],
    )
    app = FastAPI()
    app.include_router(mcp_router(suite=suite, auth=resource), prefix="/mcp")
    return live_server(app)


PAIRS: Final = {  # signed when a test runs: a token made at import could expire first
    "sub and client_id of one name": lambda: (sign(sub="alice"), sign(client_id="alice")),
    "one sub at two issuers": lambda: (sign(sub="alice"), sign(OTHER_ISSUER, sub="alice")),
    "two tokens naming no one": lambda: (sign(), sign()),
}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@pytest.mark.parametrize("pair", list(PAIRS))
async def test_a_task_is_its_owners_only(server: str, modern_client: Any, pair: str) -> None:
    mine, theirs = PAIRS[pair]()
    client: ModernClient = modern_client(server, validate=False)
    created = await client.request(
        "tools/call", {"name": "sleep", "arguments": {}}, capabilities=TASKS, headers=bearer(mine)
    )
    assert created.status == 200, created.body
    task_id = created.result["taskId"]
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        params: dict[str, Any] = {"taskId": task_id}
        if method == "tasks/update":
            params["inputResponses"] = {}
        reply = await client.request(method, params, capabilities=TASKS, headers=bearer(theirs))
        assert reply.error is not None and reply.error["code"] == -32602, (method, reply.body)
    own = await client.request(
        "tasks/get", {"taskId": task_id}, capabilities=TASKS, headers=bearer(mine)
    )
    assert own.result["status"] == "working"  # the other's cancel did nothing
    await client.request(
        "tasks/cancel", {"taskId": task_id}, capabilities=TASKS, headers=bearer(mine)
    )


@pytest.mark.parametrize("pair", list(PAIRS))
async def test_request_state_is_the_owners_only(server: str, modern_client: Any, pair: str) -> None:
    mine, theirs = PAIRS[pair]()
    client: ModernClient = modern_client(server, validate=False)
    first = await client.request(
        "tools/call", {"name": "ask", "arguments": {}}, capabilities=TASKS, headers=bearer(mine)
    )
    assert first.result["resultType"] == "input_required", first.body
    retry = {
        "name": "ask",
        "arguments": {},
        "requestState": first.result["requestState"],
        "inputResponses": {"q": {"action": "accept", "content": {"ok": True}}},
    }
    stolen = await client.request("tools/call", retry, capabilities=TASKS, headers=bearer(theirs))
    assert stolen.error is not None and stolen.error["code"] == -32602, stolen.body
    assert "rebound" in stolen.error["message"]
    own = await client.request("tools/call", retry, capabilities=TASKS, headers=bearer(mine))
    assert own.result["content"][0]["text"] == "done", own.body


@pytest.mark.parametrize("pair", list(PAIRS))
async def test_a_rate_bucket_is_the_owners_only(server: str, modern_client: Any, pair: str) -> None:
    mine, theirs = PAIRS[pair]()
    client: ModernClient = modern_client(server, validate=False)
    hello = {"name": "hello", "arguments": {}}
    assert (await client.request("tools/call", hello, headers=bearer(mine))).status == 200
    assert (await client.request("tools/call", hello, headers=bearer(mine))).status == 429
    other = await client.request("tools/call", hello, headers=bearer(theirs))
    assert other.status == 200, other.body  # its own bucket, still full


@pytest.mark.parametrize("pair", list(PAIRS))
async def test_a_resource_cursor_is_the_owners_only(
    server: str, modern_client: Any, pair: str
) -> None:
    mine, theirs = PAIRS[pair]()
    client: ModernClient = modern_client(server, validate=False)
    first = await client.request("resources/list", {}, headers=bearer(mine))
    cursor = first.result["nextCursor"]
    stolen = await client.request("resources/list", {"cursor": cursor}, headers=bearer(theirs))
    assert stolen.error is not None and stolen.error["code"] == -32602, stolen.body
    assert "another caller" in stolen.error["message"]
    own = await client.request("resources/list", {"cursor": cursor}, headers=bearer(mine))
    assert [item["uri"] for item in own.result["resources"]] == ["n://2", "n://3"]


async def test_a_legacy_session_is_its_owners_only(server: str) -> None:
    mine, theirs = sign(), sign()  # two tokens that name no one
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    async with httpx.AsyncClient(timeout=10) as http:
        opened = await http.post(server + "/mcp", json=init, headers={**headers, **bearer(mine)})
        assert opened.status_code == 200, opened.text
        session = {"mcp-session-id": opened.headers["mcp-session-id"]}
        other = await http.post(
            server + "/mcp", json=ping, headers={**headers, **session, **bearer(theirs)}
        )
        assert other.status_code == 404  # as an unknown session
        own = await http.post(
            server + "/mcp", json=ping, headers={**headers, **session, **bearer(mine)}
        )
        assert own.status_code in (200, 202) and "error" not in own.text, own.text
