"""DPoPGate: ASGI middleware that makes the app behind it a DPoP resource server (RFC 9449 §7).

genmcp's resource side takes bearer tokens; the gate, in front of it, does what a DPoP
resource server does with `Authorization: DPoP <token>`: checks the proof (`typ`, the
signature by its embedded `jwk`, `htm`, `htu` without query, `iat`, `ath` = the token's
hash, `cnf.jkt` of the token = the proof key's thumbprint), refuses a proof seen before
(`jti` replay), and when `nonces` is given demands the nonce it hands out (401
`use_dpop_nonce` with `DPoP-Nonce`), a new one after every `rotate_every` accepted requests.
A good request goes on as `Bearer <token>`; a bound token shown as `Bearer` is refused.
Verification is PyJWT's, thumbprints computed here: nothing of genmcp.client is used.

`proofs` keeps every proof's claims, `refusals` every refusal's reason.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import time
from typing import Any

import jwt
from starlette.types import ASGIApp, Receive, Scope, Send


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638, written out independently of the client's."""
    names = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n"), "OKP": ("crv", "kty", "x")}
    members = {name: jwk[name] for name in names[jwk["kty"]]}
    digest = hashlib.sha256(json.dumps(members, separators=(",", ":"), sort_keys=True).encode())
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


class DPoPGate:
    def __init__(
        self, app: ASGIApp, resource: str, *, nonces: bool = False, rotate_every: int = 0,
        always_new_nonce: bool = False,
    ) -> None:  # fmt: skip
        self.app, self.resource = app, resource
        self.nonces, self.rotate_every, self.always_new_nonce = (
            nonces,
            rotate_every,
            always_new_nonce,
        )
        self._counter = itertools.count(1)
        self.nonce = f"rs-nonce-{next(self._counter)}"
        self.accepted = 0
        self.proofs: list[dict[str, Any]] = []
        self.refusals: list[str] = []
        self._seen: set[str] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/mcp":
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and _bound(token):
            await self._refuse(send, "invalid_token", "a DPoP-bound token shown as Bearer")
            return
        if scheme.lower() != "dpop":
            await self.app(scope, receive, send)  # no token: the app's 401 and its metadata
            return
        problem = self._check(scope["method"], headers.get("dpop", ""), token)
        if problem is not None:
            await self._refuse(send, *problem)
            return
        self.accepted += 1
        if self.rotate_every and self.accepted % self.rotate_every == 0:
            self.nonce = f"rs-nonce-{next(self._counter)}"  # the next proof needs the new one
        rest = [(k, v) for k, v in scope["headers"] if k.lower() not in (b"authorization", b"dpop")]
        scope = {**scope, "headers": [*rest, (b"authorization", f"Bearer {token}".encode())]}
        await self.app(scope, receive, send)

    def _check(self, method: str, proof: str, token: str) -> tuple[str, str] | None:
        try:
            header = jwt.get_unverified_header(proof)
            key = jwt.PyJWK(header["jwk"], header["alg"])
            claims = jwt.decode(proof, key, algorithms=[header["alg"]])
        except (jwt.PyJWTError, KeyError, ValueError) as exc:
            return "invalid_dpop_proof", f"proof does not verify: {exc}"
        self.proofs.append(claims)
        ath = base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=")
        cnf = (jwt.decode(token, options={"verify_signature": False}).get("cnf") or {}).get("jkt")
        problem = None
        if header.get("typ") != "dpop+jwt" or "d" in header["jwk"]:
            problem = "typ is not dpop+jwt, or the jwk is private"
        elif claims.get("htm") != method or claims.get("htu") != self.resource:
            problem = f"htm/htu {claims.get('htm')} {claims.get('htu')} for {method}"
        elif abs(time.time() - claims.get("iat", 0)) > 60:
            problem = "iat out of window"
        elif claims.get("ath") != ath.decode():
            problem = "ath is not the token's hash"
        elif cnf != thumbprint(header["jwk"]):
            problem = "the proof key is not the one the token is bound to"
        elif claims.get("jti") in self._seen:
            problem = "replayed proof (jti seen before)"
        if problem is not None:
            return "invalid_dpop_proof", problem
        self._seen.add(claims["jti"])
        if self.nonces and (self.always_new_nonce or claims.get("nonce") != self.nonce):
            if self.always_new_nonce:
                self.nonce = f"rs-nonce-{next(self._counter)}"
            return "use_dpop_nonce", "a nonce is required"
        return None

    async def _refuse(self, send: Send, error: str, reason: str) -> None:
        self.refusals.append(f"{error}: {reason}")
        headers = [(b"www-authenticate", f'DPoP error="{error}", algs="ES256"'.encode()),
                   (b"content-type", b"application/json")]  # fmt: skip
        if error == "use_dpop_nonce":
            headers.append((b"dpop-nonce", self.nonce.encode()))
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": json.dumps({"error": error}).encode()})


def _bound(token: str) -> bool:
    try:
        return "cnf" in jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return False
