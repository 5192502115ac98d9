"""The token endpoint and revocation through the front on uvicorn: codes used once (a replay
revokes what they gave), refresh tokens rotated (a replay is refused, no wider scope),
access tokens accepted by the protected MCP router, RFC 7009 revocation of a whole grant.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from genmcp.client import Client, ClientError
from support.authorization_server import AuthorizationServer

from .conftest import FRONT, MCP, UPSTREAM_CLIENT
from .test_front import Bearer, _code, _exchange, _register, served

__all__ = ["served"]  # the fixture, shared with test_front


async def test_tokens_refresh_rotate_and_replays_are_refused(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        code = await _code(client_id)
        first = await http.post(f"{FRONT}/token", data=_exchange(client_id, code))
        assert first.status_code == 200, first.text
        tokens = first.json()
        assert tokens["token_type"] == "Bearer" and tokens["scope"] == "mcp:tools"
        assert first.headers["cache-control"] == "no-store"
        replay = await http.post(f"{FRONT}/token", data=_exchange(client_id, code))
        assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
        # the replay revoked the family: the refresh token of the first exchange is dead
        dead = await http.post(f"{FRONT}/token", data={"grant_type": "refresh_token",
                               "refresh_token": tokens["refresh_token"], "client_id": client_id})
        assert dead.status_code == 400 and dead.json()["error"] == "invalid_grant"

        code = await _code(client_id)
        tokens = (await http.post(f"{FRONT}/token", data=_exchange(client_id, code))).json()
        refresh = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
                   "client_id": client_id, "resource": MCP}  # fmt: skip
        renewed = await http.post(f"{FRONT}/token", data=refresh)
        assert renewed.status_code == 200, renewed.text
        fresh = renewed.json()
        assert fresh["refresh_token"] != tokens["refresh_token"]  # rotated
        again = await http.post(f"{FRONT}/token", data=refresh)
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
        wider = {**refresh, "refresh_token": fresh["refresh_token"], "scope": "notes:write"}
        assert (await http.post(f"{FRONT}/token", data=wider)).json()["error"] == "invalid_grant"

        code = await _code(client_id)
        tokens = (await http.post(f"{FRONT}/token", data=_exchange(client_id, code))).json()
    async with Client(MCP, auth=Bearer(tokens["access_token"])) as client:
        listed = await client.list_tools()
    assert [tool["name"] for tool in listed] == ["whoami"]  # write_note needs notes:write
    async with Client(MCP, auth=Bearer(tokens["access_token"][:-4] + "AAAA")) as client:
        with pytest.raises(ClientError):
            await client.list_tools()


async def test_revocation_ends_the_grant_and_its_access_tokens(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        document = (await http.get(f"{FRONT}/.well-known/oauth-authorization-server")).json()
        assert document["revocation_endpoint"] == f"{FRONT}/revoke"
        client_id = (await _register(http))["client_id"]
        other_id = (await _register(http))["client_id"]
        code = await _code(client_id)
        tokens = (await http.post(f"{FRONT}/token", data=_exchange(client_id, code))).json()
        async with Client(MCP, auth=Bearer(tokens["access_token"])) as client:
            assert len(await client.list_tools()) == 1
        # another client cannot revoke it (RFC 7009 §2.1); unknown tokens answer 200 too
        for who, token in ((other_id, tokens["access_token"]), (client_id, "unknown")):
            answer = await http.post(f"{FRONT}/revoke", data={"token": token, "client_id": who})
            assert answer.status_code == 200
        async with Client(MCP, auth=Bearer(tokens["access_token"])) as client:
            assert len(await client.list_tools()) == 1
        nobody = await http.post(f"{FRONT}/revoke", data={"token": "x", "client_id": "nobody"})
        assert nobody.status_code == 401 and nobody.json()["error"] == "invalid_client"

        revoke = {"token": tokens["refresh_token"], "client_id": client_id}
        assert (await http.post(f"{FRONT}/revoke", data=revoke)).status_code == 200
        async with Client(MCP, auth=Bearer(tokens["access_token"])) as client:
            with pytest.raises(ClientError):
                await client.list_tools()
        refresh = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
                   "client_id": client_id}  # fmt: skip
        dead = await http.post(f"{FRONT}/token", data=refresh)
        assert dead.status_code == 400 and dead.json()["error"] == "invalid_grant"

        code = await _code(client_id)
        tokens = (await http.post(f"{FRONT}/token", data=_exchange(client_id, code))).json()
        by_access = {"token": tokens["access_token"], "client_id": client_id,
                     "token_type_hint": "access_token"}  # fmt: skip
        assert (await http.post(f"{FRONT}/revoke", data=by_access)).status_code == 200
        refresh["refresh_token"] = tokens["refresh_token"]
        assert (await http.post(f"{FRONT}/token", data=refresh)).status_code == 400


async def test_revocation_is_the_logout_the_upstream_tokens_are_revoked_too(
    served: Any, upstream: AuthorizationServer
) -> None:
    app, _ = served
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        code = await _code(client_id)
        tokens = (await http.post(f"{FRONT}/token", data=_exchange(client_id, code))).json()
        grant = await app.state.front.grants.refresh_grant(tokens["refresh_token"])
        behind = app.state.front.grants.upstream_tokens(grant)  # the upstream's, kept here
        discovery = (await http.get(f"{upstream.issuer}/.well-known/openid-configuration")).json()
        auth = (UPSTREAM_CLIENT["id"], UPSTREAM_CLIENT["secret"])

        async def active() -> bool:
            answer = await http.post(discovery["introspection_endpoint"], auth=auth,
                                     data={"token": behind["access_token"]})  # fmt: skip
            return bool(answer.json()["active"])

        assert await active()
        revoke = {"token": tokens["access_token"], "client_id": client_id}
        assert (await http.post(f"{FRONT}/revoke", data=revoke)).status_code == 200
        assert not await active()  # revoked at the upstream too
        assert (await http.post(f"{FRONT}/revoke", data=revoke)).status_code == 200  # again: 200
