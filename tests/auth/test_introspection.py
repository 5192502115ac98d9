"""auth.introspection: opaque tokens checked by RFC 7662 introspection, cached by digest.

First at the real AS through a protected router, then against the `documents` server for
the answers the real AS would not give (inactive, no object, expired, another issuer).
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from fastapi import FastAPI

from genmcp import mcp_router
from genmcp.auth import IntrospectionVerifier, InvalidToken, OAuthResource, VerifierBusy
from support.authorization_server import AuthorizationServer
from support.documents import Documents
from support.examples import load
from support.oauth import OPAQUE_RESOURCE, VERSION, call, call_message, challenge
from support.server import LiveServers


async def test_opaque_tokens_are_introspected_and_cached(
    authorization_server: AuthorizationServer, live_server: LiveServers
) -> None:
    async with httpx.AsyncClient() as client:
        discovery = await client.get(
            authorization_server.issuer + "/.well-known/openid-configuration"
        )
    verifier = IntrospectionVerifier(
        discovery.json()["introspection_endpoint"],
        client_id="resource-server",
        client_secret="rs-secret",
        issuer=authorization_server.issuer,
    )
    resource = OAuthResource(
        resource=OPAQUE_RESOURCE,
        authorization_servers=[authorization_server.issuer],
        verifier=verifier,
        required_scopes=["mcp:tools"],
    )
    app = FastAPI()
    tools = [load("protected_app").WhoAmI]
    router = mcp_router(server_name="o", server_version="1", tools=tools, auth=resource)
    app.include_router(router, prefix="/mcp")
    url = live_server(app)
    token = authorization_server.token(OPAQUE_RESOURCE, "mcp:tools", client="bob")
    assert token.count(".") == 0  # opaque, not a JWT
    headers = {"authorization": f"Bearer {token}"}
    first = await call(url, "whoami", headers=headers)
    second = await call(url, "whoami", headers=headers)
    assert first.status_code == second.status_code == 200, first.text
    assert first.json()["result"]["structuredContent"]["principal"] == "bob"
    assert verifier.requests == 1  # the second answer came from the cache
    unknown = await call(url, "whoami", headers={"authorization": "Bearer no-such-token"})
    assert unknown.status_code == 401 and challenge(unknown)["error"] == "invalid_token"
    assert verifier.requests == 2


async def test_a_flood_from_one_address_leaves_the_others_their_tokens(
    authorization_server: AuthorizationServer, live_server: LiveServers
) -> None:
    """Issue 48, finding 5: made-up tokens from 127.0.0.1 spend that address's budget (5 a
    second), never the shared one (20): the fresh real tokens of 127.0.0.2 are all accepted,
    and the flood's refusals are 503 with Retry-After, never ``invalid_token``."""
    async with httpx.AsyncClient() as client:
        discovery = await client.get(
            authorization_server.issuer + "/.well-known/openid-configuration"
        )
    verifier = IntrospectionVerifier(
        discovery.json()["introspection_endpoint"],
        client_id="resource-server",
        client_secret="rs-secret",
        issuer=authorization_server.issuer,
        max_rate=20,
        max_rate_per_source=5,
    )
    MADE.append(verifier)
    resource = OAuthResource(
        resource=OPAQUE_RESOURCE,
        authorization_servers=[authorization_server.issuer],
        verifier=verifier,
        required_scopes=["mcp:tools"],
    )
    app = FastAPI()
    tools = [load("protected_app").WhoAmI]
    app.include_router(
        mcp_router(server_name="o", server_version="1", tools=tools, auth=resource), prefix="/mcp"
    )
    url = live_server(app)
    honest_tokens = [
        authorization_server.token(OPAQUE_RESOURCE, "mcp:tools", client="bob") for _ in range(5)
    ]
    flooded: list[httpx.Response] = []
    done, flooding = asyncio.Event(), asyncio.Event()

    async def flooder(worker: int) -> None:  # 127.0.0.1: made-up tokens until honest is done
        async with httpx.AsyncClient(timeout=10) as client:
            for i in range(200):
                if done.is_set():
                    return
                headers = {**_HEADERS, "authorization": f"Bearer made-up-{worker}-{i}"}
                message = call_message("whoami", {}, 1)
                flooded.append(await client.post(url + "/mcp", headers=headers, json=message))
                if len(flooded) >= 40:  # the shared bucket (20) is long spent without the fix
                    flooding.set()

    async def honest() -> list[int]:  # 127.0.0.2: five fresh real tokens, one at a time
        statuses = []
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(transport=transport, timeout=10) as client:
            await flooding.wait()
            for token in honest_tokens:
                headers = {**_HEADERS, "authorization": f"Bearer {token}"}
                message = call_message("whoami", {}, 1)
                reply = await client.post(url + "/mcp", headers=headers, json=message)
                statuses.append(reply.status_code)
        done.set()
        return statuses

    *_, statuses = await asyncio.gather(*(flooder(w) for w in range(8)), honest())
    assert statuses == [200] * 5
    busy = [reply for reply in flooded if reply.status_code == 503]
    refused = [reply for reply in flooded if reply.status_code == 401]
    assert len(busy) + len(refused) == len(flooded) and busy
    assert all(int(reply.headers["retry-after"]) >= 1 for reply in busy)
    assert all("retry" not in challenge(reply).get("error_description", "") for reply in refused)
    assert len(refused) + 5 == verifier.requests  # every 401 was introspected, the 503s not
    assert verifier.refused == len(busy)


