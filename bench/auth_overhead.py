"""Per-request cost of OAuth: a JWKS-verified ``tools/call`` vs an unprotected one, same run.

    .venv/bin/python bench/auth_overhead.py [calls]

Starts the test authorization server (oidc-provider, see tests/support), serves
examples/protected_app.py and the same tools without auth under uvicorn on loopback, and
times sequential ``tools/call whoami`` over one keep-alive connection each. Prints the
median and mean latency of both and the difference.
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
        bearer = {"authorization": f"Bearer {auth.token(RESOURCE)}"}
        with LiveServer(protected) as p_url, LiveServer(plain) as u_url:
            rounds = [(timed(u_url, {}, calls), timed(p_url, bearer, calls)) for _ in range(2)]
        unprotected = [s for r in rounds for s in r[0]]
        verified = [s for r in rounds for s in r[1]]
        for name, samples in (("unprotected", unprotected), ("JWKS-verified", verified)):
            print(
                f"{name:14} median {statistics.median(samples):7.1f} us  mean {statistics.fmean(samples):7.1f} us"
            )
        extra = statistics.median(verified) - statistics.median(unprotected)
        print(f"auth cost per request (median difference): {extra:.1f} us")
    finally:
        auth.stop()


if __name__ == "__main__":
    main()
