"""The fuzz harness as a test: `FUZZ_COUNT` hostile requests against a live everything server.

CI runs the short form in `make test-long` (`FUZZ_COUNT` default 600, alone on the cores:
`exclusive`; KNOWN bugs left out); `make fuzz` runs the long form (10,000; `make fuzz
FUZZ_KNOWN=1` adds the KNOWN generators). Knobs:
`FUZZ_SEED` (replay a run; printed by every run), `FUZZ_CASES=3,17` (replay some cases of
that seed), `FUZZ_CONCURRENCY`, `FUZZ_KNOWN=1` (also run the KNOWN generators),
`FUZZ_STRICT=1` (their failures fail too), `FUZZ_VERBOSE=1` (print every exchange, for
replays).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from typing import Any, Final

import pytest
from fastapi import FastAPI

from fuzz import auth, hostile_app
from fuzz.known import known_categories
from fuzz.runner import AUTH_ONLY, GENERATORS, Report, run
from fuzz.scenarios import HOSTILE_PATH
from support import schema
from support.examples import load
from support.server import LiveServers

COUNT = int(os.environ.get("FUZZ_COUNT", "600"))
SEED = os.environ.get("FUZZ_SEED") or secrets.token_hex(4)
CASES = (
    {int(i) for i in os.environ["FUZZ_CASES"].split(",")} if os.environ.get("FUZZ_CASES") else None
)
CONCURRENCY = int(os.environ.get("FUZZ_CONCURRENCY", "8"))
WITH_KNOWN = os.environ.get("FUZZ_KNOWN") == "1"
STRICT = os.environ.get("FUZZ_STRICT") == "1"
VERBOSE = os.environ.get("FUZZ_VERBOSE") == "1"


def live_workers(router: object) -> int:
    """The Suite's count of running workers (black-box enough to survive a rewrite)."""
    suite = getattr(router, "suite", None)
    return int(suite.live_workers)


async def idle(router: object, seconds: float = 5.0) -> int:
    """Wait up to `seconds` for the router's workers to end; return how many are left."""
    deadline = time.monotonic() + seconds
    while live_workers(router) and time.monotonic() < deadline:  # noqa: ASYNC110 (the Suite offers no event to wait on)
        await asyncio.sleep(0.05)
    return live_workers(router)


@pytest.mark.long
@pytest.mark.timeout(max(120, COUNT // 10))
@pytest.mark.exclusive  # less noise; the stall judgement is a ratio, load stretches both sides
async def test_fuzz_everything_server(live_server: LiveServers) -> None:
    schema.require_schema()
    everything = load("everything_server")
    hostile = hostile_app.build_router()
    app = FastAPI()
    app.include_router(everything.router, prefix="/mcp")
    app.include_router(hostile, prefix=HOSTILE_PATH)
    base_url = live_server(app)
    categories = set(GENERATORS) - AUTH_ONLY - (set() if WITH_KNOWN else known_categories())
    print(f"\nfuzz: FUZZ_SEED={SEED} FUZZ_COUNT={COUNT} FUZZ_KNOWN={int(WITH_KNOWN)}")
    for refused in hostile_app.REFUSED:
        print(f"fuzz: hostile_app tool refused at build: {refused}")
    report: Report = await run(
        base_url,
        seed=SEED,
        count=COUNT,
        categories=categories,
        concurrency=CONCURRENCY,
        only=CASES,
    )
    print(report.summary())
    if VERBOSE:
        print(report.describe(report.outcomes, limit=len(report.outcomes)))
    left = await idle(everything.router) + await idle(hostile)
    if report.known_failures:
        print("known failures (issue 12):\n" + report.describe(report.known_failures))
    failures = report.failures + (report.known_failures if STRICT else [])
    assert not failures, f"seed {SEED}: {len(failures)} failed\n" + report.describe(failures)
    assert left == 0, f"{left} live workers after the run (seed {SEED})"


PROTECTED: Final = "https://fuzz.example.test/mcp"
ISSUER: Final = "https://issuer.fuzz.example"


@pytest.mark.long
@pytest.mark.timeout(max(120, COUNT // 10))
async def test_fuzz_a_server_behind_oauth(live_server: LiveServers) -> None:
    """The whole harness with a good bearer on every request, plus hostile bearers."""
    import json

    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec

    from genmcp import mcp_router
    from genmcp.auth import JWTVerifier, OAuthResource
    from support.documents import Documents
    from support.server import LiveServer

    schema.require_schema()
    key = ec.generate_private_key(ec.SECP256R1())
    public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    documents = Documents(url="", answers={"/jwks": (200, {"keys": [{**public, "kid": "k"}]})})
    keys_server = LiveServer(documents, lifespan="off")
    documents.url = keys_server.start()
    try:
        verifier = JWTVerifier(ISSUER, jwks_uri=documents.url + "/jwks", algorithms=["ES256"])
        resource = OAuthResource(
            resource=PROTECTED,
            authorization_servers=[ISSUER],
            verifier=verifier,
            required_scopes=["mcp:tools"],
        )
        suite = load("everything_server").build_suite()
        router = mcp_router(suite=suite, auth=resource)
        app = FastAPI()
        app.include_router(router, prefix="/mcp")
        base_url = live_server(app)

        def sign(claims: dict[str, Any], header: dict[str, Any]) -> str:
            return jwt.encode(claims, key, algorithm="ES256", headers={"kid": "k", **header})

        auth.SIGNER.update(sign=sign, issuer=ISSUER, resource=PROTECTED)
        bearer = {"authorization": "Bearer " + sign(auth.claims(), {})}
        categories = set(GENERATORS) - (set() if WITH_KNOWN else known_categories())
        categories -= {name for name in categories if name.startswith("hostile_schema.")}
        count = max(COUNT // 2, 200)
        print(f"\nfuzz behind OAuth: FUZZ_SEED={SEED} count {count}")
        report: Report = await run(
            base_url,
            seed=SEED,
            count=count,
            categories=categories,
            concurrency=CONCURRENCY,
            only=CASES,
            headers=bearer,
        )
        print(report.summary())
        left = await idle(router)
        failures = report.failures + (report.known_failures if STRICT else [])
        assert not failures, f"seed {SEED}: {len(failures)} failed\n" + report.describe(failures)
        assert left == 0, f"{left} live workers after the run (seed {SEED})"
        assert sum(o.case.category.startswith("auth.") for o in report.outcomes) > 0
    finally:
        auth.SIGNER.clear()
        keys_server.stop()