_HEADERS = {
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": "tools/call",
    "mcp-name": "whoami",
}


# -- against an introspection endpoint that says what a test needs ----------------------------

ENDPOINT = "/introspect"


MADE: list[IntrospectionVerifier] = []


@pytest.fixture(autouse=True)
async def _close_verifiers() -> AsyncIterator[None]:
    yield
    while MADE:
        await MADE.pop().aclose()


def introspector(documents: Documents, **options: Any) -> IntrospectionVerifier:
    made = IntrospectionVerifier(
        documents.url + ENDPOINT, client_id="rs", client_secret="s3cret", **options
    )
    MADE.append(made)
    return made


def answer(documents: Documents, status: int = 200, **fields: Any) -> None:
    exp = time.time() + 300
    documents.answers[ENDPOINT] = (status, {"active": True, "exp": exp, **fields})


async def test_the_request_is_a_form_post_with_basic_auth(documents: Documents) -> None:
    answer(documents, sub="alice", scope="a b", aud=["https://r", 1], client_id="app", iss="i")
    token = await introspector(documents).verify("opaque-1")
    (seen,) = documents.seen
    assert (seen.method, seen.path) == ("POST", ENDPOINT)
    assert seen.headers["authorization"] == "Basic " + base64.b64encode(b"rs:s3cret").decode()
    assert parse_qs(seen.body.decode()) == {
        "token": ["opaque-1"],
        "token_type_hint": ["access_token"],
    }
    assert (token.subject, token.client_id, token.issuer) == ("alice", "app", "i")
    assert (token.scopes, token.audience) == ({"a", "b"}, ("https://r",))


@pytest.mark.parametrize(
    ("status", "document", "reason"),
    [
        (200, {"active": False}, "not active"),
        (200, {"active": "true"}, "not active"),  # only the JSON true is active
        (200, {}, "not active"),
        (200, ["active"], "could not be introspected"),
        (200, b"<html>", "could not be introspected"),
        (401, {"error": "invalid_client"}, "could not be introspected"),
        (200, {"active": True, "exp": 1_000}, "has expired"),
        (200, {"active": True, "iss": "https://evil"}, "another issuer"),
    ],
)
async def test_what_the_endpoint_says_decides(
    documents: Documents, status: int, document: Any, reason: str
) -> None:
    documents.answers[ENDPOINT] = (status, document)
    with pytest.raises(InvalidToken, match=reason):
        await introspector(documents, issuer="https://as").verify("t")


async def test_a_refusal_is_cached_briefly(documents: Documents) -> None:
    documents.answers[ENDPOINT] = (200, {"active": False})
    verifier = introspector(documents, negative_cache_s=0.2)
    with pytest.raises(InvalidToken, match="not active"):
        await verifier.verify("t")
    answer(documents, sub="alice")  # the same token, active now
    with pytest.raises(InvalidToken, match="not active"):
        await verifier.verify("t")  # from the negative cache
    assert verifier.requests == 1
    await asyncio.sleep(0.25)
    assert (await verifier.verify("t")).subject == "alice"
    assert verifier.requests == 2


