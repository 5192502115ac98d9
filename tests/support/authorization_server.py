"""A real authorization server for the auth tests: `oidc-provider` (npm) under node.

Owns: installing `oidc-provider` into `.cache/oidc-provider` (gitignored) from the npm
registry on first use, generating the AS's signing keys (one RS256 key it signs with, one
ES256 key it only publishes), starting `tests/support/oidc_as.mjs` on a free loopback port
(held from the pick: its listening socket handed down, never free for another server meanwhile)
and stopping it (by its pid), and getting real access tokens from it with the
client-credentials grant for a resource indicator (RFC 8707). `PUBLIC_CLIENT` uses the
authorization code grant with PKCE; `oidc_as.mjs` approves its login and consent at once, so
`authorize(url)` follows the browser's redirects to the code.

`forge(claims, ...)` signs tokens the AS would never issue (no `exp`, another `iss`, an
algorithm the resource does not accept) with the AS's own keys, so only the one property
under test is wrong.

`authorization_problem()` says why no AS can run here (no node or npm, install failed);
callers skip on it, or fail when `CI` is set.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Final

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from support.cachelock import installing
from support.ports import handing, listening

ROOT: Final = Path(__file__).resolve().parents[2]
SCRIPT: Final = Path(__file__).with_name("oidc_as.mjs")
CACHE: Final = Path(os.environ.get("GENMCP_OIDC_CACHE", ROOT / ".cache" / "oidc-provider"))
OIDC_PROVIDER: Final = "oidc-provider@9.13.3"
SCOPES: Final = ("mcp:tools", "notes:write", "notes:read", "admin")
CLIENTS: Final = {"alice": "alice-secret", "bob": "bob-secret", "resource-server": "rs-secret"}
PUBLIC_CLIENT: Final = "pkce-app"
"""A public client (no secret) for authorization code + PKCE; logs in as `alice` at once."""
REDIRECT_URI: Final = "http://127.0.0.1:9/callback"
"""Its redirect URI: never contacted, the tests read the code off the redirect."""


def _node() -> str | None:
    """A node >= 20 (the system one, else the Node 22 `make conformance` installs)."""
    bundled = sorted(ROOT.glob(".cache/conformance/node_modules/node-linux-*/bin/node"))
    for candidate in [shutil.which("node"), *map(str, bundled)]:
        if candidate is None:
            continue
        try:
            version = subprocess.run(
                [candidate, "--version"], capture_output=True, text=True, timeout=10
            ).stdout
        except OSError:
            continue
        if version.startswith("v") and int(version[1:].split(".")[0]) >= 20:
            return candidate
    return None


@functools.cache
def authorization_problem() -> str | None:
    """Why the AS cannot run here, or None (installs oidc-provider when needed)."""
    if _node() is None:
        return "no node >= 20 on PATH (the auth tests run oidc-provider under node)"
    with installing(CACHE):  # one installer at a time: xdist workers reach this together
        if _installed():
            return None
        npm = shutil.which("npm")
        if npm is None:
            return "npm is not on PATH (needed once to install oidc-provider)"
        return _install(npm)


def _installed() -> bool:
    return (CACHE / "node_modules" / "oidc-provider" / "package.json").is_file()


def _install(npm: str) -> str | None:
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / "package.json").write_text('{"name": "genmcp-test-as", "private": true}\n')
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(CACHE), OIDC_PROVIDER],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        return f"npm install {OIDC_PROVIDER} failed: {done.stderr[-500:]}"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class AuthorizationServer:
    """One running oidc-provider; `issuer`, `token(...)`, `forge(...)`, `stop()`."""

    def __init__(
        self,
        *,
        opaque: tuple[str, ...] = (),
        ttl_s: int = 300,
        clients: tuple[dict[str, Any], ...] = (),
        dpop_nonces: bool = False,
    ) -> None:
        """`clients`: more oidc-provider client records (e.g. a confidential code client);
        `dpop_nonces`: DPoP proofs at the AS must carry its nonce (RFC 9449 §8)."""
        self.rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec_key = ec.generate_private_key(ec.SECP256R1())
        rsa_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.rsa_key))
        ec_jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.ec_key))
        keys = [{**rsa_jwk, "kid": "rs-1", "alg": "RS256", "use": "sig"}]
        keys.append({**ec_jwk, "kid": "ec-1", "alg": "ES256", "use": "sig"})
        held = listening(0)  # held from the pick until node listens on it (handed down)
        self.port: int = held.getsockname()[1]
        self.issuer = f"http://127.0.0.1:{self.port}"
        config = {
            "issuer": self.issuer,
            "keys": keys,
            "scopes": list(SCOPES),
            "ttl": ttl_s,
            "opaque": list(opaque),
            "dpopNonceSecret": os.urandom(32).hex() if dpop_nonces else None,
            "clients": [
                {
                    "client_id": client,
                    "client_secret": secret,
                    "grant_types": ["client_credentials"],
                    "redirect_uris": [],
                    "response_types": [],
                }
                for client, secret in CLIENTS.items()
            ]
            + [
                {
                    "client_id": PUBLIC_CLIENT,
                    "token_endpoint_auth_method": "none",
                    "grant_types": ["authorization_code"],
                    "redirect_uris": [REDIRECT_URI],
                    "response_types": ["code"],
                }
            ]
            + list(clients),
        }
        node = _node()
        assert node is not None
        with handing(held, self.port) as fd:
            env = {
                **os.environ,
                "AS_CONFIG": json.dumps({**config, "fd": fd}),
                "AS_MODULES": str(CACHE / "node_modules"),
            }
            self.process = subprocess.Popen(
                [node, str(SCRIPT)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                pass_fds=[fd],
            )
        self._wait_ready()

    def _wait_ready(self) -> None:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # "ready <port>", or EOF when node failed
        if not line.startswith("ready"):
            self.stop()
            assert self.process.stderr is not None
            raise RuntimeError(f"oidc-provider did not start: {self.process.stderr.read()[-800:]}")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                httpx.get(self.issuer + "/jwks", timeout=1).raise_for_status()
                return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError("oidc-provider does not answer")

    def token_response(
        self, resource: str | None, scope: str = "mcp:tools", client: str = "alice"
    ) -> httpx.Response:
        data = {"grant_type": "client_credentials", "scope": scope}
        if resource is not None:
            data["resource"] = resource
        return httpx.post(
            self.issuer + "/token", data=data, auth=(client, CLIENTS[client]), timeout=10
        )

    def token(self, resource: str, scope: str = "mcp:tools", client: str = "alice") -> str:
        """A real access token for `resource` with `scope`, issued to `client`."""
        response = self.token_response(resource, scope, client)
        response.raise_for_status()
        token: str = response.json()["access_token"]
        return token

    async def authorize(self, url: str) -> dict[str, str]:
        """Play the browser: follow `url` (an authorization request) to the redirect URI.

        Returns the query of the final redirect (`code`, `state`, `iss`, or `error`).
        """
        async with httpx.AsyncClient(timeout=10) as browser:  # keeps the interaction cookies
            for _ in range(10):
                response = await browser.get(url)
                if response.status_code not in (302, 303):
                    raise RuntimeError(f"authorization stopped at {response.status_code}")
                url = str(response.url.join(response.headers["location"]))
                if url.startswith(REDIRECT_URI):
                    return dict(httpx.URL(url).params)
        raise RuntimeError("too many redirects in the authorization request")

    def forge(
        self, claims: dict[str, Any], *, alg: str = "RS256", headers: dict[str, Any] | None = None
    ) -> str:
        """A token signed with the AS's own key for `alg` (RS256: rs-1, ES256: ec-1)."""
        key: Any = self.rsa_key if alg == "RS256" else self.ec_key
        kid = "rs-1" if alg == "RS256" else "ec-1"
        return jwt.encode(claims, key, algorithm=alg, headers={"kid": kid, **(headers or {})})

    def claims(self, resource: str, scope: str = "mcp:tools", **overrides: Any) -> dict[str, Any]:
        """Claims like the AS issues, for `forge` (`None` values drop the claim)."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": "alice",
            "client_id": "alice",
            "aud": resource,
            "scope": scope,
            "iat": now,
            "exp": now + 300,
            "jti": f"forged-{now}",
        }
        claims.update(overrides)
        return {k: v for k, v in claims.items() if v is not None}

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
