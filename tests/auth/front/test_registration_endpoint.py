"""auth.front.registration_endpoint: ``POST /register`` on a real server, without an upstream
(registration never reaches it): 201 with the client's document; a member named twice, a
body that is not JSON or not an object, each a precise ``invalid_client_metadata``; a source
past its bound 429 with ``Retry-After``, every try counted.
"""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from genmcp.auth.front import AuthorizationFront, FrontLimits, Upstream
from support.server import LiveServers

REDIRECT = "http://127.0.0.1:9/callback"


def serve(live_server: LiveServers, per_source: int) -> str:
    front = AuthorizationFront(
        issuer="http://127.0.0.1:9",
        upstream=Upstream("http://127.0.0.1:9", "c", "s"),
        resource="http://127.0.0.1:9/mcp",
        limits=FrontLimits(registrations_per_source=per_source),
    )
    app = FastAPI()
    app.include_router(front.router())
    return live_server(app)


async def test_a_client_registers_and_bad_bodies_are_precise_errors(
    live_server: LiveServers,
) -> None:
    base = serve(live_server, per_source=5)
    bodies: list[dict[str, Any]] = [
        {"json": {"redirect_uris": [REDIRECT], "client_name": "Notes"}},
        {"content": b'{"redirect_uris": ["https://a.example/cb"], "redirect_uris": []}'},
        {"content": b"redirect_uris=x"},
        {"json": [{"redirect_uris": [REDIRECT]}]},
        {"json": {"redirect_uris": ["ftp://a.example/cb"]}},
        {"json": {"redirect_uris": [REDIRECT]}},
    ]
    async with httpx.AsyncClient(base_url=base, trust_env=False) as http:
        answers = [await http.post("/register", **body) for body in bodies]
    registered = answers[0].json()
    assert answers[0].status_code == 201 and answers[0].headers["cache-control"] == "no-store"
    assert registered["redirect_uris"] == [REDIRECT] and registered["client_name"] == "Notes"
    assert registered["client_id"] and "client_secret" not in registered
    refused = [answer.json() for answer in answers[1:4]]
    assert [answer.status_code for answer in answers[1:4]] == [400, 400, 400]
    assert [body["error"] for body in refused] == ["invalid_client_metadata"] * 3
    assert [body["error_description"] for body in refused] == [
        "redirect_uris is repeated",
        "the body is not JSON",
        "the body is not a JSON object",
    ]
    assert answers[4].status_code == 400 and answers[4].json()["error"] == "invalid_redirect_uri"
    assert answers[5].status_code == 429 and int(answers[5].headers["retry-after"]) >= 1
    assert answers[5].json()["error"] == "temporarily_unavailable"