async def test_a_refusal_is_not_cached_when_negative_cache_s_is_zero(
    documents: Documents,
) -> None:
    documents.answers[ENDPOINT] = (200, {"active": False})
    verifier = introspector(documents, negative_cache_s=0)
    with pytest.raises(InvalidToken, match="not active"):
        await verifier.verify("t")
    answer(documents, sub="alice")  # the same token, active now
    assert (await verifier.verify("t")).subject == "alice"
    assert verifier.requests == 2


async def test_an_answer_without_iss_or_exp_is_accepted(documents: Documents) -> None:
    documents.answers[ENDPOINT] = (200, {"active": True, "sub": "s"})
    token = await introspector(documents, issuer="https://as").verify("t")
    # the configured issuer names the caller's owner when the answer names none
    assert (token.issuer, token.expires_at, token.principal) == ("https://as", None, "s")
    assert (await introspector(documents).verify("u")).issuer is None


@pytest.mark.parametrize("exp", ["soon", "1999999999", True, [1]])
async def test_an_exp_that_is_no_number_is_refused(documents: Documents, exp: Any) -> None:
    documents.answers[ENDPOINT] = (200, {"active": True, "sub": "s", "exp": exp})
    with pytest.raises(InvalidToken, match="exp is not a number"):
        await introspector(documents).verify("t")


async def test_answers_are_cached_per_token(documents: Documents) -> None:
    answer(documents, sub="alice")
    verifier = introspector(documents)
    for token in ("one", "two", "one", "two"):
        await verifier.verify(token)
    assert verifier.requests == 2
    assert all(b"token=" in seen.body for seen in documents.seen)


async def test_no_cache_when_cache_s_is_zero(documents: Documents) -> None:
    answer(documents)
    verifier = introspector(documents, cache_s=0)
    await verifier.verify("t")
    await verifier.verify("t")
    assert verifier.requests == 2


class Clock:
    """The verifier's wall clock, moved by the test (its monotonic clock stays real)."""

    monotonic = staticmethod(time.monotonic)

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now


