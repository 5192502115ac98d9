"""A DPoP-protected MCP app: the one the DPoP tests serve in-process and in uvicorn processes.

`Tokens` signs access tokens (ES256, issuer `ISSUER`) optionally bound to a DPoP key
(`cnf.jkt`); `create_app(resource, policy, tokens)` serves a `pid` tool behind
`OAuthResource(dpop=policy)` verifying them (the key set in hand: no fetch), every response
naming its process in `x-pid`. As a module run by uvicorn (`dpop_app:app`), it is configured
by `DPOP_RESOURCE`, `DPOP_KEY` (the issuer's key in PEM), `REDIS_URL` and `DPOP_PREFIX` (the
proofs' replay cache: `RedisStores`), `DPOP_NONCE_KEY` (demand nonces; optional).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.auth import DPoPNonces, DPoPPolicy, JWTVerifier, OAuthResource

ISSUER: Final = "https://issuer.dpop.test"


class Tokens:
    """Access tokens of `ISSUER`, signed with `pem` (a new key when None)."""

    def __init__(self, pem: str | None = None) -> None:
        if pem is None:
            self.key = ec.generate_private_key(ec.SECP256R1())
        else:
            loaded = serialization.load_pem_private_key(pem.encode(), password=None)
            assert isinstance(loaded, ec.EllipticCurvePrivateKey)
            self.key = loaded
        public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.key.public_key()))
        self.jwk = {**public, "kid": "k1", "alg": "ES256", "use": "sig"}

    @property
    def pem(self) -> str:
        return self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()

    def verifier(self) -> JWTVerifier:
        return JWTVerifier(ISSUER, algorithms=("ES256",), jwks={"keys": [self.jwk]})

    def issue(self, resource: str, *, jkt: str | None = None, sub: str = "alice",
              scope: str = "mcp:tools") -> str:  # fmt: skip
        now = int(time.time())
        claims: dict[str, Any] = {"iss": ISSUER, "sub": sub, "aud": resource, "iat": now,
                                  "exp": now + 600, "scope": scope}  # fmt: skip
        if jkt is not None:
            claims["cnf"] = {"jkt": jkt}
        return jwt.encode(claims, self.key, algorithm="ES256", headers={"kid": "k1"})


class Pid(Tool, name="pid", description="The id of the process that answered."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=f"{os.getpid()} {channel.assigns.get('principal')}"))


class NamesProcess:
    """Adds `x-pid` (this process's id) to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.pid = str(os.getpid()).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def named(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message["headers"], (b"x-pid", self.pid)]}
            await send(message)

        await self.app(scope, receive, named)


def create_app(resource: str, policy: DPoPPolicy, tokens: Tokens, stores: Any = None) -> FastAPI:
    """The app; `stores` (a storage bundle: sessions and proofs shared) is closed with it."""
    auth = OAuthResource(resource=resource, authorization_servers=[ISSUER],
                         verifier=tokens.verifier(), required_scopes=["mcp:tools"],
                         dpop=policy)  # fmt: skip

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        if stores is not None:
            await stores.aclose()

    app = FastAPI(lifespan=lifespan)
    router = mcp_router(server_name="dpop", server_version="1", tools=[Pid], auth=auth,
                        allowed_hosts=["*"], stores=stores)  # fmt: skip
    app.include_router(router, prefix="/mcp")
    app.include_router(auth.metadata_router())
    app.add_middleware(NamesProcess)
    return app


def _from_environment() -> FastAPI | None:
    if "DPOP_RESOURCE" not in os.environ:
        return None
    from genmcp.storage.redis import RedisStores

    stores = RedisStores.from_url(os.environ["REDIS_URL"], prefix=os.environ["DPOP_PREFIX"])
    nonce_key = os.environ.get("DPOP_NONCE_KEY")
    nonces = DPoPNonces(nonce_key) if nonce_key else None
    policy = DPoPPolicy(nonces=nonces, replays=stores)
    return create_app(os.environ["DPOP_RESOURCE"], policy, Tokens(os.environ["DPOP_KEY"]), stores)


app = _from_environment()
