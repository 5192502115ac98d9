"""Fuzz cases for an OAuth-protected server: hostile `Authorization` headers.

Owns: `GENERATORS` (`auth.hostile_authorization`: a correct request whose bearer is
missing, of another scheme, malformed, forged (`alg: none`, HS256, a made-up `kid`, a
garbage signature), oversized, or carries claims a verifier must refuse: an expired `exp`,
`exp` as a numeric string, a scope list joined by Unicode spaces) and `Forger`, which signs
tokens with the test's key. Each such case must be 400, 401 or 403, never 5xx nor -32603;
the runner sends the good bearer with every other case, so the whole harness runs behind
auth too. No genmcp import (the harness is black-box).
"""

from __future__ import annotations

import base64
import json
import random
import time
from collections.abc import Callable
from typing import Any, Final

from fuzz import values
from fuzz.cases import LATEST, Case, Catalog, encode, modern_headers, modern_request

Sign = Callable[[dict[str, Any], dict[str, Any]], str]
"""(claims, extra header fields) -> a token signed with the server's trusted key."""

SIGNER: dict[str, Any] = {}
"""Set by the test: ``sign`` (a ``Sign``), ``issuer`` and ``resource``."""


def _b64(value: Any) -> str:
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    found = {
        "iss": SIGNER.get("issuer", "https://as"),
        "aud": SIGNER.get("resource", "https://r/mcp"),
        "sub": "fuzzer",
        "scope": "mcp:tools",
        "exp": now + 600,
    }
    found.update(overrides)
    return {key: value for key, value in found.items() if value is not None}


def _bearer(rng: random.Random) -> str:
    sign: Sign | None = SIGNER.get("sign")
    now = int(time.time())
    choices: list[Callable[[], str]] = [
        lambda: "",
        lambda: "Basic " + base64.b64encode(b"user:pw").decode(),
        lambda: "Bearer",
        lambda: "Bearer  two words",
        lambda: "Bearer " + values.garbage_token(rng),
        lambda: "Bearer " + "A" * rng.choice((2000, 7000)),
        lambda: "bearer " + _b64({"alg": "none"}) + "." + _b64(claims()) + ".",
        lambda: "Bearer " + _b64({"alg": "HS256", "kid": "k"}) + "." + _b64(claims()) + ".c2ln",
        lambda: (
            "Bearer "
            + _b64({"alg": "ES256", "kid": f"made-up-{rng.randrange(10**9)}"})
            + "."
            + _b64(claims())
            + "."
            + _b64(b"\x00" * 64)
        ),
        lambda: "Bearer ..",
        lambda: "Bearer " + _b64({"alg": "ES256"}) + "." + _b64(b"\xff\xfe") + ".x",
    ]
    if sign is not None:
        choices += [
            lambda: "Bearer " + sign(claims(exp=now - 3600), {}),
            lambda: "Bearer " + sign(claims(exp=str(now + 600)), {}),
            lambda: "Bearer " + sign(claims(nbf=str(now - 5)), {}),
            lambda: "Bearer " + sign(claims(aud="https://elsewhere/mcp"), {}),
            lambda: "Bearer " + sign(claims(iss="https://evil"), {}),
            lambda: "Bearer " + sign(claims(scope="nothing\u3000mcp:tools"), {}),
            lambda: "Bearer " + sign(claims(scope="nothing\tmcp:tools"), {}),
            lambda: "Bearer " + sign(claims(sub=None, exp=None), {}),
            lambda: "Bearer " + sign(claims(), {"kid": "other"}),
            lambda: "Bearer " + sign(claims(exp=rng.choice((None, [1], {}, True, "soon"))), {}),
        ]
    return rng.choice(choices)()


def hostile_authorization(rng: random.Random, catalog: Catalog) -> Case:
    method = rng.choice(("tools/list", "tools/call", "prompts/list", "tasks/get"))
    params: dict[str, Any] = {}
    if method == "tools/call":
        params = {"name": rng.choice(sorted(catalog.tools)), "arguments": {}}
    elif method == "tasks/get":
        params = {"taskId": values.garbage_token(rng) or "t"}
    message = modern_request(method, params, rng.randint(1, 2**31))
    headers = modern_headers(message)
    headers["authorization"] = _bearer(rng)
    case = Case(
        "auth.hostile_authorization",
        encode(message),
        headers,
        rpc_method=method,
        versions=(LATEST,),
    )
    case.expect_status = (400, 401, 403)
    return case


GENERATORS: Final = {"auth.hostile_authorization": (hostile_authorization, 12)}
"""Category -> (generator, weight); used only against the protected server."""