async def test_the_cache_never_outlives_the_token(
    documents: Documents, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The verifier's clock, not the machine's: a real exp 0.5 s ahead had passed by the
    # first answer on a loaded machine (the token was refused as expired).
    clock = Clock()
    monkeypatch.setattr("genmcp.auth.introspection.time", clock)
    exp = clock.now + 60
    documents.answers[ENDPOINT] = (200, {"active": True, "sub": "alice", "exp": exp})
    verifier = introspector(documents, cache_s=3600)
    assert (await verifier.verify("t")).subject == "alice"
    answer(documents, sub="bob")  # what the endpoint says once that token has expired
    clock.now = exp - 0.001
    assert (await verifier.verify("t")).subject == "alice"  # cached until its exp
    clock.now = exp + 0.001  # past the cached exp, not an hour on
    assert (await verifier.verify("t")).subject == "bob"
    assert verifier.requests == 2


async def test_the_oldest_answer_makes_room(documents: Documents) -> None:
    answer(documents)
    verifier = introspector(documents, max_cached=2)
    for token in ("a", "b", "c"):
        await verifier.verify(token)
    await verifier.verify("c")
    await verifier.verify("b")
    assert verifier.requests == 3
    await verifier.verify("a")  # dropped when "c" came
    assert verifier.requests == 4


async def test_an_endpoint_that_is_not_there_is_an_invalid_token(
    caplog: pytest.LogCaptureFixture,
) -> None:
    verifier = IntrospectionVerifier(
        "http://127.0.0.1:9/introspect", client_id="rs", client_secret="s", timeout_s=2
    )
    MADE.append(verifier)
    with pytest.raises(InvalidToken, match="could not be introspected"):
        await verifier.verify("t")
    assert "token introspection failed: ConnectError" in caplog.text


# -- a flood of tokens: what reaches the authorization server -------------------------------


def connections(documents: Documents) -> int:
    return len({seen.client for seen in documents.seen})


async def test_concurrent_checks_of_one_token_share_one_request(documents: Documents) -> None:
    answer(documents, sub="alice")
    documents.delay_s = 0.1  # every check starts before the first answer lands
    verifier = introspector(documents)
    found = await asyncio.gather(*(verifier.verify("same") for _ in range(100)))
    assert {token.subject for token in found} == {"alice"}
    assert (verifier.requests, len(documents.seen)) == (1, 1)


async def test_one_invalid_token_sent_again_and_again_is_introspected_once(
    documents: Documents,
) -> None:
    documents.answers[ENDPOINT] = (200, {"active": False})
    verifier = introspector(documents)
    for _ in range(200):
        with pytest.raises(InvalidToken, match="not active"):
            await verifier.verify("forged")
    assert len(documents.seen) == 1


async def test_random_tokens_are_bounded_by_the_rate_on_pooled_connections(
    documents: Documents,
) -> None:
    documents.answers[ENDPOINT] = (200, {"active": False})
    verifier = introspector(documents, max_rate=50)
    refusals: list[str] = []

    async def one(i: int) -> None:
        with pytest.raises((InvalidToken, VerifierBusy)) as caught:
            await verifier.verify(f"random-{i}-{time.monotonic_ns()}")
        refusals.append(str(caught.value))

    started = time.monotonic()
    await asyncio.gather(*(one(i) for i in range(500)))
    elapsed = time.monotonic() - started
    bound = 50 + 50 * elapsed + 1  # the burst, then the rate
    print(f"500 random tokens: {len(documents.seen)} introspections over "
          f"{connections(documents)} connections in {elapsed:.2f}s")  # fmt: skip
    assert len(documents.seen) == verifier.requests <= bound
    assert connections(documents) <= verifier.max_in_flight
    assert verifier.refused == 500 - verifier.requests
    assert sum("retry later" in why for why in refusals) == verifier.refused
    await asyncio.sleep(0.1)  # the bucket refills: a token is introspected again
    answer(documents, sub="alice")
    assert (await verifier.verify("real")).subject == "alice"


async def test_the_router_closes_the_verifiers_pool(
    documents: Documents, live_server: LiveServers
) -> None:
    answer(documents, sub="alice", aud="https://r/mcp", scope="mcp:tools")
    verifier = introspector(documents)
    resource = OAuthResource(
        resource="https://r/mcp", authorization_servers=["https://as"], verifier=verifier
    )
    app = FastAPI()
    tools = [load("protected_app").WhoAmI]
    app.include_router(
        mcp_router(server_name="o", server_version="1", tools=tools, auth=resource), prefix="/mcp"
    )
    server = live_server.start(app)
    for _ in range(3):
        reply = await call(server.url, "whoami", headers={"authorization": "Bearer tok"})
        assert reply.status_code == 200, reply.text
    assert verifier._client is not None and not verifier._client.is_closed
    pool = verifier._client
    server.stop()
    assert pool.is_closed and verifier._client is None


async def test_a_token_of_another_shape_costs_no_request_and_no_budget(
    documents: Documents,
) -> None:
    """``token_shape``: 1,000 made-up tokens of the wrong shape are refused without a request
    and leave the whole budget (max_rate 5) to the tokens of the AS's shape."""
    answer(documents, sub="alice")
    verifier = introspector(documents, max_rate=5, token_shape=r"at_[A-Za-z0-9]{16}")
    for i in range(1_000):
        with pytest.raises(InvalidToken, match="shape"):
            await verifier.verify(f"made-up-{i}")
    assert (len(documents.seen), verifier.misshapen, verifier.refused) == (0, 1_000, 0)
    found = [await verifier.verify(f"at_{i:016d}") for i in range(5)]
    assert {token.subject for token in found} == {"alice"} and len(documents.seen) == 5


async def test_over_budget_is_busy_not_invalid(documents: Documents) -> None:
    """Past the rate bound a token is not judged: ``VerifierBusy`` (503 at the resource)."""
    documents.answers[ENDPOINT] = (200, {"active": False})
    verifier = introspector(documents, max_rate=3)
    outcomes = []
    for i in range(10):
        try:
            await verifier.verify(f"t-{i}")
        except (InvalidToken, VerifierBusy) as exc:
            outcomes.append(type(exc).__name__)
    assert outcomes.count("InvalidToken") == len(documents.seen) == verifier.requests
    assert outcomes.count("VerifierBusy") == verifier.refused == 10 - verifier.requests
    assert verifier.refused >= 1
