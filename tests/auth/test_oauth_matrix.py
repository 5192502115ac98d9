"""The challenge matrix of issue 14 (rows 1-14) against the protected example app.

A real uvicorn serves `examples/protected_app.py`, a real oidc-provider issues the tokens
(client credentials, RFC 8707 resource indicators); tokens the AS would never issue (no
`exp`, another `iss`, another algorithm) are signed with the AS's own keys. Every
`WWW-Authenticate` is read with a strict parser (`support.www_authenticate`).
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any, Final

import httpx
import pytest

from support.examples import load
from support.oauth import RESOURCE, RESOURCE_METADATA, Protected, call, challenge
from support.server import LiveServers

pytestmark = pytest.mark.long  # a real authorization server, about 9 s (make test-long)

OTHER: Final = "https://other.example.test/mcp"


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


async def test_row1_no_authorization_is_401_without_error(protected: Protected) -> None:
    response = await call(protected.url, "whoami", headers={})
    assert response.status_code == 401
    assert challenge(response) == {"scope": "mcp:tools", "resource_metadata": RESOURCE_METADATA}
    body = response.json()
    assert body["jsonrpc"] == "2.0" and "id" not in body and body["error"]["code"] == -32600


async def test_row2_another_scheme_is_answered_as_no_credentials(protected: Protected) -> None:
    response = await call(protected.url, "whoami", headers={"authorization": "Basic YTpi"})
    assert response.status_code == 401
    assert challenge(response) == {"scope": "mcp:tools", "resource_metadata": RESOURCE_METADATA}


@pytest.mark.parametrize("kind", ["opaque", "unknown-kid"])
async def test_row3_unknown_token_is_invalid_token(protected: Protected, kind: str) -> None:
    token = "not-a-token-we-know"
    if kind == "unknown-kid":
        claims = protected.auth.claims(RESOURCE)
        token = protected.auth.forge(claims, headers={"kid": "made-up"})
    response = await call(protected.url, "whoami", headers={"authorization": f"Bearer {token}"})
    assert response.status_code == 401
    params = challenge(response)
    assert params["error"] == "invalid_token"
    assert params["resource_metadata"] == RESOURCE_METADATA and params["scope"] == "mcp:tools"


@pytest.mark.parametrize("exp", ["past", "absent"])
async def test_row4_expired_or_exp_less_token_is_invalid_token(
    protected: Protected, exp: str
) -> None:
    value = None if exp == "absent" else int(time.time()) - 120  # beyond the 30 s leeway
    token = protected.auth.forge(protected.auth.claims(RESOURCE, exp=value))
    response = await call(protected.url, "whoami", headers={"authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert challenge(response)["error"] == "invalid_token"


async def test_row5_token_for_another_resource_is_refused_and_the_tool_never_runs(
    protected: Protected,
) -> None:
    other = protected.auth.token(OTHER, "mcp:tools notes:write")
    response = await call(
        protected.url, "write_note", {"text": "x"}, headers={"authorization": f"Bearer {other}"}
    )
    assert response.status_code == 401
    assert challenge(response)["error"] == "invalid_token"
    ours = protected.bearer("mcp:tools notes:write")
    stored = await call(protected.url, "write_note", {"text": "y"}, headers=ours)
    assert stored.status_code == 200
    assert stored.json()["result"]["content"][0]["text"] == "Stored note #1."  # not #2


@pytest.mark.parametrize("aud", ["https://MCP.EXAMPLE.TEST/mcp", RESOURCE + "/"])
async def test_row6_audience_is_compared_canonically(protected: Protected, aud: str) -> None:
    token = protected.auth.token(aud)
    response = await call(protected.url, "whoami", headers={"authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    assert response.json()["result"]["structuredContent"]["principal"] == "alice"


async def test_row7_parent_audience_is_refused_unless_opted_in(
    protected: Protected, live_server: LiveServers
) -> None:
    token = protected.auth.token("https://mcp.example.test/")
    headers = {"authorization": f"Bearer {token}"}
    refused = await call(protected.url, "whoami", headers=headers)
    assert refused.status_code == 401 and challenge(refused)["error"] == "invalid_token"
    env = {"MCP_RESOURCE": RESOURCE, "MCP_ISSUER": protected.auth.issuer}
    opted_in = live_server(load("protected_app").create_app(env, accept_parent_audience=True))
    accepted = await call(opted_in, "whoami", headers=headers)
    assert accepted.status_code == 200, accepted.text


@pytest.mark.parametrize("case", ["wrong-iss", "alg-none", "alg-not-configured"])
async def test_row8_wrong_issuer_or_algorithm_is_invalid_token(
    protected: Protected, case: str
) -> None:
    claims = protected.auth.claims(RESOURCE)
    if case == "wrong-iss":
        token = protected.auth.forge({**claims, "iss": "https://evil.example.test"})
    elif case == "alg-none":
        token = f"{_b64({'alg': 'none', 'typ': 'at+jwt', 'kid': 'rs-1'})}.{_b64(claims)}."
    else:  # ES256 with the AS's own published EC key: valid, but RS256 is pinned
        token = protected.auth.forge(claims, alg="ES256")
    response = await call(protected.url, "whoami", headers={"authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert challenge(response)["error"] == "invalid_token"


async def test_row9_missing_global_scope_is_403_naming_every_required_scope(
    authorization_server: Any, live_server: LiveServers
) -> None:
    env = {
        "MCP_RESOURCE": RESOURCE,
        "MCP_ISSUER": authorization_server.issuer,
        "MCP_REQUIRED_SCOPES": "mcp:tools notes:read",
    }
    url = live_server(load("protected_app").create_app(env))
    token = authorization_server.token(RESOURCE, "mcp:tools")
    response = await call(url, "whoami", headers={"authorization": f"Bearer {token}"})
    assert response.status_code == 403
    params = challenge(response)
    assert params["error"] == "insufficient_scope"
    assert params["scope"] == "mcp:tools notes:read"
    assert params["resource_metadata"] == RESOURCE_METADATA


async def test_row10_tool_scope_is_403_before_any_stream(protected: Protected) -> None:
    response = await call(
        protected.url, "write_note", {"text": "x"}, headers=protected.bearer(), request_id=77
    )
    assert response.status_code == 403
    assert response.headers["content-type"].startswith("application/json")
    params = challenge(response)
    assert params["error"] == "insufficient_scope"
    assert params["scope"] == "mcp:tools notes:write"
    assert response.json()["id"] == 77


async def test_row11_scope_implied_through_the_hierarchy_is_enough(protected: Protected) -> None:
    response = await call(
        protected.url, "write_note", {"text": "x"}, headers=protected.bearer("mcp:tools admin")
    )
    assert response.status_code == 200, response.text
    assert response.json()["result"]["content"][0]["text"].startswith("Stored note")


async def test_row12_query_string_token_is_ignored(protected: Protected) -> None:
    token = protected.auth.token(RESOURCE)
    response = await call(protected.url, "whoami", headers={}, query={"access_token": token})
    assert response.status_code == 401
    assert challenge(response) == {"scope": "mcp:tools", "resource_metadata": RESOURCE_METADATA}


@pytest.mark.parametrize(
    "values",
    [["Bearer {t}", "Bearer {t}"], ["Bearer"], ["Bearer {t} extra"], ["Bearer {t}, Bearer {t}"]],
    ids=["two-headers", "no-token", "two-words", "comma-joined"],
)
async def test_row13_duplicate_or_malformed_header_is_400_invalid_request(
    protected: Protected, values: list[str]
) -> None:
    token = protected.auth.token(RESOURCE)
    headers = [("authorization", value.format(t=token)) for value in values]
    response = await call(protected.url, "whoami", headers=headers)
    assert response.status_code == 400
    assert challenge(response)["error"] == "invalid_request"


@pytest.mark.parametrize(
    "path", ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
)
async def test_row14_metadata_ignores_host_and_forwarded_host(
    protected: Protected, path: str
) -> None:
    async with httpx.AsyncClient(base_url=protected.url) as client:
        plain = await client.get(path)
        spoofed = await client.get(
            path, headers={"host": "evil.example", "x-forwarded-host": "evil.example"}
        )
        preflight = await client.options(
            path, headers={"origin": "https://app.example", "access-control-request-method": "GET"}
        )
    assert plain.status_code == spoofed.status_code == 200
    assert plain.content == spoofed.content
    document = plain.json()
    assert document["resource"] == RESOURCE
    assert document["authorization_servers"] == [protected.auth.issuer]
    assert document["bearer_methods_supported"] == ["header"]
    assert "mcp:tools" in document["scopes_supported"]
    assert plain.headers["cache-control"] == "public, max-age=3600"
    assert plain.headers["access-control-allow-origin"] == "*"
    assert preflight.status_code == 204
    assert "GET" in preflight.headers["access-control-allow-methods"]
