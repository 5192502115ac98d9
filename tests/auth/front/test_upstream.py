"""Upstream against a real provider (oidc-provider): discovery on first use, the
authorization URL, refusals that say why."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from genmcp.auth.front.upstream import Upstream, UpstreamError
from support.authorization_server import AuthorizationServer
from support.server import LiveServers

from .conftest import CALLBACK, UPSTREAM_CLIENT


async def test_metadata_is_discovered_on_first_use(upstream: AuthorizationServer) -> None:
    provider = Upstream(upstream.issuer, UPSTREAM_CLIENT["id"], UPSTREAM_CLIENT["secret"])
    assert provider._metadata is None
    url = httpx.URL(await provider.authorization_url(state="s", redirect_uri=CALLBACK,
                                                     challenge="c" * 43))  # fmt: skip
    assert str(url).startswith(upstream.issuer)
    assert url.params["code_challenge_method"] == "S256" and url.params["scope"] == "openid"
    assert (await provider.metadata())["issuer"] == upstream.issuer


async def test_a_bad_code_and_an_unreachable_provider_are_clear(
    upstream: AuthorizationServer,
) -> None:
    provider = Upstream(upstream.issuer, UPSTREAM_CLIENT["id"], UPSTREAM_CLIENT["secret"])
    with pytest.raises(UpstreamError, match="refused the code"):
        await provider.exchange(code="forged", redirect_uri=CALLBACK, verifier="v" * 43)
    with pytest.raises(UpstreamError, match="no ID token"):  # OpenID: the ID token names the user
        await provider.subject({"access_token": "forged"}, nonce="n")
    plain = Upstream(upstream.issuer, UPSTREAM_CLIENT["id"], UPSTREAM_CLIENT["secret"], scopes=())
    with pytest.raises(UpstreamError, match="no sub"):  # plain OAuth: userinfo does
        await plain.subject({"access_token": "forged"})
    gone = Upstream("http://127.0.0.1:9", "c", "s", timeout_s=1)
    with pytest.raises(UpstreamError, match="no usable authorization server metadata"):
        await gone.metadata()
    lying = Upstream(upstream.issuer + "/other", "c", "s")
    with pytest.raises(UpstreamError):
        await lying.metadata()


@pytest.mark.parametrize("place", [
    "/.well-known/oauth-authorization-server/tenant",
    "/.well-known/openid-configuration/tenant",  # RFC 8414 §5's form of OpenID discovery
    "/tenant/.well-known/openid-configuration",  # OpenID Connect Discovery's own
])  # fmt: skip
async def test_an_issuer_with_a_path_is_discovered_at_each_place(
    live_server: LiveServers, place: str
) -> None:
    provider = FastAPI()
    base: list[str] = []

    @provider.get(place)
    async def metadata() -> dict[str, str]:
        issuer = f"{base[0]}/tenant"
        return {"issuer": issuer, "authorization_endpoint": f"{issuer}/authorize",
                "token_endpoint": f"{issuer}/token"}  # fmt: skip

    base.append(live_server(provider))
    found = await Upstream(f"{base[0]}/tenant", "c", "s").metadata()
    assert found["token_endpoint"] == f"{base[0]}/tenant/token"
