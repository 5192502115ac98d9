"""The GitHub preset against a stand-in for GitHub: a real HTTP server serving the endpoints
GitHub documents for OAuth apps (authorize, access_token answering JSON with a comma-separated
``scope`` and an HTTP 200 ``error`` for a bad code, ``GET /user``, ``DELETE
/applications/{client_id}/token``), with the front of examples/authorization_server.py and
the genmcp client's OAuth: sign-in, step-up to a mapped scope, the user named by GitHub id,
revocation reaching GitHub.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from genmcp.auth.front import GitHub, UpstreamError
from genmcp.client import Client
from genmcp.client.oauth import OAuth
from support.examples import load
from support.server import LiveServers

from .conftest import CALLBACK, CLIENT_REDIRECT, FRONT, FRONT_PORT, browser, front_env
from .test_front import _code, _exchange, _register

APP = {"id": "Iv1.front", "secret": "gh-secret"}
OCTOCAT = {"login": "octocat", "id": 583231, "type": "User"}
GRANTABLE = {"read:user", "public_repo"}


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def fake_github(seen: dict[str, list[Any]]) -> FastAPI:
    """GitHub's documented OAuth-app endpoints; the user approves at once."""
    app = FastAPI()
    codes: dict[str, dict[str, str]] = {}
    tokens: dict[str, str] = {}

    @app.get("/login/oauth/authorize")
    async def authorize(request: Request) -> Response:
        query = request.query_params
        assert query["client_id"] == APP["id"] and query["redirect_uri"] == CALLBACK
        assert query["code_challenge_method"] == "S256" and "nonce" not in query
        seen["scopes"].append(query["scope"])
        code = secrets.token_hex(10)
        codes[code] = dict(query)
        return RedirectResponse(f"{CALLBACK}?code={code}&state={query['state']}", 302)

    @app.post("/login/oauth/access_token")
    async def access_token(request: Request) -> Response:
        form = await request.form()
        asked = codes.pop(str(form.get("code")), None)
        if (asked is None or form.get("client_secret") != APP["secret"]
                or _s256(str(form.get("code_verifier"))) != asked["code_challenge"]):
            return JSONResponse({"error": "bad_verification_code",
                                 "error_description": "The code passed is incorrect or expired."})
        assert request.headers["accept"] == "application/json"
        token = "gho_" + secrets.token_hex(18)
        tokens[token] = "octocat"
        granted = [s for s in asked["scope"].split() if s in GRANTABLE]
        return JSONResponse({"access_token": token, "token_type": "bearer",
                             "scope": ",".join(granted)})  # fmt: skip

    @app.get("/api/user")
    async def user(request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() not in ("bearer", "token") or token not in tokens:
            return JSONResponse({"message": "Bad credentials"}, 401)
        return JSONResponse(OCTOCAT)

    @app.delete("/api/applications/{client_id}/token")
    async def delete_token(client_id: str, request: Request) -> Response:
        basic = base64.b64encode(f"{APP['id']}:{APP['secret']}".encode()).decode()
        if client_id != APP["id"] or request.headers.get("authorization") != f"Basic {basic}":
            return JSONResponse({"message": "Not Found"}, 404)
        token = (await request.json())["access_token"]
        seen["deleted"].append(tokens.pop(token, None))
        return Response(status_code=204)

    return app


@pytest.fixture
def github(live_server: LiveServers) -> tuple[GitHub, dict[str, list[Any]]]:
    seen: dict[str, list[Any]] = {"scopes": [], "deleted": []}
    base = live_server(fake_github(seen))
    return GitHub(APP["id"], APP["secret"], web=base, api=f"{base}/api"), seen


async def test_a_github_user_signs_in_steps_up_and_logs_out(
    github: tuple[GitHub, dict[str, list[Any]]], live_server: LiveServers
) -> None:
    upstream, seen = github
    app = load("authorization_server").create_app(
        front_env("https://github.com"), upstream=upstream,
        scope_map={"mcp:tools": [], "notes:write": ["public_repo"]},
    )  # fmt: skip
    live_server(app, port=FRONT_PORT)
    auth = OAuth(authorize=browser, redirect_uri=CLIENT_REDIRECT)
    async with Client(f"{FRONT}/mcp", auth=auth) as client:
        who = await client.call_tool("whoami", {})
        wrote = await client.call_tool("write_note", {"text": "from GitHub"})
    assert who["structuredContent"]["principal"] == "583231"  # the id, not the login
    assert wrote["content"][0]["text"] == "Stored note #1."
    assert seen["scopes"] == ["read:user", "read:user public_repo"]
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        tokens = (await http.post(f"{FRONT}/token",
                                  data=_exchange(client_id, await _code(client_id)))).json()
        revoke = {"token": tokens["refresh_token"], "client_id": client_id}
        assert (await http.post(f"{FRONT}/revoke", data=revoke)).status_code == 200
    assert seen["deleted"] == ["octocat"]  # the GitHub token is gone at GitHub too


async def test_github_refusals_are_clear(github: tuple[GitHub, dict[str, list[Any]]]) -> None:
    upstream, _ = github
    assert upstream._metadata is not None  # nothing to discover: GitHub has no metadata
    with pytest.raises(UpstreamError, match="bad_verification_code"):  # an HTTP 200 error
        await upstream.exchange(code="stale", redirect_uri=CALLBACK, verifier="v" * 43)
    with pytest.raises(UpstreamError, match="401, no user id"):
        await upstream.subject({"access_token": "gho_forged"})
    assert await upstream.revoke({"access_token": "gho_unknown"}) == 1  # 204 for any token
    assert await upstream.revoke({}) == 0
