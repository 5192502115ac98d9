"""Per-request cost of OAuth: a JWKS-verified ``tools/call`` vs an unprotected one, same run.

    .venv/bin/python bench/auth_overhead.py [calls]

Starts the test authorization server (oidc-provider, see tests/support), serves under
uvicorn on loopback: the same ``whoami`` tool without auth, ``examples/protected_app.py``
(``OAuthResource`` checked inside the raw MCP endpoint), and the same resource as a FastAPI
dependency of an API route (the path ``OAuthResource`` took before ``asgi_check``, still the
one for ``dependencies=`` or wrapped auth: a ``DependencyAuth``). Times sequential ``tools/call whoami`` over one
keep-alive connection each, servers interleaved, two rounds. Prints median and mean latency
of each and the differences.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import httpx
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from genmcp import mcp_router
from genmcp.auth import DependencyAuth, JWTVerifier, OAuthResource
from support.authorization_server import AuthorizationServer, authorization_problem
from support.examples import load
from support.oauth import RESOURCE, VERSION, call_message
from support.server import LiveServer


def timed(url: str, headers: dict[str, str], calls: int) -> list[float]:
    base = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": "tools/call",
        "mcp-name": "whoami",
        **headers,
    }
    body = call_message("whoami", {}, 1)
    samples = []
    with httpx.Client(timeout=10) as client:
        for index in range(calls + 50):
            start = time.perf_counter()
            response = client.post(url + "/mcp", json=body, headers=base)
            elapsed = time.perf_counter() - start
            assert response.status_code == 200, response.text
            if index >= 50:  # warm-up: JWKS fetch, connection
                samples.append(elapsed * 1e6)
    return samples


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    problem = authorization_problem()
    if problem:
        sys.exit(problem)
    auth = AuthorizationServer()
    try:
        example = load("protected_app")
        protected = example.create_app({"MCP_RESOURCE": RESOURCE, "MCP_ISSUER": auth.issuer})
        plain = FastAPI()
        plain.include_router(
            mcp_router(server_name="plain", server_version="1", tools=[example.WhoAmI]),
            prefix="/mcp",
        )
        routed = FastAPI()
        resource = OAuthResource(
            resource=RESOURCE,
            authorization_servers=[auth.issuer],
            verifier=JWTVerifier(auth.issuer),
            required_scopes=["mcp:tools"],
        )

        # no request check: an API route runs the resource as its dependency
        as_dependency = DependencyAuth(resource, resource.message_check)
        routed.include_router(
            mcp_router(
                server_name="routed",
                server_version="1",
                tools=[example.WhoAmI],
                auth=as_dependency,
            ),
            prefix="/mcp",
        )
        bearer = {"authorization": f"Bearer {auth.token(RESOURCE)}"}
        with (
            LiveServer(protected) as p_url,
            LiveServer(plain) as u_url,
            LiveServer(routed) as r_url,
        ):
            rounds = [
                (timed(u_url, {}, calls), timed(p_url, bearer, calls), timed(r_url, bearer, calls))
                for _ in range(2)
            ]
        results = {
            "unprotected": [s for r in rounds for s in r[0]],
            "JWKS, endpoint": [s for r in rounds for s in r[1]],
            "JWKS, API route": [s for r in rounds for s in r[2]],
        }
        for name, samples in results.items():
            print(
                f"{name:16} median {statistics.median(samples):7.1f} us"
                f"  mean {statistics.fmean(samples):7.1f} us"
            )
        base = statistics.median(results["unprotected"])
        for name in ("JWKS, endpoint", "JWKS, API route"):
            extra = statistics.median(results[name]) - base
            print(f"auth cost per request, {name} (median difference): {extra:.1f} us")
    finally:
        auth.stop()


if __name__ == "__main__":
    main()
