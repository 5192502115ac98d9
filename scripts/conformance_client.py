#!/usr/bin/env python3
"""The client under test for the conformance suite's client scenarios: genmcp.client.Client.

The suite runs ``conformance_client.py SERVER_URL`` with ``MCP_CONFORMANCE_SCENARIO`` (the
scenario), ``MCP_CONFORMANCE_PROTOCOL_VERSION`` and, for some, ``MCP_CONFORMANCE_CONTEXT``
(JSON) set. Each scenario below does what an application would do with the public client
(list, call, read, answer what the server asks); the client itself finds the era (no
``protocol=``: it probes, 2026-07-28 first, a 2025 session as the fallback). Exit status 0
when the flow ran, 1 (with the error on stderr) when the client raised.

    conformance_client.py score RESULTS_DIR   (used by scripts/conformance.sh MODE=client)
        Judge each run of RESULTS_DIR/runs.txt from its checks.json and the suite's exit
        status, print one line per run and last "conformance-client: P passed, F failed";
        exit 0 only if none failed (a run that left no checks.json fails).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from genmcp.client import (
    Client,
    DPoP,
    IdentityAssertion,
    JWTBearer,
    OAuth,
    PrivateKeyJWT,
    SkillVerificationError,
    follow_redirect,
)

CIMD = "https://conformance-test.local/client-metadata.json"

Flow = Callable[[str], Awaitable[None]]
FLOWS: dict[str, Flow] = {}


def flow(*names: str) -> Callable[[Flow], Flow]:
    def register(function: Flow) -> Flow:
        for name in names:
            FLOWS[name] = function
        return function

    return register


def context() -> dict[str, Any]:
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    return json.loads(raw) if raw else {}


def example_arguments(tool: dict[str, Any]) -> dict[str, Any]:
    """Arguments that satisfy a simple schema: a value for each required property."""
    schema = tool.get("inputSchema") or {}
    samples = {"string": "x", "integer": 1, "number": 1.5, "boolean": True}
    properties = schema.get("properties") or {}
    return {
        name: samples.get((properties.get(name) or {}).get("type"), "x")
        for name in schema.get("required") or ()
    }


@flow("initialize", "tools_call")
async def tools_call(url: str) -> None:
    async with Client(url) as client:
        tools = await client.list_tools()
        if tools:
            await client.call_tool(tools[0]["name"], {"a": 2, "b": 3})


@flow("json-schema-ref-no-deref", "request-metadata")
async def list_only(url: str) -> None:
    async with Client(url) as client:
        await client.connect()
        await client.list_tools()


@flow("json-schema-2020-12-preservation")
async def preservation(url: str) -> None:
    async with Client(url) as client:
        tools = {tool["name"]: tool for tool in await client.list_tools()}
        schema = tools["json_schema_2020_12_tool"]["inputSchema"]
        await client.call_tool("json_schema_echo", {"schema": schema})


@flow("http-standard-headers")
async def standard_headers(url: str) -> None:
    async with Client(url) as client:
        for tool in await client.list_tools():
            await client.call_tool(tool["name"], example_arguments(tool))
        for resource in await client.list_resources():
            await client.read_resource(resource["uri"])
        for prompt in await client.list_prompts():
            await client.get_prompt(prompt["name"])


@flow("http-custom-headers")
async def custom_headers(url: str) -> None:
    async with Client(url) as client:
        await client.list_tools()
        for call in context().get("toolCalls") or ():
            await client.call_tool(call["name"], call.get("arguments") or {})


@flow("http-invalid-tool-headers")
async def invalid_tool_headers(url: str) -> None:
    async with Client(url) as client:
        for tool in await client.list_tools():  # the client drops the invalid ones
            await client.call_tool(tool["name"], example_arguments(tool))


@flow("sep-2322-client-request-state")
async def request_state(url: str) -> None:
    async with Client(url) as client:

        async def confirm(params: dict[str, Any]) -> dict[str, Any]:
            # another call while this one waits for its answer: it must carry no round state
            await client.call_tool("test_mrtr_unrelated", {})
            return {"action": "accept", "content": {"confirmed": True}}

        answering = Client(url, elicitation=confirm)
        async with answering:
            await answering.list_tools()
            await answering.call_tool("test_mrtr_echo_state", {})
            await answering.call_tool("test_mrtr_no_state", {})
            result = await answering.call_tool("test_mrtr_no_result_type", {})
            assert "resultType" not in result or result["resultType"] == "complete"


@flow("sse-retry")
async def sse_retry(url: str) -> None:
    async with Client(url) as client:
        await client.list_tools()
        await client.call_tool("test_reconnection", {})


@flow("elicitation-sep1034-client-defaults")
async def elicitation_defaults(url: str) -> None:
    def accept(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {}}  # the client fills in the defaults

    async with Client(url, elicitation=accept) as client:
        await client.list_tools()
        await client.call_tool("test_client_elicitation_defaults", {})


@flow(
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
)
async def signed_in(url: str) -> None:
    auth = OAuth(client_metadata_url=CIMD, authorize=follow_redirect)
    async with Client(url, auth=auth) as client:
        await client.list_tools()
        await client.call_tool("test-tool", {})


@flow("auth/pre-registration")
async def pre_registered(url: str) -> None:
    given = context()
    auth = OAuth(client_id=given["client_id"], client_secret=given["client_secret"],
                 authorize=follow_redirect)  # fmt: skip
    async with Client(url, auth=auth) as client:
        await client.list_tools()


@flow("auth/client-credentials-basic")
async def client_credentials(url: str) -> None:
    given = context()
    auth = OAuth(client_id=given["client_id"], client_secret=given["client_secret"],
                 grant="client_credentials")  # fmt: skip
    async with Client(url, auth=auth) as client:
        await client.list_tools()


@flow("auth/client-credentials-jwt")
async def client_credentials_jwt(url: str) -> None:
    given = context()
    key = PrivateKeyJWT(given["private_key_pem"], alg=given.get("signing_algorithm"))
    auth = OAuth(client_id=given["client_id"], client_key=key, grant="client_credentials")
    async with Client(url, auth=auth) as client:
        await client.list_tools()


@flow("auth/dpop", "auth/dpop-nonce")
async def dpop(url: str) -> None:
    auth = OAuth(client_metadata_url=CIMD, authorize=follow_redirect, dpop=DPoP())
    async with Client(url, auth=auth) as client:
        await client.list_tools()
        await client.call_tool("test-tool", {})


@flow("auth/wif-jwt-bearer")
async def workload_identity(url: str) -> None:
    given = context()
    auth = OAuth(client_id=given["client_id"], grant=JWTBearer(given["valid_jwt"]))
    async with Client(url, auth=auth) as client:
        await client.list_tools()
        await client.call_tool("test-tool", {})


@flow("auth/enterprise-managed-authorization")
async def enterprise_managed(url: str) -> None:
    given = context()
    grant = IdentityAssertion(id_token=given["idp_id_token"],
                              idp_token_endpoint=given["idp_token_endpoint"],
                              idp_client_id=given["idp_client_id"])  # fmt: skip
    auth = OAuth(client_id=given["client_id"], client_secret=given["client_secret"], grant=grant)
    async with Client(url, auth=auth) as client:
        await client.list_tools()
        await client.call_tool("test-tool", {})


def revision() -> str | None:
    """The revision the suite runs the scenario at (None: let the client probe)."""
    return os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") or None


@flow("sep-2640-client-no-prefetch")
async def skills_listed(url: str) -> None:
    # a host shows the skills it could load; it loads none yet, so it fetches no file.
    # The scenario's revision is the era (a 2025-11-25 session, or 2026-07-28).
    async with Client(url, protocol=revision()) as client:
        await client.skills.list()


@flow("sep-2640-client-verify-digest", "sep-2640-client-verify-size",
      "sep-2640-client-verify-frontmatter")  # fmt: skip
async def skills_loaded(url: str) -> None:
    # a host loads the first skill, then reads each file it lists; a skill whose content
    # fails verification is refused (reported, not used), which is the expected outcome
    async with Client(url, protocol=revision()) as client:
        entries = await client.skills.list()
        try:
            skill = await client.skills.load(entries[0])
            for uri in skill.files:
                await skill.read(uri)
        except SkillVerificationError as refused:
            print(f"refused {refused.uri}: {type(refused).__name__}: {refused}", file=sys.stderr)


# -- scoring ----------------------------------------------------------------------------------


def score(results: Path) -> int:
    """Judge each run listed in ``runs.txt`` (``scenario@revision suite-exit-status``)."""
    passed = failed = 0
    for line in (results / "runs.txt").read_text().splitlines():
        run, _, rc = line.partition(" ")
        scenario, _, revision = run.rpartition("@")
        found = sorted((results / revision).glob(f"{scenario}-*/checks.json"))
        checks = json.loads(found[-1].read_text()) if found else []
        bad = [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]
        ok = rc == "0" and not bad and any(c.get("status") == "SUCCESS" for c in checks)
        passed, failed = passed + ok, failed + (not ok)
        note = "; ".join(f"{c.get('name')}: {c.get('errorMessage') or c.get('status')}"
                         for c in bad)[:300]  # fmt: skip
        if not found:
            note = "no checks.json: the scenario did not run"
        elif rc != "0" and not note:
            note = f"the suite exited {rc} (the client failed: see harness.log)"
        print(f"  {'PASS' if ok else 'FAIL'}  {scenario} @ {revision}"
              + (f"  ({note})" if note else ""))  # fmt: skip
    print(f"conformance-client: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[1] == "score":
        return score(Path(argv[2]))
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if len(argv) != 2 or scenario not in FLOWS:
        print(f"usage: MCP_CONFORMANCE_SCENARIO=<{'|'.join(sorted(FLOWS))}> "
              f"{argv[0]} SERVER_URL", file=sys.stderr)  # fmt: skip
        return 2
    try:
        asyncio.run(FLOWS[scenario](argv[1]))
    except Exception as exc:
        print(f"{scenario}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
