"""client.assertions against a real authorization server (oidc-provider) and
examples/protected_app.py on uvicorn.

`PrivateKeyJWT`: clients registered at the AS with only their public key (ES256, RS256),
the client credentials grant, then a call that needs a step-up (a second assertion: each
token request signs a new one, the AS refuses a replayed `jti`); a key the AS does not know
is refused. With DPoP too: the production setup (no secret anywhere, a bound token).
`JWTBearer` and `IdentityAssertion`: a server that refuses the grant, or an identity
provider that refuses the exchange, is one clear `ClientError`, no retry. Their successful
flows are the suite's `auth/wif-jwt-bearer` and `auth/enterprise-managed-authorization`
client scenarios (`make conformance-client`).
"""

from __future__ import annotations

import jwt
import pytest

from genmcp.client import (
    Client,
    ClientError,
    DPoP,
    IdentityAssertion,
    JWTBearer,
    OAuth,
    PrivateKeyJWT,
    SigningKey,
)
from support.authorization_server import AuthorizationServer
from support.dpop_gate import DPoPGate
from support.examples import load
from support.ports import listening
from support.server import LiveServers
from tests.client.conftest import KEYS


@pytest.fixture
def mcp(authorization_server: AuthorizationServer, live_server: LiveServers) -> str:
    held = listening(0)  # held until the server serves it
    port = held.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    env = {"MCP_RESOURCE": url, "MCP_ISSUER": authorization_server.issuer}
    app = load("protected_app").create_app(env)
    live_server(DPoPGate(app, url), sock=held)  # bearer tokens pass; DPoP ones are checked
    return url


@pytest.mark.parametrize("alg", sorted(KEYS))
async def test_private_key_jwt_client_credentials_and_step_up(mcp: str, alg: str) -> None:
    client_id = f"svc-{alg.lower()}"
    auth = OAuth(client_id=client_id, client_key=PrivateKeyJWT(KEYS[alg].key, kid=f"{client_id}-1"),
                 grant="client_credentials")  # fmt: skip
    async with Client(mcp, auth=auth) as client:
        who = await client.call_tool("whoami", {})
        wrote = await client.call_tool("write_note", {"text": "signed, not shared"})

    assert who["structuredContent"]["client_id"] == client_id
    assert wrote["content"][0]["text"] == "Stored note #1."


async def test_private_key_jwt_with_a_dpop_bound_token(mcp: str) -> None:
    dpop = DPoP()
    auth = OAuth(client_id="svc-es256", client_key=PrivateKeyJWT(KEYS["ES256"]),
                 grant="client_credentials", dpop=dpop)  # fmt: skip
    async with Client(mcp, auth=auth) as client:
        who = await client.call_tool("whoami", {})
    assert who["structuredContent"]["client_id"] == "svc-es256"
    assert auth.token_type == "dpop" and auth.access_token is not None
    claims = jwt.decode(auth.access_token, options={"verify_signature": False})
    assert claims["cnf"]["jkt"] == dpop.thumbprint and claims["client_id"] == "svc-es256"


async def test_a_key_the_server_does_not_know_is_refused(mcp: str) -> None:
    stranger = PrivateKeyJWT(SigningKey.generate("ES256"))
    auth = OAuth(client_id="svc-es256", client_key=stranger, grant="client_credentials")
    async with Client(mcp, auth=auth) as client:
        with pytest.raises(ClientError, match=r"the token endpoint refused .*invalid_client"):
            await client.list_tools()
    with pytest.raises(ValueError, match="client_key needs client_id"):
        OAuth(client_key=stranger, grant="client_credentials")


def test_the_assertion_names_the_client_and_the_issuer() -> None:
    key = KEYS["RS256"]
    signer = PrivateKeyJWT(key, kid="k1", lifetime_s=30)
    one, two = (signer.assertion("svc", "https://as.example") for _ in range(2))
    public = key.key.public_key()
    claims = jwt.decode(one, public, algorithms=["RS256"], audience="https://as.example")
    assert claims["iss"] == claims["sub"] == "svc" and claims["exp"] - claims["iat"] == 30
    assert jwt.get_unverified_header(one) == {"alg": "RS256", "typ": "JWT", "kid": "k1"}
    assert claims["jti"] != jwt.decode(two, public, algorithms=["RS256"],
                                       audience="https://as.example")["jti"]  # fmt: skip


async def test_a_refused_jwt_bearer_grant_is_one_clear_error(mcp: str) -> None:
    reads: list[int] = []

    def workload_token() -> str:  # a projected token file, read at each authorization
        reads.append(1)
        return "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ3b3JrbG9hZCJ9."

    auth = OAuth(client_id="svc-es256", grant=JWTBearer(workload_token))
    async with Client(mcp, auth=auth) as client:
        with pytest.raises(ClientError, match="the token endpoint refused"):
            await client.list_tools()
    assert reads == [1]  # not retried, and no other grant tried


async def test_an_identity_provider_that_refuses_the_exchange(
    mcp: str, authorization_server: AuthorizationServer
) -> None:
    idp = authorization_server.issuer + "/token"  # it does no token exchange
    grant = IdentityAssertion(
        id_token=lambda: "x", idp_client_id="svc-es256", idp_token_endpoint=idp
    )
    auth = OAuth(client_id="svc-es256", client_secret="s", grant=grant)
    async with Client(mcp, auth=auth) as client:
        with pytest.raises(ClientError, match="the identity provider refused the token exchange"):
            await client.list_tools()
